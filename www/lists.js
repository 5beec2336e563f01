// @ts-check
// The sidebar: the server's tools, resources (with templates) and prompts,
// fetched a page at a time, filtered, and the selection.

import { append, clear, describeError, el } from './dom.js';
import { center, sidebar } from './elements.js';
import { clientNote } from './events.js';
import { keyOf, state } from './state.js';
import { showSelected } from './views.js';

/** @typedef {import('./state.js').Kind} Kind */
/** @typedef {import('./state.js').Tab} Tab */

/**
 * Fetches the first page of a list, or (`more`) the next one.
 * @param {Kind} kind
 * @param {boolean} [more]
 */
async function loadPage(kind, more = false) {
  const client = state.client;
  if (!client) return;
  const generation = state.generation;
  const list = state.lists[kind];
  const caps = client.getServerCapabilities() ?? {};
  const capability = kind === 'templates' ? 'resources' : kind;
  if (!caps[capability]) {
    list.items = [];
    list.cursor = undefined;
    return;
  }
  const cursor = more ? list.cursor : undefined;
  if (more && !cursor) return; // this list has no more pages
  const params = cursor ? { cursor } : {};
  /** @type {() => Promise<{ [field: string]: any, nextCursor?: string }>} */
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
  list.items = more ? list.items.concat(items) : items;
  list.cursor = page?.nextCursor || undefined;
}

/**
 * Fetches a tab's lists again (or their next pages) and shows them.
 * @param {Tab} tab
 * @param {boolean} [more]
 */
export async function reload(tab, more = false) {
  /** @type {Kind[]} */
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

/** The counts on the tabs (blank when not connected). */
export function renderCounts() {
  /**
   * @param {Kind} kind
   * @param {number} [extra]
   */
  const count = (kind, extra = 0) => (state.client ? String(state.lists[kind].items.length + extra) : '');
  sidebar.counts.tools.textContent = count('tools');
  sidebar.counts.resources.textContent = count('resources', state.lists.templates.items.length);
  sidebar.counts.prompts.textContent = count('prompts');
}

/**
 * @param {Kind} kind
 * @param {any} item
 */
function listItem(kind, item) {
  const key = keyOf(kind, item);
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

/** Shows the current tab's list, filtered. */
export function renderList() {
  const list = clear(sidebar.list);
  const filter = sidebar.filter.value.trim().toLowerCase();
  /** @param {any} item */
  const matches = (item) => !filter || [item.name, item.title, item.description, item.uri, item.uriTemplate]
    .some((v) => typeof v === 'string' && v.toLowerCase().includes(filter));
  /** @param {Kind} kind */
  const more = (kind) => (state.lists[kind].cursor
    ? el('button', { type: 'button', class: 'small more', onclick: () => reload(state.tab, true) }, 'Load more')
    : null);
  /**
   * @param {Kind} kind
   * @param {string | null} [heading]
   */
  const section = (kind, heading) => {
    const all = state.lists[kind].items;
    const items = /** @type {any[]} */ (all).filter(matches);
    if (!all.length) return null;
    return [heading ? el('h3', { class: 'list-heading' }, heading) : null,
      items.map((item) => listItem(kind, item)), more(kind)];
  };
  const caps = state.client?.getServerCapabilities() ?? {};
  let empty = 'Connect to a server to see what it offers.';
  if (state.client) {
    if (state.tab === 'resources') {
      append(list, [section('resources', state.lists.templates.items.length ? 'Resources' : null), section('templates', 'Templates')]);
      empty = caps.resources ? 'No resources.' : 'This server offers no resources.';
    } else {
      append(list, [section(state.tab)]);
      empty = caps[state.tab] ? `No ${state.tab}.` : `This server offers no ${state.tab}.`;
    }
    if (filter && !list.querySelector('.item')) empty = 'Nothing matches the filter.';
  }
  sidebar.empty.textContent = empty;
  sidebar.empty.hidden = Boolean(list.querySelector('.item'));
}

/**
 * Switches the sidebar to another tab.
 * @param {Tab} tab
 */
export function selectTab(tab) {
  state.tab = tab;
  for (const button of sidebar.tabs) {
    button.setAttribute('aria-selected', String(button.dataset.tab === tab));
  }
  renderList();
}

/**
 * Selects an item of a list and shows it.
 * @param {Kind} kind
 * @param {string} key
 */
function select(kind, key) {
  state.selected = { kind, key };
  renderList();
  showSelected();
  center.column.scrollTop = 0;
}
