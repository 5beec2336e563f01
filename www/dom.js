// @ts-check
// DOM helpers. Everything a server sends is untrusted: it only ever
// reaches the page as text (text nodes, textContent, attribute values of
// safe attributes), never as HTML.

/**
 * What `el` and `append` take as children: nodes, text, nothing, or arrays
 * of those (flattened).
 * @typedef {Node | string | number | boolean | null | undefined | ChildList} Child
 */
/** @typedef {Child[]} ChildList */

/**
 * `el('div', {class: 'x', onclick: fn}, 'text', child, ...)`.
 * Strings (and numbers) become text nodes; null/undefined/false are skipped.
 * @template {keyof HTMLElementTagNameMap} K
 * @param {K} tag
 * @param {{ [attribute: string]: any }} [attrs]
 * @param {Child[]} children
 * @returns {HTMLElementTagNameMap[K]}
 */
export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs ?? {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith('on') && typeof value === 'function') {
      node.addEventListener(key.slice(2), value);
    } else if (key === 'class') {
      node.className = value;
    } else if (key === 'dataset') {
      Object.assign(node.dataset, value);
    } else if (key in node && typeof value !== 'string') {
      /** @type {any} */ (node)[key] = value; // properties such as checked, value, disabled
    } else {
      node.setAttribute(key, value === true ? '' : String(value));
    }
  }
  append(node, children);
  return node;
}

/**
 * Appends `children` (flattened; text as text nodes) to `node`.
 * @template {Node & ParentNode} N
 * @param {N} node
 * @param {Child[]} children
 * @returns {N}
 */
export function append(node, children) {
  for (const child of /** @type {any[]} */ (children).flat(Infinity)) {
    if (child === undefined || child === null || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

/**
 * @template {Element} N
 * @param {N} node
 * @returns {N}
 */
export function clear(node) {
  node.replaceChildren();
  return node;
}

/**
 * Pretty JSON for display (in a <pre>, as text).
 * @param {unknown} value
 * @returns {string}
 */
export function json(value) {
  try {
    return JSON.stringify(value, null, 2) ?? String(value);
  } catch {
    return String(value);
  }
}

/**
 * A readable message for anything thrown by the client.
 * @param {unknown} thrown
 * @returns {string}
 */
export function describeError(thrown) {
  if (thrown === undefined || thrown === null) return 'Unknown error';
  if (typeof thrown !== 'object') return String(thrown);
  /** @type {{ name?: string, message?: string, code?: number }} */
  const error = thrown;
  const name = error.name ?? 'Error';
  const message = error.message ?? String(error);
  if (name === 'McpError') {
    return `${message}${error.code !== undefined ? ` (code ${error.code})` : ''}`;
  }
  if (name === 'AbortError') return 'Cancelled';
  if (name === 'TypeError' && /fetch|network/i.test(message)) {
    return `${message}: the server is unreachable, or it does not allow this page's origin (CORS)`;
  }
  return name === 'Error' ? message : `${name}: ${message}`;
}

/** `13:45:07`: when an entry was logged. */
export function clock(date = new Date()) {
  return date.toLocaleTimeString([], { hour12: false });
}
