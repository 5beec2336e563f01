// MCP inspector: connect to a server with mcp-edge, browse and use its
// tools, resources and prompts, watch its notifications, answer its
// elicitation and sampling requests.
//
// The package is imported from ./pkg/ (`cargo xtask www` serves
// target/npm/pkg/ there; to host the page elsewhere, copy it to www/pkg/).

import { answerElicitation, answerSampling } from './dialogs.js';
import { $, append, clear, clock, describeError, el, json } from './dom.js';
import { renderMessage, renderResourceContents, renderToolResult } from './render.js';
import { formFits, schemaForm } from './schema-form.js';

// Loaded dynamically so that the page still works (and says what is wrong)
// when the package is missing.
const PACKAGE = './pkg/index.js';
const loadingPackage = import(PACKAGE);

async function mcpClient() {
  try {
    return (await loadingPackage).McpClient;
  } catch (error) {
    throw new Error(`the mcp-edge package did not load from ${PACKAGE} (${describeError(error)}); `
      + '`cargo xtask www` builds and serves it');
  }
}

const CLIENT_INFO = { name: 'mcp-edge-inspector', title: 'MCP inspector (mcp-edge)', version: '0.1.0' };
/** Tool calls may wait on the user (elicitation, sampling): 10 minutes. */
const TOOL_TIMEOUT_MS = 10 * 60 * 1000;
const MAX_EVENTS = 500;
const MAX_ACTIVITY = 100;
const MAX_WATCH = 100;

const state = {
  client: null,
  /** Bumped by every connect and disconnect; stale callbacks check it. */
  generation: 0,
  ready: null,
  tab: 'tools',
  tools: [], toolsCursor: undefined,
  resources: [], resourcesCursor: undefined,
  templates: [], templatesCursor: undefined,
  prompts: [], promptsCursor: undefined,
  selected: null, // {kind, key}
  subscriptions: new Set(),
  /** The open `client.listen` subscription of the Watch panel. */
  watch: null,
  watchBusy: false,
  /** The server the Watch panel's resource URIs were typed for. */
  watchServer: null,
};

// ---------------------------------------------------------------- status

function setStatus(kind, text) {
  const status = $('#status');
  status.dataset.state = kind;
  status.textContent = text;
}

/** The protocol era of a negotiated version: 2026-07-28 and later are stateless. */
function eraOf(version) {
  return typeof version === 'string' && version >= '2026-07-28' ? 'stateless' : 'handshake';
}

function serverName() {
  const info = state.client?.getServerVersion();
  return info ? `${info.title ?? info.name} ${info.version}` : 'the server';
}

// ---------------------------------------------------------------- notifications panel

/** Adds an entry to the notifications panel (newest first). */
function logEvent({ source = 'server', method, level, summary, details }) {
  const list = $('#events');
  const entry = el('li', { class: `event source-${source}${level ? ` level-${level}` : ''}`, dataset: { method: method ?? '' } },
    el('div', { class: 'event-head' },
      el('time', {}, clock()),
      el('span', { class: 'event-method mono' }, method ?? source),
      level ? el('span', { class: `level-badge level-${level}` }, level) : null),
    summary !== undefined ? el('div', { class: 'event-body' }, summary) : null,
    details !== undefined ? el('details', { class: 'event-details' }, el('summary', {}, 'params'), el('pre', {}, json(details))) : null);
  list.prepend(entry);
  while (list.children.length > MAX_EVENTS) list.lastElementChild.remove();
}

function clientNote(text, level) {
  logEvent({ source: 'client', method: 'client', summary: text, level });
}

const LEVELS = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'];

function onNotification(generation, notification) {
  if (generation !== state.generation) return;
  const { method, params } = notification ?? {};
  if (method === 'notifications/message') {
    const level = LEVELS.includes(params?.level) ? params.level : 'info';
    const data = typeof params?.data === 'string' ? params.data : json(params?.data);
    logEvent({ method, level, summary: params?.logger ? `${params.logger}: ${data}` : data });
    return;
  }
  const lists = {
    'notifications/tools/list_changed': 'tools',
    'notifications/resources/list_changed': 'resources',
    'notifications/prompts/list_changed': 'prompts',
  };
  if (lists[method]) {
    logEvent({ method, summary: `the ${lists[method]} changed: reloading` });
    // It may come before connect() resolved: reload once the client is ready.
    state.ready?.then(() => generation === state.generation && reload(lists[method]));
    return;
  }
  if (method === 'notifications/resources/updated') {
    logEvent({ method, summary: `updated: ${params?.uri ?? ''}`, details: params });
    return;
  }
  logEvent({ method, details: params });
}

