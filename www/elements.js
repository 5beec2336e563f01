// @ts-check
// Every element of index.html the scripts use, looked up once, in one
// place, with its type. A module script runs after the document is parsed,
// so they are all there; one that is missing (index.html and this list out
// of step) fails loudly at load rather than later on a click.

/**
 * The element with this id, checked to be of `type`.
 * @template {HTMLElement} T
 * @param {string} id
 * @param {{ new (): T; prototype: T }} type
 * @returns {T}
 */
function byId(id, type) {
  const node = document.getElementById(id);
  if (!(node instanceof type)) throw new Error(`index.html has no ${type.name} #${id}`);
  return node;
}

/**
 * The first element matching `selector`, checked to be of `type`.
 * @template {HTMLElement} T
 * @param {string} selector
 * @param {{ new (): T; prototype: T }} type
 * @returns {T}
 */
function bySelector(selector, type) {
  const node = document.querySelector(selector);
  if (!(node instanceof type)) throw new Error(`index.html has no ${type.name} ${selector}`);
  return node;
}

/** The connect bar, the status line and its options. */
export const connectBar = {
  form: byId('connect-form', HTMLFormElement),
  url: byId('url', HTMLInputElement),
  era: byId('era', HTMLSelectElement),
  connect: byId('connect', HTMLButtonElement),
  disconnect: byId('disconnect', HTMLButtonElement),
  options: byId('options', HTMLDetailsElement),
  useOAuth: byId('use-oauth', HTMLInputElement),
  timeout: byId('timeout', HTMLInputElement),
  roots: byId('roots', HTMLTextAreaElement),
  status: byId('status', HTMLElement),
};

/** The server panel under the bar. */
export const serverInfo = {
  panel: byId('server-info', HTMLElement),
  title: byId('server-title', HTMLElement),
  name: byId('server-name', HTMLElement),
  version: byId('server-version', HTMLElement),
  protocol: byId('protocol-version', HTMLElement),
  transport: byId('transport', HTMLElement),
  capabilities: byId('capabilities', HTMLElement),
  instructions: byId('instructions', HTMLDetailsElement),
  instructionsText: byId('instructions-text', HTMLElement),
};

/** The sidebar: tabs, filter, list. */
export const sidebar = {
  tabs: /** @type {HTMLButtonElement[]} */ ([...document.querySelectorAll('[role=tab]')]
    .filter((tab) => tab instanceof HTMLButtonElement)),
  counts: {
    tools: byId('count-tools', HTMLElement),
    resources: byId('count-resources', HTMLElement),
    prompts: byId('count-prompts', HTMLElement),
  },
  filter: byId('filter', HTMLInputElement),
  list: byId('list', HTMLElement),
  empty: byId('list-empty', HTMLElement),
};

/** The center column: the selected item and the activity cards. */
export const center = {
  column: bySelector('.center', HTMLElement),
  detail: byId('detail', HTMLElement),
  activity: byId('activity', HTMLElement),
  clearActivity: byId('clear-activity', HTMLButtonElement),
};

/** The Watch panel (`client.listen`). */
export const watchPanel = {
  section: byId('watch', HTMLElement),
  form: byId('watch-form', HTMLFormElement),
  toggle: byId('watch-toggle', HTMLButtonElement),
  clear: byId('clear-watch', HTMLButtonElement),
  tools: byId('watch-tools', HTMLInputElement),
  prompts: byId('watch-prompts', HTMLInputElement),
  resources: byId('watch-resources', HTMLInputElement),
  uris: byId('watch-uri', HTMLInputElement),
  status: byId('watch-status', HTMLElement),
  log: byId('watch-log', HTMLOListElement),
};

/** The notifications panel. */
export const eventsPanel = {
  list: byId('events', HTMLOListElement),
  clear: byId('clear-events', HTMLButtonElement),
  logLevel: byId('log-level', HTMLSelectElement),
};

/** The elicitation dialog. */
export const elicitationDialog = {
  dialog: byId('elicitation-dialog', HTMLDialogElement),
  form: byId('elicitation-form', HTMLFormElement),
  title: byId('elicitation-title', HTMLElement),
  server: byId('elicitation-server', HTMLElement),
  message: byId('elicitation-message', HTMLElement),
  body: byId('elicitation-body', HTMLElement),
  cancel: byId('elicitation-cancel', HTMLButtonElement),
  decline: byId('elicitation-decline', HTMLButtonElement),
  accept: byId('elicitation-accept', HTMLButtonElement),
};

/** The sampling dialog. */
export const samplingDialog = {
  dialog: byId('sampling-dialog', HTMLDialogElement),
  form: byId('sampling-form', HTMLFormElement),
  server: byId('sampling-server', HTMLElement),
  body: byId('sampling-body', HTMLElement),
  reply: byId('sampling-reply', HTMLTextAreaElement),
  model: byId('sampling-model', HTMLInputElement),
  reject: byId('sampling-reject', HTMLButtonElement),
};
