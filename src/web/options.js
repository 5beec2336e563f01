// The JS face's own JS (src/web/options.rs, handlers.rs and mod.rs call
// it; wasm-bindgen ships it beside its glue): `ConnectOptions` and
// `RequestOptions` checked, the request handlers and `onprogress` called,
// and `listAllTools`' pages followed. Written in JS, not through
// wasm-bindgen's bindings: forty options, each read, checked and named in
// its own TypeError, and the conversions and crossings of the calls,
// weighed more in the wasm than here (docs/size.md, sessions 37 and 38).
//
// An option of the wrong type or value throws a TypeError that names it.
// What comes back is an array of what was given, by place (the `*_READ`
// lists below say which name is where; src/web/options.rs reads each by its
// index, and a test there holds its indexes to these lists), each of the
// type the Rust side reads without checking again: strings, booleans,
// numbers (a choice among names as the index of the one given), functions,
// and lists. Read by place, the Rust side keeps no option's name (some 50
// strings of the wasm). `protocolVersion` is checked in Rust, which knows
// the protocol versions.

// The text of a thrown value or a returned one, for a message: the fetch
// seam's reader (wasm-bindgen ships both files, side by side as here).
import { textOf } from '../http/web/fetch.js';

const fail = (message) => {
  throw new TypeError(message);
};

// A string as the errors show one: in double quotes, escaped as JSON.
const quoted = (text) => JSON.stringify(text);

// `owner[key]`; undefined when absent or null. A getter that throws fails
// the call with its own error.
const get = (owner, key) => owner?.[key] ?? undefined;

// A duration in milliseconds: a finite number from 0.
const MS = 'ms';

// `owner[key]` (`name.key` in errors) as `kind` says: a `typeof` name, MS,
// or the list of names it may be (read as the index of the one given).
function check(owner, name, key, kind) {
  const value = get(owner, key);
  const what = `${name}.${key}`;
  if (value === undefined) return undefined;
  if (Array.isArray(kind)) {
    if (typeof value !== 'string') fail(`${what} must be a string`);
    const index = kind.indexOf(value);
    return index >= 0 ? index : fail(`${what} ${quoted(value)} is not one of ${kind.join(', ')}`);
  }
  if (kind !== MS && typeof value === kind) return value;
  if (kind === MS && typeof value === 'number' && Number.isFinite(value) && value >= 0) return value;
  fail(`${what} must be ${kind === MS ? 'a non-negative number of milliseconds' : `a ${kind}`}`);
}

// Every option `spec` names, checked, into `read`.
function checkAll(owner, name, spec, read = {}) {
  for (const key in spec) read[key] = check(owner, name, key, spec[key]);
  return read;
}

// `read`'s values of `keys`, in that order: what the Rust side reads by place.
const placed = (read, keys) => keys.map((key) => read[key]);

const CONNECT = {
  transport: ['auto', 'streamable-http', 'sse'],
  openServerStream: 'boolean',
  eagerServerStream: 'boolean',
  credentials: ['omit', 'same-origin', 'include'],
  timeout: MS,
  protocolVersion: 'string',
  era: ['auto', 'handshake', 'stateless'],
  tasks: 'boolean',
  taskTimeout: MS,
  resultCache: 'boolean',
  reopenListens: 'boolean',
  validateStructuredContent: 'boolean',
  sampling: 'function',
  elicitation: 'function',
  elicitationFillDefaults: 'boolean',
  elicitationValidate: 'boolean',
  roots: 'function',
  onnotification: 'function',
  onsessionrestarted: 'function',
  onresubscribed: 'function',
};

