// One `fetch` exchange of the web HTTP backend, up to its response's
// headers (src/http/web/mod.rs calls this and reads the body; wasm-bindgen
// ships this file beside its glue). Written in JS, not through
// wasm-bindgen's bindings: the request's init, the redirects and the
// headers read are one call here, where they were twenty-odd crossings of
// the wasm boundary and some 2 KB of the wasm's gzip (docs/size.md,
// session 37).

// Redirects followed by hand (outside a browser) before giving up, as the
// native client.
const MAX_REDIRECTS = 10;

// The credentials modes, by the number the Rust side passes (0: fetch's own).
const CREDENTIALS = [undefined, 'omit', 'same-origin', 'include'];

// Headers read only where a status gives them a meaning; `dpop-nonce`
// only of a request that sent a DPoP proof.
const READ_WHEN = {
  'www-authenticate': (status) => status === 401 || status === 403,
  'retry-after': (status) => status === 429 || status === 503,
  location: (status) => status === 201 || (status >= 300 && status < 400),
};

const messageOf = (error) => error?.message ?? String(error);

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

// A refusal of this file's own, told from a failed `fetch` by `refused`;
// the response it refuses is cancelled.
function refuse(response, text) {
  cancel(response);
  throw Object.assign(new Error(text), { refused: true });
}

// Sends `method` to `url` with `headers` (a `Headers`) and `body`, through
// `installed` (the host's own `fetch`, if any) or the global `fetch`, from
// a microtask of its own when `deferred` (see `FetchHttp` in mod.rs).
// `manual`: a redirect is not followed (the request carries what only its
// server may see). Outside a browser a "manual" redirect is the server's
// own 307/308: within the origin it is followed here, as natively; to
// another origin refused. Resolves with `[response, status, i, value, ...]`:
// the value of each header `names[i]` the response has and the status
// gives a meaning. Rejects with what `fetch` rejected with, or an Error
// with `refused` that says why the response was not taken.
export async function exchange(installed, deferred, method, url, headers, body, credentials, manual, signal, dpop, names) {
  const init = { method, headers, body, signal: signal ?? undefined, credentials: CREDENTIALS[credentials] };
  if (manual) init.redirect = 'manual';
  if (deferred) await undefined;
  let target = url;
  let response;
  for (let hops = 0; ; hops++) {
    const previous = response;
    response = await (installed ?? globalThis.fetch)(target, init);
    // A redirect followed here leaves the previous hop unread.
    cancel(previous);
    if (typeof Response === 'function' && !(response instanceof Response)) {
      refuse(undefined, 'fetch resolved to something that is not a Response');
    }
    if ((response.status !== 307 && response.status !== 308) || response.type === 'opaqueredirect') break;
    const location = response.headers.get('location');
    if (location === null) break;
    let next;
    try {
      next = new URL(location, target).href;
    } catch (error) {
      refuse(response, `${method} ${target}: a redirect to ${JSON.stringify(location)}: ${messageOf(error)}`);
    }
    if (!sameOrigin(url, next)) {
      refuse(
        response,
        `${method} ${url}: the server redirected to ${next}, another origin: refused, so the session id, ` +
          "credentials and headers are used only with the server's own origin",
      );
    }
    if (hops >= MAX_REDIRECTS) refuse(response, `${method} ${url}: more than ${MAX_REDIRECTS} redirects`);
    target = next;
  }
  // An opaque redirect is a filtered response: its status reads 0.
  if (response.type === 'opaqueredirect') {
    refuse(
      response,
      `${method} ${url}: the server answered with a redirect, which is not followed for a request that carries ` +
        'a session id, credentials or custom headers (a browser does not show where it leads): use the URL it ' +
        'redirects to',
    );
  }
  // `fetch` follows redirects itself; a response that came from another
  // origin is refused, as natively: its server was not the one the request
  // was meant for.
  if (response.redirected && !sameOrigin(url, response.url)) {
    refuse(
      response,
      `${method} ${url}: the server redirected to ${response.url}, another origin: refused, so the session id, ` +
        "credentials and headers are used only with the server's own origin",
    );
  }
  const { status } = response;
  const found = [response, status];
  names.forEach((name, i) => {
    if (name === 'dpop-nonce' ? !dpop : READ_WHEN[name]?.(status) === false) return;
    const value = response.headers.get(name);
    if (value !== null) found.push(i, value);
  });
  return found;
}
