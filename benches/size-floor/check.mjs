// `cargo xtask size` runs this before it counts a floor build: the floor
// must be a working client. Against the bench server (benches/js/server.mjs),
// each build given connects and calls `echo` with JSON and with SSE
// replies, and must get what a bare `fetch` gets; a JSON-RPC error must
// reject.
//
//   node check.mjs <bench server base URL> <floor package dir>...
import { pathToFileURL } from 'node:url';
import { join } from 'node:path';

const [base, ...dirs] = process.argv.slice(2);
if (!base || dirs.length === 0) {
  console.error('usage: node check.mjs <base URL> <floor package dir>...');
  process.exit(2);
}

let nextId = 1;
async function bare(url, method, params) {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: nextId++, method, params }),
  });
  const text = await response.text();
  if (!(response.headers.get('content-type') ?? '').startsWith('text/event-stream')) return JSON.parse(text).result;
  const data = text.split('\n').filter((line) => line.startsWith('data: '));
  return JSON.parse(data[data.length - 1].slice(6)).result;
}

const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);
for (const dir of dirs) {
  const floor = await import(pathToFileURL(join(dir, 'node.js')).href);
  for (const kind of ['json', 'sse']) {
    const url = `${base}/mcp/${kind}`;
    const init = await floor.connect(url);
    if (typeof init?.protocolVersion !== 'string') throw new Error(`${dir} ${kind}: initialize gave ${JSON.stringify(init)}`);
    const params = { name: 'echo', arguments: { text: 'floor ✓', n: 7 } };
    const got = await floor.request(url, 'tools/call', params);
    const want = await bare(url, 'tools/call', params);
    if (!same(got, want)) throw new Error(`${dir} ${kind}: echo gave ${JSON.stringify(got)}, bare fetch ${JSON.stringify(want)}`);
    const refused = await floor.request(url, 'no/such/method', {}).then(
      () => false,
      (error) => error instanceof Error,
    );
    if (!refused) throw new Error(`${dir} ${kind}: an unknown method did not reject`);
  }
  console.log(`floor ok: ${dir}`);
}
