// `auth.authorize: "popup"` (src/web/popup.rs calls this; wasm-bindgen
// ships it beside its glue). Written in JS, not through wasm-bindgen's
// bindings: a window, two listeners and a timer are shorter here than the
// same steps in Rust were in the wasm (docs/size.md).
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