// `options` (`ConnectOptions`) checked. `tasks` and `machineGrants`: the
// Rust side was built with those Cargo features.
export function connectOptions(options, tasks, machineGrants) {
  if (options !== undefined && options !== null && typeof options !== 'object') fail('options must be an object');
  const read = checkAll(options, 'options', CONNECT);
  read.headers = headers(get(options, 'headers'));
  read.clientInfo = clientInfo(get(options, 'clientInfo'));
  // null is no limit, where absent is the default.
  const limit = options?.maxConnections;
  if (limit === null) read.unlimited = true;
  else if (limit !== undefined && !(Number.isInteger(limit) && limit >= 1)) {
    fail('options.maxConnections must be a whole number from 1, or null');
  } else read.maxConnections = limit;
  // Without the feature the options are still read (a wrong type is the
  // same error); declaring the extension is refused by name.
  if (read.tasks && !tasks) {
    fail(
      'options.tasks is not in this build of mcp-edge (mcp-edge/lite does not run tool calls as tasks): ' +
        'import `mcp-edge`, or build with the `tasks` feature',
    );
  }
  read.auth = authOptions(get(options, 'auth'), machineGrants);
  return placed(read, CONNECT_READ);
}

// What `connectOptions` hands back, by place.
const CONNECT_READ = [...Object.keys(CONNECT), 'headers', 'clientInfo', 'unlimited', 'maxConnections', 'auth'];

// `clientInfo`: the `Implementation` the handshake names this client by.
const INFO = { name: 'string', version: 'string', title: 'string', description: 'string', websiteUrl: 'string' };

function clientInfo(value) {
  const OWNER = 'options.clientInfo';
  if (value === undefined) return undefined;
  if (value === null || typeof value !== 'object') fail(`${OWNER} must be {name, version, title?}`);
  const read = checkAll(value, OWNER, INFO);
  return read.name === undefined ? fail(`${OWNER}.name must be a string`) : placed(read, INFO_READ);
}

// What `clientInfo` hands back, by place.
const INFO_READ = Object.keys(INFO);

// `headers`: a plain object, a `Headers`, or an array of pairs; as pairs.
function headers(value) {
  const invalid = () => fail('options.headers must map header names to strings');
  if (value === undefined) return undefined;
  if (typeof value !== 'object') invalid();
  if (typeof value[Symbol.iterator] === 'function') {
    return Array.from(value, (pair) =>
      Array.isArray(pair) && pair.length === 2 && typeof pair[0] === 'string' && typeof pair[1] === 'string'
        ? pair
        : invalid(),
    );
  }
  // Through JSON, as a request's values go: `toJSON` is honoured and
  // undefined values vanish.
  const object = JSON.parse(JSON.stringify(value) ?? 'null');
  if (object === null || typeof object !== 'object' || Array.isArray(object)) invalid();
  return Object.entries(object).map(([name, text]) =>
    typeof text === 'string' ? [name, text] : fail(`options.headers[${quoted(name)}] must be a string`),
  );
}

const AUTH = {
  authorizationTimeout: MS,
  redirectUri: 'string',
  clientId: 'string',
  clientSecret: 'string',
  clientMetadataUrl: 'string',
  privateKeyPem: 'string',
  keyId: 'string',
  tokenEndpointAuthMethod: ['client_secret_basic', 'client_secret_post', 'private_key_jwt', 'none'],
  clientName: 'string',
  assertion: 'string',
  grant: ['authorization_code', 'client_credentials', 'jwt_bearer', 'identity_assertion'],
  allowInsecureHttp: 'boolean',
  dpop: 'boolean',
  popupFeatures: 'string',
};

// The token stores by name: the index + 1 is `store` (4 the app's `{ load,
// save, clear }`); `storeObject` is what store.js keeps the records in (a
// Web Storage by name, or the app's object), absent for memory.
const STORES = ['memory', 'sessionStorage', 'localStorage'];

// Why the Web Storage `name` cannot keep tokens here, or undefined.
function unusable(name) {
  let storage;
  try {
    storage = globalThis[name];
  } catch (error) {
    // Sandboxed frames and some privacy settings throw.
    return `${name} is not usable here: ${textOf(error)}`;
  }
  if (storage == null) return `there is no ${name} here (workers and Node have none)`;
  if (!(typeof Storage === 'function' && storage instanceof Storage)) return `${name} is not a Storage`;
}

// The callback page's path: the default redirect URI on this origin.
const CALLBACK_PATH = '/oauth-callback.html';

