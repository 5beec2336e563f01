// @ts-check
// The human in the loop: server requests (elicitation/create,
// sampling/createMessage) answered by the user in modal dialogs, one at a
// time.

import { clear, el, json } from './dom.js';
import { elicitationDialog, samplingDialog } from './elements.js';
import { renderMessage } from './render.js';
import { schemaForm } from './schema-form.js';

/** @typedef {import('./pkg/index.js').ElicitRequestParams} ElicitRequestParams */
/** @typedef {import('./pkg/index.js').ElicitResult} ElicitResult */
/** @typedef {import('./pkg/index.js').CreateMessageRequestParams} CreateMessageRequestParams */
/** @typedef {import('./pkg/index.js').CreateMessageResult} CreateMessageResult */
/** @typedef {import('./pkg/index.js').RequestHandlerExtra} RequestHandlerExtra */
/**
 * What a dialog needs from the page: the server's name to show, and where
 * to note the outcome.
 * @typedef {{ serverName: () => string, log: (text: string) => void }} Context
 */

/** @type {Promise<unknown>} */
let queue = Promise.resolve();

/**
 * Runs `ask` once every dialog before it has been answered.
 * @template T
 * @param {() => Promise<T>} ask
 * @returns {Promise<T>}
 */
function enqueue(ask) {
  const turn = queue.then(ask);
  queue = turn.catch(() => {});
  return turn;
}

/**
 * Shows `dialog` until `setup(done)` calls `done(value)` (or the server's
 * `signal` aborts: then `onAbort()` is the value). Escape calls `onEscape`.
 * @template T
 * @param {HTMLDialogElement} dialog
 * @param {AbortSignal | undefined} signal
 * @param {{ onEscape: (done: Done<T>) => void, onAbort: () => T }} answers
 * @param {(done: Done<T>, listen: (target: EventTarget, type: string, fn: (event: Event) => void) => void) => void} setup
 * @returns {Promise<T>}
 */
function modal(dialog, signal, { onEscape, onAbort }, setup) {
  return new Promise((resolve, reject) => {
    let settled = false;
    const listeners = [];
    const listen = (target, type, fn) => {
      target.addEventListener(type, fn);
      listeners.push(() => target.removeEventListener(type, fn));
    };
    const done = (value, failed = false) => {
      if (settled) return;
      settled = true;
      listeners.forEach((off) => off());
      if (dialog.open) dialog.close();
      (failed ? reject : resolve)(value);
    };
    if (signal?.aborted) {
      done(onAbort());
      return;
    }
    if (signal) listen(signal, 'abort', () => done(onAbort()));
    listen(dialog, 'cancel', (event) => {
      event.preventDefault(); // Escape: answer it, as the button would
      onEscape(done);
    });
    // Closed some other way (a browser may close a dialog on a repeated
    // Escape despite preventDefault): still answer. (A `close` queued by the
    // previous request's dialog arrives while this one is open: ignored.)
    listen(dialog, 'close', () => {
      if (!dialog.open) onEscape(done);
    });
    setup(done, listen);
    if (!settled) dialog.showModal();
  });
}

/**
 * Answers a dialog; `failed` rejects with `value`.
 * @template T
 * @typedef {(value: T, failed?: boolean) => void} Done
 */

/** @param {unknown} text */
function safeHttpUrl(text) {
  try {
    const url = new URL(String(text));
    return url.protocol === 'https:' || url.protocol === 'http:' ? url : null;
  } catch {
    return null;
  }
}

/**
 * Answers `elicitation/create`: a form generated from `requestedSchema`
 * with Accept / Decline / Cancel, or (URL mode) the URL to open, with the
 * same three answers. `log(text)` notes the outcome.
 * @param {ElicitRequestParams} params
 * @param {RequestHandlerExtra} extra
 * @param {Context} context
 * @returns {Promise<ElicitResult>}
 */
