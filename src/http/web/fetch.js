// A `fetch` exchange of the web HTTP backend, up to its response's headers
// (src/http/web/mod.rs calls this and reads the body; wasm-bindgen ships
// this file beside its glue). Written in JS, not through wasm-bindgen's
// bindings: the request's init, the redirects and the headers read are
// three calls here, where they were twenty-odd crossings of the wasm
// boundary and some 2 KB of the wasm's gzip (docs/size.md, session 37).

// Redirects followed by hand (outside a browser) before giving up, as the
// native client.
const MAX_REDIRECTS = 10;

// The credentials modes, by the number the Rust side passes (0: fetch's own).
const CREDENTIALS = [undefined, 'omit', 'same-origin', 'include'];

// The response headers read, in the order of src/http/mod.rs's
// RESPONSE_HEADERS (an answer names each by its place there; a test of
// src/http/web/mod.rs holds the two lists equal).
export const RESPONSE_HEADERS = [
  'content-type',
  'content-length',
  'mcp-session-id',
  'www-authenticate',
  'retry-after',
  'dpop-nonce',
  'location',
];

// Headers read only where a status gives them a meaning; `dpop-nonce`
// only of a request that sent a DPoP proof.
const READ_WHEN = {
  'www-authenticate': (status) => status === 401 || status === 403,
  'retry-after': (status) => status === 429 || status === 503,
  location: (status) => status === 201 || (status >= 300 && status < 400),
};

// The text of what JS threw or rejected with, for an error message
// (src/http/web/thrown.rs asks): an Error's message, a string, an object's
// string `message`, the value's JSON, or else String(value). Not the
// glue's debug string of a value: 2 KB of glue no message needs.
export function textOf(value) {
  if (value instanceof Error) return String(value.message);
  if (typeof value === 'string') return value;
  if (typeof value === 'object' && value !== null) {
    try {
      const message = value.message;
      if (typeof message === 'string') return message;
    } catch {}
  }
  try {
    const json = JSON.stringify(value);
    if (typeof json === 'string') return json;
  } catch {}
  try {
    return String(value);
  } catch {
    return 'a value that cannot be printed';
  }
}

// Whether this is a browser (a page or a worker), not Node, Deno or Bun.
export const inBrowser = () =>
  typeof globalThis.process?.versions?.node !== 'string' &&
  globalThis.Deno === undefined &&
  globalThis.Bun === undefined;

// The `fetch` a host installed for mcp-edge under
// `Symbol.for('mcp-edge.fetch')` (host.rs says why), if it did.
export function installedFetch() {
  const f = globalThis[Symbol.for('mcp-edge.fetch')];
  return typeof f === 'function' ? f : undefined;
}

// Whether two URLs share scheme, host and port (unparsable: no).
function sameOrigin(a, b) {
  try {
    return new URL(a).origin === new URL(b).origin;
  } catch {
    return false;
  }
}

// Ends an exchange whose body will not be read.
const cancel = (response) => response?.body?.cancel().catch(() => {});

// A `Headers` of `list`, the JSON text of `["name", "value", ...]`
// (src/http/web/mod.rs writes it); a name or value fetch refuses is an
// Error that names the header.
export function headersOf(list) {
  const pairs = JSON.parse(list);
  const headers = new Headers();
  for (let at = 0; at < pairs.length; at += 2) {
    try {
      headers.append(pairs[at], pairs[at + 1]);
    } catch (error) {
      throw new Error(`header ${pairs[at]}: ${textOf(error)}`);
    }
  }
  return headers;
}

// The bytes of what a body gave (src/http/web/mod.rs reads them): `whole`,
// the `ArrayBuffer` of `arrayBuffer()`; else a stream reader's `{done,
// value}`, undefined once done. A chunk is the `Uint8Array` it is (byte
// streams give nothing else; a copy of a 1 MB body would be 0.4 ms for
// nothing), anything else a view of it.
export function bytesOf(read, whole) {
  const value = whole ? read : read.done ? undefined : read.value;
  return value === undefined || value instanceof Uint8Array ? value : new Uint8Array(value);
}