// ---------------------------------------------------------------- watch panel (client.listen)

function watchFilter() {
  const filter = {};
  if ($('#watch-tools').checked) filter.toolsListChanged = true;
  if ($('#watch-prompts').checked) filter.promptsListChanged = true;
  if ($('#watch-resources').checked) filter.resourcesListChanged = true;
  const uris = $('#watch-uri').value.split(/\s+/).filter(Boolean);
  if (uris.length) filter.resourceSubscriptions = uris;
  return filter;
}

/** "tools and resources list changes; updates of demo://a" */
function describeFilter(filter) {
  const lists = ['tools', 'prompts', 'resources'].filter((kind) => filter?.[`${kind}ListChanged`]);
  const uris = Array.isArray(filter?.resourceSubscriptions) ? filter.resourceSubscriptions : [];
  const listed = lists.length > 1 ? `${lists.slice(0, -1).join(', ')} and ${lists.at(-1)}` : lists[0];
  return [listed ? `${listed} list changes` : null, uris.length ? `updates of ${uris.join(' ')}` : null]
    .filter(Boolean).join('; ') || 'nothing';
}

/** Whether the server's capabilities announce any change notification. */
function watchable() {
  const caps = state.client?.getServerCapabilities() ?? {};
  return Boolean(caps.tools?.listChanged || caps.prompts?.listChanged || caps.resources?.listChanged || caps.resources?.subscribe);
}

function setWatchStatus(text, level) {
  const status = $('#watch-status');
  status.textContent = text;
  status.classList.toggle('form-error', level === 'error');
}

function renderWatch() {
  const watching = Boolean(state.watch);
  $('#watch').dataset.state = watching ? 'on' : 'off';
  const toggle = $('#watch-toggle');
  toggle.textContent = watching ? 'Stop' : 'Start';
  toggle.classList.toggle('primary', !watching);
  toggle.disabled = !state.client || state.watchBusy || (!watching && !watchable());
  for (const input of $('#watch-form').querySelectorAll('input')) input.disabled = watching || state.watchBusy;
}

/** Adds a received notification to the Watch log (newest first). */
function watchLog({ method, params } = {}) {
  const list = $('#watch-log');
  list.prepend(el('li', { class: 'event', dataset: { method: method ?? '' } },
    el('div', { class: 'event-head' }, el('time', {}, clock()), el('span', { class: 'event-method mono' }, String(method ?? '?'))),
    params !== undefined ? el('pre', { class: 'watch-params' }, JSON.stringify(params)) : null));
  while (list.children.length > MAX_WATCH) list.lastElementChild.remove();
}

async function startWatch() {
  const { client, generation } = state;
  if (!client || state.watch || state.watchBusy) return;
  const filter = watchFilter();
  state.watchBusy = true;
  renderWatch();
  setWatchStatus('Starting…');
  try {
    const subscription = await client.listen(filter, (n) => generation === state.generation && watchLog(n));
    if (generation !== state.generation) {
      subscription.close();
      return;
    }
    state.watch = subscription;
    setWatchStatus(`Watching ${describeFilter(subscription.granted)} (subscription ${subscription.id})`);
    clientNote(`watch started: ${describeFilter(subscription.granted)}`);
    subscription.closed.then(() => watchEnded(subscription), (error) => watchEnded(subscription, error));
  } catch (error) {
    if (generation === state.generation) setWatchStatus(`Could not start: ${describeError(error)}`, 'error');
  } finally {
    if (generation === state.generation) state.watchBusy = false;
    renderWatch();
  }
}

/** The server ended the watch, or the connection broke. */
function watchEnded(subscription, error) {
  if (state.watch !== subscription) return; // stopped here
  state.watch = null;
  renderWatch();
  setWatchStatus(error ? `The watch broke: ${describeError(error)}` : 'The server ended the watch', error ? 'error' : undefined);
}

