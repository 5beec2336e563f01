// The OAuth popup flow of the JS API in a real browser: headless Chromium
// (the system's, driven by playwright-core), the built npm package
// (target/npm/pkg, `cargo xtask package`), a local authorization server
// with a consent page (tests/peers/oauth-server.mjs) and the callback page
// www/oauth-callback.html served on the test page's origin.
//
//   node popup.mjs [--lite]   (CHROMIUM=/usr/bin/chromium by default; --lite:
//                             the same checks on `mcp-edge/lite`)
//
// Checks, each in a fresh browser context:
// 1. a click connects: the popup shows the consent page, "Allow" is
//    clicked, the popup closes itself, the page lists the tools and calls
//    echo; tokens are kept in sessionStorage, never in a URL, and a second
//    connect reuses them without a popup; the page loaded the entry's own
//    .wasm;
// 1b. the same with the app's own async `{ load, save, clear }` as the
//    store: the record is kept there (nowhere else), and reused;
// 2. a connect without a click: the browser blocks the popup, and the
//    error says so and suggests authorize: "redirect";
// 3. a forged state in the redirect is refused;
// 4. closing the popup ends the wait with an error that says so;
// 4b. a popup cut off from its opener (as Cross-Origin-Opener-Policy does
//    from the popup's side) still hands the answer back, over the
//    BroadcastChannel alone;
// 5. redirect mode: the page leaves for the consent page, the callback
//    page records the answer and sends the browser back, and the page's
//    next connect finishes the sign-in;
// 6. redirect mode with the page itself as the redirect URI: the code is
//    taken from the page's URL, which is cleaned afterwards;
// 6b. the same, finished by the app's McpClient.completeAuthorization(
//    location.href, {auth}) (it resolves true), then a connect that uses
//    the tokens;
// 7. in a Web Worker (no window), a sign-in that needs a person fails with
//    an error that says to pass auth.authorize;
// 8. in a Web Worker, the client credentials grant works (lite: it is
//    refused with a TypeError naming the `machine-grants` feature);
// 9. an authorization server that sends no CORS headers: the error says so.
// Screenshots (consent popup, page afterwards) go to target/screenshots/.
// Prints one line per check; exits 1 if any failed.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { CONFIDENTIAL_CLIENT, start as startOAuthServer } from '../peers/oauth-server.mjs';
import { launchChromium } from '../support/chromium.mjs';
import { ENTRY_QUERY, LITE, ROOT, RESULT_MS, STEP_MS, assert, named, requirePackage, serveSite, watchConsole } from './harness.mjs';

const SCREENSHOTS = join(ROOT, 'target', 'screenshots');

// The whole run is bounded.
const watchdog = setTimeout(() => {
  console.error('FAILED the OAuth browser test did not finish within 5 minutes');
  process.exit(1);
}, 300_000);

requirePackage();
const { server: site, origin: siteOrigin } = await serveSite(['app.js', 'worker.js']);
const oauth = await startOAuthServer({ host: '127.0.0.1' });
// The page and the servers are on different origins: everything is cross-origin.
const pageUrl = (query = '') => `${siteOrigin}/?server=${encodeURIComponent(oauth.mcpUrl)}${ENTRY_QUERY}${query}`;
console.log(`test page ${siteOrigin}, MCP server ${oauth.mcpUrl}, authorization server ${oauth.origin}`);
mkdirSync(SCREENSHOTS, { recursive: true });

// Playwright turns the popup blocker off by default; these tests need it.
const browser = await launchChromium(chromium, { ignoreDefaultArgs: ['--disable-popup-blocking'] });

/** Outcomes the page reported (console), by page. */
const outcomes = new WeakMap();
/** The .wasm files each page loaded, by page. */
const modules = new WeakMap();

async function newPage() {
  const context = await browser.newContext({ viewport: { width: 900, height: 560 } });
  const page = await context.newPage();
  const reported = [];
  outcomes.set(page, reported);
  const loaded = [];
  modules.set(page, loaded);
  page.on('request', (request) => request.url().endsWith('.wasm') && loaded.push(new URL(request.url()).pathname));
  watchConsole(page, reported);
  if (process.env.DEBUG) {
    page.on('framenavigated', (frame) => frame === page.mainFrame() && console.log(`  [navigated] ${frame.url()}`));
    page.on('popup', (popup) => console.log(`  [popup] ${popup.url()}`));
    page.on('console', (message) => console.log(`  [console.${message.type()}] ${message.text()}`));
  }
  return { context, page };
}