// Ends an exchange the Rust side dropped without a signal to abort it (Node:
// src/http/web/mod.rs says why): `what` is the fetch in flight, whose
// response (`[response, ...]` once a redirect was followed) has its body
// cancelled when it comes, or a body's reader, cancelled now. Nothing of
// it is awaited or reported.
export function abandon(what) {
  if (typeof what.then === 'function') {
    what.then((answer) => cancel(Array.isArray(answer) ? answer[0] : answer), () => {});
  } else {
    what.cancel().catch(() => {});
  }
}

// A refusal of this file's own, told from a failed `fetch` by `refused`;
// the response it refuses is cancelled.
function refuse(response, text) {
  cancel(response);
  throw Object.assign(new Error(text), { refused: true });
}

// The init of a request: `method`, `headers` (a `Headers`, which the Rust
// side reuses while the list is the same), `body`, the credentials mode
// (by number), `manual`: a redirect is not followed (the request carries
// what only its server may see), `signal`.
export function requestInit(method, headers, body, credentials, manual, signal) {
  const init = { method, headers, body, signal: signal ?? undefined, credentials: CREDENTIALS[credentials] };
  if (manual) init.redirect = 'manual';
  return init;
}

// Sends a request: `fetch`'s own promise, with no promise of this file's
// in between (each would cost every exchange a microtask). `installed`:
// the host's own `fetch`, if any, else the global one, looked up at each
// call so that a page that replaces it later is heard. `deferred`: called
// from a microtask of its own (see `FetchHttp` in mod.rs).
export function send(installed, deferred, url, init) {
  const fetcher = installed ?? globalThis.fetch;
  return deferred ? Promise.resolve().then(() => fetcher(url, init)) : fetcher(url, init);
}

// What the Rust side reads of the answer to a request sent to `url` with
// `init`: `[response, status, i, value, ...]`, the value of each header
// `RESPONSE_HEADERS[i]` the response has and its status gives a meaning. Outside a
// browser a "manual" redirect is the server's own 307/308: within the
// origin it is followed here, as natively (a promise of the same array
// then; `hops` so far, `target` the URL this response answers), to another
// origin refused. Throws an Error with `refused` that says why a response
// is not taken.
export function readAnswer(response, url, init, dpop, installed, hops = 0, target = url) {
  if (typeof Response === 'function' && !(response instanceof Response)) {
    refuse(undefined, 'fetch resolved to something that is not a Response');
  }
  const { status } = response;
  const location = status === 307 || status === 308 ? response.headers.get('location') : null;
  if (location !== null && response.type !== 'opaqueredirect') {
    let next;
    try {
      next = new URL(location, target).href;
    } catch (error) {
      refuse(response, `${init.method} ${target}: a redirect to ${JSON.stringify(location)}: ${textOf(error)}`);
    }
    if (!sameOrigin(url, next)) {
      refuse(
        response,
        `${init.method} ${url}: the server redirected to ${next}, another origin: refused, so the session id, ` +
          "credentials and headers are used only with the server's own origin",
      );
    }
    if (hops >= MAX_REDIRECTS) refuse(response, `${init.method} ${url}: more than ${MAX_REDIRECTS} redirects`);
    // A redirect followed here leaves this hop unread.
    cancel(response);
    return send(installed, false, next, init).then((answer) =>
      readAnswer(answer, url, init, dpop, installed, hops + 1, next),
    );
  }
  // An opaque redirect is a filtered response: its status reads 0.
  if (response.type === 'opaqueredirect') {
    refuse(
      response,
      `${init.method} ${url}: the server answered with a redirect, which is not followed for a request that ` +
        'carries a session id, credentials or custom headers (a browser does not show where it leads): use the ' +
        'URL it redirects to',
    );
  }
  // `fetch` follows redirects itself; a response that came from another
  // origin is refused, as natively: its server was not the one the request
  // was meant for.
  if (response.redirected && !sameOrigin(url, response.url)) {
    refuse(
      response,
      `${init.method} ${url}: the server redirected to ${response.url}, another origin: refused, so the ` +
        "session id, credentials and headers are used only with the server's own origin",
    );
  }
  const found = [response, status];
  for (let i = 0; i < RESPONSE_HEADERS.length; i++) {
    const name = RESPONSE_HEADERS[i];
    if (name === 'dpop-nonce' ? !dpop : READ_WHEN[name]?.(status) === false) continue;
    const value = response.headers.get(name);
    if (value !== null) found.push(i, value);
  }
  return found;
}

