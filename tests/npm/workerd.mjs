// `node workerd.mjs <project dir> <server url>`: bundles the test project's
// cf-worker.js the way wrangler does (esbuild, conditions workerd/worker/
// browser, `.wasm` imports left as modules of their own), runs it in workerd
// on a free 127.0.0.1 port, requests it (`/` for the full entry, `/lite` for
// the lite one) and checks each body.
import { spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const [project, server] = process.argv.slice(2);
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

const child = spawn(WORKERD, ['serve', join(out, 'config.capnp')], { stdio: ['ignore', 'inherit', 'inherit'] });
const exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve(`workerd exited (${code ?? signal})`)));
let failed = false;
try {
  for (const [path, where] of [['/', 'workerd'], ['/lite', 'workerd-lite']]) {
    try {
      const deadline = Date.now() + TIMEOUT_MS;
      let body;
      for (;;) {
        try {
          const response = await fetch(`http://127.0.0.1:${port}${path}`, { signal: AbortSignal.timeout(30_000) });
          body = `${response.status} ${await response.text()}`;
          break;
        } catch (error) {
          const gone = await Promise.race([exited, new Promise((r) => setTimeout(r, 200))]);
          if (gone) throw new Error(gone);
          if (Date.now() > deadline) throw new Error(`no answer from workerd within ${TIMEOUT_MS} ms: ${error.cause ?? error}`);
        }
      }
      const expected = JSON.stringify(`Echo: hello from ${where}`);
      const ok = body.startsWith('200 OK ') && body.includes(expected);
      failed ||= !ok;
      console.log(`${ok ? 'OK' : 'FAILED'} ${where}: ${body.replace(/^200 OK /, '')}`);
    } catch (error) {
      failed = true;
      console.log(`FAILED ${where}: ${error?.stack ?? error}`);
    }
  }
} finally {
  child.kill('SIGKILL');
}
process.exit(failed ? 1 : 0);
