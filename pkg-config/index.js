// mcp-edge for browsers, bundlers, Web Workers and Deno (the `browser`,
// `deno` and `default` conditions): wasm-bindgen's `--target web` glue.
//
// No `await init()` is needed: the WebAssembly module is fetched and
// instantiated on the first `McpClient.connect` (or `restore`, or
// `completeAuthorization`), from
// `new URL('mcp_edge_bg.wasm', import.meta.url)` (bundlers such as Vite,
// webpack 5 and esbuild with a file loader copy it next to the bundle).
// To load it from elsewhere, or earlier, call `init({ module_or_path })`
// yourself; `connect` then reuses that instance.
import init, { McpClient } from './mcp_edge.js';

let ready;
function loaded() {
  if (!ready) {
    // A failed load (offline, 404) is not cached: the next connect retries.
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

export * from './mcp_edge.js';
export { init };