// `options.auth` checked; undefined when absent. With where this runs:
// `inPage`, there is a window; `origin`, the page's (or worker's) origin, if
// any.
export function authOptions(auth, machineGrants) {
  const OWNER = 'options.auth';
  if (auth === undefined) return undefined;
  if (auth === null || typeof auth !== 'object') fail(`${OWNER} must be an object`);
  const read = checkAll(auth, OWNER, AUTH);
  const inPage = (read.inPage = typeof Window === 'function' && globalThis instanceof Window);
  const found = globalThis.location?.origin;
  const origin = (read.origin = typeof found === 'string' && found.startsWith('http') ? found : undefined);

  // How the user is sent to the authorization page: a popup (`mode` 0), a
  // redirect (1), the app's function (`authorize`), or no way (3).
  const authorize = get(auth, 'authorize');
  if (typeof authorize === 'function') read.authorize = authorize;
  else if (authorize === undefined) read.mode = inPage ? 0 : 3;
  else if (authorize !== 'popup' && authorize !== 'redirect') {
    fail(`${OWNER}.authorize must be "popup", "redirect" or a function`);
  } else if (inPage) read.mode = authorize === 'popup' ? 0 : 1;
  else {
    fail(
      `${OWNER}.authorize ${quoted(authorize)} needs a page (there is no window here): pass a function that ` +
        'takes {url, redirectUri, state}, lets the user sign in and resolves with the URL the ' +
        'authorization server redirected to',
    );
  }
  if (read.redirectUri === undefined && origin === undefined && read.authorize) {
    fail(`${OWNER}.redirectUri is needed here (there is no page origin to put the callback page on)`);
  }
  read.redirectUri ??= origin && origin + CALLBACK_PATH;

  // `scope`: a space-separated string or an array of strings.
  const scope = get(auth, 'scope');
  // Handed on as one space-separated string, as the `scope` parameter goes.
  if (typeof scope === 'string') read.scopes = scope.split(/\s+/).filter((one) => one).join(' ');
  else if (Array.isArray(scope)) {
    const checked = (one) => (typeof one === 'string' ? one : fail(`${OWNER}.scope must hold strings`));
    read.scopes = Array.from(scope, checked).join(' ');
  } else if (scope !== undefined) fail(`${OWNER}.scope must be a string or an array of strings`);

  grant(auth, OWNER, read, machineGrants);

  const store = get(auth, 'store');
  if (store === undefined) {
    // By default `sessionStorage` in a page that may use it, else memory.
    read.store = inPage && !unusable('sessionStorage') ? 2 : 1;
  } else if (typeof store === 'string') {
    read.store =
      STORES.indexOf(store) + 1 ||
      fail(`${OWNER}.store must be "memory", "sessionStorage", "localStorage" or { load, save, clear }`);
    const why = read.store > 1 && unusable(store);
    if (why) fail(`${OWNER}.store: ${why}; use "memory" or your own { load, save, clear }`);
  } else if (['load', 'save', 'clear'].every((method) => typeof get(store, method) === 'function')) {
    read.store = 4;
  } else fail(`${OWNER}.store must have the methods load(key), save(key, value) and clear(key)`);
  if (read.store > 1) read.storeObject = STORES[read.store - 1] ?? store;
  return placed(read, AUTH_READ);
}

// What `authOptions` hands back, by place.
const AUTH_READ = [
  ...Object.keys(AUTH),
  'inPage',
  'origin',
  'authorize',
  'mode',
  'scopes',
  'identityProvider',
  'store',
  'storeObject',
];

// What `identityProvider` holds, by place.
const IDP_READ = ['tokenEndpoint', 'idToken', 'clientId', 'clientSecret'];

