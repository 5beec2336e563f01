// Two builds of the package side by side, by CPU time per sequential
// `tools/call` above a bare `fetch` in the same process (Node 22).
//
//   node ab.mjs <server-url> <A entry> <B entry> [runs] [batches] [batch]
//
// <server-url> is `benches/js/server.mjs`'s (`cargo xtask bench` starts
// one; `node benches/js/server.mjs` prints its URL); the entries are the
// Node entries (`.../pkg/node.js`) of two packages, e.g. one built before a
// change and one after. A figure of a few hundred microseconds per call
// moves by tens between runs on a shared 2-core machine, and wall time
// moves more, so this measures the process's own CPU time (the server runs
// in another process) in batches, rotating bare / A / B within each round.
//
// Which package a process imports first moves its figure by 50-90 µs in
// some runs, so each run is a child process of its own, the runs alternate
// which package comes first, and the report gives both positions and their
// mean. Over 8 runs two builds of the same code still came out up to 49 µs
// apart; 10-12 runs brought copies of one package within 4-6 µs. Use 12
// runs or more and read differences under about 25 µs as none.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const [url, a, b] = process.argv.slice(2, 5);
if (process.env.AB_CHILD) {
  await child();
} else {
  if (!url || !a || !b) {
    console.error('usage: node ab.mjs <server-url> <A entry> <B entry> [runs] [batches] [batch]');
    process.exit(2);
  }
  parent();
}

function parent() {
  const runs = +(process.argv[5] ?? 12);
  const rest = process.argv.slice(6);
  const seen = { A: { first: [], second: [] }, B: { first: [], second: [] } };
  for (let i = 0; i < runs; i++) {
    const [first, second] = i % 2 === 0 ? [['A', a], ['B', b]] : [['B', b], ['A', a]];
    const out = spawnSync(process.execPath, [fileURLToPath(import.meta.url), url, first[1], second[1], ...rest], {
      env: { ...process.env, AB_CHILD: '1' },
      encoding: 'utf8',
      timeout: 300_000,
    });
    const line = out.stdout.trim().split('\n').pop() ?? '';
    const m = /^above bare: first (-?[0-9.]+) second (-?[0-9.]+)/.exec(line);
    if (out.status !== 0 || !m) {
      console.error(`run ${i + 1} failed (status ${out.status}):\n${out.stdout}\n${out.stderr}`);
      process.exit(1);
    }
    seen[first[0]].first.push(+m[1]);
    seen[second[0]].second.push(+m[2]);
    console.log(`run ${i + 1}: ${first[0]} first ${m[1]} µs, ${second[0]} second ${m[2]} µs`);
  }
  const mean = (v) => v.reduce((x, y) => x + y, 0) / v.length;
  for (const k of ['A', 'B']) {
    const both = mean([mean(seen[k].first), mean(seen[k].second)]);
    console.log(
      `${k}: CPU per call above bare fetch, imported first ${mean(seen[k].first).toFixed(0)} µs, second ${mean(seen[k].second).toFixed(0)} µs, mean ${both.toFixed(0)} µs`,
    );
  }
  const d = mean([mean(seen.B.first), mean(seen.B.second)]) - mean([mean(seen.A.first), mean(seen.A.second)]);
  console.log(`B - A: ${d >= 0 ? '+' : ''}${d.toFixed(0)} µs per call`);
}

async function child() {
  const batches = +(process.argv[5] ?? 40);
  const batch = +(process.argv[6] ?? 50);
  const first = await import(a);
  const second = await import(b);
  const endpoint = `${url}/mcp/json`;
  const clients = [await first.McpClient.connect(endpoint, {}), await second.McpClient.connect(endpoint, {})];
  let id = 0;
  const call = { name: 'echo', arguments: { text: 'hi' } };
  const run = [
    async () => {
      const body = JSON.stringify({ jsonrpc: '2.0', id: id++, method: 'tools/call', params: call });
      const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
      const r = await fetch(endpoint, { method: 'POST', headers, body });
      return JSON.parse(await r.text()).result;
    },
    () => clients[0].callTool(call),
    () => clients[1].callTool(call),
  ];
  for (let w = 0; w < 300; w++) for (const f of run) await f();
  const cpu = [[], [], []];
  for (let i = 0; i < batches; i++) {
    for (let k = 0; k < 3; k++) {
      const which = (i + k) % 3;
      const start = process.cpuUsage();
      for (let j = 0; j < batch; j++) await run[which]();
      const spent = process.cpuUsage(start);
      cpu[which].push((spent.user + spent.system) / batch);
    }
  }
  const median = (v) => v.slice().sort((x, y) => x - y)[v.length >> 1];
  const bare = median(cpu[0]);
  console.log(`above bare: first ${(median(cpu[1]) - bare).toFixed(1)} second ${(median(cpu[2]) - bare).toFixed(1)}`);
  for (const c of clients) await c.close();
  process.exit(0);
}
