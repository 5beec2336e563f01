// `node workerd.mjs <project dir> <server url>`: bundles the test project's
// cf-worker.js the way wrangler does (esbuild, conditions workerd/worker/
// browser, `.wasm` imports left as modules of their own), runs it in workerd
// on a free 127.0.0.1 port, requests it (`/` for the full entry, `/lite` for
// the lite one) and checks each body. The worker reaches the server through a
// counting proxy (counting-proxy.mjs), so the edge checks can say how many
// requests a fresh and a restored client make: a first workerd process keeps
// a snapshot, a second one restores it.
import { spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { startCountingProxy } from './counting-proxy.mjs';

const [project, upstream] = process.argv.slice(2);
const proxy = await startCountingProxy(upstream);
const server = proxy.url;
const here = dirname(fileURLToPath(import.meta.url));
const WORKERD = join(here, 'node_modules', '.bin', 'workerd');
const TIMEOUT_MS = 60_000;

const out = join(project, 'workerd');
rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });
await build({
  entryPoints: [join(project, 'cf-worker.js')],
  outfile: join(out, 'worker.js'),
  bundle: true,
  format: 'esm',
  platform: 'neutral',
  conditions: ['workerd', 'worker', 'browser'],
  mainFields: ['module', 'main'],
  external: ['*.wasm'],
  logLevel: 'warning',
});
// The bundle keeps `import module from "./mcp_edge_bg.wasm"` (and the lite
// entry's "./mcp_edge_lite_bg.wasm").
for (const wasm of ['mcp_edge_bg.wasm', 'mcp_edge_lite_bg.wasm']) {
  copyFileSync(join(project, 'node_modules', 'mcp-edge', wasm), join(out, wasm));
}

const port = await new Promise((resolve, reject) => {
  const probe = createServer().listen(0, '127.0.0.1', () => {
    const { port } = probe.address();
    probe.close(() => resolve(port));
  });
  probe.on('error', reject);
});
// workerd's default outbound ("internet") refuses private and loopback
// addresses; the test server is on 127.0.0.1, so the worker's fetch goes
// through a network service that allows them.
writeFileSync(
  join(out, 'config.capnp'),
  `using Workerd = import "/workerd/workerd.capnp";

const config :Workerd.Config = (
  services = [
    (name = "main", worker = .testWorker),
    (name = "loopback", network = (allow = ["public", "private", "local"])),
  ],
  sockets = [(name = "http", address = "127.0.0.1:${port}", http = (), service = "main")],
);

const testWorker :Workerd.Worker = (
  modules = [
    (name = "worker.js", esModule = embed "worker.js"),
    (name = "mcp_edge_bg.wasm", wasm = embed "mcp_edge_bg.wasm"),
    (name = "mcp_edge_lite_bg.wasm", wasm = embed "mcp_edge_lite_bg.wasm"),
  ],
  compatibilityDate = "2025-09-01",
  bindings = [(name = "MCP_URL", text = ${JSON.stringify(server)})],
  globalOutbound = "loopback",
);
`,
);

function startWorkerd() {
  const child = spawn(WORKERD, ['serve', join(out, 'config.capnp')], { stdio: ['ignore', 'inherit', 'inherit'] });
  const exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve(`workerd exited (${code ?? signal})`)));
  return { child, exited };
}

/// The worker's answer to `path` (retried while workerd starts up).
async function ask(workerd, path, init = {}) {
  const deadline = Date.now() + TIMEOUT_MS;
  for (;;) {
    try {
      const response = await fetch(`http://127.0.0.1:${port}${path}`, { ...init, signal: AbortSignal.timeout(30_000) });
      return `${response.status} ${await response.text()}`;
    } catch (error) {
      const gone = await Promise.race([workerd.exited, new Promise((r) => setTimeout(r, 200))]);
      if (gone) throw new Error(gone);
      if (Date.now() > deadline) throw new Error(`no answer from workerd within ${TIMEOUT_MS} ms: ${error.cause ?? error}`);
    }
  }
}

async function stop(workerd) {
  workerd.child.kill('SIGKILL');
  await workerd.exited;
}

/// The requests of `log` up to and including the first tools/call.
const beforeFirstResult = (log) => log.slice(0, log.indexOf('POST tools/call') + 1);

let failed = false;
let workerd = startWorkerd();
for (const [path, where] of [['/', 'workerd'], ['/lite', 'workerd-lite']]) {
  try {
    const body = await ask(workerd, path);
    const expected = JSON.stringify(`Echo: hello from ${where}`);
    const ok = body.startsWith('200 OK ') && body.includes(expected);
    failed ||= !ok;
    console.log(`${ok ? 'OK' : 'FAILED'} ${where}: ${body.replace(/^200 OK /, '')}`);
  } catch (error) {
    failed = true;
    console.log(`FAILED ${where}: ${error?.stack ?? error}`);
  }
}

// Issue 14: a snapshot kept by one workerd process, restored by another.
try {
  let mark = proxy.log.length;
  const kept = await ask(workerd, '/snapshot');
  if (!kept.startsWith('200 ')) throw new Error(`/snapshot: ${kept}`);
  const fresh = beforeFirstResult(proxy.since(mark));
  if (proxy.since(mark).includes('DELETE')) throw new Error(`the first invocation ended the session: ${proxy.since(mark)}`);
  await stop(workerd);
  workerd = startWorkerd();
  mark = proxy.log.length;
  const restored = await ask(workerd, '/restore', { method: 'POST', body: kept.slice(4) });
  const sent = proxy.since(mark);
  if (!restored.startsWith('200 OK ') || !restored.includes('Echo: restored workerd')) throw new Error(`/restore: ${restored}`);
  if (sent.length !== 1 || sent[0] !== 'POST tools/call') {
    throw new Error(`the restored client sent ${JSON.stringify(sent)}, not exactly one tools/call`);
  }
  console.log(
    `OK workerd-restore: first tool result after ${fresh.length} requests fresh (${fresh.join(', ')}), ` +
      `${sent.length} restored in a second workerd process (${sent.join(', ')})`,
  );
} catch (error) {
  failed = true;
  console.log(`FAILED workerd-restore: ${error?.stack ?? error}`);
}

// A listener's GET stream open plus 20 calls at once, within the default budget of 6.
try {
  const mark = proxy.log.length;
  proxy.resetPeak();
  const body = await ask(workerd, '/concurrent');
  const log = proxy.since(mark);
  if (body !== '200 OK 20') throw new Error(`/concurrent: ${body}`);
  if (!log.includes('GET')) throw new Error(`no GET stream was open: ${log}`);
  // The default budget in workerd (and only there) is its limit of six.
  if (proxy.peak() > 6) throw new Error(`${proxy.peak()} exchanges were open at once, more than the budget of 6`);
  console.log(
    `OK workerd-budget: 20 of 20 concurrent calls answered with a listener's GET stream open ` +
      `(${log.length} requests, at most ${proxy.peak()} at once)`,
  );
} catch (error) {
  failed = true;
  console.log(`FAILED workerd-budget: ${error?.stack ?? error}`);
} finally {
  workerd.child.kill('SIGKILL');
  await proxy.close();
}
process.exit(failed ? 1 : 0);