async function stopWatch() {
  const subscription = state.watch;
  if (!subscription) return;
  const generation = state.generation;
  state.watch = null;
  state.watchBusy = true;
  renderWatch();
  setWatchStatus('Stopping…');
  await subscription.close(); // never rejects
  if (generation !== state.generation) return;
  state.watchBusy = false;
  renderWatch();
  setWatchStatus('Stopped');
  clientNote('watch stopped');
}

// ---------------------------------------------------------------- activity (one card per request)

/**
 * A card in the activity column for one request: status, progress bar,
 * result. Returns handles to update it.
 */
function activityCard({ method, title, args, onCancel }) {
  const statusBadge = el('span', { class: 'call-status' }, 'running');
  const cancel = onCancel ? el('button', { type: 'button', class: 'small', onclick: onCancel }, 'Cancel') : null;
  const progressBar = el('progress', { max: 1 });
  const progressText = el('span', { class: 'progress-text mono' });
  const progressMessage = el('span', { class: 'progress-message muted' });
  const progressRow = el('div', { class: 'progress-row', hidden: true }, progressBar, progressText, progressMessage);
  const result = el('div', { class: 'call-result' });
  const started = performance.now();
  const elapsed = el('span', { class: 'elapsed muted' });
  const card = el('article', { class: 'call', dataset: { status: 'running', method, name: title } },
    el('header', {},
      el('span', { class: 'call-method mono' }, method),
      el('b', { class: 'call-title' }, title),
      statusBadge, elapsed,
      el('span', { class: 'spacer' }),
      el('time', { class: 'muted' }, clock()),
      cancel),
    args !== undefined && !(typeof args === 'object' && args && !Object.keys(args).length)
      ? el('details', { class: 'call-args' }, el('summary', {}, 'arguments'), el('pre', {}, json(args)))
      : null,
    progressRow,
    result);
  const activity = $('#activity');
  activity.prepend(card);
  while (activity.children.length > MAX_ACTIVITY) activity.lastElementChild.remove();
  return {
    card,
    progress({ progress, total, message }) {
      progressRow.hidden = false;
      if (typeof total === 'number' && total > 0) {
        progressBar.max = total;
        progressBar.value = Math.min(progress, total);
        progressText.textContent = `${progress}/${total}`;
      } else {
        progressBar.removeAttribute('value'); // indeterminate
        progressText.textContent = String(progress);
      }
      progressMessage.textContent = message ? String(message) : '';
    },
    finish(status, ...content) {
      card.dataset.status = status;
      statusBadge.textContent = { ok: 'done', error: 'failed', cancelled: 'cancelled' }[status] ?? status;
      elapsed.textContent = `${((performance.now() - started) / 1000).toFixed(1)} s`;
      cancel?.remove();
      append(clear(result), content);
    },
  };
}

function errorBox(error) {
  return el('div', { class: 'error-box' }, describeError(error));
}

/** Runs one request with a card; cancellable when `cancellable`. */
async function tracked({ method, title, args }, run, render) {
  const client = state.client;
  if (!client) return;
  const controller = new AbortController();
  const card = activityCard({ method, title, args, onCancel: () => controller.abort() });
  try {
    const result = await run(client, { signal: controller.signal, onprogress: (p) => card.progress(p) });
    const [status, content] = render(result);
    card.finish(status, content);
  } catch (error) {
    card.finish(error?.name === 'AbortError' ? 'cancelled' : 'error', errorBox(error));
  }
}

const resultActions = {
  readResource: (uri) => readResource(uri),
};

function callTool(tool, args) {
  return tracked({ method: 'tools/call', title: tool.name, args },
    (client, options) => client.callTool({ name: tool.name, arguments: args },
      { ...options, timeout: TOOL_TIMEOUT_MS }),
    (result) => [result?.isError ? 'error' : 'ok', renderToolResult(result, resultActions)]);
}

function readResource(uri) {
  return tracked({ method: 'resources/read', title: uri },
    (client, options) => client.readResource({ uri }, options),
    (result) => {
      const contents = Array.isArray(result?.contents) ? result.contents : [];
      return ['ok', contents.length ? contents.map(renderResourceContents) : el('div', { class: 'muted' }, '(no contents)')];
    });
}

function getPrompt(prompt, args) {
  return tracked({ method: 'prompts/get', title: prompt.name, args },
    (client, options) => client.getPrompt({ name: prompt.name, arguments: args }, options),
    (result) => ['ok', [
      result?.description ? el('p', { class: 'muted' }, String(result.description)) : null,
      (Array.isArray(result?.messages) ? result.messages : []).map((m) => renderMessage(m, resultActions)),
    ]]);
}

