// @ts-check
// A form generated from a JSON Schema object (a tool's inputSchema, an
// elicitation's requestedSchema, a prompt's arguments): strings (with
// formats), numbers and integers, booleans, enums as selects, arrays of
// enum values as checkboxes, and a raw-JSON textarea for anything else.
// Required fields are marked; defaults are filled in.

import { el } from './dom.js';

let counter = 0;

/** The first non-null type of a schema (`type` may be an array). */
function typeOf(schema) {
  const type = schema?.type;
  if (Array.isArray(type)) return type.find((t) => t !== 'null');
  return type;
}

/** [{value, label}] when the schema is a choice of constants, else null. */
function choices(schema) {
  if (!schema || typeof schema !== 'object') return null;
  if (Array.isArray(schema.enum) && schema.enum.length && schema.enum.every((v) => ['string', 'number'].includes(typeof v))) {
    const names = Array.isArray(schema.enumNames) ? schema.enumNames : [];
    return schema.enum.map((value, i) => ({ value, label: String(names[i] ?? value) }));
  }
  const options = schema.oneOf ?? schema.anyOf;
  if (Array.isArray(options) && options.length && options.every((o) => o && typeof o === 'object' && 'const' in o
      && ['string', 'number'].includes(typeof o.const))) {
    return options.map((o) => ({ value: o.const, label: String(o.title ?? o.const) }));
  }
  return null;
}

function kindOf(schema) {
  const type = typeOf(schema);
  if ((type === undefined || type === 'string' || type === 'number' || type === 'integer') && choices(schema)) return 'enum';
  if (type === 'string') return 'string';
  if (type === 'number' || type === 'integer') return 'number';
  if (type === 'boolean') return 'boolean';
  if (type === 'array' && choices(schema.items)) return 'multi';
  return 'json';
}

const INPUT_TYPES = { email: 'email', uri: 'url', url: 'url', date: 'date', 'date-time': 'datetime-local', time: 'time' };

