// The JS API's OAuth flows in headless Chromium against a certified
// authorization server: panva's oidc-provider protecting a TS SDK MCP server
// (tests/peers/oidc-server.mjs: DCR, PKCE required, resource indicators, JWT
// access tokens, refresh tokens rotated on every use and a reuse revokes the
// grant, DPoP advertised; sign-in scripted by the server). The test page
// (page/) loads the built npm package (target/npm/pkg).
//
//   node oidc.mjs [--lite]   (CHROMIUM=/usr/bin/chromium by default; --lite:
//                             the same checks on `mcp-edge/lite`)
//
// Checks, each in a fresh browser context, each reading the authorization
// server's request log:
// 1. popup sign-in: one registration, one code exchange, a Bearer token
//    (oidc-provider advertises DPoP; the resource does not ask for it);
// 2. redirect mode: the page leaves and comes back signed in;
// 3. two tabs sharing a localStorage token store, 10 calls each at once when
//    the access token is due: exactly one refresh request, no grant revoked.
// Prints one line per check; exits 1 if any failed.
import { chromium } from 'playwright-core';
import { start as startOidc } from '../peers/oidc-server.mjs';
import { launchChromium } from '../support/chromium.mjs';
import { ENTRY_QUERY, RESULT_MS, STEP_MS, assert, named, requirePackage, serveSite, watchConsole } from './harness.mjs';

const watchdog = setTimeout(() => {
  console.error('FAILED the oidc-provider browser test did not finish within 4 minutes');
  process.exit(1);
}, 240_000);

requirePackage();
const { server: site, origin: siteOrigin } = await serveSite(['app.js']);

const browser = await launchChromium(chromium);