/** The outcome of the page's `run`-th connect (since its last load),
 * as the page reported it on the console. Nothing runs in the page while
 * waiting: script run from here counts as a user gesture. */
async function result(page, run) {
  const deadline = Date.now() + RESULT_MS;
  const reported = outcomes.get(page);
  for (;;) {
    const index = reported.findIndex((outcome) => outcome && outcome.run === run);
    if (index >= 0) {
      const found = reported[index];
      reported[index] = null; // each outcome is read once
      return found;
    }
    if (Date.now() > deadline) throw new Error(`the page reported no outcome of connect #${run} within ${RESULT_MS} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Clicks Connect and returns the popup it opens. */
async function clickForPopup(page) {
  const popup = page.waitForEvent('popup', { timeout: STEP_MS });
  await page.click('#connect', { timeout: STEP_MS });
  return popup;
}

const checks = [];
async function check(name, body) {
  const started = Date.now();
  const { context, page } = await newPage();
  try {
    await body(page);
    checks.push({ name, ok: true });
    console.log(`ok     ${named(name)} (${((Date.now() - started) / 1000).toFixed(1)} s)`);
  } catch (error) {
    checks.push({ name, ok: false });
    console.log(`FAILED ${named(name)}: ${error?.message ?? error}`);
    const shown = await page.locator('#log').textContent({ timeout: 2000 }).catch(() => '(unreadable)');
    console.log(`       the page shows: ${JSON.stringify(shown)}`);
  } finally {
    await context.close().catch(() => {});
  }
}

/** A second click connects with the kept token: no popup, no second sign-in. */
async function connectsAgainWithoutSignIn(page) {
  const authorizations = oauth.state.authorizations;
  let popped = false;
  page.on('popup', () => (popped = true));
  await page.click('#connect', { timeout: STEP_MS });
  const again = await result(page, 2);
  assert(again.ok, `the second connect failed: ${again.message}`);
  assert(!popped && oauth.state.authorizations === authorizations, 'the second connect signed in again');
}

await check('popup sign-in: consent, Allow, then tools/list and echo', async (page) => {
  await page.goto(pageUrl(), { timeout: STEP_MS });
  const popup = await clickForPopup(page);
  await popup.waitForSelector('#allow', { timeout: STEP_MS });
  const consentUrl = new URL(popup.url());
  assert(consentUrl.origin === oauth.origin && consentUrl.pathname === '/authorize', `the popup shows ${consentUrl.origin}${consentUrl.pathname}`);
  assert(consentUrl.searchParams.get('code_challenge_method') === 'S256', 'no PKCE S256 in the authorization request');
  assert(consentUrl.searchParams.get('resource') === oauth.mcpUrl, 'the resource parameter is not the MCP server');
  assert(consentUrl.searchParams.get('redirect_uri') === `${siteOrigin}/oauth-callback.html`, `redirect_uri ${consentUrl.searchParams.get('redirect_uri')}`);
  await popup.screenshot({ path: join(SCREENSHOTS, 'oauth-consent-popup.png') });
  const closed = popup.waitForEvent('close', { timeout: STEP_MS });
  await popup.click('#allow', { timeout: STEP_MS });
  await closed; // the callback page handed the URL over and closed itself
  const outcome = await result(page, 1);
  assert(outcome.ok, `the page failed: ${outcome.name}: ${outcome.message}`);
  assert(outcome.tools?.includes('echo'), `tools: ${outcome.tools}`);
  assert(outcome.echo === 'Echo: hello through OAuth', `echo: ${outcome.echo}`);
  assert(outcome.transport === 'streamable-http', `transport: ${outcome.transport}`);
  const wasm = LITE ? '/pkg/mcp_edge_lite_bg.wasm' : '/pkg/mcp_edge_bg.wasm';
  assert(modules.get(page).join() === wasm, `the page loaded ${modules.get(page).join() || 'no .wasm'}, not ${wasm}`);
  await page.screenshot({ path: join(SCREENSHOTS, 'oauth-page-after.png'), fullPage: true });

  const stored = await page.evaluate(() => Object.keys(sessionStorage).filter((key) => key.startsWith('mcp-edge:')));
  assert(stored.includes(`mcp-edge:${oauth.mcpUrl}`), `sessionStorage keys: ${stored}`);
  const leaked = oauth.state.urls.filter((url) => [...oauth.state.tokens].some((token) => url.includes(token)));
  assert(leaked.length === 0, `a token went into a URL: ${leaked.length} request(s)`);
  assert(!page.url().includes('code='), 'the page URL holds a code');

  await connectsAgainWithoutSignIn(page);
});

await check("the app's own { load, save, clear }: the tokens kept there, a second connect uses them", async (page) => {
  await page.goto(pageUrl('&store=app'), { timeout: STEP_MS });
  const popup = await clickForPopup(page);
  await popup.waitForSelector('#allow', { timeout: STEP_MS });
  await popup.click('#allow', { timeout: STEP_MS });
  const outcome = await result(page, 1);
  assert(outcome.ok, `the page failed: ${outcome.name}: ${outcome.message}`);
  const kept = await page.evaluate(() => [...window.appRecords.entries()]);
  const record = kept.find(([key]) => key === `mcp-edge:${oauth.mcpUrl}`)?.[1];
  assert(typeof record === 'string' && JSON.parse(record).tokens?.access_token, `the app's store holds ${JSON.stringify(kept).slice(0, 200)}`);
  const elsewhere = await page.evaluate(() => Object.keys(sessionStorage).filter((key) => key.startsWith('mcp-edge:')));
  assert(elsewhere.length === 0, `records in sessionStorage too: ${elsewhere}`);
  await connectsAgainWithoutSignIn(page);
});

await check('a connect without a click: the blocked popup is reported', async (page) => {
  await page.goto(pageUrl('&auto=1'), { timeout: STEP_MS });
  const outcome = await result(page, 1);
  assert(!outcome.ok, 'the connect succeeded without a popup');
  assert(/blocked the popup/.test(outcome.message) && /authorize: "redirect"/.test(outcome.message), `the error: ${outcome.message}`);
  console.log(`       error: ${outcome.message}`);
});

await check('a forged state in the redirect is refused', async (page) => {
  await fetch(`${oauth.origin}/__test/config?forgeState=1`);
  try {
    await page.goto(pageUrl(), { timeout: STEP_MS });
    const popup = await clickForPopup(page);
    await popup.waitForSelector('#allow', { timeout: STEP_MS });
    await popup.click('#allow', { timeout: STEP_MS });
    const outcome = await result(page, 1);
    assert(!outcome.ok, 'the connect succeeded with a forged state');
    assert(/state does not match/.test(outcome.message), `the error: ${outcome.message}`);
    console.log(`       error: ${outcome.message}`);
  } finally {
    await fetch(`${oauth.origin}/__test/config?forgeState=0`);
  }
});

await check('closing the popup ends the wait with a clear error', async (page) => {
  await page.goto(pageUrl(), { timeout: STEP_MS });
  const popup = await clickForPopup(page);
  await popup.waitForSelector('#allow', { timeout: STEP_MS });
  await popup.close();
  const outcome = await result(page, 1);
  assert(!outcome.ok, 'the connect succeeded without a sign-in');
  assert(/popup was closed before the sign-in finished/.test(outcome.message), `the error: ${outcome.message}`);
  console.log(`       error: ${outcome.message.slice(0, 160)}…`);
});

await check('a popup cut off from its opener answers over the BroadcastChannel', async (page) => {
  await page.goto(pageUrl(), { timeout: STEP_MS });
  const popup = await clickForPopup(page);
  await popup.waitForSelector('#allow', { timeout: STEP_MS });
  // The callback page then finds no opener to post to.
  await popup.evaluate(() => {
    window.opener = null;
  });
  const closed = popup.waitForEvent('close', { timeout: STEP_MS });
  await popup.click('#allow', { timeout: STEP_MS });
  await closed;
  const outcome = await result(page, 1);
  assert(outcome.ok, `the page failed: ${outcome.name}: ${outcome.message}`);
  assert(outcome.echo === 'Echo: hello through OAuth', `echo: ${outcome.echo}`);
});

/** Redirect mode, from the click to the page that came back. */
async function redirectSignIn(page, query, landing) {
  await page.goto(pageUrl(`&mode=redirect${query}`), { timeout: STEP_MS });
  await Promise.all([
    page.waitForURL((url) => url.origin === oauth.origin && url.pathname === '/authorize', { timeout: STEP_MS }),
    page.click('#connect', { timeout: STEP_MS }),
  ]);
  await Promise.all([
    page.waitForURL((url) => url.origin === siteOrigin && landing(url), { timeout: STEP_MS }),
    page.click('#allow', { timeout: STEP_MS }),
  ]);
  const outcome = await result(page, 1);
  assert(outcome.ok, `the page failed after coming back: ${outcome.name}: ${outcome.message}`);
  assert(outcome.echo === 'Echo: hello through OAuth', `echo: ${outcome.echo}`);
  const url = new URL(page.url());
  for (const name of ['code', 'state', 'iss']) assert(!url.searchParams.has(name), `the page URL still has ${name}`);
  const left = await page.evaluate(() => Object.keys(sessionStorage).filter((key) => key.startsWith('mcp-edge:pending:')));
  assert(left.length === 0, `pending flows left in sessionStorage: ${left.length}`);
  return outcome;
}

await check('redirect mode through the callback page', async (page) => {
  // The callback page sends the browser back to the page that started.
  await redirectSignIn(page, '', (url) => url.pathname === '/' && url.searchParams.get('mode') === 'redirect');
});

await check('redirect mode with the page itself as redirect URI: code read from the URL, URL cleaned', async (page) => {
  const redirectUri = `${siteOrigin}/`;
  await redirectSignIn(page, `&redirectUri=${encodeURIComponent(redirectUri)}`, (url) => url.pathname === '/' && url.searchParams.has('code'));
});

await check('redirect mode finished by completeAuthorization(location.href), then a connect with the tokens', async (page) => {
  const redirectUri = `${siteOrigin}/`;
  const query = `&redirectUri=${encodeURIComponent(redirectUri)}&complete=1`;
  const outcome = await redirectSignIn(page, query, (url) => url.pathname === '/' && url.searchParams.has('code'));
  assert(outcome.completed === true, `completeAuthorization resolved ${outcome.completed}`);
});

await check('in a Web Worker, a sign-in that needs a person asks for auth.authorize', async (page) => {
  await page.goto(pageUrl(), { timeout: STEP_MS });
  const outcome = await page.evaluate(() => window.workerConnect({}));
  assert(!outcome.ok, 'the worker connected without signing in');
  assert(/no window here/.test(outcome.message) && /auth\.authorize/.test(outcome.message), `the error: ${outcome.message}`);
  console.log(`       error: ${outcome.message.slice(0, 200)}…`);
});

await check(LITE ? 'in a Web Worker, client credentials are refused by name' : 'in a Web Worker, client credentials work', async (page) => {
  await page.goto(pageUrl(), { timeout: STEP_MS });
  const outcome = await page.evaluate(
    (client) => window.workerConnect({ grant: 'client_credentials', clientId: client.id, clientSecret: client.secret }),
    CONFIDENTIAL_CLIENT,
  );
  if (LITE) {
    // Grants without a person are full-only (the `machine-grants` feature).
    assert(!outcome.ok && outcome.name === 'TypeError', `the worker: ${JSON.stringify(outcome)}`);
    assert(/machine-grants/.test(outcome.message), `the error: ${outcome.message}`);
    return;
  }
  assert(outcome.ok, `the worker failed: ${outcome.message}`);
  assert(outcome.echo === 'Echo: hello from a worker', `echo: ${outcome.echo}`);
});

await check('an authorization server without CORS headers: the error says so', async (page) => {
  await fetch(`${oauth.origin}/__test/config?noCors=1`);
  try {
    await page.goto(pageUrl(), { timeout: STEP_MS });
    await page.click('#connect', { timeout: STEP_MS });
    const outcome = await result(page, 1);
    assert(!outcome.ok, 'the connect succeeded');
    const expected = `the authorization server at ${oauth.origin} may not allow cross-origin requests from this page (no CORS headers)`;
    assert(outcome.message.includes(expected), `the error: ${outcome.message}`);
    console.log(`       error: ${outcome.message.slice(0, 400)}…`);
  } finally {
    await fetch(`${oauth.origin}/__test/config?noCors=0`);
  }
});

await browser.close();
await oauth.close();
site.closeAllConnections?.();
site.close();
clearTimeout(watchdog);
const failed = checks.filter((c) => !c.ok).length;
console.log(`\n${checks.length - failed} passed, ${failed} failed; screenshots in ${SCREENSHOTS}`);
process.exit(failed ? 1 : 0);
