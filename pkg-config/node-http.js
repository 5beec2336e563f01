// HTTP for the Node entries (node.js, lite-node.js): `node:http` and
// `node:https` behind a function shaped like `fetch`, which the wasm calls
// instead of the global `fetch` (it finds it under the symbol below).
//
// Why: Node's `fetch` (undici) costs far more than the round trip it
// carries. Against the benchmark's local server, in one process, 2,000
// sequential POSTs took 0.63x the time through `node:http` that they took
// through `fetch`, and 2,000 at once 0.77x (docs/speed.md).
//
// When: only while `globalThis.fetch` is still Node's own and undici's
// global dispatcher is unset or the plain one undici makes for itself. A replaced
// `fetch` (a test's mock, an instrumented wrapper) or a dispatcher someone
// set (`setGlobalDispatcher(new ProxyAgent(...))`, a `MockAgent`) is used
// as before: every call then goes to `globalThis.fetch`, looked up at the
// call, as it does without this module.
//
// What it keeps of `fetch`: the method, headers and body; an `AbortSignal`
// (the request is destroyed); `redirect: "manual"` (the 3xx is the
// response) and "follow" (up to 20 hops, 303 and a POST's 301/302 become a
// GET, as the Fetch standard says; `redirected` and `url` tell where it
// ended); a network failure is a `TypeError` whose `cause` is Node's error
// (`ECONNREFUSED`, ...), as undici's is. Bodies are asked for uncompressed
// (no `Accept-Encoding`); a server that compresses anyway is decoded.
// What it gives back is a `Response` to `instanceof` (its prototype), with
// the members the client reads: `status`, `statusText`, `ok`, `type`,
// `redirected`, `url`, `headers.get`, `body` (a reader: `getReader()`
// with `read` and `cancel`; `cancel()`), `arrayBuffer()`, `text()`,
// `json()`.
import { createRequire } from 'node:module';

// Node's modules are loaded at the first request, not on import: `node:http`
// alone takes some 25 ms to load, which would triple the entry's cold start.
const require = createRequire(import.meta.url);

const INSTALLED = Symbol.for('mcp-edge.fetch');
const DISPATCHER = Symbol.for('undici.globalDispatcher.1');
const MAX_REDIRECTS = 20;

const ownFetch = globalThis.fetch;
const nodeOwn =
  typeof ownFetch === 'function' && Function.prototype.toString.call(ownFetch).includes('internal/deps/undici');

// undici's global dispatcher: unset, or the plain `Agent` undici makes
// for itself when it loads (Node 22's `node:http` loads it), is what
// `fetch` would use to reach the server directly. Anything else (a
// `ProxyAgent`, a `MockAgent`, an `Agent` given options such as its own
// CAs) is someone's choice, and left to `fetch`. An undici whose
// dispatcher cannot be read this way counts as someone's choice too: the
// cost of a wrong guess is speed, not a request sent the wrong way.
function plain(dispatcher) {
  if (dispatcher === undefined) return true;
  if (dispatcher?.constructor?.name !== 'Agent') return false;
  const key = Object.getOwnPropertySymbols(dispatcher).find((symbol) => symbol.description === 'options');
  const options = key === undefined ? undefined : dispatcher[key];
  return typeof options === 'object' && options !== null && Object.values(options).every((value) => value === undefined);
}

let seenDispatcher = null;
let seenPlain = false;

function fast() {
  if (globalThis.fetch !== ownFetch) return false;
  const dispatcher = globalThis[DISPATCHER];
  if (dispatcher !== seenDispatcher) {
    seenDispatcher = dispatcher;
    seenPlain = plain(dispatcher);
  }
  return seenPlain;
}

let schemes;

/** `node:http` and `node:https` with a keep-alive agent each, by URL scheme. */
function agents() {
  if (schemes === undefined) {
    const http = require('node:http');
    const https = require('node:https');
    schemes = {
      'http:': { module: http, agent: new http.Agent({ keepAlive: true }) },
      'https:': { module: https, agent: new https.Agent({ keepAlive: true }) },
    };
    // `Response` too is loaded when first named.
    Object.setPrototypeOf(NodeResponse.prototype, Response.prototype);
  }
  return schemes;
}