// How long the no-cors probe that explains a failed fetch may take.
const PROBE_MS = 5000;

// Why `method url`, sent by a page of origin `page`, failed without an
// answer (src/web/auth/cors.rs asks, for the authorization server's
// requests): a no-cors probe tells an unreachable server from one that
// answers but sends no CORS headers. Resolves with the text, or undefined
// for a request to the page's own origin (or to no URL); never rejects.
export async function explainFailure(method, url, page) {
  let target;
  try {
    target = new URL(url).origin;
  } catch {
    return undefined;
  }
  if (target === page) return undefined;
  const who = url.includes('/.well-known/oauth-protected-resource')
    ? `the MCP server at ${target} (its protected resource metadata)`
    : `the authorization server at ${target}`;
  return (await reachable(url, PROBE_MS))
    ? `${method} ${url} failed: ${who} may not allow cross-origin requests from this page (no CORS headers): ` +
        `it answers, but the browser does not let ${page} read the answer. It must send ` +
        'Access-Control-Allow-Origin for this origin'
    : `${method} ${url} failed: ${who} is unreachable from this page (or may not allow cross-origin ` +
        'requests from it: no CORS headers)';
}

// Whether `url` answers a `no-cors` GET (an opaque response) within
// `timeoutMs`: told apart, a `fetch` that failed without an answer was
// either an unreachable server or one that sends no CORS headers.
function reachable(url, timeoutMs) {
  let timer;
  const late = new Promise((resolve) => (timer = setTimeout(resolve, timeoutMs, false)));
  const probe = Promise.resolve()
    .then(() => globalThis.fetch(url, { mode: 'no-cors', method: 'GET' }))
    .then(
      () => true,
      () => false,
    );
  return Promise.race([probe, late]).finally(() => clearTimeout(timer));
}

// ## EventSource
//
// The browser's own reader of a legacy HTTP+SSE stream, for the full build's
// legacy transport (src/transport/legacy/event_source.rs calls these). A
// bundle without that transport leaves this out.

// Whether this global object (window, worker, Node, Deno) has an
// `EventSource` constructor.
export const hasEventSource = () => typeof globalThis.EventSource === 'function';

// Opens an EventSource on `url` and calls `report(kind, data, id)` with what
// it sees: 0 a connection opened, 1 one failed or dropped (it reconnects by
// itself), 2 the same but it gave up, 3 a `message` event, 4 an `endpoint`
// event. Returns the function that closes it and lets its listeners go;
// throws what the constructor threw.
export function openEventSource(url, report) {
  const source = new EventSource(url);
  const event = (kind) => (e) => report(kind, typeof e.data === 'string' ? e.data : '', e.lastEventId);
  const endpoint = event(4);
  source.onopen = () => report(0, '', '');
  source.onerror = () => report(source.readyState === EventSource.CLOSED ? 2 : 1, '', '');
  source.onmessage = event(3);
  source.addEventListener('endpoint', endpoint);
  return () => {
    source.close();
    source.onopen = source.onerror = source.onmessage = null;
    source.removeEventListener('endpoint', endpoint);
  };
}
