// What the Chromium page needs of the TS SDK; `cargo xtask bench` bundles
// it with esbuild into target/bench/sdk.js (the SDK pinned in tests/peers).
export { Client } from '@modelcontextprotocol/sdk/client/index.js';
export { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
