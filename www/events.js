// @ts-check
// The notifications panel: what the server sent unprompted, and notes of
// what the client did, newest first.

import { clock, el, json } from './dom.js';
import { eventsPanel } from './elements.js';

const MAX_EVENTS = 500;

/** Log levels of `notifications/message`, least severe first. */
export const LEVELS = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'];

/**
 * @typedef {object} Event
 * @property {'server' | 'client'} [source]
 * @property {string} [method]
 * @property {string} [level]
 * @property {string} [summary]
 * @property {unknown} [details]
 */

/**
 * Adds an entry to the notifications panel (newest first).
 * @param {Event} event
 */
export function logEvent({ source = 'server', method, level, summary, details }) {
  const list = eventsPanel.list;
  const entry = el('li', { class: `event source-${source}${level ? ` level-${level}` : ''}`, dataset: { method: method ?? '' } },
    el('div', { class: 'event-head' },
      el('time', {}, clock()),
      el('span', { class: 'event-method mono' }, method ?? source),
      level ? el('span', { class: `level-badge level-${level}` }, level) : null),
    summary !== undefined ? el('div', { class: 'event-body' }, summary) : null,
    details !== undefined ? el('details', { class: 'event-details' }, el('summary', {}, 'params'), el('pre', {}, json(details))) : null);
  list.prepend(entry);
  while (list.children.length > MAX_EVENTS) list.lastElementChild?.remove();
}

/**
 * A note of what the client did.
 * @param {string} text
 * @param {string} [level]
 */
export function clientNote(text, level) {
  logEvent({ source: 'client', method: 'client', summary: text, level });
}
