// `cargo xtask bench`, Chromium: node chromium.mjs <root> <base-url> <full|smoke> <out.json>
// Opens page.html (served by server.mjs, same origin) in headless Chromium
// through playwright-core; garbage collection and heap size come from the
// DevTools protocol (HeapProfiler.collectGarbage, Runtime.getHeapUsage).
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { launchChromium } from '../../tests/support/chromium.mjs';

const [root, base, mode, out] = process.argv.slice(2);
const require = createRequire(`${root}/tests/npm/package.json`);
const { chromium } = require('playwright-core');

const browser = await launchChromium(chromium);
try {
  const page = await browser.newPage();
  const cdp = await page.context().newCDPSession(page);
  await page.exposeFunction('benchGc', async () => {
    for (let i = 0; i < 3; i++) await cdp.send('HeapProfiler.collectGarbage');
  });
  await page.exposeFunction('benchHeap', async () => (await cdp.send('Runtime.getHeapUsage')).usedSize);
  await page.exposeFunction('benchLog', (line) => console.log(line));
  // An error the page's script throws while loading ends the run at once.
  const failed = new Promise((_, reject) => page.on('pageerror', (error) => reject(new Error(`page error: ${error}`))));
  await page.goto(`${base}/?mode=${mode}`);
  await Promise.race([
    failed,
    page.waitForFunction(() => window.benchResult || window.benchError, null, { timeout: 0, polling: 250 }),
  ]);
  const error = await page.evaluate(() => window.benchError);
  if (error) throw new Error(error);
  const report = await page.evaluate(() => window.benchResult);
  report.version = browser.version();
  writeFileSync(out, JSON.stringify(report, null, 2));
} finally {
  await browser.close();
}
