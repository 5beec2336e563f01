// DOM helpers. Everything a server sends is untrusted: it only ever
// reaches the page as text (text nodes, textContent, attribute values of
// safe attributes), never as HTML.

/**
 * `el('div', {class: 'x', onclick: fn}, 'text', child, ...)`.
 * Strings (and numbers) become text nodes; null/undefined/false are skipped.
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
      node[key] = value; // properties such as checked, value, disabled
    } else {
      node.setAttribute(key, value === true ? '' : String(value));
    }
  }
  append(node, children);
  return node;
}

export function append(node, children) {
  for (const child of children.flat(Infinity)) {
    if (child === undefined || child === null || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

export function clear(node) {
  node.replaceChildren();
  return node;
}

export function $(selector, root = document) {
  return root.querySelector(selector);
}

/** Pretty JSON for display (in a <pre>, as text). */
export function json(value) {
  try {
    return JSON.stringify(value, null, 2) ?? String(value);
  } catch {
    return String(value);
  }
}

/** A readable message for anything thrown by the client. */
export function describeError(error) {
  if (error === undefined || error === null) return 'Unknown error';
  if (typeof error !== 'object') return String(error);
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

export function clock(date = new Date()) {
  return date.toLocaleTimeString([], { hour12: false });
}