// A session sends the same `Headers` object call after call (the client
// keeps it while the list is the same): its plain copy is kept with it.
const plainHeaders = new WeakMap();

function headersOf(given) {
  if (given === undefined || given === null) return { accept: '*/*', 'user-agent': 'node' };
  let plain = typeof given === 'object' ? plainHeaders.get(given) : undefined;
  if (plain === undefined) {
    plain = {};
    for (const [name, value] of new Headers(given)) plain[name] = value;
    plain.accept ??= '*/*';
    plain['user-agent'] ??= 'node';
    if (typeof given === 'object') plainHeaders.set(given, plain);
  }
  return plain;
}

function failed(cause) {
  return new TypeError('fetch failed', { cause });
}

function aborted(signal) {
  const reason = signal?.reason;
  return reason !== undefined ? reason : new DOMException('This operation was aborted', 'AbortError');
}

// One request and its response's head. An abort destroys the request, or
// once the head came, its response, without an error: Node's own `signal`
// option destroys the request with one even after the response ended, when
// its keep-alive socket may serve another request or wait in the pool with
// no listener for it (the process dies of the unhandled 'error').
function exchange(url, method, headers, body, signal) {
  return new Promise((resolve, reject) => {
    const { module, agent } = agents()[url.protocol];
    const request = module.request(url, { method, headers, agent });
    let abort;
    if (signal) {
      abort = () => {
        request.destroy();
        reject(aborted(signal));
      };
      signal.addEventListener('abort', abort, { once: true });
    }
    request.on('response', (response) => {
      if (signal) {
        signal.removeEventListener('abort', abort);
        const end = () => response.destroy();
        signal.addEventListener('abort', end, { once: true });
        response.once('close', () => signal.removeEventListener('abort', end));
      }
      resolve(response);
    });
    request.on('error', (error) => {
      if (signal) signal.removeEventListener('abort', abort);
      reject(signal?.aborted ? aborted(signal) : failed(error));
    });
    request.end(body);
  });
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const NO_BODY = new Set([204, 205, 304]);

export async function nodeFetch(input, init) {
  const url = typeof input === 'string' ? input : input instanceof URL ? input.href : undefined;
  const body = init?.body;
  if (!fast() || url === undefined || !(body === undefined || body === null || typeof body === 'string' || body instanceof Uint8Array)) {
    return globalThis.fetch(input, init);
  }
  let target;
  try {
    target = new URL(url);
  } catch (error) {
    throw new TypeError(`Failed to parse URL from ${url}`, { cause: error });
  }
  if (agents()[target.protocol] === undefined) return globalThis.fetch(input, init);
  const signal = init?.signal ?? undefined;
  if (signal?.aborted) throw aborted(signal);
  let method = (init?.method ?? 'GET').toUpperCase();
  let headers = headersOf(init?.headers);
  let sent = body ?? undefined;
  const mode = init?.redirect ?? 'follow';
  for (let hops = 0; ; hops++) {
    const response = await exchange(target, method, headers, sent, signal);
    const location = response.headers.location;
    if (mode === 'manual' || !REDIRECTS.has(response.statusCode) || location === undefined) {
      return new NodeResponse(response, target.href, hops > 0, method);
    }
    response.resume();
    if (mode === 'error') throw failed(new Error(`unexpected redirect to ${location}`));
    if (hops >= MAX_REDIRECTS) throw failed(new Error('redirect count exceeded'));
    let next;
    try {
      next = new URL(location, target);
    } catch (error) {
      throw failed(error);
    }
    if (agents()[next.protocol] === undefined) throw failed(new Error(`a redirect to ${next.protocol} URL`));
    const status = response.statusCode;
    if ((status === 303 && method !== 'GET' && method !== 'HEAD') || ((status === 301 || status === 302) && method === 'POST')) {
      method = 'GET';
      sent = undefined;
      headers = Object.fromEntries(Object.entries(headers).filter(([name]) => !name.startsWith('content-')));
    }
    target = next;
  }
}

// The body as it comes off the socket, decoded if the server compressed it
// unasked.
function decoded(response) {
  const coding = (response.headers['content-encoding'] ?? '').trim().toLowerCase();
  if (coding === '' || coding === 'identity') return response;
  const zlib = require('node:zlib');
  const decoder =
    coding === 'gzip' || coding === 'x-gzip'
      ? zlib.createGunzip()
      : coding === 'deflate'
        ? zlib.createInflate()
        : coding === 'br'
          ? zlib.createBrotliDecompress()
          : null;
  if (decoder === null) return response;
  require('node:stream').pipeline(response, decoder, () => {});
  return decoder;
}

// One chunk (all that is buffered) of `stream`, or its end.
function readChunk(stream) {
  return new Promise((resolve, reject) => {
    const cleanup = () => {
      stream.off('readable', attempt);
      stream.off('end', ended);
      stream.off('error', errored);
      stream.off('close', closed);
    };
    const ended = () => {
      cleanup();
      resolve({ done: true, value: undefined });
    };
    const errored = (error) => {
      cleanup();
      reject(failed(error));
    };
    const closed = () => {
      if (stream.readableEnded) return ended();
      cleanup();
      reject(failed(stream.errored ?? new Error('the connection closed before the body ended')));
    };
    function attempt() {
      if (stream.errored) return errored(stream.errored);
      const chunk = stream.read();
      if (chunk !== null) {
        cleanup();
        return resolve({ done: false, value: chunk });
      }
      if (stream.readableEnded) return ended();
      if (stream.destroyed) return closed();
    }
    stream.on('readable', attempt);
    stream.on('end', ended);
    stream.on('error', errored);
    stream.on('close', closed);
    attempt();
  });
}

class NodeBody {
  #stream;
  #locked = false;
  constructor(stream) {
    this.#stream = stream;
  }
  get locked() {
    return this.#locked;
  }
  getReader() {
    if (this.#locked) throw new TypeError('the body is locked to a reader already');
    this.#locked = true;
    const stream = this.#stream;
    return {
      read: () => readChunk(stream),
      cancel: () => {
        stream.destroy();
        return Promise.resolve();
      },
      releaseLock: () => {},
    };
  }
  cancel() {
    this.#stream.destroy();
    return Promise.resolve();
  }
}

class NodeHeaders {
  #raw;
  constructor(raw) {
    this.#raw = raw;
  }
  get(name) {
    const value = this.#raw[String(name).toLowerCase()];
    return value === undefined ? null : Array.isArray(value) ? value.join(', ') : String(value);
  }
  has(name) {
    return this.#raw[String(name).toLowerCase()] !== undefined;
  }
}

class NodeResponse {
  // Fields, not assignments: they are defined on the object, where an
  // assignment would meet `Response.prototype`'s getters and fail.
  status;
  statusText;
  ok;
  type = 'basic';
  redirected;
  url;
  headers;
  #response;
  #body;
  #used = false;
  constructor(response, url, redirected, method) {
    this.#response = response;
    this.status = response.statusCode;
    this.statusText = response.statusMessage ?? '';
    this.ok = this.status >= 200 && this.status < 300;
    this.redirected = redirected;
    this.url = url;
    this.headers = new NodeHeaders(response.headers);
    this.#body = method === 'HEAD' || NO_BODY.has(this.status) ? null : undefined;
    if (this.#body === null) response.resume();
  }
  get body() {
    if (this.#body === undefined) this.#body = new NodeBody(decoded(this.#response));
    return this.#body;
  }
  get bodyUsed() {
    return this.#used;
  }
  async arrayBuffer() {
    if (this.#used || this.#body?.locked) throw new TypeError('the body was read already');
    this.#used = true;
    if (this.#body === null) return new ArrayBuffer(0);
    const reader = this.body.getReader();
    const chunks = [];
    for (let next = await reader.read(); !next.done; next = await reader.read()) chunks.push(next.value);
    const whole = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks);
    return whole.buffer.slice(whole.byteOffset, whole.byteOffset + whole.byteLength);
  }
  async text() {
    return new TextDecoder().decode(await this.arrayBuffer());
  }
  async json() {
    return JSON.parse(await this.text());
  }
}
// `agents()` makes it a `Response` to `instanceof`, which is what the client
// checks: the members above are its own, so none of `Response.prototype`'s
// is reached.

if (nodeOwn) globalThis[INSTALLED] ??= nodeFetch;