/** An RFC 3339 date-time for a datetime-local value, and back. */
function toLocalInput(value) {
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) return '';
  const pad = (n) => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}`;
}

class FieldError extends Error {}

/** One field: its DOM and how to read it. */
function field(name, schema, required, idBase) {
  const id = `${idBase}-${name.replace(/[^A-Za-z0-9_-]/g, '_')}`;
  const kind = kindOf(schema);
  const title = typeof schema?.title === 'string' && schema.title.trim() ? schema.title : name;
  const hasDefault = schema && 'default' in schema;
  const error = el('p', { class: 'field-error', hidden: true });
  const description = typeof schema?.description === 'string' && schema.description
    ? el('p', { class: 'hint' }, schema.description) : null;
  const labelText = [
    el('span', { class: 'field-title' }, title),
    required ? el('span', { class: 'req', title: 'required', 'aria-label': 'required' }, '*') : null,
    title !== name ? el('code', { class: 'field-key' }, name) : null,
  ];
  const type = typeOf(schema);
  let control;
  let read; // () => {present, value}
  let focusable;

  switch (kind) {
    case 'string': {
      const format = schema.format;
      const inputType = INPUT_TYPES[format] ?? 'text';
      control = el('input', {
        id, name, type: inputType, required, spellcheck: 'false',
        minlength: schema.minLength, maxlength: schema.maxLength,
        placeholder: format && !INPUT_TYPES[format] ? format : undefined,
      });
      if (typeof schema.pattern === 'string') control.setAttribute('pattern', schema.pattern);
      if (hasDefault && typeof schema.default === 'string') {
        control.value = inputType === 'datetime-local' ? toLocalInput(schema.default) : schema.default;
      }
      read = () => {
        const value = control.value;
        if (value === '') return { present: false };
        if (inputType === 'datetime-local') return { present: true, value: new Date(value).toISOString() };
        return { present: true, value };
      };
      focusable = control;
      break;
    }
    case 'number': {
      const integer = type === 'integer';
      control = el('input', {
        id, name, type: 'number', required, step: integer ? '1' : 'any',
        min: schema.minimum ?? schema.exclusiveMinimum, max: schema.maximum ?? schema.exclusiveMaximum,
        inputmode: integer ? 'numeric' : 'decimal',
      });
      if (hasDefault && typeof schema.default === 'number') control.value = String(schema.default);
      read = () => {
        if (control.value === '') return { present: false };
        const value = Number(control.value);
        if (!Number.isFinite(value)) throw new FieldError('Enter a number');
        if (integer && !Number.isInteger(value)) throw new FieldError('Enter a whole number');
        return { present: true, value };
      };
      focusable = control;
      break;
    }
    case 'boolean': {
      if (required || hasDefault) {
        control = el('input', { id, name, type: 'checkbox', checked: schema.default === true });
        read = () => ({ present: true, value: control.checked });
        focusable = control;
        // A checkbox carries its label on its right.
        return {
          name,
          element: el('div', { class: 'field boolean' },
            el('label', { class: 'check', for: id }, control, ...labelText), description, error),
          read: wrap(() => read()),
          focus: () => focusable.focus(),
          control: focusable,
        };
      }
      // Optional with no default: "not set" must stay possible.
      control = el('select', { id, name },
        el('option', { value: '' }, '— not set —'),
        el('option', { value: 'true' }, 'true'),
        el('option', { value: 'false' }, 'false'));
      read = () => (control.value === '' ? { present: false } : { present: true, value: control.value === 'true' });
      focusable = control;
      break;
    }
    case 'enum': {
      const options = choices(schema);
      control = el('select', { id, name, required });
      if (!required || !hasDefault) control.append(el('option', { value: '' }, required ? '— choose —' : '— not set —'));
      options.forEach((option, i) => control.append(el('option', { value: String(i) }, option.label)));
      if (hasDefault) {
        const index = options.findIndex((o) => o.value === schema.default);
        if (index >= 0) control.value = String(index);
      }
      read = () => (control.value === '' ? { present: false } : { present: true, value: options[Number(control.value)].value });
      focusable = control;
      break;
    }
    case 'multi': {
      const options = choices(schema.items);
      const defaults = Array.isArray(schema.default) ? schema.default : [];
      const boxes = options.map((option, i) => el('input', {
        type: 'checkbox', id: `${id}-${i}`, value: String(i), checked: defaults.includes(option.value),
      }));
      control = el('div', { class: 'multi', id, role: 'group' },
        options.map((option, i) => el('label', { class: 'check', for: `${id}-${i}` }, boxes[i], option.label)));
      read = () => {
        const value = options.filter((_, i) => boxes[i].checked).map((o) => o.value);
        if (!value.length && !required && !hasDefault) return { present: false };
        if (typeof schema.minItems === 'number' && value.length < schema.minItems) {
          throw new FieldError(`Choose at least ${schema.minItems}`);
        }
        if (typeof schema.maxItems === 'number' && value.length > schema.maxItems) {
          throw new FieldError(`Choose at most ${schema.maxItems}`);
        }
        return { present: true, value };
      };
      focusable = boxes[0];
      // A group, not a single control: the title is a legend.
      return {
        name,
        element: el('fieldset', { class: 'field' }, el('legend', {}, ...labelText), description, control, error),
        read: wrap(() => read()),
        focus: () => focusable?.focus(),
        control: focusable,
      };
    }
    default: {
      // Raw JSON for objects, free arrays, unions, and schemas without a type.
      const shape = type ? `JSON ${type}` : 'JSON value';
      control = el('textarea', { id, name, rows: 3, spellcheck: 'false', class: 'mono', placeholder: shape });
      if (hasDefault) control.value = JSON.stringify(schema.default, null, 2);
      read = () => {
        if (control.value.trim() === '') {
          if (required) throw new FieldError('Required');
          return { present: false };
        }
        try {
          return { present: true, value: JSON.parse(control.value) };
        } catch (e) {
          throw new FieldError(`Not valid JSON: ${e.message}`);
        }
      };
      focusable = control;
      labelText.push(el('span', { class: 'field-type' }, shape));
    }
  }

  function wrap(inner) {
    return () => {
      error.hidden = true;
      error.textContent = '';
      // An input, select or textarea (the multi kind's checkbox too).
      const control = /** @type {HTMLInputElement} */ (focusable);
      if (control instanceof HTMLElement && 'checkValidity' in control && !control.checkValidity()) {
        throw new FieldError(control.validationMessage || 'Invalid value');
      }
      return inner();
    };
  }

  const element = el('div', { class: `field ${kind}` },
    el('label', { for: id }, ...labelText), control, description, error);
  return {
    name,
    element,
    read: wrap(read),
    focus: () => focusable.focus(),
    control: focusable,
  };
}

/**
 * What reading a form gives.
 * @typedef {{ ok: true, value: { [key: string]: any } } | { ok: false, message: string }} ReadResult
 */

/**
 * A form for an object schema. Returns `{element, fields, read()}`;
 * `read()` gives `{ok: true, value}` or `{ok: false, message}` (and marks
 * and focuses the first bad field).
 * @param {any} schema
 * @param {{ idPrefix?: string }} [options]
 */
export function schemaForm(schema, { idPrefix = 'f' } = {}) {
  const base = `${idPrefix}${++counter}`;
  const properties = schema && typeof schema.properties === 'object' && schema.properties ? schema.properties : {};
  const required = new Set(Array.isArray(schema?.required) ? schema.required : []);
  // Required fields first; the others keep their order.
  const entries = Object.entries(properties);
  const ordered = [...entries.filter(([n]) => required.has(n)), ...entries.filter(([n]) => !required.has(n))];
  const fields = ordered.map(([name, prop]) => field(name, prop ?? {}, required.has(name), base));
  const element = el('div', { class: 'schema-form' }, fields.map((f) => f.element));

  /** @returns {ReadResult} */
  function read() {
    /** @type {{ [key: string]: any }} */
    const value = {};
    let firstBad = null;
    for (const f of fields) {
      /** @type {HTMLElement | null} */
      const errorNode = f.element.querySelector(':scope > .field-error');
      try {
        const got = f.read();
        if (got.present) value[f.name] = got.value;
      } catch (e) {
        if (!(e instanceof FieldError)) throw e;
        if (errorNode) {
          errorNode.textContent = e.message;
          errorNode.hidden = false;
        }
        firstBad ??= { field: f, message: `${f.name}: ${e.message}` };
      }
    }
    if (firstBad) {
      firstBad.field.focus();
      return { ok: false, message: firstBad.message };
    }
    return { ok: true, value };
  }

  return { element, fields, read, empty: fields.length === 0 };
}

/**
 * Can `schemaForm` show this schema faithfully? (No: the tool form falls
 * back to raw JSON for the whole arguments object.)
 */
/** @param {any} schema */
export function formFits(schema) {
  if (!schema || typeof schema !== 'object') return false;
  if (typeOf(schema) !== undefined && typeOf(schema) !== 'object') return false;
  for (const key of ['oneOf', 'anyOf', 'allOf', 'not', 'if', 'patternProperties', '$ref']) {
    if (key in schema) return false;
  }
  const extra = schema.additionalProperties;
  return extra === undefined || extra === false || (typeof extra === 'object' && Object.keys(extra).length === 0)
    || (extra === true && schema.properties && Object.keys(schema.properties).length > 0);
}