async function result(reported, run) {
  const deadline = Date.now() + RESULT_MS;
  for (;;) {
    const found = reported.find((outcome) => outcome.run === run);
    if (found) return found;
    if (Date.now() > deadline) throw new Error(`the page reported no outcome of connect #${run} within ${RESULT_MS} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const checks = [];
/** Runs `body(context, oidc)` with a fresh browser context and a fresh oidc-provider. */
async function check(name, settings, body) {
  const started = Date.now();
  const oidc = await startOidc({ host: '127.0.0.1', settings });
  const context = await browser.newContext({ viewport: { width: 900, height: 560 } });
  try {
    await body(context, oidc);
    checks.push({ name, ok: true });
    console.log(`ok     ${named(name)} (${((Date.now() - started) / 1000).toFixed(1)} s)`);
  } catch (error) {
    checks.push({ name, ok: false });
    console.log(`FAILED ${named(name)}: ${error?.message ?? error}`);
    console.log(`       the authorization server's log: ${JSON.stringify(oidc.log.filter((e) => e.path !== '/mcp'))}`);
  } finally {
    await context.close().catch(() => {});
    await oidc.close();
  }
}

const pageUrl = (oidc, query = '') => `${siteOrigin}/?server=${encodeURIComponent(oidc.mcpUrl)}${ENTRY_QUERY}${query}`;
const tokenRequests = (oidc, grant) => oidc.log.filter((e) => e.path === '/token' && e.grant_type === grant);

/** Signs in with a popup (the server signs the user in by itself). */
async function popupSignIn(page, reported, oidc, query = '') {
  await page.goto(pageUrl(oidc, query), { timeout: STEP_MS });
  const popup = page.waitForEvent('popup', { timeout: STEP_MS });
  await page.click('#connect', { timeout: STEP_MS });
  await popup;
  const outcome = await result(reported, 1);
  assert(outcome.ok, `the page failed: ${outcome.name}: ${outcome.message}`);
  assert(outcome.echo === 'Echo: hello through OAuth', `echo: ${outcome.echo}`);
}

await check('oidc-provider: popup sign-in with a Bearer token although DPoP is advertised', {}, async (context, oidc) => {
  const page = await context.newPage();
  const reported = [];
  watchConsole(page, reported);
  await popupSignIn(page, reported, oidc);
  const registrations = oidc.log.filter((e) => e.path === '/reg' && e.status === 201);
  assert(registrations.length === 1, `registrations: ${JSON.stringify(registrations)}`);
  const codes = tokenRequests(oidc, 'authorization_code');
  assert(codes.length === 1 && codes[0].status === 200, `code exchanges: ${JSON.stringify(codes)}`);
  assert(codes[0].token_type === 'Bearer' && !codes[0].dpop, `token: ${JSON.stringify(codes[0])}`);
  const schemes = oidc.log.filter((e) => e.path === '/mcp' && e.scheme).map((e) => e.scheme);
  assert(schemes.length > 0 && schemes.every((s) => s === 'Bearer'), `schemes: ${schemes}`);
  console.log(`       registrations 1 (${registrations[0].redirect_uris.join(', ')}), code exchanges 1, token_type Bearer`);
});

await check('oidc-provider: redirect mode', {}, async (context, oidc) => {
  const page = await context.newPage();
  const reported = [];
  watchConsole(page, reported);
  await page.goto(pageUrl(oidc, '&mode=redirect'), { timeout: STEP_MS });
  // The page leaves for the authorization server, which signs the user in
  // and sends the browser to the callback page, which sends it back: the
  // page's connect after the return reports.
  await page.click('#connect', { timeout: STEP_MS });
  const outcome = await result(reported, 1);
  assert(outcome.ok, `the page failed after coming back: ${outcome.name}: ${outcome.message}`);
  assert(outcome.echo === 'Echo: hello through OAuth', `echo: ${outcome.echo}`);
  const codes = tokenRequests(oidc, 'authorization_code');
  assert(codes.length === 1 && codes[0].token_type === 'Bearer', `code exchanges: ${JSON.stringify(codes)}`);
});

await check('oidc-provider: two tabs sharing localStorage, 10 calls each at expiry: one refresh', { accessTtl: 8, refreshDelayMs: 500 }, async (context, oidc) => {
  const first = await context.newPage();
  const reported = [];
  watchConsole(first, reported);
  await popupSignIn(first, reported, oidc, '&store=localStorage');
  const second = await context.newPage();
  watchConsole(second, []);
  await second.goto(pageUrl(oidc, '&store=localStorage'), { timeout: STEP_MS });
  const kept = await second.evaluate(() => Object.keys(localStorage).filter((key) => key.startsWith('mcp-edge:')));
  assert(kept.length === 1, `localStorage keys in the second tab: ${kept}`);
  // The 8 s token is due after 4 s (half its lifetime); the refreshed one
  // is not due again for about 4 s, room for both bursts on a slow machine.
  await new Promise((resolve) => setTimeout(resolve, 4500));
  const [a, b] = await Promise.all([first.evaluate(() => window.burst(10)), second.evaluate(() => window.burst(10))]);
  for (const [tab, outcome] of [['first', a], ['second', b]]) {
    assert(outcome.ok, `the ${tab} tab failed: ${outcome.message}`);
    assert(outcome.echoes.every((echo, n) => echo === `Echo: burst ${n}`), `the ${tab} tab: ${outcome.echoes}`);
  }
  const refreshes = tokenRequests(oidc, 'refresh_token');
  const revoked = oidc.log.filter((e) => e.event === 'grant.revoked');
  assert(refreshes.length === 1 && refreshes[0].status === 200, `refreshes: ${JSON.stringify(refreshes)}`);
  assert(revoked.length === 0, `grants revoked: ${revoked.length}`);
  console.log(`       20 calls in two tabs at expiry: ${refreshes.length} refresh request, ${revoked.length} grants revoked`);
});

await browser.close();
site.closeAllConnections?.();
site.close();
clearTimeout(watchdog);
const failed = checks.filter((c) => !c.ok).length;
console.log(`\n${checks.length - failed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
