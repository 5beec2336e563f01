// @ts-check
// The Watch panel: `client.listen` for list changes and resource updates,
// in either era, and the log of what it hears.

import { clock, describeError, el } from './dom.js';
import { watchPanel } from './elements.js';
import { clientNote } from './events.js';
import { state } from './state.js';

/** @typedef {import('./pkg/index.js').McpSubscription} McpSubscription */
/** @typedef {import('./pkg/index.js').SubscriptionFilter} SubscriptionFilter */
/** @typedef {import('./pkg/index.js').ServerNotification} ServerNotification */

const MAX_WATCH = 100;

/**
 * The resource URIs typed in the panel.
 * @returns {string[]}
 */
function typedUris() {
  return watchPanel.uris.value.split(/\s+/).filter(Boolean);
}

/** @returns {SubscriptionFilter} */
function watchFilter() {
  /** @type {SubscriptionFilter} */
  const filter = {};
  if (watchPanel.tools.checked) filter.toolsListChanged = true;
  if (watchPanel.prompts.checked) filter.promptsListChanged = true;
  if (watchPanel.resources.checked) filter.resourcesListChanged = true;
  const uris = typedUris();
  if (uris.length) filter.resourceSubscriptions = uris;
  return filter;
}

/**
 * "tools and resources list changes; updates of demo://a"
 * @param {SubscriptionFilter | undefined} filter
 */
function describeFilter(filter) {
  const lists = /** @type {const} */ (['tools', 'prompts', 'resources']).filter((kind) => filter?.[`${kind}ListChanged`]);
  const uris = Array.isArray(filter?.resourceSubscriptions) ? filter.resourceSubscriptions : [];
  const listed = lists.length > 1 ? `${lists.slice(0, -1).join(', ')} and ${lists.at(-1)}` : lists[0];
  return [listed ? `${listed} list changes` : null, uris.length ? `updates of ${uris.join(' ')}` : null]
    .filter(Boolean).join('; ') || 'nothing';
}

/** Whether the server's capabilities announce any change notification. */
export function watchable() {
  const caps = state.client?.getServerCapabilities() ?? {};
  return Boolean(caps.tools?.listChanged || caps.prompts?.listChanged || caps.resources?.listChanged || caps.resources?.subscribe);
}

/**
 * @param {string} text
 * @param {'error'} [level]
 */
export function setWatchStatus(text, level) {
  const status = watchPanel.status;
  status.textContent = text;
  status.classList.toggle('form-error', level === 'error');
}

/** Shows whether a watch runs, and what can be changed now. */
export function renderWatch() {
  const watching = Boolean(state.watch);
  watchPanel.section.dataset.state = watching ? 'on' : 'off';
  const toggle = watchPanel.toggle;
  toggle.textContent = watching ? 'Stop' : 'Start';
  toggle.classList.toggle('primary', !watching);
  toggle.disabled = !state.client || state.watchBusy || (!watching && !watchable());
  for (const input of watchPanel.form.querySelectorAll('input')) input.disabled = watching || state.watchBusy;
}

/**
 * Adds a received notification to the Watch log (newest first).
 * @param {Partial<ServerNotification>} [notification]
 */
function watchLog({ method, params } = {}) {
  const list = watchPanel.log;
  list.prepend(el('li', { class: 'event', dataset: { method: method ?? '' } },
    el('div', { class: 'event-head' }, el('time', {}, clock()), el('span', { class: 'event-method mono' }, String(method ?? '?'))),
    params !== undefined ? el('pre', { class: 'watch-params' }, JSON.stringify(params)) : null));
  while (list.children.length > MAX_WATCH) list.lastElementChild?.remove();
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

/**
 * The server ended the watch, or the connection broke.
 * @param {McpSubscription} subscription
 * @param {unknown} [error]
 */
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

/** Start or Stop. */
export function toggleWatch() {
  if (state.watch) stopWatch();
  else startWatch();
}

/**
 * Adds a URI to the resources to watch (the Watch button of a resource).
 * @param {string} uri
 */
export function addWatchedUri(uri) {
  const uris = typedUris();
  if (!uris.includes(uri)) watchPanel.uris.value = [...uris, uri].join(' ');
  watchPanel.uris.focus();
}

/**
 * After a connect: resource URIs belong to a server, so they are kept only
 * for the same one.
 * @param {string} url
 */
export function watchServer(url) {
  if (state.watchServer !== url) watchPanel.uris.value = '';
  state.watchServer = url;
  if (!watchable()) setWatchStatus('This server announces no change notifications');
  renderWatch();
}
