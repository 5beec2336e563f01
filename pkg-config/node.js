// mcp-edge for Node.js (and Bun): the `node` condition. The WebAssembly
// module is read from disk and instantiated synchronously when this module
// is imported, so `McpClient` is ready at once (no `await init()`, and no
// top-level await: `require('mcp-edge')` works where Node can require ESM).
import { readFileSync } from 'node:fs';
// HTTP through node:http rather than Node's fetch, where that is safe
// (node-http.js says when).
import './node-http.js';
import init, { initSync } from './mcp_edge.js';

initSync({ module: readFileSync(new URL('./mcp_edge_bg.wasm', import.meta.url)) });

export * from './mcp_edge.js';
export { init };
