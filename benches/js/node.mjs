// `cargo xtask bench`, Node: node --expose-gc --no-warnings node.mjs <root> <base-url> <full|smoke> <out.json>
// Imports the packed package (target/npm/pkg), the size floor and the TS SDK
// pinned in tests/peers, runs core.mjs's figures, writes the JSON of the run.
import { writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { COUNTS, runBench } from './core.mjs';

const [root, base, mode, out] = process.argv.slice(2);
const at = (path) => pathToFileURL(`${root}/${path}`).href;
const sdkDir = 'tests/peers/node_modules/@modelcontextprotocol/sdk/dist/esm';
const { Client } = await import(at(`${sdkDir}/client/index.js`));
const { StreamableHTTPClientTransport } = await import(at(`${sdkDir}/client/streamableHttp.js`));
const edge = await import(at('target/npm/pkg/node.js'));
// The size floor (benches/size-floor, built by `cargo xtask bench`).
const floor = await import(at('target/size-floor/floor-serde/node.js'));
const wasm = await edge.init(); // already instantiated: returns its exports

// The TS SDK adds a listener per request to one AbortSignal; Node warns
// (MaxListenersExceededWarning). Counted, not printed.
const warnings = {};
process.on('warning', (w) => {
  warnings[w.name] = (warnings[w.name] ?? 0) + 1;
});

if (typeof globalThis.gc !== 'function') throw new Error('run node with --expose-gc');
const report = await runBench(
  {
    runtime: 'node',
    base,
    sdk: { Client, StreamableHTTPClientTransport },
    McpClient: edge.McpClient,
    floor,
    wasmMemory: () => wasm.memory.buffer.byteLength,
    gc: async () => {
      for (let i = 0; i < 3; i++) globalThis.gc();
    },
    heap: async () => process.memoryUsage().heapUsed,
    log: (line) => console.log(line),
  },
  COUNTS[mode],
);
report.version = process.versions.node;
report.warnings = warnings;
if (Object.keys(warnings).length) console.log(`node     process warnings: ${JSON.stringify(warnings)}`);
writeFileSync(out, JSON.stringify(report, null, 2));
