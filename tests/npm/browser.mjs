// `node browser.mjs <project dir> <server url>`: builds the test project's
// page (index.html, main.js, web-worker.js, which import the installed
// `mcp-edge` and `mcp-edge/lite`) with Vite, serves dist/ on 127.0.0.1, opens it in headless
// Chromium (the system's, driven by playwright-core) and checks what the
// page and its Web Worker report, for each entry. Prints one line per check; exits 1 if
// either failed.
import { createReadStream, statSync } from 'node:fs';
import { createServer } from 'node:http';
import { extname, join, normalize } from 'node:path';
import { chromium } from 'playwright-core';
import { build } from 'vite';
import { launchChromium } from '../support/chromium.mjs';

const [project, server] = process.argv.slice(2);
const TIMEOUT_MS = 60_000;

const dist = join(project, 'dist');
await build({
  root: project,
  configFile: false,
  logLevel: 'warn',
  build: { outDir: dist, emptyOutDir: true },
});

const types = {
  '.html': 'text/html',
  '.js': 'text/javascript',
  '.wasm': 'application/wasm',
  '.css': 'text/css',
};
const site = createServer((request, response) => {
  const path = normalize(decodeURIComponent(new URL(request.url, 'http://x').pathname));
  let file = join(dist, path);
  try {
    if (statSync(file).isDirectory()) file = join(file, 'index.html');
    statSync(file);
  } catch {
    response.writeHead(404).end();
    return;
  }
  response.writeHead(200, { 'content-type': types[extname(file)] ?? 'application/octet-stream' });
  createReadStream(file).pipe(response);
});
await new Promise((resolve) => site.listen(0, '127.0.0.1', resolve));
const origin = `http://127.0.0.1:${site.address().port}`;

const browser = await launchChromium(chromium);
let failed = false;
try {
  const page = await browser.newPage();
  page.on('console', (message) => console.log(`  [console.${message.type()}] ${message.text()}`));
  page.on('pageerror', (error) => console.log(`  [pageerror] ${error}`));
  page.on('response', (response) => {
    if (response.status() >= 400) console.log(`  [http ${response.status()}] ${response.url()}`);
  });
  const url = `${origin}/?server=${encodeURIComponent(server)}`;
  console.log(`page ${url} (server ${server}: another origin)`);
  await page.goto(url);
  for (const where of ['page', 'worker', 'page-lite', 'worker-lite']) {
    const output = page.locator(`#${where}[data-done]`);
    let text;
    try {
      await output.waitFor({ timeout: TIMEOUT_MS });
      text = await output.textContent();
    } catch (error) {
      text = `FAILED no result within ${TIMEOUT_MS} ms (shows ${JSON.stringify(await page.locator(`#${where}`).textContent())})`;
    }
    const expected = `Echo: hello from ${where}`;
    const ok = text.startsWith('OK ') && text.includes(JSON.stringify(expected));
    failed ||= !ok;
    console.log(`${ok ? 'OK' : 'FAILED'} ${where}: ${text.replace(/^(OK|FAILED) /, '')}`);
  }
} finally {
  await browser.close();
  site.close();
}
process.exit(failed ? 1 : 0);
