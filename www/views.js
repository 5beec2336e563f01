// @ts-check
// The detail pane: the selected tool (a form generated from its input
// schema, or raw JSON), resource, resource template or prompt, with what
// can be done with it.

import { clear, describeError, el, json } from './dom.js';
import { center } from './elements.js';
import { callTool, getPrompt, readResource } from './activity.js';
import { clientNote } from './events.js';
import { formFits, schemaForm } from './schema-form.js';
import { itemsOf, keyOf, state } from './state.js';
import { addWatchedUri } from './watch.js';

/** @typedef {import('./pkg/index.js').Tool} Tool */
/** @typedef {import('./pkg/index.js').Resource} Resource */
/** @typedef {import('./pkg/index.js').ResourceTemplate} ResourceTemplate */
/** @typedef {import('./pkg/index.js').Prompt} Prompt */

/** @param {string[]} values */
function chips(values) {
  return el('div', { class: 'chips' }, values.map((v) => el('span', { class: 'chip' }, v)));
}

/**
 * A card that says there is nothing to show yet.
 * @param {string} title
 * @param {string} text
 */
export function placeholder(title, text) {
  return el('div', { class: 'placeholder' }, el('h2', {}, title), el('p', {}, text));
}

/** Shows the selected item (again: it may have changed or gone). */
export function showSelected() {
  const detail = clear(center.detail);
  const selected = state.selected;
  const item = selected ? itemsOf(selected.kind).find((i) => keyOf(selected.kind, i) === selected.key) : null;
  if (!selected || !item) {
    detail.append(placeholder('Nothing selected', 'Pick a tool, resource or prompt on the left.'));
    return;
  }
  const view = { tools: toolView, resources: resourceView, templates: templateView, prompts: promptView }[selected.kind];
  detail.append(view(/** @type {any} */ (item)));
}

/**
 * The head of a card: kind, title, and the name when a title hides it.
 * @param {{ title?: string, name?: string, uri?: string, annotations?: { [key: string]: any } }} item
 * @param {string} kindLabel
 */
function heading(item, kindLabel) {
  const title = item.title ?? item.annotations?.title;
  return el('div', { class: 'card-head' },
    el('span', { class: 'kind-label' }, kindLabel),
    el('h2', {}, String(title ?? item.name ?? item.uri ?? '')),
    title && item.name ? el('code', { class: 'muted' }, String(item.name)) : null);
}

/** @param {Tool} tool */
function toolView(tool) {
  /** @type {{ [key: string]: any }} */
  const schema = tool.inputSchema ?? { type: 'object' };
  const hints = [];
  /** @type {import('./pkg/index.js').ToolAnnotations} */
  const a = tool.annotations ?? {};
  if (a.readOnlyHint) hints.push('read-only');
  if (a.destructiveHint === true && !a.readOnlyHint) hints.push('destructive');
  if (a.idempotentHint) hints.push('idempotent');
  if (a.openWorldHint) hints.push('open world');
  if (tool.execution?.taskSupport && tool.execution.taskSupport !== 'forbidden') hints.push(`tasks: ${tool.execution.taskSupport}`);

  const fits = formFits(schema);
  const generated = fits ? schemaForm(schema, { idPrefix: 'tool' }) : null;
  const raw = el('textarea', { class: 'mono raw-json', rows: 8, spellcheck: 'false', 'aria-label': 'Arguments as JSON' });
  raw.value = '{}';
  const formError = el('p', { class: 'form-error', role: 'alert', hidden: true });
  /** @type {'form' | 'json'} */
  let mode = fits ? 'form' : 'json';
  const formBox = el('div', { class: 'args-form' });
  /** @type {{ form?: HTMLButtonElement, json?: HTMLButtonElement }} */
  const modeButtons = {};

  /** @param {'form' | 'json'} next */
  function setMode(next) {
    if (next === 'json' && mode === 'form' && generated) {
      const read = generated.read();
      raw.value = json(read.ok ? read.value : {});
    }
    mode = next;
    for (const [m, b] of Object.entries(modeButtons)) b.setAttribute('aria-pressed', String(m === mode));
    formBox.replaceChildren(mode === 'form' && generated ? generated.element : raw);
    formError.hidden = true;
  }
  if (generated) {
    modeButtons.form = el('button', { type: 'button', class: 'small', onclick: () => setMode('form') }, 'Form');
    modeButtons.json = el('button', { type: 'button', class: 'small', onclick: () => setMode('json') }, 'JSON');
  }

  /** @returns {import('./schema-form.js').ReadResult} */
  function readArgs() {
    if (mode === 'form' && generated) return generated.read();
    try {
      const value = JSON.parse(raw.value || '{}');
      if (!value || typeof value !== 'object' || Array.isArray(value)) return { ok: false, message: 'The arguments must be a JSON object' };
      return { ok: true, value };
    } catch (e) {
      return { ok: false, message: `Not valid JSON: ${e.message}` };
    }
  }

  const form = el('form', {
    class: 'tool-form', novalidate: true,
    onsubmit: (event) => {
      event.preventDefault();
      const read = readArgs();
      formError.hidden = read.ok;
      formError.textContent = read.ok ? '' : read.message;
      if (read.ok) callTool(tool, read.value);
    },
  },
  formBox,
  el('div', { class: 'actions' },
    el('button', { type: 'submit', class: 'primary', id: 'call-tool' }, 'Call tool'),
    formError));

  const card = el('div', { class: 'card', dataset: { tool: tool.name } },
    heading(tool, 'Tool'),
    tool.description ? el('p', { class: 'description' }, String(tool.description)) : null,
    hints.length ? chips(hints) : null,
    generated?.empty
      ? el('p', { class: 'muted' }, 'This tool takes no arguments.')
      : el('div', { class: 'section-head' },
        el('h3', {}, 'Arguments'),
        generated ? el('div', { class: 'segmented', role: 'group', 'aria-label': 'Edit as' }, modeButtons.form, modeButtons.json) : null),
    !fits ? el('p', { class: 'hint' }, 'This input schema is too complex for a form: write the arguments as JSON.') : null,
    form,
    tool.outputSchema ? el('details', { class: 'schema' }, el('summary', {}, 'Output schema'), el('pre', {}, json(tool.outputSchema))) : null,
    el('details', { class: 'schema' }, el('summary', {}, 'Input schema'), el('pre', {}, json(schema))));
  if (generated) setMode(mode);
  else formBox.append(raw);
  if (generated?.empty) formBox.hidden = true;
  return card;
}