// ---------------------------------------------------------------- lists

const KINDS = {
  tools: { items: () => state.tools, key: (t) => t.name },
  resources: { items: () => state.resources, key: (r) => r.uri },
  templates: { items: () => state.templates, key: (t) => t.uriTemplate },
  prompts: { items: () => state.prompts, key: (p) => p.name },
};

async function loadPage(kind, more = false) {
  const client = state.client;
  const generation = state.generation;
  const caps = client.getServerCapabilities() ?? {};
  const capability = kind === 'templates' ? 'resources' : kind;
  if (!caps[capability]) {
    state[kind] = [];
    state[`${kind}Cursor`] = undefined;
    return;
  }
  const cursor = more ? state[`${kind}Cursor`] : undefined;
  if (more && !cursor) return; // this list has no more pages
  const params = cursor ? { cursor } : {};
  const call = {
    tools: () => client.listTools(params),
    resources: () => client.listResources(params),
    templates: () => client.listResourceTemplates(params),
    prompts: () => client.listPrompts(params),
  }[kind];
  const page = await call();
  if (generation !== state.generation) return;
  const field = { tools: 'tools', resources: 'resources', templates: 'resourceTemplates', prompts: 'prompts' }[kind];
  const items = Array.isArray(page?.[field]) ? page[field] : [];
  state[kind] = more ? state[kind].concat(items) : items;
  state[`${kind}Cursor`] = page?.nextCursor || undefined;
}

async function reload(tab, more = false) {
  const kinds = tab === 'resources' ? ['resources', 'templates'] : [tab];
  try {
    await Promise.all(kinds.map((kind) => loadPage(kind, more)));
  } catch (error) {
    clientNote(`could not list ${tab}: ${describeError(error)}`, 'error');
  }
  renderCounts();
  if (state.tab === tab) renderList();
  // The selected item may have changed (or gone).
  if (state.selected && kinds.includes(state.selected.kind)) showSelected();
}

function renderCounts() {
  const count = (kind, extra = 0) => (state.client ? String(state[kind].length + extra) : '');
  $('#count-tools').textContent = count('tools');
  $('#count-resources').textContent = count('resources', state.templates.length);
  $('#count-prompts').textContent = count('prompts');
}

function listItem(kind, item) {
  const key = KINDS[kind].key(item);
  const selected = state.selected?.kind === kind && state.selected.key === key;
  const title = item.title ?? item.annotations?.title;
  const primary = kind === 'resources' || kind === 'templates' ? (title ?? item.name) : item.name;
  const secondary = kind === 'resources' ? item.uri : kind === 'templates' ? item.uriTemplate : title;
  return el('button', {
    type: 'button', class: 'item', role: 'option', 'aria-selected': String(selected),
    dataset: { kind, name: item.name ?? '', key },
    onclick: () => select(kind, key),
  },
  el('span', { class: 'item-name' }, String(primary ?? '')),
  secondary && secondary !== primary ? el('span', { class: 'item-sub mono' }, String(secondary)) : null,
  item.description ? el('span', { class: 'item-desc' }, String(item.description)) : null);
}

function renderList() {
  const list = clear($('#list'));
  const filter = $('#filter').value.trim().toLowerCase();
  const matches = (item) => !filter || [item.name, item.title, item.description, item.uri, item.uriTemplate]
    .some((v) => typeof v === 'string' && v.toLowerCase().includes(filter));
  const more = (kind) => (state[`${kind}Cursor`]
    ? el('button', { type: 'button', class: 'small more', onclick: () => reload(state.tab, true) }, 'Load more')
    : null);
  const section = (kind, heading) => {
    const items = state[kind].filter(matches);
    if (!state[kind].length) return null;
    return [heading ? el('h3', { class: 'list-heading' }, heading) : null,
      items.map((item) => listItem(kind, item)), more(kind)];
  };
  const caps = state.client?.getServerCapabilities() ?? {};
  let empty = 'Connect to a server to see what it offers.';
  if (state.client) {
    if (state.tab === 'resources') {
      append(list, [section('resources', state.templates.length ? 'Resources' : null), section('templates', 'Templates')]);
      empty = caps.resources ? 'No resources.' : 'This server offers no resources.';
    } else {
      append(list, [section(state.tab)]);
      empty = caps[state.tab] ? `No ${state.tab}.` : `This server offers no ${state.tab}.`;
    }
    if (filter && !list.querySelector('.item')) empty = 'Nothing matches the filter.';
  }
  $('#list-empty').textContent = empty;
  $('#list-empty').hidden = Boolean(list.querySelector('.item'));
}

