// @ts-check
// Connecting and disconnecting: the options `McpClient.connect` gets (the
// handlers that answer the server through dialogs, the notification
// listener), the status line, and the server panel.

import { answerElicitation, answerSampling } from './dialogs.js';
import { append, clear, describeError, el, json } from './dom.js';
import { center, connectBar, eventsPanel, serverInfo } from './elements.js';
import { LEVELS, clientNote, logEvent } from './events.js';
import { reload, renderCounts, renderList } from './lists.js';
import { resetState, serverName, state } from './state.js';
import { placeholder } from './views.js';
import { renderWatch, setWatchStatus, watchServer } from './watch.js';

/** @typedef {import('./pkg/index.js').McpClient} McpClient */
/** @typedef {import('./pkg/index.js').ConnectOptions} ConnectOptions */
/** @typedef {import('./pkg/index.js').Root} Root */
/** @typedef {import('./pkg/index.js').ServerNotification} ServerNotification */
/** @typedef {import('./pkg/index.js').Era} Era */

// Loaded dynamically so that the page still works (and says what is wrong)
// when the package is missing.
const PACKAGE = './pkg/index.js';
/** @type {Promise<typeof import('./pkg/index.js')>} */
const loadingPackage = import(PACKAGE);

/** The `McpClient` class, once the package loaded. */
export async function mcpClient() {
  try {
    return (await loadingPackage).McpClient;
  } catch (error) {
    throw new Error(`the mcp-edge package did not load from ${PACKAGE} (${describeError(error)}); `
      + '`cargo xtask www` builds and serves it');
  }
}

const CLIENT_INFO = { name: 'mcp-edge-inspector', title: 'MCP inspector (mcp-edge)', version: '0.1.0' };
const STORED_URL = 'mcp-inspector-url';

/**
 * The status line of the bar.
 * @param {'idle' | 'connecting' | 'connected' | 'error'} kind
 * @param {string} text
 */
export function setStatus(kind, text) {
  const status = connectBar.status;
  status.dataset.state = kind;
  status.textContent = text;
}

/**
 * The URL the page connected to last (or null).
 * @returns {string | null}
 */
export function storedUrl() {
  try {
    return localStorage.getItem(STORED_URL);
  } catch {
    return null; // storage may be unavailable
  }
}

/**
 * The session kept across reloads of this tab: `McpClient.snapshot()` and
 * the URL it belongs to, in sessionStorage (no token is in a snapshot).
 */
const STORED_SNAPSHOT = 'mcp-inspector-snapshot';

/**
 * The snapshot kept for `url`, if any.
 * @param {string} url
 * @returns {import('./pkg/index.js').ClientSnapshot | null}
 */
function storedSnapshot(url) {
  try {
    const kept = JSON.parse(sessionStorage.getItem(STORED_SNAPSHOT) ?? 'null');
    return kept?.url === url ? kept.snapshot : null;
  } catch {
    return null; // storage may be unavailable, or hold something else
  }
}

/**
 * Whether a reload of this tab has a session to continue with `url`.
 * @param {string} url
 */
export function hasStoredSession(url) {
  return storedSnapshot(url) !== null;
}

/**
 * Keeps the current session for the next load of this tab and lets the
 * client go without ending the session (no DELETE): called when the page is
 * hidden for good (a reload, a navigation, the tab closed).
 */
export function keepSession() {
  const client = state.client;
  if (!client) return;
  try {
    const snapshot = client.snapshot();
    if (snapshot) sessionStorage.setItem(STORED_SNAPSHOT, JSON.stringify({ url: connectedUrl, snapshot }));
  } catch {
    // storage may be unavailable: the next load connects afresh
  }
  client.detach().catch(() => {});
}

function forgetSession() {
  try {
    sessionStorage.removeItem(STORED_SNAPSHOT);
  } catch {
    // storage may be unavailable
  }
}

/** The URL of the current connection. */
let connectedUrl = '';

/** @param {string} url */
function storeUrl(url) {
  try {
    localStorage.setItem(STORED_URL, url);
  } catch {
    // storage may be unavailable
  }
}

