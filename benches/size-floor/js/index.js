// The floor's entry for pages and bundlers, shaped as mcp-edge's own: the
// wasm is fetched and instantiated on the first `connect`.
import init, { connect as connectLoaded, request } from './mcp_size_floor.js';

let ready;
export async function connect(url) {
  ready ??= init();
  await ready;
  return connectLoaded(url);
}
export { request };
