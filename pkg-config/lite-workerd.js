// mcp-edge/lite for Cloudflare Workers / workerd: the compiled module
// wrangler gives for the .wasm import, instantiated on import (as
// workerd.js does for the full entry).
import module from './mcp_edge_lite_bg.wasm';
import init, { initSync } from './mcp_edge_lite.js';

initSync({ module });

export * from './mcp_edge_lite.js';
export { init };