/** Which lists each change notification is about. */
const LIST_CHANGES = /** @type {const} */ ({
  'notifications/tools/list_changed': 'tools',
  'notifications/resources/list_changed': 'resources',
  'notifications/prompts/list_changed': 'prompts',
});

/**
 * A notification from the server: logged, and list changes reload the list.
 * @param {number} generation the connection it came on
 * @param {ServerNotification} notification
 */
function onNotification(generation, notification) {
  if (generation !== state.generation) return;
  /** @type {{ method?: string, params?: any }} */
  const received = notification ?? {};
  const { method, params } = received;
  if (method === 'notifications/message') {
    const level = LEVELS.includes(params?.level) ? params.level : 'info';
    const data = typeof params?.data === 'string' ? params.data : json(params?.data);
    logEvent({ method, level, summary: params?.logger ? `${params.logger}: ${data}` : data });
    return;
  }
  const list = LIST_CHANGES[/** @type {keyof LIST_CHANGES} */ (method)];
  if (list) {
    logEvent({ method, summary: `the ${list} changed: reloading` });
    // It may come before connect() resolved: reload once the client is ready.
    state.ready?.then(() => {
      if (generation === state.generation) reload(list);
    });
    return;
  }
  if (method === 'notifications/resources/updated') {
    logEvent({ method, summary: `updated: ${params?.uri ?? ''}`, details: params });
    return;
  }
  logEvent({ method, details: params });
}

/**
 * Fills the server panel from what the connection settled.
 * @param {McpClient} client
 */
function showServerInfo(client) {
  /** @type {Partial<import('./pkg/index.js').Implementation>} */
  const info = client.getServerVersion() ?? {};
  serverInfo.title.textContent = String(info.title ?? info.name ?? 'Unnamed server');
  serverInfo.name.textContent = info.title ? String(info.name ?? '') : '';
  serverInfo.version.textContent = String(info.version ?? '?');
  const version = client.getNegotiatedProtocolVersion();
  serverInfo.protocol.textContent = `${version ?? '?'} · ${client.era}`;
  serverInfo.protocol.dataset.era = client.era;
  serverInfo.transport.textContent = String(client.transport ?? '?');
  const caps = client.getServerCapabilities() ?? {};
  const capChips = Object.entries(caps).map(([name, value]) => {
    const flags = value && typeof value === 'object'
      ? Object.entries(value).filter(([, v]) => v === true).map(([k]) => k) : [];
    return flags.length ? `${name} (${flags.join(', ')})` : name;
  });
  append(clear(serverInfo.capabilities), [capChips.length ? capChips.map((c) => el('span', { class: 'chip' }, c)) : el('span', { class: 'muted' }, 'none')]);
  const instructions = client.getInstructions();
  serverInfo.instructions.hidden = !instructions;
  serverInfo.instructionsText.textContent = instructions ?? '';
  eventsPanel.logLevel.disabled = !caps.logging;
  serverInfo.panel.hidden = false;
}

/**
 * The roots offered to the server: one URI a line, named after its last segment.
 * @returns {Root[]}
 */
function roots() {
  return connectBar.roots.value.split('\n').map((line) => line.trim()).filter(Boolean).map((uri) => {
    const name = uri.replace(/\/+$/, '').split('/').pop();
    return name ? { uri, name: decodeURIComponent(name) } : { uri };
  });
}

/** The page as it is before any connection. */
export function resetUi() {
  resetState();
  serverInfo.panel.hidden = true;
  eventsPanel.logLevel.value = '';
  eventsPanel.logLevel.disabled = true;
  setWatchStatus('Not watching');
  renderWatch();
  renderCounts();
  renderList();
  clear(center.detail).append(placeholder('Welcome', 'Enter the URL of an MCP server and connect; the transport is chosen automatically.'));
}

/**
 * Whether the connect controls can be used (not while connecting).
 * @param {boolean} enabled
 */
function enableConnect(enabled) {
  connectBar.connect.disabled = !enabled;
  connectBar.url.disabled = !enabled;
  connectBar.era.disabled = !enabled;
}

