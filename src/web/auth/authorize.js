// How a page sends the user to the authorization page, and how the answer
// comes back: in a popup window (`auth.authorize: "popup"`, which
// src/web/popup.rs calls) or with the whole page (`"redirect"`, which
// src/web/auth/redirect.rs calls). wasm-bindgen ships this file beside its
// glue. Written in JS, not through wasm-bindgen's bindings: windows,
// listeners, timers, storage, URLs and history are the host's, and the
// same steps were two to three times heavier in the wasm (docs/size.md,
// sessions 36 and 37). One file for both modes: each file is one more
// module that a page without a bundler fetches (and the wasm-bindgen test
// runner's page stalled now and then once the glue imported five).

// ## The popup
//
// The popup is opened on the authorization URL; the authorization server
// sends it back to the redirect URI, the page `www/oauth-callback.html`,
// which hands its own URL back two ways, and the first to arrive wins:
// - `postMessage` to its opener, `{ type: "mcp-edge:oauth-callback", url }`
//   with this page's origin as target. Accepted only from this page's
//   origin, from the popup this flow opened, in that exact shape.
// - a `BroadcastChannel` named `mcp-edge-oauth:<state>`, for when the
//   authorization server cut the popup off from its opener
//   (`Cross-Origin-Opener-Policy`).
// The wait is bounded, and a popup the user closes ends it with an error
// that says so. The `state` (and everything else in the URL) is checked by
// the OAuth flow, not here.

// How often the popup is checked for having been closed.
const POLL_MS = 250;
// How long a message may still arrive after the popup closed itself.
const GRACE_MS = 1500;

// The URL a callback message carries, if it has the callback page's shape.
const callbackUrl = (data) =>
  typeof data === 'object' && data?.type === 'mcp-edge:oauth-callback' && typeof data.url === 'string'
    ? data.url
    : undefined;

// Opens `url` in a popup window with `features` and resolves with the URL
// the callback page hands back, within `timeoutMs`; rejects with an Error
// that says what went wrong. Once `signal` is aborted (the flow was
// dropped), the popup is closed and the listeners removed.
export function authorizeInPopup(url, state, features, timeoutMs, signal) {
  return new Promise((resolve, reject) => {
    const failed = (message) => reject(new Error(message));
    if (typeof window === 'undefined') {
      return failed('a popup needs a page (there is no window here): pass auth.authorize, a function');
    }
    const blocked = (detail) =>
      failed(
        `the browser blocked the popup window for the authorization page${detail}. Browsers allow popups ` +
          'only right after a click: call McpClient.connect from a click handler, allow popups for this ' +
          'site, or use auth: { authorize: "redirect" }',
      );
    let popup;
    try {
      popup = window.open(url, `mcp-edge-oauth-${state.slice(0, 12)}`, features);
    } catch (error) {
      return blocked(` (${error?.message ?? error})`);
    }
    if (!popup) return blocked('');
    if (popup.closed) return blocked(' (it was closed at once)');

    let channel, timer, closedAt;
    const started = Date.now();
    const finish = (settle) => {
      removeEventListener('message', onMessage);
      channel?.close();
      clearInterval(timer);
      signal?.removeEventListener('abort', onAbort);
      // The callback page closes itself; this covers timeouts, errors and
      // a flow that was dropped.
      popup.close();
      settle();
    };
    const arrived = (found) => found === undefined || finish(() => resolve(found));
    const onMessage = (event) => {
      if (event.origin === location.origin && event.source === popup) arrived(callbackUrl(event.data));
    };
    const onAbort = () => finish(() => reject(signal.reason));
    addEventListener('message', onMessage);
    try {
      channel = new BroadcastChannel(`mcp-edge-oauth:${state}`);
      channel.onmessage = (event) => arrived(callbackUrl(event.data));
    } catch {
      // Older browsers: postMessage alone.
    }
    signal?.addEventListener('abort', onAbort);
    timer = setInterval(() => {
      if (popup.closed) {
        // The callback page posts, then closes itself: give a message sent
        // just before a moment to arrive.
        closedAt ??= Date.now();
        if (Date.now() - closedAt >= GRACE_MS) {
          finish(() =>
            failed(
              'the authorization popup was closed before the sign-in finished (if it was not closed by ' +
                'hand, the authorization server may isolate its pages with Cross-Origin-Opener-Policy and ' +
                'the callback page did not load: try auth: { authorize: "redirect" })',
            ),
          );
        }
      } else if (Date.now() - started >= timeoutMs) {
        finish(() => failed(`no answer from the authorization popup within ${Math.floor(timeoutMs / 1000)} s`));
      }
    }, POLL_MS);
  });
}