function selectTab(tab) {
  state.tab = tab;
  for (const button of document.querySelectorAll('[role=tab]')) {
    button.setAttribute('aria-selected', String(button.dataset.tab === tab));
  }
  renderList();
}

function select(kind, key) {
  state.selected = { kind, key };
  renderList();
  showSelected();
  $('.center').scrollTop = 0;
}

// ---------------------------------------------------------------- detail pane

function chips(values) {
  return el('div', { class: 'chips' }, values.map((v) => el('span', { class: 'chip' }, v)));
}

function placeholder(title, text) {
  return el('div', { class: 'placeholder' }, el('h2', {}, title), el('p', {}, text));
}

function showSelected() {
  const detail = clear($('#detail'));
  const { kind, key } = state.selected ?? {};
  const item = kind ? KINDS[kind].items().find((i) => KINDS[kind].key(i) === key) : null;
  if (!item) {
    detail.append(placeholder('Nothing selected', 'Pick a tool, resource or prompt on the left.'));
    return;
  }
  const view = { tools: toolView, resources: resourceView, templates: templateView, prompts: promptView }[kind];
  detail.append(view(item));
}

function heading(item, kindLabel) {
  const title = item.title ?? item.annotations?.title;
  return el('div', { class: 'card-head' },
    el('span', { class: 'kind-label' }, kindLabel),
    el('h2', {}, String(title ?? item.name ?? item.uri ?? '')),
    title && item.name ? el('code', { class: 'muted' }, String(item.name)) : null);
}

function toolView(tool) {
  const schema = tool.inputSchema ?? { type: 'object' };
  const hints = [];
  const a = tool.annotations ?? {};
  if (a.readOnlyHint) hints.push('read-only');
  if (a.destructiveHint === true && !a.readOnlyHint) hints.push('destructive');
  if (a.idempotentHint) hints.push('idempotent');
  if (a.openWorldHint) hints.push('open world');
  if (tool.execution?.taskSupport && tool.execution.taskSupport !== 'forbidden') hints.push(`tasks: ${tool.execution.taskSupport}`);

  const fits = formFits(schema);
  const generated = fits ? schemaForm(schema, { idPrefix: 'tool' }) : null;
  const raw = el('textarea', { class: 'mono raw-json', rows: 8, spellcheck: 'false', 'aria-label': 'Arguments as JSON' });
  raw.value = '{}';
  const formError = el('p', { class: 'form-error', role: 'alert', hidden: true });
  let mode = fits ? 'form' : 'json';
  const formBox = el('div', { class: 'args-form' });
  const modeButtons = {};

  function setMode(next) {
    if (next === 'json' && mode === 'form' && generated) {
      const read = generated.read();
      raw.value = json(read.ok ? read.value : {});
    }
    mode = next;
    for (const [m, b] of Object.entries(modeButtons)) b.setAttribute('aria-pressed', String(m === mode));
    formBox.replaceChildren(mode === 'form' ? generated.element : raw);
    formError.hidden = true;
  }
  if (generated) {
    modeButtons.form = el('button', { type: 'button', class: 'small', onclick: () => setMode('form') }, 'Form');
    modeButtons.json = el('button', { type: 'button', class: 'small', onclick: () => setMode('json') }, 'JSON');
  }

  function readArgs() {
    if (mode === 'form') return generated.read();
    try {
      const value = JSON.parse(raw.value || '{}');
      if (!value || typeof value !== 'object' || Array.isArray(value)) return { ok: false, message: 'The arguments must be a JSON object' };
      return { ok: true, value };
    } catch (e) {
      return { ok: false, message: `Not valid JSON: ${e.message}` };
    }
  }

  const form = el('form', {
    class: 'tool-form', novalidate: true,
    onsubmit: (event) => {
      event.preventDefault();
      const read = readArgs();
      formError.hidden = read.ok;
      formError.textContent = read.ok ? '' : read.message;
      if (read.ok) callTool(tool, read.value);
    },
  },
  formBox,
  el('div', { class: 'actions' },
    el('button', { type: 'submit', class: 'primary', id: 'call-tool' }, 'Call tool'),
    formError));

  const card = el('div', { class: 'card', dataset: { tool: tool.name } },
    heading(tool, 'Tool'),
    tool.description ? el('p', { class: 'description' }, String(tool.description)) : null,
    hints.length ? chips(hints) : null,
    generated?.empty
      ? el('p', { class: 'muted' }, 'This tool takes no arguments.')
      : el('div', { class: 'section-head' },
        el('h3', {}, 'Arguments'),
        generated ? el('div', { class: 'segmented', role: 'group', 'aria-label': 'Edit as' }, modeButtons.form, modeButtons.json) : null),
    !fits ? el('p', { class: 'hint' }, 'This input schema is too complex for a form: write the arguments as JSON.') : null,
    form,
    tool.outputSchema ? el('details', { class: 'schema' }, el('summary', {}, 'Output schema'), el('pre', {}, json(tool.outputSchema))) : null,
    el('details', { class: 'schema' }, el('summary', {}, 'Input schema'), el('pre', {}, json(schema))));
  if (generated) setMode(mode);
  else formBox.append(raw);
  if (generated?.empty) formBox.hidden = true;
  return card;
}

