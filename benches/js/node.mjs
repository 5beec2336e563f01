// `cargo xtask bench`, Node: node --expose-gc --no-warnings node.mjs <root> <base-url> <full|smoke> <out.json>
// Imports the packed package (target/npm/pkg), the size floor and the TS SDK
// pinned in tests/peers, runs core.mjs's figures, writes the JSON of the run.
import { writeFileSync } from 'node:fs';
import http from 'node:http';
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

// A bare POST through `node:http`, on keep-alive connections: the floor of
// the `bare-http` figures.
const agent = new http.Agent({ keepAlive: true });
const bareHttp = (url, body) =>
  new Promise((resolve, reject) => {
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'content-length': Buffer.byteLength(body) };
    const request = http.request(url, { method: 'POST', headers, agent }, (response) => {
      const chunks = [];
      response.on('data', (chunk) => chunks.push(chunk));
      response.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        // A single-event SSE reply: its data line.
        resolve((response.headers['content-type'] ?? '').startsWith('text/event-stream') ? /^data: (.*)$/m.exec(text)?.[1] ?? '' : text);
      });
      response.on('error', reject);
    });
    request.on('error', reject);
    request.end(body);
  });

if (typeof globalThis.gc !== 'function') throw new Error('run node with --expose-gc');
const report = await runBench(
  {
    runtime: 'node',
    base,
    sdk: { Client, StreamableHTTPClientTransport },
    McpClient: edge.McpClient,
    floor,
    bareHttp,
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