export async function disconnect() {
  const client = state.client;
  state.generation += 1;
  state.client = null;
  state.ready = null;
  connectBar.disconnect.hidden = true;
  connectBar.connect.hidden = false;
  connectBar.url.disabled = false;
  connectBar.era.disabled = false;
  resetUi();
  // Disconnecting on purpose ends the session: nothing to continue.
  forgetSession();
  if (client) {
    setStatus('idle', 'Disconnecting…');
    // Closing the client ends the watch too (its `closed` settles).
    try {
      await client.close();
    } catch {
      // closing is best effort
    }
    clientNote('disconnected');
  }
  setStatus('idle', 'Not connected');
}

/**
 * Connects to the server at `url` (after closing any current connection)
 * and loads its lists.
 * @param {string} url
 */
export async function connect(url) {
  const kept = storedSnapshot(url);
  await disconnect();
  const generation = ++state.generation;
  setStatus('connecting', `Connecting to ${url}…`);
  enableConnect(false);
  const context = { serverName, log: (/** @type {string} */ text) => clientNote(text) };
  const seconds = Number(connectBar.timeout.value);
  /** @type {ConnectOptions} */
  const options = {
    clientInfo: CLIENT_INFO,
    transport: 'auto',
    era: /** @type {'auto' | Era} */ (connectBar.era.value),
    timeout: Number.isFinite(seconds) && seconds > 0 ? seconds * 1000 : 60_000,
    sampling: (params, extra) => {
      logEvent({ method: 'sampling/createMessage', summary: 'the server asks for a model reply', details: params });
      return answerSampling(params, extra, context);
    },
    elicitation: (params, extra) => {
      logEvent({ method: 'elicitation/create', summary: String(params?.message ?? ''), details: params });
      return answerElicitation(params, extra, context);
    },
    roots: () => {
      const list = roots();
      clientNote(`roots/list: answered ${list.length} root${list.length === 1 ? '' : 's'}`);
      return list;
    },
    onnotification: (notification) => onNotification(generation, notification),
    onsessionrestarted: () => generation === state.generation && clientNote('the server forgot the session: a new one was started', 'warning'),
  };
  // OAuth: when the server answers 401, sign in through a popup window.
  // The redirect comes back to oauth-callback.html beside this page (also
  // when the page is hosted under a sub-path).
  if (connectBar.useOAuth.checked) {
    options.auth = { authorize: 'popup', redirectUri: new URL('oauth-callback.html', location.href).href };
  }

  /** @type {() => void} */
  let resolveReady = () => {};
  state.ready = new Promise((resolve) => { resolveReady = resolve; });
  let client;
  try {
    const McpClient = await mcpClient();
    // After a reload: continue the session (no new initialize), unless the
    // era selector asks for another era than the kept session's.
    if (kept && (options.era === 'auto' || options.era === kept.era)) {
      try {
        client = await McpClient.restore(kept, url, options);
        clientNote(`continued the session from before the reload (${kept.sessionId ?? 'no session id'})`);
      } catch (error) {
        clientNote(`could not continue the kept session (${describeError(error)}): connecting afresh`, 'warning');
      }
    }
    client ??= await McpClient.connect(url, options);
  } catch (error) {
    if (generation !== state.generation) return;
    state.ready = null;
    setStatus('error', `Could not connect: ${describeError(error)}`);
    clientNote(`could not connect to ${url}: ${describeError(error)}`, 'error');
    enableConnect(true);
    return;
  }
  if (generation !== state.generation) {
    client.close().catch(() => {});
    return;
  }
  state.client = client;
  connectedUrl = url;
  connectBar.connect.disabled = false;
  connectBar.connect.hidden = true;
  connectBar.disconnect.hidden = false;
  storeUrl(url);
  showServerInfo(client);
  watchServer(url);
  setStatus('connected', `Connected to ${url}`);
  const version = client.getNegotiatedProtocolVersion();
  clientNote(`connected to ${serverName()} (${version} · ${client.era}, ${client.transport})`);
  await Promise.all(/** @type {const} */ (['tools', 'resources', 'prompts']).map((tab) => reload(tab)));
  resolveReady();
}