export function answerElicitation(params, extra, { serverName, log }) {
  return enqueue(() => {
    const dialog = elicitationDialog.dialog;
    const form = elicitationDialog.form;
    const body = clear(elicitationDialog.body);
    elicitationDialog.server.textContent = serverName();
    elicitationDialog.message.textContent = String(params?.message ?? '');
    const accept = elicitationDialog.accept;
    accept.disabled = false;

    const urlMode = params?.mode === 'url';
    let generated = null;
    let target = null;
    if (urlMode) {
      target = safeHttpUrl(params.url);
      elicitationDialog.title.textContent = 'The server asks you to open a page';
      accept.textContent = 'Open page';
      body.append(target
        ? el('div', { class: 'url-box' },
          el('p', {}, 'Accepting opens this page in a new tab:'),
          el('p', { class: 'url-host' }, target.host),
          el('p', { class: 'mono url-full' }, target.href))
        : el('p', { class: 'tool-error' }, `The server sent a URL that is not http(s): ${String(params?.url ?? '')}`));
      accept.disabled = !target;
    } else {
      elicitationDialog.title.textContent = 'The server asks for input';
      accept.textContent = 'Accept';
      generated = schemaForm(params?.requestedSchema ?? {}, { idPrefix: 'elicit' });
      body.append(generated.empty ? el('p', { class: 'muted' }, '(no fields: accepting just confirms)') : generated.element);
    }
    /** @type {ElicitResult} */
    const cancelled = { action: 'cancel' };

    return modal(dialog, extra?.signal, {
      onEscape: (done) => done(cancelled),
      onAbort: () => {
        log('the server withdrew its elicitation request');
        return cancelled;
      },
    }, (done, listen) => {
      listen(form, 'submit', (event) => {
        event.preventDefault();
        if (urlMode) {
          if (!target) return;
          window.open(target.href, '_blank', 'noopener,noreferrer');
          done({ action: 'accept' });
          return;
        }
        const read = generated?.read();
        if (!read?.ok) return; // the field shows what is wrong
        done({ action: 'accept', content: read.value });
      });
      listen(elicitationDialog.decline, 'click', () => done({ action: 'decline' }));
      listen(elicitationDialog.cancel, 'click', () => done(cancelled));
      // Focus the first field rather than a button.
      queueMicrotask(() => generated?.fields[0]?.focus());
    });
  }).then((answer) => {
    log(`elicitation answered: ${answer.action}`);
    return answer;
  });
}

/**
 * The sampling dialog's answer: the reply, or the error it rejects with.
 * @typedef {CreateMessageResult | Error} SamplingAnswer
 */

/** @returns {SamplingAnswer} */
function userRejected() {
  // -1: "User rejected sampling request", as in the spec's examples.
  return Object.assign(new Error('The user rejected the sampling request'), { code: -1 });
}

/**
 * Answers `sampling/createMessage`: shows the conversation and asks the
 * user for the assistant's reply (or a rejection).
 * @param {CreateMessageRequestParams} params
 * @param {RequestHandlerExtra} extra
 * @param {Context} context
 * @returns {Promise<CreateMessageResult>}
 */
export function answerSampling(params, extra, { serverName, log }) {
  return enqueue(() => {
    const dialog = samplingDialog.dialog;
    const form = samplingDialog.form;
    const body = clear(samplingDialog.body);
    const reply = samplingDialog.reply;
    const model = samplingDialog.model;
    reply.value = '';
    samplingDialog.server.textContent = serverName();

    const facts = [];
    if (params?.maxTokens !== undefined) facts.push(`max tokens ${params.maxTokens}`);
    if (params?.temperature !== undefined) facts.push(`temperature ${params.temperature}`);
    if (params?.includeContext) facts.push(`context ${params.includeContext}`);
    const hints = params?.modelPreferences?.hints;
    if (Array.isArray(hints) && hints.length) facts.push(`model hints ${hints.map((h) => h?.name).filter(Boolean).join(', ')}`);
    if (Array.isArray(params?.tools) && params.tools.length) facts.push(`tools ${params.tools.map((t) => t?.name).join(', ')}`);
    if (facts.length) body.append(el('p', { class: 'muted small-text' }, facts.join(' · ')));
    if (params?.systemPrompt) {
      body.append(el('div', { class: 'message-row role-system' },
        el('div', { class: 'role' }, 'system'),
        el('div', { class: 'message-content' }, el('div', { class: 'block' }, el('pre', { class: 'text' }, String(params.systemPrompt))))));
    }
    for (const message of Array.isArray(params?.messages) ? params.messages : []) body.append(renderMessage(message));
    if (params?.stopSequences?.length) body.append(el('p', { class: 'muted small-text' }, `stop sequences: ${json(params.stopSequences)}`));

    return modal(dialog, extra?.signal, {
      onEscape: (done) => done(userRejected(), true),
      onAbort: () => {
        log('the server withdrew its sampling request');
        return userRejected();
      },
    }, (done, listen) => {
      listen(form, 'submit', (event) => {
        event.preventDefault();
        if (!reply.reportValidity() || !model.reportValidity()) return;
        done({
          role: 'assistant',
          content: { type: 'text', text: reply.value },
          model: model.value.trim(),
          stopReason: 'endTurn',
        });
      });
      listen(samplingDialog.reject, 'click', () => done(userRejected(), true));
      queueMicrotask(() => reply.focus());
    });
  }).then((answer) => {
    log(answer instanceof Error ? 'sampling request rejected' : 'sampling request answered');
    if (answer instanceof Error) throw answer;
    return answer;
  }, (error) => {
    log('sampling request rejected');
    throw error;
  });
}