// ## Redirect mode
//
// A flow waits in sessionStorage under `mcp-edge:pending:<state>` as
// `{pending, returnTo, redirected?}`: `pending` is the Rust side's JSON of
// the flow (read here only for `state`, `server_url` and `created_at`),
// `returnTo` the page to come back to, `redirected` the URL the
// authorization server sent the browser to, once the callback page
// (www/oauth-callback.js) or `completeAuthorization` recorded it.

const PREFIX = 'mcp-edge:pending:';
// A flow older than this is dropped unread.
const MAX_AGE_SECS = 3600;
// The parameters of an authorization response.
const RESPONSE_PARAMS = ['code', 'state', 'iss', 'error', 'error_description', 'error_uri', 'session_state'];

const messageOf = (error) => error?.message ?? String(error);

// sessionStorage, or an Error that says why there is none.
function session() {
  let storage;
  try {
    storage = globalThis.sessionStorage;
  } catch (error) {
    throw new Error(`sessionStorage is not usable here: ${messageOf(error)}`);
  }
  if (storage == null) throw new Error('there is no sessionStorage here (workers and Node have none)');
  return storage;
}

// The `state` of a URL that carries an authorization response.
function responseState(url) {
  let params;
  try {
    params = new URL(url).searchParams;
  } catch {
    return undefined;
  }
  return (params.has('code') || params.has('error')) && params.get('state') ? params.get('state') : undefined;
}

// `url` without the authorization response's parameters, the others as
// they were written.
function withoutResponse(url) {
  const hash = url.indexOf('#');
  const rest = hash < 0 ? url : url.slice(0, hash);
  const query = rest.indexOf('?');
  if (query < 0) return url;
  const kept = rest
    .slice(query + 1)
    .split('&')
    .filter((pair) => pair !== '' && !RESPONSE_PARAMS.includes(pair.split('=')[0]));
  return rest.slice(0, query) + (kept.length ? `?${kept.join('&')}` : '') + (hash < 0 ? '' : url.slice(hash));
}

// Keeps the flow (`pending`, JSON text) under its `state`, with this page
// (its response parameters taken out) to come back to.
export function savePending(state, pending) {
  let storage;
  try {
    storage = session();
  } catch (error) {
    throw new Error(`redirect mode keeps the flow in sessionStorage: ${messageOf(error)}`);
  }
  const returnTo = withoutResponse(globalThis.location?.href ?? '');
  try {
    storage.setItem(PREFIX + state, `{"pending":${pending},"returnTo":${JSON.stringify(returnTo)}}`);
  } catch (error) {
    throw new Error(`sessionStorage could not keep the pending authorization: ${messageOf(error)}`);
  }
}

// The flows whose answer was recorded or is in this page's URL, each as
// `{key, pending, server, redirected}` (`pending` as JSON text). Flows
// that cannot be read or are too old are removed.
export function answeredFlows() {
  let storage;
  try {
    storage = session();
  } catch {
    return [];
  }
  const page = globalThis.location?.href ?? '';
  const pageState = responseState(page);
  const now = Date.now() / 1000;
  const keys = [];
  for (let i = 0; i < storage.length; i++) {
    const key = storage.key(i);
    if (key?.startsWith(PREFIX)) keys.push(key);
  }
  const flows = [];
  for (const key of keys) {
    let stored;
    try {
      stored = JSON.parse(storage.getItem(key));
    } catch {
      stored = undefined;
    }
    const pending = stored?.pending;
    if (!(pending?.created_at + MAX_AGE_SECS >= now)) {
      storage.removeItem(key);
      continue;
    }
    const recorded = typeof stored.redirected === 'string';
    if (recorded || (pageState !== undefined && pending.state === pageState)) {
      const redirected = recorded ? stored.redirected : page;
      flows.push({ key, pending: JSON.stringify(pending), server: `${pending.server_url}`, redirected });
    }
  }
  return flows;
}