// `grant` (an index in AUTH.grant), told by `identityProvider` or
// `assertion` when not named, with what it needs.
function grant(auth, OWNER, read, machineGrants) {
  const idp = get(auth, 'identityProvider');
  read.grant ??= idp !== undefined ? 3 : read.assertion !== undefined ? 2 : undefined;
  const kind = quoted(AUTH.grant[read.grant] ?? '');
  if (read.grant > 0 && !machineGrants) {
    fail(
      `${OWNER}.grant ${kind} is not in this build of mcp-edge (mcp-edge/lite has the authorization code grant ` +
        'only): import `mcp-edge`, or build with the `machine-grants` feature',
    );
  }
  if (read.grant === 2 && read.assertion === undefined) {
    fail(`${OWNER}.grant ${kind} needs ${OWNER}.assertion (the JWT to present)`);
  }
  if (read.grant === 3) {
    const owner = `${OWNER}.identityProvider`;
    if (idp === undefined) {
      fail(`${OWNER}.grant ${kind} needs ${owner}: {tokenEndpoint, idToken, clientId, clientSecret?}`);
    }
    const given = checkAll(idp, owner, { tokenEndpoint: 'string', idToken: 'string', clientId: 'string' });
    for (const key in given) given[key] ?? fail(`${owner}.${key} must be a string`);
    read.identityProvider = placed(checkAll(idp, owner, { clientSecret: 'string' }, given), IDP_READ);
  }
}

// `RequestOptions` of one call (never undefined here) checked, as
// [signal, timeout, resetTimeoutOnProgress, maxTotalTimeout, onprogress]:
// read by place, each of its type or undefined.
export function callOptions(options) {
  const OWNER = 'options';
  // null is no options, as undefined is.
  if (options === null) return [];
  if (typeof options !== 'object') fail(`${OWNER} must be an object`);
  const read = checkAll(options, OWNER, CALL);
  const signal = get(options, 'signal');
  // A signal from another realm (an iframe) fails `instanceof` but works.
  const isSignal =
    signal === undefined ||
    signal instanceof AbortSignal ||
    (typeof signal.aborted === 'boolean' && typeof signal.addEventListener === 'function');
  if (!isSignal) fail(`${OWNER}.signal must be an AbortSignal`);
  return [signal, read.timeout, read.resetTimeoutOnProgress, read.maxTotalTimeout, read.onprogress];
}

const CALL = { timeout: MS, resetTimeoutOnProgress: 'boolean', maxTotalTimeout: MS, onprogress: 'function' };

// JSON-RPC's code for an error of the client's own (the server gets it).
const INTERNAL_ERROR = -32603;

// Calls the app's `auth.authorize({url, redirectUri, state})` (src/web/auth
// calls this): resolves with the URL it resolved with, rejects with an Error
// that says why not.
// Calls `onabort` when `signal` aborts (src/web/options.rs's `abortable`):
// undefined if it has aborted already, else the function that stops
// listening.
export function watchSignal(signal, onabort) {
  if (signal.aborted) return undefined;
  signal.addEventListener('abort', onabort);
  return () => signal.removeEventListener('abort', onabort);
}

export async function callAuthorize(authorize, url, redirectUri, state) {
  let answer;
  try {
    answer = await authorize({ url, redirectUri, state });
  } catch (thrown) {
    throw new Error(`auth.authorize failed: ${textOf(thrown)}`);
  }
  if (typeof answer === 'string') return answer;
  throw new Error('auth.authorize must resolve to the URL the authorization server redirected to (a string)');
}


// What a handler threw (or rejected with), as the JSON-RPC error the
// server gets: its integer `code` (else INTERNAL_ERROR), its message, and
// its `data` where that can be sent as JSON.
function thrownError(name, thrown) {
  const code = thrown?.code;
  const error = {
    code: Number.isSafeInteger(code) ? code : INTERNAL_ERROR,
    message: textOf(thrown) || `the ${name} handler failed`,
  };
  try {
    return JSON.stringify({ ...error, data: thrown?.data ?? undefined });
  } catch {
    return JSON.stringify(error);
  }
}

// Why a `roots` list is not one (an array of {uri, name?}), or undefined.
function rootsProblem(roots) {
  if (!Array.isArray(roots)) return undefined;
  for (const [i, root] of roots.entries()) {
    const problem =
      root === null || typeof root !== 'object' || Array.isArray(root)
        ? 'is not an object'
        : typeof root.uri !== 'string'
          ? 'has no string `uri`'
          : root.name !== undefined && typeof root.name !== 'string'
            ? 'has a `name` that is not a string'
            : undefined;
    if (problem) return `root ${i} ${problem}`;
  }
}

