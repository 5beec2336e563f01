// @ts-check
// MCP inspector: connect to a server with mcp-edge, browse and use its
// tools, resources and prompts, watch its notifications, answer its
// elicitation and sampling requests.
//
// The package is imported from ./pkg/ (`cargo xtask www` serves
// target/npm/pkg/ there; to host the page elsewhere, copy it to www/pkg/).
//
// This entry wires the page's controls to the modules of each concern:
// elements.js (every element handle), state.js, connection.js, lists.js,
// views.js (the detail pane), activity.js (request cards), events.js (the
// notifications panel), watch.js (`client.listen`), dialogs.js (elicitation
// and sampling), render.js and schema-form.js.

import { connect, disconnect, hasStoredSession, keepSession, mcpClient, resetUi, setStatus, storedUrl } from './connection.js';
import { clear, describeError } from './dom.js';
import { center, connectBar, eventsPanel, sidebar, watchPanel } from './elements.js';
import { clientNote } from './events.js';
import { renderList, selectTab } from './lists.js';
import { state } from './state.js';
import { toggleWatch } from './watch.js';

/** @typedef {import('./pkg/index.js').LoggingLevel} LoggingLevel */
/** @typedef {import('./state.js').Tab} Tab */

function init() {
  const params = new URLSearchParams(location.search);
  connectBar.url.value = params.get('server') ?? storedUrl() ?? '';

  connectBar.form.addEventListener('submit', (event) => {
    event.preventDefault();
    if (!connectBar.url.reportValidity()) return;
    connectBar.options.open = false;
    connect(connectBar.url.value.trim());
  });
  connectBar.disconnect.addEventListener('click', () => disconnect());
  for (const button of sidebar.tabs) {
    button.addEventListener('click', () => selectTab(/** @type {Tab} */ (button.dataset.tab)));
  }
  sidebar.filter.addEventListener('input', renderList);
  eventsPanel.clear.addEventListener('click', () => clear(eventsPanel.list));
  center.clearActivity.addEventListener('click', () => clear(center.activity));
  watchPanel.clear.addEventListener('click', () => clear(watchPanel.log));
  watchPanel.form.addEventListener('submit', (event) => {
    event.preventDefault();
    toggleWatch();
  });
  eventsPanel.logLevel.addEventListener('change', async () => {
    const level = /** @type {LoggingLevel | ''} */ (eventsPanel.logLevel.value);
    if (!level || !state.client) return;
    try {
      await state.client.setLoggingLevel(level);
      clientNote(`log level set to ${level}`);
    } catch (error) {
      clientNote(`could not set the log level: ${describeError(error)}`, 'error');
    }
  });
  connectBar.roots.addEventListener('change', () => {
    state.client?.sendRootsListChanged().catch((error) => clientNote(`roots/list_changed: ${describeError(error)}`, 'error'));
  });
  window.addEventListener('unhandledrejection', (event) => {
    event.preventDefault();
    console.error(event.reason);
    clientNote(`unexpected error: ${describeError(event.reason)}`, 'error');
  });
  // A reload continues the session (McpClient.snapshot in sessionStorage);
  // Disconnect ends it.
  window.addEventListener('pagehide', () => keepSession());
  resetUi();
  mcpClient().catch((error) => setStatus('error', describeError(error)));
  const url = connectBar.url.value.trim();
  if (url && (params.has('connect') || hasStoredSession(url))) connect(url);
}

init();
