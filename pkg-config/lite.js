// mcp-edge/lite for browsers, bundlers, Web Workers and Deno: the same API
// as `mcp-edge` from a smaller WebAssembly module (`mcp_edge_lite_bg.wasm`,
// built without the Cargo features `legacy-sse`, `private-key-jwt`, `dpop`,
// `machine-grants`, `tasks` and `persist`; see lite.d.ts). Loaded on the first
// `McpClient.connect`, `restore` or `completeAuthorization`, as in index.js.
import init, { McpClient } from './mcp_edge_lite.js';

let ready;
function loaded() {
  if (!ready) {
    // A failed load (offline, 404) is not cached: the next call retries.
    ready = init().catch((error) => {
      ready = undefined;
      throw error;
    });
  }
  return ready;
}
const connect = McpClient.connect;
McpClient.connect = async function connectOnceLoaded(url, options) {
  await loaded();
  return connect.call(McpClient, url, options);
};
// `restore` is the other way to a client (a page reloaded with a kept snapshot).
const restore = McpClient.restore;
McpClient.restore = async function restoreOnceLoaded(snapshot, url, options) {
  await loaded();
  return restore.call(McpClient, snapshot, url, options);
};
// `completeAuthorization` is called on a page the authorization server sent
// the browser back to, often before any connect.
const complete = McpClient.completeAuthorization;
McpClient.completeAuthorization = async function completeOnceLoaded(url, options) {
  await loaded();
  return complete.call(McpClient, url, options);
};

export * from './mcp_edge_lite.js';
export { init };
