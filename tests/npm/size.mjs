// `cargo xtask size`'s measurements, as a page ships the package: each
// entry bundled by esbuild (--bundle --minify --format=esm --platform=browser)
// plus every .wasm the bundle loads; raw, gzip -9 (the `gzip` program) and
// brotli -q 11 (Node's zlib). The official TypeScript SDK (pinned in
// tests/peers) is bundled the same way in the same run. Cold start: a fresh
// Node 22 process per run, the time `await import(entry)` takes until the
// module is ready (mcp-edge's Node entry instantiates the wasm on import),
// median of RUNS.
//
// usage: node size.mjs <work dir> <node 22> <name>=<specifier>...
// The work dir has node_modules/ with the packages the specifiers name
// (xtask links them). Prints one tab-separated line per entry:
//   entry <name> <raw> <gzip> <brotli> <cold ms> <files>
// where <files> is `file:raw:gzip:brotli` joined by commas.

import { build } from 'esbuild';
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync, mkdirSync, existsSync } from 'node:fs';
import { dirname, join, basename } from 'node:path';
import { brotliCompressSync, constants } from 'node:zlib';

const RUNS = 10;
const [work, node22, ...entries] = process.argv.slice(2);
if (!work || !node22 || entries.length === 0) {
  console.error('usage: node size.mjs <work dir> <node 22> <name>=<specifier>...');
  process.exit(2);
}

function gzipBytes(bytes) {
  const out = spawnSync('gzip', ['-9', '-c', '-n'], { input: bytes, maxBuffer: 1 << 30 });
  if (out.status !== 0) throw new Error(`gzip failed: ${out.stderr}`);
  return out.stdout.length;
}

function brotliBytes(bytes) {
  return brotliCompressSync(bytes, {
    params: {
      [constants.BROTLI_PARAM_QUALITY]: 11,
      [constants.BROTLI_PARAM_SIZE_HINT]: bytes.length,
    },
  }).length;
}

function sizes(file) {
  const bytes = readFileSync(file);
  return { file, raw: bytes.length, gzip: gzipBytes(bytes), brotli: brotliBytes(bytes) };
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

// Every `.wasm` the bundle names (wasm-bindgen's glue loads
// `new URL('<name>_bg.wasm', import.meta.url)`), found in the package the
// specifier resolves to.
function wasmFiles(bundleText, resolvedFiles) {
  const names = new Set();
  for (const match of bundleText.matchAll(/["'`]([^"'`\s]+\.wasm)["'`]/g)) names.add(basename(match[1]));
  const found = [];
  for (const name of names) {
    const dir = resolvedFiles.map(dirname).find((d) => existsSync(join(d, name)));
    if (!dir) throw new Error(`the bundle loads ${name}, which is next to none of its inputs`);
    found.push(join(dir, name));
  }
  return found;
}

mkdirSync(join(work, 'out'), { recursive: true });
for (const pair of entries) {
  const at = pair.indexOf('=');
  const name = pair.slice(0, at);
  const specifiers = pair.slice(at + 1).split('+');
  // The entry a page would write: the named imports, re-exported so that
  // the bundler keeps them.
  const source = specifiers
    .map((spec) => {
      const [from, what] = spec.split('#');
      return what === '*' ? `export * from '${from}';` : `export { ${what} } from '${from}';`;
    })
    .join('\n');
  const entry = join(work, `entry-${name}.mjs`);
  writeFileSync(entry, source + '\n');
  const outfile = join(work, 'out', `${name}.min.js`);
  const result = await build({
    entryPoints: [entry],
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'browser',
    outfile,
    metafile: true,
    logLevel: 'warning',
  });
  const inputs = Object.keys(result.metafile.inputs).map((p) => join(process.cwd(), p));
  const files = [sizes(outfile), ...wasmFiles(readFileSync(outfile, 'utf8'), inputs).map(sizes)];

  // Cold start: a fresh process per run; the same entry, resolved as Node
  // resolves it (the `node` condition).
  const probe = join(work, `cold-${name}.mjs`);
  writeFileSync(
    probe,
    `const t0 = performance.now();\nawait import(${JSON.stringify(entry)});\n` +
      `console.log((performance.now() - t0).toFixed(3));\n`,
  );
  const times = [];
  for (let i = 0; i < RUNS; i++) {
    const run = spawnSync(node22, [probe], { encoding: 'utf8' });
    if (run.status !== 0) throw new Error(`importing ${name} in Node failed: ${run.stderr}`);
    times.push(Number(run.stdout.trim()));
  }
  const total = (key) => files.reduce((sum, f) => sum + f[key], 0);
  const listed = files.map((f) => `${basename(f.file)}:${f.raw}:${f.gzip}:${f.brotli}`).join(',');
  console.log(
    ['entry', name, total('raw'), total('gzip'), total('brotli'), median(times).toFixed(2), listed].join('\t'),
  );
}