// Removes a flow: a code is good once, whatever happens next.
export function takePending(key) {
  try {
    session().removeItem(key);
  } catch {
    // Nothing to remove it from.
  }
}

// Records `url` (a redirect carrying a response and its `state`) for its
// pending flow: the flow's server URL, or undefined when there is none.
export function recordRedirect(url) {
  const state = responseState(url);
  let storage;
  try {
    storage = state === undefined ? undefined : session();
  } catch {
    return undefined;
  }
  let stored;
  try {
    stored = JSON.parse(storage?.getItem(PREFIX + state) ?? 'null');
  } catch {
    return undefined;
  }
  if (typeof stored?.pending !== 'object' || stored.pending === null) return undefined;
  stored.redirected = url;
  try {
    storage.setItem(PREFIX + state, JSON.stringify(stored));
  } catch (error) {
    throw new Error(`sessionStorage: ${messageOf(error)}`);
  }
  return `${stored.pending.server_url}`;
}

// Takes the response parameters out of the address bar (and history)
// when `answer`, the URL that carried them, is this page's.
export function cleanPageUrl(answer) {
  const page = globalThis.location?.href;
  const cleaned = withoutResponse(answer);
  if (page === answer && cleaned !== page) {
    try {
      history.replaceState(null, '', cleaned);
    } catch {
      // A page that may not rewrite its URL keeps it.
    }
  }
}

// Leaves for the authorization page.
export function leaveFor(url) {
  try {
    location.assign(url);
  } catch (error) {
    throw new Error(`could not go to the authorization page: ${messageOf(error)}`);
  }
  // The page is unloading: nothing to wait for (the flow's own bound ends
  // the wait if it does not).
  return new Promise(() => {});
}

// ## ES256 by WebCrypto
//
// The full build's signing key (`private_key_jwt`, DPoP: src/auth/jwt/web.rs
// calls this): kept by the Rust side as PKCS#8 bytes and imported for each
// use. The steps are the host's; through the bindings they were some 0.5 KB
// of the wasm's gzip (docs/size.md, session 45). A bundle without those
// features leaves this out.

const EC_P256 = { name: 'ECDSA', namedCurve: 'P-256' };

// `op` 0: a new key, resolved as its PKCS#8 bytes; 1: the public key's
// coordinates as `x.y` (undefined if the JWK lacks them); 2: the ECDSA
// signature (`r || s`) of `input` with SHA-256. Rejects with the text of
// what failed.
export async function es256(op, pkcs8, input) {
  // A view of the wasm's memory: copied before anything waits.
  const der = pkcs8.slice();
  const subtle = globalThis.crypto?.subtle;
  if (typeof subtle !== 'object' || subtle === null) {
    throw 'this JavaScript runtime has no crypto.subtle (WebCrypto), which ES256 signing needs';
  }
  let step = op === 0 ? 'generateKey' : 'importKey';
  try {
    if (op === 0) {
      const pair = await subtle.generateKey(EC_P256, true, ['sign', 'verify']);
      step = 'exportKey';
      return new Uint8Array(await subtle.exportKey('pkcs8', pair.privateKey));
    }
    const key = await subtle.importKey('pkcs8', der, EC_P256, op === 1, ['sign']);
    if (op === 1) {
      step = 'exportKey';
      const { x, y } = await subtle.exportKey('jwk', key);
      return typeof x === 'string' && typeof y === 'string' ? `${x}.${y}` : undefined;
    }
    step = 'sign';
    const data = new TextEncoder().encode(input);
    return new Uint8Array(await subtle.sign({ name: 'ECDSA', hash: 'SHA-256' }, key, data));
  } catch (error) {
    const message =
      typeof error?.message === 'string' ? error.message : typeof error === 'string' ? error : 'no reason given';
    throw `WebCrypto ${step} failed: ${message}`;
  }
}
