// What the two OAuth browser tests (popup.mjs, oidc.mjs) share: the test
// site that serves the page, the built npm package and the callback page on
// one origin, and the page's console, where the page reports each connect's
// outcome.
import { createReadStream, statSync } from 'node:fs';
import { createServer } from 'node:http';
import { extname, join, normalize, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const PKG = join(ROOT, 'target', 'npm', 'pkg');
const WWW = join(ROOT, 'www');
const PAGE = fileURLToPath(new URL('./page/', import.meta.url));
/** The package entry under test: `mcp-edge`, or `mcp-edge/lite` with `--lite`
 * (the page then loads /pkg/lite.js; its query carries `&entry=lite`). */
export const LITE = process.argv.includes('--lite');
export const ENTRY_QUERY = LITE ? '&entry=lite' : '';
/** A check's name as printed: the lite runs are marked. */
export const named = (name) => (LITE ? `${name} [mcp-edge/lite]` : name);
/** The longest one step (a click, a navigation) may take. */
export const STEP_MS = 20_000;
/** The longest the page may take to report a connect's outcome. */
export const RESULT_MS = 60_000;

/** Exits 1 with a message that says what to run when the package is not built. */
export function requirePackage() {
  try {
    statSync(join(PKG, 'index.js'));
  } catch {
    console.error(`FAILED ${PKG} has no index.js: build the npm package first (cargo xtask package)`);
    process.exit(1);
  }
}

const types = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript', '.wasm': 'application/wasm', '.json': 'application/json' };

/** A file under `dir`, or null if the path leaves it. */
function under(dir, path) {
  const file = normalize(join(dir, path));
  return file.startsWith(dir.endsWith(sep) ? dir : dir + sep) ? file : null;
}

/**
 * Serves the test page (`page/index.html` at `/`, and `scripts` from
 * `page/` by name), the callback page from www/ and the package under
 * `/pkg/` on 127.0.0.1, any free port. Resolves to the server and its
 * origin.
 */
export async function serveSite(scripts) {
  const site = createServer((request, response) => {
    const path = decodeURIComponent(new URL(request.url ?? '/', 'http://x').pathname);
    let file = null;
    if (path === '/' || path === '/index.html') file = join(PAGE, 'index.html');
    else if (scripts.includes(path.slice(1))) file = join(PAGE, path.slice(1));
    else if (path === '/oauth-callback.html' || path === '/oauth-callback.js') file = join(WWW, path.slice(1));
    else if (path.startsWith('/pkg/')) file = under(PKG, path.slice('/pkg/'.length));
    try {
      if (!file || !statSync(file).isFile()) throw new Error('not a file');
    } catch {
      response.writeHead(404).end();
      return;
    }
    response.writeHead(200, { 'content-type': types[extname(file)] ?? 'application/octet-stream', 'cache-control': 'no-store' });
    createReadStream(file).pipe(response);
  });
  await new Promise((resolve) => site.listen(0, '127.0.0.1', resolve));
  return { server: site, origin: `http://127.0.0.1:${site.address().port}` };
}

export function assert(condition, message) {
  if (!condition) throw new Error(message);
}

const RESULT_PREFIX = 'oauth-test-result ';

/**
 * Pushes each outcome `page` reports on its console to `reported`, and
 * prints its errors and warnings (not the failed loads the flows cause on
 * purpose) and its uncaught errors.
 */
export function watchConsole(page, reported) {
  page.on('console', (message) => {
    const text = message.text();
    if (text.startsWith(RESULT_PREFIX)) reported.push(JSON.parse(text.slice(RESULT_PREFIX.length)));
    else if (message.type() === 'error' && /^Failed to load resource/.test(text)) return;
    else if (message.type() === 'error' || message.type() === 'warning') console.log(`  [console.${message.type()}] ${text}`);
  });
  page.on('pageerror', (error) => console.log(`  [pageerror] ${error}`));
}
