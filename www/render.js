// @ts-check
// Renders what servers send (content blocks, resource contents, sampling
// messages) as DOM, text only.

import { el, json } from './dom.js';

/**
 * What the rendered content may offer to do.
 * @typedef {{ readResource?: (uri: string) => void }} Actions
 */

// Media a data: URL may carry into <img>/<audio>. No SVG: an image a server
// made up is shown, not run.
const IMAGE_TYPES = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp', 'image/avif', 'image/bmp']);
const AUDIO_TYPES = /^audio\/(wav|x-wav|mpeg|mp3|ogg|webm|flac|aac|mp4)$/;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

function dataUrl(mimeType, data) {
  const clean = String(data ?? '').replace(/\s+/g, '');
  return BASE64.test(clean) ? `data:${mimeType};base64,${clean}` : null;
}

function byteLength(base64) {
  const clean = String(base64 ?? '').replace(/\s+/g, '');
  return Math.floor((clean.length * 3) / 4) - (clean.endsWith('==') ? 2 : clean.endsWith('=') ? 1 : 0);
}

function media(kind, mimeType, data) {
  const type = String(mimeType ?? '').toLowerCase();
  const allowed = kind === 'image' ? IMAGE_TYPES.has(type) : AUDIO_TYPES.test(type);
  const url = allowed ? dataUrl(type, data) : null;
  const label = `${kind} · ${mimeType ?? 'unknown type'} · ${byteLength(data)} bytes`;
  if (!url) return el('div', { class: 'block-meta' }, `${label} (not shown)`);
  const player = kind === 'image'
    ? el('img', { src: url, alt: `${kind} from the server`, class: 'media' })
    : el('audio', { src: url, controls: true, class: 'media' });
  return el('div', {}, el('div', { class: 'block-meta' }, label), player);
}

function text(value) {
  return el('pre', { class: 'text' }, String(value ?? ''));
}

/**
 * One resource's contents (text or blob).
 * @param {any} contents
 */
export function renderResourceContents(contents) {
  const head = el('div', { class: 'block-meta' },
    el('span', { class: 'mono' }, String(contents?.uri ?? '')),
    contents?.mimeType ? ` · ${contents.mimeType}` : '');
  if (typeof contents?.text === 'string') return el('div', { class: 'block' }, head, text(contents.text));
  if (typeof contents?.blob === 'string') {
    const type = String(contents.mimeType ?? '');
    const body = type.startsWith('image/') ? media('image', type, contents.blob)
      : type.startsWith('audio/') ? media('audio', type, contents.blob)
      : el('div', { class: 'block-meta' }, `binary · ${byteLength(contents.blob)} bytes (base64, not shown)`);
    return el('div', { class: 'block' }, head, body);
  }
  return el('div', { class: 'block' }, head, text(json(contents)));
}

/**
 * A "Read" button for a resource link, when reading is offered.
 * @param {unknown} uri
 * @param {Actions} actions
 */
function readButton(uri, { readResource }) {
  return readResource && typeof uri === 'string'
    ? el('button', { type: 'button', class: 'small', onclick: () => readResource(uri) }, 'Read')
    : null;
}

/**
 * A content block of a tool result, prompt message or sampling message.
 * `actions.readResource(uri)` adds a "Read" button to resource links.
 * @param {any} block
 * @param {Actions} [actions]
 * @returns {HTMLElement}
 */
export function renderBlock(block, actions = {}) {
  switch (block?.type) {
    case 'text':
      return el('div', { class: 'block' }, text(block.text));
    case 'image':
    case 'audio':
      return el('div', { class: 'block' }, media(block.type, block.mimeType, block.data));
    case 'resource_link':
      return el('div', { class: 'block link' },
        el('div', { class: 'block-meta' }, 'resource link',
          block.mimeType ? ` · ${block.mimeType}` : ''),
        el('div', {}, el('b', {}, String(block.title ?? block.name ?? '')), ' ',
          el('span', { class: 'mono' }, String(block.uri ?? ''))),
        block.description ? el('div', { class: 'muted' }, String(block.description)) : null,
        readButton(block.uri, actions));
    case 'resource':
      return el('div', { class: 'block' },
        el('div', { class: 'block-meta' }, 'embedded resource'),
        renderResourceContents(block.resource));
    case 'tool_use':
      return el('div', { class: 'block' },
        el('div', { class: 'block-meta' }, `tool use · ${block.name ?? ''} · id ${block.id ?? ''}`),
        text(json(block.input)));
    case 'tool_result':
      return el('div', { class: 'block' },
        el('div', { class: 'block-meta' }, `tool result for ${block.toolUseId ?? ''}${block.isError ? ' · error' : ''}`),
        (Array.isArray(block.content) ? block.content : []).map((b) => renderBlock(b, actions)));
    default:
      return el('div', { class: 'block' },
        el('div', { class: 'block-meta' }, `${block?.type ?? 'unknown'} content`),
        text(json(block)));
  }
}

/**
 * Content that may be one block or an array of them (sampling).
 * @param {any} content
 * @param {Actions} [actions]
 */
export function renderBlocks(content, actions) {
  const blocks = Array.isArray(content) ? content : [content];
  return blocks.map((block) => renderBlock(block, actions));
}

/**
 * A `role: content` message (prompt or sampling).
 * @param {any} message
 * @param {Actions} [actions]
 */
export function renderMessage(message, actions) {
  return el('div', { class: `message-row role-${message?.role === 'assistant' ? 'assistant' : 'user'}` },
    el('div', { class: 'role' }, String(message?.role ?? '?')),
    el('div', { class: 'message-content' }, renderBlocks(message?.content, actions)));
}

/**
 * A tool result: content blocks, structured content, error flag.
 * @param {any} result
 * @param {Actions} [actions]
 */
export function renderToolResult(result, actions) {
  const parts = [];
  if (result?.isError) parts.push(el('div', { class: 'tool-error' }, 'The tool reported an error'));
  for (const block of Array.isArray(result?.content) ? result.content : []) parts.push(renderBlock(block, actions));
  if (result?.structuredContent !== undefined) {
    parts.push(el('div', { class: 'block' },
      el('div', { class: 'block-meta' }, 'structured content'),
      text(json(result.structuredContent))));
  }
  if (!parts.length) parts.push(el('div', { class: 'muted' }, '(empty result)'));
  return parts;
}
