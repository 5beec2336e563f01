// @ts-check
// What the page knows: the client, the lists it fetched, what is selected,
// the watch. One object, changed by the modules that own each part.

/** @typedef {import('./pkg/index.js').McpClient} McpClient */
/** @typedef {import('./pkg/index.js').McpSubscription} McpSubscription */
/** @typedef {import('./pkg/index.js').Tool} Tool */
/** @typedef {import('./pkg/index.js').Resource} Resource */
/** @typedef {import('./pkg/index.js').ResourceTemplate} ResourceTemplate */
/** @typedef {import('./pkg/index.js').Prompt} Prompt */

/**
 * The lists of the sidebar (templates share the Resources tab).
 * @typedef {'tools' | 'resources' | 'templates' | 'prompts'} Kind
 */
/**
 * The sidebar's tabs.
 * @typedef {'tools' | 'resources' | 'prompts'} Tab
 */
/** @typedef {Tool | Resource | ResourceTemplate | Prompt} Item */

export const state = {
  /** @type {McpClient | null} */
  client: null,
  /** Bumped by every connect and disconnect; stale callbacks check it. */
  generation: 0,
  /**
   * Settles once the lists of a new connection are loaded.
   * @type {Promise<void> | null}
   */
  ready: null,
  /** @type {Tab} */
  tab: 'tools',
  /** What each list holds so far, and the cursor of its next page. */
  lists: emptyLists(),
  /** @type {{ kind: Kind, key: string } | null} */
  selected: null,
  /**
   * The resources subscribed to from their view.
   * @type {Set<string>}
   */
  subscriptions: new Set(),
  /**
   * The open `client.listen` subscription of the Watch panel.
   * @type {McpSubscription | null}
   */
  watch: null,
  watchBusy: false,
  /**
   * The server the Watch panel's resource URIs were typed for.
   * @type {string | null}
   */
  watchServer: null,
};

/**
 * @typedef {object} Lists
 * @property {Page<Tool>} tools
 * @property {Page<Resource>} resources
 * @property {Page<ResourceTemplate>} templates
 * @property {Page<Prompt>} prompts
 */
/**
 * @template T
 * @typedef {{ items: T[], cursor: string | undefined }} Page
 */

/** @returns {Lists} */
function emptyLists() {
  return {
    tools: { items: [], cursor: undefined },
    resources: { items: [], cursor: undefined },
    templates: { items: [], cursor: undefined },
    prompts: { items: [], cursor: undefined },
  };
}

/** Forgets what the last connection fetched and chose. */
export function resetState() {
  Object.assign(state, {
    lists: emptyLists(), selected: null, subscriptions: new Set(), watch: null, watchBusy: false,
  });
}

/**
 * The items of a list.
 * @param {Kind} kind
 * @returns {Item[]}
 */
export function itemsOf(kind) {
  return state.lists[kind].items;
}

/**
 * What identifies an item in its list (and in `state.selected`).
 * @param {Kind} kind
 * @param {any} item
 * @returns {string}
 */
export function keyOf(kind, item) {
  switch (kind) {
    case 'tools':
    case 'prompts':
      return item.name;
    case 'resources':
      return item.uri;
    case 'templates':
      return item.uriTemplate;
  }
}

/** "everything 1.0.0", for dialogs and notes. */
export function serverName() {
  const info = state.client?.getServerVersion();
  return info ? `${info.title ?? info.name} ${info.version}` : 'the server';
}
