// mcp-edge/lite for Node.js (and Bun): instantiated synchronously on
// import, as node.js does for the full entry.
import { readFileSync } from 'node:fs';
// HTTP through node:http rather than Node's fetch, where that is safe
// (node-http.js says when).
import './node-http.js';
import init, { initSync } from './mcp_edge_lite.js';

initSync({ module: readFileSync(new URL('./mcp_edge_lite_bg.wasm', import.meta.url)) });

export * from './mcp_edge_lite.js';
export { init };
