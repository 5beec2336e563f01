// mcp-edge for Cloudflare Workers / workerd: the `workerd` condition, which
// wrangler resolves. Importing a .wasm file gives a compiled
// `WebAssembly.Module` there (wrangler's CompiledWasm rule; in a hand-written
// workerd config, list it as a `wasm` module next to this one), and it is
// instantiated synchronously when this module is imported: no `await init()`.
import module from './mcp_edge_bg.wasm';
import init, { initSync } from './mcp_edge.js';

initSync({ module });

export * from './mcp_edge.js';
export { init };
