// @ts-check
// The activity column: one card per request the user made (tool call,
// resource read, prompt), with its status, progress, result, and a Cancel
// button while it runs.

import { append, clear, clock, describeError, el, json } from './dom.js';
import { center } from './elements.js';
import { renderMessage, renderResourceContents, renderToolResult } from './render.js';
import { state } from './state.js';

/** @typedef {import('./pkg/index.js').McpClient} McpClient */
/** @typedef {import('./pkg/index.js').Progress} Progress */
/** @typedef {import('./pkg/index.js').RequestOptions} RequestOptions */
/** @typedef {import('./pkg/index.js').Tool} Tool */
/** @typedef {import('./pkg/index.js').Prompt} Prompt */
/** @typedef {'ok' | 'error' | 'cancelled'} Status */
/** @typedef {import('./dom.js').Child} Child */

/** Tool calls may wait on the user (elicitation, sampling): 10 minutes. */
const TOOL_TIMEOUT_MS = 10 * 60 * 1000;
const MAX_ACTIVITY = 100;

/**
 * A card in the activity column for one request: status, progress bar,
 * result. Returns handles to update it.
 * @param {{ method: string, title: string, args?: unknown, onCancel?: () => void }} request
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
  const activity = center.activity;
  activity.prepend(card);
  while (activity.children.length > MAX_ACTIVITY) activity.lastElementChild?.remove();
  return {
    card,
    /** @param {Progress} progress */
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
    /**
     * @param {Status} status
     * @param {Child[]} content
     */
    finish(status, ...content) {
      card.dataset.status = status;
      statusBadge.textContent = { ok: 'done', error: 'failed', cancelled: 'cancelled' }[status] ?? status;
      elapsed.textContent = `${((performance.now() - started) / 1000).toFixed(1)} s`;
      cancel?.remove();
      append(clear(result), content);
    },
  };
}

/** @param {unknown} error */
function errorBox(error) {
  return el('div', { class: 'error-box' }, describeError(error));
}

/**
 * Runs one request with a card, cancellable from it.
 * @template R
 * @param {{ method: string, title: string, args?: unknown }} request
 * @param {(client: McpClient, options: RequestOptions) => Promise<R>} run
 * @param {(result: R) => [Status, Child]} render
 */
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
    card.finish(/** @type {any} */ (error)?.name === 'AbortError' ? 'cancelled' : 'error', errorBox(error));
  }
}

/** What links in results can do. */
const resultActions = {
  /** @param {string} uri */
  readResource: (uri) => readResource(uri),
};

/**
 * `tools/call`, with a card.
 * @param {Tool} tool
 * @param {{ [key: string]: any }} args
 */
export function callTool(tool, args) {
  return tracked({ method: 'tools/call', title: tool.name, args },
    (client, options) => client.callTool({ name: tool.name, arguments: args },
      { ...options, timeout: TOOL_TIMEOUT_MS }),
    (result) => [result?.isError ? 'error' : 'ok', renderToolResult(result, resultActions)]);
}

/**
 * `resources/read`, with a card.
 * @param {string} uri
 */
export function readResource(uri) {
  return tracked({ method: 'resources/read', title: uri },
    (client, options) => client.readResource({ uri }, options),
    (result) => {
      const contents = Array.isArray(result?.contents) ? result.contents : [];
      return ['ok', contents.length ? contents.map(renderResourceContents) : el('div', { class: 'muted' }, '(no contents)')];
    });
}

/**
 * `prompts/get`, with a card.
 * @param {Prompt} prompt
 * @param {{ [key: string]: string }} args
 */
export function getPrompt(prompt, args) {
  return tracked({ method: 'prompts/get', title: prompt.name, args },
    (client, options) => client.getPrompt({ name: prompt.name, arguments: args }, options),
    (result) => ['ok', [
      result?.description ? el('p', { class: 'muted' }, String(result.description)) : null,
      (Array.isArray(result?.messages) ? result.messages : []).map((m) => renderMessage(m, resultActions)),
    ]]);
}