// The JSON text of a handler's answer: a `roots` handler's list is the
// result's `roots`, as it returned it; every other handler answers an
// object. Throws the error's JSON text for an answer of another shape.
function answerText(name, answer) {
  const shape = name === 'roots' ? 'an array of {uri, name?}' : 'an object';
  const refuse = (why) => {
    throw JSON.stringify({ code: INTERNAL_ERROR, message: `the ${name} handler ${why}` });
  };
  let text;
  try {
    // Through JSON, as a request's values go: `toJSON` is honoured.
    text = answer === undefined ? undefined : JSON.stringify(answer);
  } catch (thrown) {
    refuse(`returned what cannot be sent as JSON: ${textOf(thrown)}`);
  }
  const value = text === undefined ? undefined : JSON.parse(text);
  const problem = name === 'roots' ? rootsProblem(value) : undefined;
  if (problem) refuse(`must return ${shape}: ${problem}`);
  const object = value !== null && typeof value === 'object' && !Array.isArray(value);
  const fits = name === 'roots' ? Array.isArray(value) : object;
  if (!fits) refuse(`returned ${answer === undefined ? 'undefined' : textOf(answer)}, not ${shape}`);
  return name === 'roots' ? `{"roots":${text}}` : text;
}

// Calls a request handler of `ConnectOptions` (`sampling`, `elicitation`
// or `roots`, its `name`) as the TypeScript SDK calls one: with the
// server's `params` and `extra` (each JSON text here) and `signal` as
// `extra.signal`. Its answer may be a value or a promise of one. Resolves
// to the result's JSON text; rejects with the JSON text of the error the
// server gets.
export function callHandler(handler, name, params, extra, signal) {
  return new Promise((resolve) => resolve(handler(JSON.parse(params), { signal, ...JSON.parse(extra) }))).then(
    (answer) => answerText(name, answer),
    (thrown) => {
      throw thrownError(name, thrown);
    },
  );
}

// Calls an `onprogress` callback with `{progress, total?, message?}`;
// returns what it threw (a callback cannot fail the call it watches).
export function reportProgress(callback, progress, total, message) {
  const update = { progress };
  if (total !== undefined) update.total = total;
  if (message !== undefined) update.message = message;
  try {
    callback(update);
  } catch (thrown) {
    return thrown ?? null;
  }
}

// `[promise, resolve, reject]`: a new promise and its settlers, for
// src/web/mod.rs's `start`.
export function pending() {
  let settlers;
  const promise = new Promise((...both) => (settlers = both));
  return [promise, ...settlers];
}

// Every item under `key` of every page `client[page](params, options)`
// gives (`method`'s results), following `nextCursor`: at most `maxPages`
// pages, and no cursor twice. `client` is a handle of its own, freed here.
// A page's error (an abort, a timeout) is the whole call's.
export async function listAll(client, page, method, key, maxPages, options) {
  const invalid = (reason) =>
    Object.assign(new Error(`the server's answer to ${method} is malformed: ${reason}`), { name: 'McpError' });
  const seen = new Set();
  let items = [];
  let cursor;
  try {
    for (let pages = 0; pages < maxPages; pages++) {
      const result = await client[page](cursor === undefined ? undefined : { cursor }, options);
      const listed = result[key] ?? [];
      if (!Array.isArray(listed)) throw invalid(`\`${key}\` is not an array`);
      // One page is the answer as it is (a 10,000-tool page is not copied).
      items = pages === 0 ? listed : items.concat(listed);
      const next = result.nextCursor ?? undefined;
      if (next === undefined) return items;
      if (typeof next !== 'string') throw invalid('`nextCursor` is not a string');
      if (seen.has(next)) throw invalid(`the server repeated the cursor ${quoted(next)}`);
      seen.add(next);
      cursor = next;
    }
    throw invalid(`more than ${maxPages} pages`);
  } finally {
    client.free();
  }
}