/** @param {[string, unknown][]} pairs */
function facts(pairs) {
  return el('dl', { class: 'kv' }, pairs.filter(([, v]) => v !== undefined && v !== null && v !== '')
    .map(([k, v]) => el('div', {}, el('dt', {}, k), el('dd', { class: 'mono' }, String(v)))));
}

/** @param {Resource} resource */
function resourceView(resource) {
  const caps = state.client?.getServerCapabilities() ?? {};
  const subscribed = state.subscriptions.has(resource.uri);
  const subscribe = caps.resources?.subscribe
    ? el('button', {
      type: 'button',
      onclick: async () => {
        const client = state.client;
        if (!client) return;
        try {
          if (state.subscriptions.has(resource.uri)) {
            await client.unsubscribeResource({ uri: resource.uri });
            state.subscriptions.delete(resource.uri);
            clientNote(`unsubscribed from ${resource.uri}`);
          } else {
            await client.subscribeResource({ uri: resource.uri });
            state.subscriptions.add(resource.uri);
            clientNote(`subscribed to ${resource.uri}`);
          }
          showSelected();
        } catch (error) {
          clientNote(`subscription failed: ${describeError(error)}`, 'error');
        }
      },
    }, subscribed ? 'Unsubscribe' : 'Subscribe')
    : null;
  return el('div', { class: 'card' },
    heading({ ...resource, name: resource.title ? resource.name : undefined, title: resource.title ?? resource.name }, 'Resource'),
    resource.description ? el('p', { class: 'description' }, String(resource.description)) : null,
    facts([['URI', resource.uri], ['MIME type', resource.mimeType], ['Size', resource.size !== undefined ? `${resource.size} bytes` : undefined]]),
    el('div', { class: 'actions' },
      el('button', { type: 'button', class: 'primary', id: 'read-resource', onclick: () => readResource(resource.uri) }, 'Read resource'),
      subscribe,
      el('button', {
        type: 'button', id: 'watch-resource',
        title: 'Add this URI to the Watch panel',
        onclick: () => addWatchedUri(resource.uri),
      }, 'Watch')));
}

/**
 * Simple `{name}` expansion of an RFC 6570 template (other operators: edit the URI by hand).
 * @param {ResourceTemplate} template
 */
function templateView(template) {
  const text = String(template.uriTemplate ?? '');
  const names = [...new Set([...text.matchAll(/\{([A-Za-z0-9_.%]+)\}/g)].map((m) => m[1]))];
  const generated = schemaForm({
    type: 'object',
    properties: Object.fromEntries(names.map((n) => [n, { type: 'string' }])),
    required: names,
  }, { idPrefix: 'tpl' });
  const uri = el('input', { class: 'mono', value: text, spellcheck: 'false', 'aria-label': 'URI' });
  const expand = () => {
    let out = text;
    for (const f of generated.fields) {
      const value = f.control.value;
      if (value) out = out.split(`{${f.name}}`).join(encodeURIComponent(value));
    }
    uri.value = out;
  };
  generated.element.addEventListener('input', expand);
  return el('div', { class: 'card' },
    heading({ title: template.title ?? template.name, name: template.title ? template.name : undefined }, 'Resource template'),
    template.description ? el('p', { class: 'description' }, String(template.description)) : null,
    facts([['URI template', text], ['MIME type', template.mimeType]]),
    el('form', {
      class: 'tool-form', novalidate: true,
      onsubmit: (event) => {
        event.preventDefault();
        if (generated.read().ok) readResource(uri.value);
      },
    },
    generated.element,
    el('div', { class: 'field' }, el('label', {}, 'URI'), uri),
    el('div', { class: 'actions' }, el('button', { type: 'submit', class: 'primary' }, 'Read resource'))));
}

/** @param {Prompt} prompt */
function promptView(prompt) {
  const args = Array.isArray(prompt.arguments) ? prompt.arguments : [];
  const generated = schemaForm({
    type: 'object',
    properties: Object.fromEntries(args.map((a) => [a.name, { type: 'string', title: a.title, description: a.description }])),
    required: args.filter((a) => a.required).map((a) => a.name),
  }, { idPrefix: 'prompt' });
  return el('div', { class: 'card' },
    heading(prompt, 'Prompt'),
    prompt.description ? el('p', { class: 'description' }, String(prompt.description)) : null,
    args.length ? el('h3', {}, 'Arguments') : el('p', { class: 'muted' }, 'This prompt takes no arguments.'),
    el('form', {
      class: 'tool-form', novalidate: true,
      onsubmit: (event) => {
        event.preventDefault();
        const read = generated.read();
        if (read.ok) getPrompt(prompt, read.value);
      },
    },
    generated.element,
    el('div', { class: 'actions' }, el('button', { type: 'submit', class: 'primary', id: 'get-prompt' }, 'Get prompt'))));
}