function facts(pairs) {
  return el('dl', { class: 'kv' }, pairs.filter(([, v]) => v !== undefined && v !== null && v !== '')
    .map(([k, v]) => el('div', {}, el('dt', {}, k), el('dd', { class: 'mono' }, String(v)))));
}

function resourceView(resource) {
  const caps = state.client?.getServerCapabilities() ?? {};
  const subscribed = state.subscriptions.has(resource.uri);
  const subscribe = caps.resources?.subscribe
    ? el('button', {
      type: 'button',
      onclick: async () => {
        const client = state.client;
        try {
          if (state.subscriptions.has(resource.uri)) {
            await client.unsubscribeResource({ uri: resource.uri });
            state.subscriptions.delete(resource.uri);
            clientNote(`unsubscribed from ${resource.uri}`);
          } else {
            await client.subscribeResource({ uri: resource.uri });
            state.subscriptions.add(resource.uri);
            clientNote(`subscribed to ${resource.uri}`);
          }
          showSelected();
        } catch (error) {
          clientNote(`subscription failed: ${describeError(error)}`, 'error');
        }
      },
    }, subscribed ? 'Unsubscribe' : 'Subscribe')
    : null;
  return el('div', { class: 'card' },
    heading({ ...resource, name: resource.title ? resource.name : undefined, title: resource.title ?? resource.name }, 'Resource'),
    resource.description ? el('p', { class: 'description' }, String(resource.description)) : null,
    facts([['URI', resource.uri], ['MIME type', resource.mimeType], ['Size', resource.size !== undefined ? `${resource.size} bytes` : undefined]]),
    el('div', { class: 'actions' },
      el('button', { type: 'button', class: 'primary', id: 'read-resource', onclick: () => readResource(resource.uri) }, 'Read resource'),
      subscribe,
      el('button', {
        type: 'button', id: 'watch-resource',
        title: 'Add this URI to the Watch panel',
        onclick: () => {
          const field = $('#watch-uri');
          const uris = field.value.split(/\s+/).filter(Boolean);
          if (!uris.includes(resource.uri)) field.value = [...uris, resource.uri].join(' ');
          field.focus();
        },
      }, 'Watch')));
}

/** Simple `{name}` expansion of an RFC 6570 template (other operators: edit the URI by hand). */
function templateView(template) {
  const text = String(template.uriTemplate ?? '');
  const names = [...new Set([...text.matchAll(/\{([A-Za-z0-9_.%]+)\}/g)].map((m) => m[1]))];
  const generated = schemaForm({
    type: 'object',
    properties: Object.fromEntries(names.map((n) => [n, { type: 'string' }])),
    required: names,
  }, { idPrefix: 'tpl' });
  const uri = el('input', { class: 'mono', value: text, spellcheck: 'false', 'aria-label': 'URI' });
  const expand = () => {
    let out = text;
    for (const f of generated.fields) {
      const value = f.control.value;
      if (value) out = out.split(`{${f.name}}`).join(encodeURIComponent(value));
    }
    uri.value = out;
  };
  generated.element.addEventListener('input', expand);
  return el('div', { class: 'card' },
    heading({ title: template.title ?? template.name, name: template.title ? template.name : undefined }, 'Resource template'),
    template.description ? el('p', { class: 'description' }, String(template.description)) : null,
    facts([['URI template', text], ['MIME type', template.mimeType]]),
    el('form', {
      class: 'tool-form', novalidate: true,
      onsubmit: (event) => {
        event.preventDefault();
        if (generated.read().ok) readResource(uri.value);
      },
    },
    generated.element,
    el('div', { class: 'field' }, el('label', {}, 'URI'), uri),
    el('div', { class: 'actions' }, el('button', { type: 'submit', class: 'primary' }, 'Read resource'))));
}

