// The floor's entry for Node (the `node` condition): the wasm is read and
// instantiated when this module is imported, as mcp-edge's Node entry does.
import { readFileSync } from 'node:fs';
import { initSync } from './mcp_size_floor.js';

initSync({ module: readFileSync(new URL('./mcp_size_floor_bg.wasm', import.meta.url)) });

export { connect, request } from './mcp_size_floor.js';