function promptView(prompt) {
  const args = Array.isArray(prompt.arguments) ? prompt.arguments : [];
  const generated = schemaForm({
    type: 'object',
    properties: Object.fromEntries(args.map((a) => [a.name, { type: 'string', title: a.title, description: a.description }])),
    required: args.filter((a) => a.required).map((a) => a.name),
  }, { idPrefix: 'prompt' });
  return el('div', { class: 'card' },
    heading(prompt, 'Prompt'),
    prompt.description ? el('p', { class: 'description' }, String(prompt.description)) : null,
    args.length ? el('h3', {}, 'Arguments') : el('p', { class: 'muted' }, 'This prompt takes no arguments.'),
    el('form', {
      class: 'tool-form', novalidate: true,
      onsubmit: (event) => {
        event.preventDefault();
        const read = generated.read();
        if (read.ok) getPrompt(prompt, read.value);
      },
    },
    generated.element,
    el('div', { class: 'actions' }, el('button', { type: 'submit', class: 'primary', id: 'get-prompt' }, 'Get prompt'))));
}

// ---------------------------------------------------------------- server info

function showServerInfo(client) {
  const info = client.getServerVersion() ?? {};
  $('#server-title').textContent = String(info.title ?? info.name ?? 'Unnamed server');
  $('#server-name').textContent = info.title ? String(info.name ?? '') : '';
  $('#server-version').textContent = String(info.version ?? '?');
  const version = client.getNegotiatedProtocolVersion();
  $('#protocol-version').textContent = `${version ?? '?'} · ${eraOf(version)}`;
  $('#protocol-version').dataset.era = eraOf(version);
  $('#transport').textContent = String(client.transport ?? '?');
  const caps = client.getServerCapabilities() ?? {};
  const capChips = Object.entries(caps).map(([name, value]) => {
    const flags = value && typeof value === 'object'
      ? Object.entries(value).filter(([, v]) => v === true).map(([k]) => k) : [];
    return flags.length ? `${name} (${flags.join(', ')})` : name;
  });
  append(clear($('#capabilities')), capChips.length ? capChips.map((c) => el('span', { class: 'chip' }, c)) : el('span', { class: 'muted' }, 'none'));
  const instructions = client.getInstructions();
  $('#instructions').hidden = !instructions;
  $('#instructions-text').textContent = instructions ?? '';
  $('#log-level').disabled = !caps.logging;
  $('#server-info').hidden = false;
}

// ---------------------------------------------------------------- connect

function roots() {
  return $('#roots').value.split('\n').map((line) => line.trim()).filter(Boolean).map((uri) => {
    const name = uri.replace(/\/+$/, '').split('/').pop();
    return name ? { uri, name: decodeURIComponent(name) } : { uri };
  });
}

function resetUi() {
  Object.assign(state, {
    tools: [], toolsCursor: undefined, resources: [], resourcesCursor: undefined,
    templates: [], templatesCursor: undefined, prompts: [], promptsCursor: undefined,
    selected: null, subscriptions: new Set(), watch: null, watchBusy: false,
  });
  $('#server-info').hidden = true;
  $('#log-level').value = '';
  $('#log-level').disabled = true;
  setWatchStatus('Not watching');
  renderWatch();
  renderCounts();
  renderList();
  clear($('#detail')).append(placeholder('Welcome', 'Enter the URL of an MCP server and connect; the transport is chosen automatically.'));
}

async function disconnect() {
  const client = state.client;
  state.generation += 1;
  state.client = null;
  state.ready = null;
  $('#disconnect').hidden = true;
  $('#connect').hidden = false;
  $('#url').disabled = false;
  $('#era').disabled = false;
  resetUi();
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

async function connect(url) {
  await disconnect();
  const generation = ++state.generation;
  setStatus('connecting', `Connecting to ${url}…`);
  $('#connect').disabled = true;
  $('#url').disabled = true;
  $('#era').disabled = true;
  const context = { serverName, log: (text) => clientNote(text) };
  const seconds = Number($('#timeout').value);
  const options = {
    clientInfo: CLIENT_INFO,
    transport: 'auto',
    era: $('#era').value,
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
  if ($('#use-oauth').checked) {
    options.auth = { authorize: 'popup', redirectUri: new URL('oauth-callback.html', location.href).href };
  }

  let resolveReady;
  state.ready = new Promise((resolve) => { resolveReady = resolve; });
  let client;
  try {
    const McpClient = await mcpClient();
    client = await McpClient.connect(url, options);
  } catch (error) {
    if (generation !== state.generation) return;
    state.ready = null;
    setStatus('error', `Could not connect: ${describeError(error)}`);
    clientNote(`could not connect to ${url}: ${describeError(error)}`, 'error');
    $('#connect').disabled = false;
    $('#url').disabled = false;
    $('#era').disabled = false;
    return;
  }
  if (generation !== state.generation) {
    client.close().catch(() => {});
    return;
  }
  state.client = client;
  $('#connect').disabled = false;
  $('#connect').hidden = true;
  $('#disconnect').hidden = false;
  try {
    localStorage.setItem('mcp-inspector-url', url);
  } catch {
    // storage may be unavailable
  }
  showServerInfo(client);
  // Resource URIs belong to a server: keep them only for the same one.
  if (state.watchServer !== url) $('#watch-uri').value = '';
  state.watchServer = url;
  if (!watchable()) setWatchStatus('This server announces no change notifications');
  renderWatch();
  setStatus('connected', `Connected to ${url}`);
  const version = client.getNegotiatedProtocolVersion();
  clientNote(`connected to ${serverName()} (${version} · ${eraOf(version)}, ${client.transport})`);
  await Promise.all(['tools', 'resources', 'prompts'].map((tab) => reload(tab)));
  resolveReady();
}

// ---------------------------------------------------------------- wiring

function init() {
  const params = new URLSearchParams(location.search);
  let saved = null;
  try {
    saved = localStorage.getItem('mcp-inspector-url');
  } catch {
    // storage may be unavailable
  }
  $('#url').value = params.get('server') ?? saved ?? '';

  $('#connect-form').addEventListener('submit', (event) => {
    event.preventDefault();
    if (!$('#url').reportValidity()) return;
    $('#options').open = false;
    connect($('#url').value.trim());
  });
  $('#disconnect').addEventListener('click', () => disconnect());
  for (const button of document.querySelectorAll('[role=tab]')) {
    button.addEventListener('click', () => selectTab(button.dataset.tab));
  }
  $('#filter').addEventListener('input', renderList);
  $('#clear-events').addEventListener('click', () => clear($('#events')));
  $('#clear-activity').addEventListener('click', () => clear($('#activity')));
  $('#clear-watch').addEventListener('click', () => clear($('#watch-log')));
  $('#watch-form').addEventListener('submit', (event) => {
    event.preventDefault();
    if (state.watch) stopWatch();
    else startWatch();
  });
  $('#log-level').addEventListener('change', async (event) => {
    const level = event.target.value;
    if (!level || !state.client) return;
    try {
      await state.client.setLoggingLevel(level);
      clientNote(`log level set to ${level}`);
    } catch (error) {
      clientNote(`could not set the log level: ${describeError(error)}`, 'error');
    }
  });
  $('#roots').addEventListener('change', () => {
    state.client?.sendRootsListChanged().catch((error) => clientNote(`roots/list_changed: ${describeError(error)}`, 'error'));
  });
  window.addEventListener('unhandledrejection', (event) => {
    event.preventDefault();
    console.error(event.reason);
    clientNote(`unexpected error: ${describeError(event.reason)}`, 'error');
  });
  window.addEventListener('pagehide', () => {
    state.client?.close().catch(() => {});
  });
  resetUi();
  mcpClient().catch((error) => setStatus('error', describeError(error)));
  if (params.has('connect') && $('#url').value) connect($('#url').value);
}

init();
