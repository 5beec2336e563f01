// `node www.mjs <page url> <mcp server url> <screenshot dir> [<rmcp peer url>]`:
// drives the www/ inspector page (served by `cargo xtask www-test`) in
// headless Chromium against server-everything (handshake era): connect, a
// tool call with progress through the generated form, an elicitation
// answered in its dialog (and one declined), a sampling request answered, a
// resource read, a prompt, live log notifications, a watch (`client.listen`)
// that hears resource updates; then against the rmcp test peer (2026-07-28):
// the stateless era shown, a watch that hears `bump` (resources/updated) and
// `grow` (tools/list_changed) called from the tool panel, then stopped, and
// the handshake era forced with the era selector; last an OAuth sign-in in
// a popup (against www-oauth-peer.mjs, started here). Prints `OK <check>: ...`
// or `FAILED <check>: ...` per check, saves screenshots as <dir>/www-*.png,
// exits 1 on a failure.
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { startCountingProxy } from './counting-proxy.mjs';
import { startOAuthPeer } from './www-oauth-peer.mjs';
import { launchChromium } from '../support/chromium.mjs';

const [site, upstream, shots, rmcp] = process.argv.slice(2);
// server-everything behind a proxy that logs every request it gets: the
// server's request log the reload check reads.
const proxy = await startCountingProxy(upstream);
const server = proxy.url;
const STEP_MS = 30_000;

let failed = false;
let connected = false;
/** `{text, where}` of console errors and uncaught errors. */
const pageErrors = [];
/** `<status> <url>` of era probes (`server/discover`) a handshake-only server refused, as it should. */
const probeRefusals = [];

async function check(name, fn) {
  if (name !== 'connect' && !connected) {
    failed = true;
    console.log(`FAILED ${name}: skipped, the page did not connect`);
    return;
  }
  try {
    const detail = await fn();
    console.log(`OK ${name}: ${detail}`);
  } catch (error) {
    failed = true;
    console.log(`FAILED ${name}: ${String(error?.message ?? error).split('\n')[0]}`);
  }
}

/** Waits until a request's card in the activity column settles; it must be ok. */
async function done(call) {
  await call.and(call.page().locator('[data-status]:not([data-status="running"])')).waitFor();
  const status = await call.getAttribute('data-status');
  if (status !== 'ok') throw new Error(`the request ended ${status}: ${(await call.textContent()).trim()}`);
}

function expect(condition, message) {
  if (!condition) throw new Error(message);
}

const oauth = await startOAuthPeer();
const browser = await launchChromium(chromium);

try {
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 }, colorScheme: 'light' });
  const page = await context.newPage();
  page.setDefaultTimeout(STEP_MS);
  page.on('console', (message) => {
    if (message.type() === 'error' || message.type() === 'warning') {
      const where = message.location()?.url ?? '';
      console.log(`  [console.${message.type()}] ${message.text()} ${where}`);
      // The OAuth server's 401 is how it asks for a sign-in, its 405 to GET
      // says it has no stream for unprompted messages: both expected.
      const challenge = where === oauth.url && /status of (401|405)/.test(message.text());
      if (message.type() === 'error' && !challenge) pageErrors.push({ text: message.text(), where });
    }
  });
  page.on('response', (response) => {
    if (response.status() >= 400) {
      const probe = response.request().postData()?.includes('"server/discover"');
      console.log(`  [http ${response.status()}] ${response.url()}${probe ? ' (era probe)' : ''}`);
      // A 401 is a sign-in challenge (allowed below for the OAuth server), not a refusal.
      if (probe && response.status() !== 401) probeRefusals.push(`${response.status()} ${response.url()}`);
    }
  });
  page.on('pageerror', (error) => {
    console.log(`  [pageerror] ${error}`);
    pageErrors.push({ text: String(error), where: '' });
  });
  /** Page errors, less the console's report of each refused era probe. */
  const unexpectedErrors = () => {
    const refusals = [...probeRefusals];
    return pageErrors.filter(({ text, where }) => {
      const i = refusals.indexOf(`${/status of (\d+)/.exec(text)?.[1]} ${where}`);
      if (i >= 0) refusals.splice(i, 1);
      return i < 0;
    }).map(({ text }) => text);
  };
  const shot = async (name, locator) => {
    const path = join(shots, `www-${name}.png`);
    await (locator ?? page).screenshot({ path });
    console.log(`  screenshot ${path}`);
  };
  const tool = (name) => page.locator(`#list .item[data-kind="tools"][data-name="${name}"]`);
  const lastCall = (name) => page.locator(`#activity .call[data-name="${name}"]`).first();
  const callTool = async (name, fill) => {
    await tool(name).click();
    const card = page.locator(`#detail .card[data-tool="${name}"]`);
    await card.waitFor();
    await fill?.(card);
    await card.locator('#call-tool').click();
    return lastCall(name);
  };
  const watchEntry = (method, hasText) => page.locator(`#watch-log .event[data-method="${method}"]`, hasText ? { hasText } : {}).first();
  /** Connects the page to `url` with the era selector at `era`. */
  const reconnect = async (url, era) => {
    await page.click('#disconnect');
    await page.locator('#status[data-state="idle"]', { hasText: 'Not connected' }).waitFor();
    await page.selectOption('#era', era);
    await page.fill('#url', url);
    await page.click('#connect');
    await page.locator('#status[data-state="connected"]').waitFor();
    await page.click('#tab-tools');
  };
  /** Puts `uri` in the Watch panel with its "Watch" button and starts watching tool and resource list changes. */
  const startWatch = async (uri) => {
    await page.click('#tab-resources');
    await page.locator(`#list .item[data-kind="resources"][data-key="${uri}"]`).click();
    await page.fill('#watch-uri', '');
    await page.click('#watch-resource');
    const field = await page.inputValue('#watch-uri');
    expect(field === uri, `the URI field holds ${JSON.stringify(field)}`);
    await page.check('#watch-tools');
    await page.check('#watch-resources');
    await page.click('#watch-toggle');
    await page.locator('#watch[data-state="on"]').waitFor();
    await page.click('#tab-tools');
    return (await page.textContent('#watch-status')).trim();
  };
  const stopWatch = async () => {
    await page.click('#watch-toggle');
    await page.locator('#watch[data-state="off"]').waitFor();
    await page.locator('#watch-status', { hasText: 'Stopped' }).waitFor();
  };

  console.log(`page ${site}, server ${server} (another origin)`);
  await page.goto(site);

  await check('connect', async () => {
    await page.fill('#url', server);
    await page.click('#connect');
    await page.locator('#status[data-state="connected"]').waitFor();
    const name = await page.textContent('#server-name');
    const version = await page.textContent('#server-version');
    const protocol = await page.textContent('#protocol-version');
    const transport = await page.textContent('#transport');
    expect(name === 'mcp-servers/everything', `server name is ${JSON.stringify(name)}`);
    expect(protocol === '2025-11-25 · handshake', `negotiated version is ${JSON.stringify(protocol)}`);
    expect(transport.length > 0, 'no transport shown');
    // The elicitation and sampling tools come with tools/list_changed
    // (server-everything registers them once it knows our capabilities).
    await tool('trigger-elicitation-request').waitFor();
    await tool('trigger-sampling-request').waitFor();
    connected = true;
    const tools = await page.locator('#list .item').count();
    return `${name} ${version}, protocol ${protocol}, transport ${transport}, ${tools} tools listed`;
  });

  await check('log notifications', async () => {
    // Starts a log message now and every 5 s, shown in the panel as it comes.
    const call = await callTool('toggle-simulated-logging');
    await done(call);
    const entry = page.locator('#events .event[data-method="notifications/message"]', { hasText: /level[- ]message/i }).first();
    await entry.waitFor({ timeout: 15_000 });
    return `panel shows ${JSON.stringify((await entry.textContent()).slice(0, 80))}`;
  });

  await check('connected view', async () => {
    await page.locator('#list .item').first().waitFor();
    await shot('connected');
    return 'screenshot taken';
  });

  await check('tool call with progress', async () => {
    const call = await callTool('trigger-long-running-operation', async (card) => {
      const duration = card.locator('input[name="duration"]');
      const steps = card.locator('input[name="steps"]');
      const defaults = [await duration.inputValue(), await steps.inputValue()];
      expect(defaults[0] === '10' && defaults[1] === '5', `defaults not prefilled: ${defaults}`);
      // 4 s over 4 steps: each of 2/4 and 3/4 shows for about 1 s, which
      // a slow poll cannot miss twice.
      await duration.fill('4');
      await steps.fill('4');
    });
    await call.locator('.progress-text', { hasText: /^[23]\/4$/ }).waitFor();
    await shot('tool-progress');
    await done(call);
    const progress = await call.locator('.progress-text').textContent();
    const bar = await call.locator('progress').evaluate((p) => `${p.value}/${p.max}`);
    const result = await call.locator('.call-result').textContent();
    expect(progress === '4/4' && bar === '4/4', `progress ends at ${progress} (bar ${bar})`);
    expect(result.includes('Long running operation completed'), `result: ${result}`);
    await shot('tool-done');
    return `progress bar reached ${bar}; ${result.trim()}`;
  });

  await check('elicitation accepted', async () => {
    const call = await callTool('trigger-elicitation-request');
    const dialog = page.locator('#elicitation-dialog[open]');
    await dialog.waitFor();
    const message = await dialog.locator('#elicitation-message').textContent();
    expect(message.includes('Please provide inputs'), `dialog message ${JSON.stringify(message)}`);
    const firstLine = await dialog.locator('input[name="firstLine"]').inputValue();
    expect(firstLine === 'It was a dark and stormy night.', `default not prefilled: ${firstLine}`);
    expect(await dialog.locator('label[for$="-name"] .req').count() === 1, 'required field not marked');
    await dialog.locator('input[name="name"]').fill('Ada Lovelace');
    await dialog.locator('select[name="check"]').selectOption({ label: 'true' });
    await dialog.locator('input[name="email"]').fill('ada@example.com');
    await dialog.locator('input[name="integer"]').fill('7');
    await dialog.locator('select[name="untitledSingleSelectEnum"]').selectOption({ label: 'Joey' });
    await dialog.locator('select[name="titledSingleSelectEnum"]').selectOption({ label: 'Wonder Woman' });
    await dialog.locator('label.check', { hasText: 'Piano' }).locator('input').check();
    await shot('elicitation');
    await dialog.locator('#elicitation-accept').click();
    await dialog.waitFor({ state: 'detached' });
    await done(call);
    const result = await call.locator('.call-result').textContent();
    for (const expected of ['- Name: Ada Lovelace', '- Agreed to terms: true', '- Email: ada@example.com',
      '- Favorite Integer: 7', '"action": "accept"', '"untitledSingleSelectEnum": "Joey"',
      '"titledSingleSelectEnum": "hero-3"', '"Piano"']) {
      expect(result.includes(expected), `result lacks ${JSON.stringify(expected)}: ${result}`);
    }
    await call.scrollIntoViewIfNeeded();
    await shot('result');
    return 'the result echoes the answers (name, terms, email, integer 7, Joey, hero-3, Piano)';
  });

  await check('elicitation declined', async () => {
    const call = await callTool('trigger-elicitation-request');
    const dialog = page.locator('#elicitation-dialog[open]');
    await dialog.waitFor();
    await dialog.locator('#elicitation-decline').click();
    await done(call);
    const result = await call.locator('.call-result').textContent();
    expect(result.includes('User declined'), `result: ${result}`);
    return 'the server saw the decline';
  });

  await check('elicitation cancelled with Escape', async () => {
    const call = await callTool('trigger-elicitation-request');
    const dialog = page.locator('#elicitation-dialog[open]');
    await dialog.waitFor();
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    await done(call);
    const result = await call.locator('.call-result').textContent();
    expect(result.includes('User cancelled'), `result: ${result}`);
    return 'Escape answered "cancel"';
  });

  await check('sampling answered', async () => {
    const call = await callTool('trigger-sampling-request', async (card) => {
      await card.locator('input[name="prompt"]').fill('Name a colour');
    });
    const dialog = page.locator('#sampling-dialog[open]');
    await dialog.waitFor();
    const body = await dialog.locator('#sampling-body').textContent();
    expect(body.includes('Name a colour') && body.includes('You are a helpful test server.'), `dialog shows ${body}`);
    await dialog.locator('#sampling-reply').fill('Teal.');
    await shot('sampling');
    await dialog.locator('#sampling-send').click();
    await done(call);
    const result = await call.locator('.call-result').textContent();
    expect(result.includes('Teal.') && result.includes('human-in-the-loop'), `result: ${result}`);
    return 'the server got the typed reply';
  });

  await check('resource read', async () => {
    await page.click('#tab-resources');
    const item = page.locator('#list .item[data-kind="resources"]').first();
    await item.click();
    const uri = await item.getAttribute('data-key');
    await page.click('#read-resource');
    const call = lastCall(uri);
    await done(call);
    const text = (await call.locator('.call-result').textContent()).trim();
    expect(text.length > 0, 'empty contents');
    await shot('resource');
    return `${uri}: ${text.length} characters shown`;
  });

  await check('prompt', async () => {
    await page.click('#tab-prompts');
    await page.locator('#list .item[data-name="args-prompt"]').click();
    const form = page.locator('#detail .card');
    expect(await form.locator('label[for$="-city"] .req').count() === 1, 'required argument not marked');
    await form.locator('input[name="city"]').fill('Paris');
    await page.click('#get-prompt');
    const call = lastCall('args-prompt');
    await done(call);
    const text = await call.locator('.call-result').textContent();
    expect(text.includes("What's weather in Paris?"), `prompt: ${text}`);
    await shot('prompt');
    return 'args-prompt with city=Paris';
  });

  await check('watch (handshake era)', async () => {
    await page.click('#clear-watch');
    await page.click('#tab-resources');
    const uri = await page.locator('#list .item[data-kind="resources"]').first().getAttribute('data-key');
    const status = await startWatch(uri);
    expect(status.includes(uri) && status.includes('tools'), `watch status ${JSON.stringify(status)}`);
    // Sends notifications/resources/updated for each subscribed URI now and every 5 s.
    await done(await callTool('toggle-subscriber-updates'));
    const entry = watchEntry('notifications/resources/updated', uri);
    await entry.waitFor({ timeout: 15_000 });
    await shot('watch');
    await stopWatch();
    await done(await callTool('toggle-subscriber-updates'));
    return `${status}; the log got ${JSON.stringify((await entry.textContent()).slice(0, 90))}; stopped`;
  });

  await check('reload keeps the session', async () => {
    const mark = proxy.log.length;
    await page.reload();
    await page.locator('#status[data-state="connected"]').waitFor();
    await tool('trigger-elicitation-request').waitFor();
    const sent = proxy.since(mark);
    if (sent.includes('POST initialize')) {
      const notes = (await page.locator('#events').innerText()).split('\n').filter((l) => /session|reload/i.test(l));
      throw new Error(`a new initialize after the reload: ${sent.join(', ')}; the page noted: ${notes.join(' | ')}`);
    }
    expect(!sent.includes('DELETE'), `the reload ended the session: ${sent.join(', ')}`);
    const seen = [...new Set(sent)].join(', ');
    return `no initialize and no DELETE in the server's log after the reload (${sent.length} requests: ${seen})`;
  });

  await check('stateless era (rmcp)', async () => {
    expect(rmcp, 'no rmcp peer URL given');
    await reconnect(rmcp, 'auto');
    const name = await page.textContent('#server-name');
    const title = await page.textContent('#server-title');
    const protocol = await page.textContent('#protocol-version');
    expect(title === 'rmcp-peer' || name === 'rmcp-peer', `server is ${JSON.stringify(title)} ${JSON.stringify(name)}`);
    expect(protocol === '2026-07-28 · stateless', `protocol shows ${JSON.stringify(protocol)}`);
    await tool('bump').waitFor();
    return `${rmcp}: protocol shows ${protocol}`;
  });

  await check('watch (stateless era)', async () => {
    await page.click('#clear-watch');
    const status = await startWatch('demo://counter');
    // rmcp offers tools/list_changed and resource subscriptions, not resources/list_changed.
    expect(status.includes('demo://counter') && status.includes('tools'), `watch status ${JSON.stringify(status)}`);
    await done(await callTool('bump'));
    const updated = watchEntry('notifications/resources/updated', 'demo://counter');
    await updated.waitFor({ timeout: 15_000 });
    await done(await callTool('grow'));
    await watchEntry('notifications/tools/list_changed').waitFor({ timeout: 15_000 });
    // The page reloads the tool list on the change.
    await page.locator('#list .item[data-kind="tools"][data-name^="grown_"]').first().waitFor({ timeout: 15_000 });
    const methods = await page.locator('#watch-log .event').evaluateAll((items) => items.map((i) => i.dataset.method));
    expect(methods[0] === 'notifications/tools/list_changed', `newest first? ${methods}`);
    await shot('watch-stateless');
    await stopWatch();
    // Stopped: a bump is no longer heard.
    const before = await page.locator('#watch-log .event').count();
    await done(await callTool('bump'));
    await page.waitForTimeout(1_000);
    const after = await page.locator('#watch-log .event').count();
    expect(after === before, `${after - before} notifications after the watch stopped`);
    return `${status}; the log got ${methods.join(', ')}; grown tool listed; nothing after Stop`;
  });

  await check('handshake era forced (rmcp)', async () => {
    await reconnect(rmcp, 'handshake');
    const protocol = await page.textContent('#protocol-version');
    expect(/^2025-\d\d-\d\d · handshake$/.test(protocol), `protocol shows ${JSON.stringify(protocol)}`);
    await page.click('#clear-watch');
    await startWatch('demo://counter');
    await done(await callTool('bump'));
    await watchEntry('notifications/resources/updated', 'demo://counter').waitFor({ timeout: 15_000 });
    await stopWatch();
    return `protocol shows ${protocol}; the watch heard bump through resources/subscribe`;
  });

  await check('oauth popup sign-in', async () => {
    await page.click('#disconnect');
    await page.locator('#status[data-state="idle"]', { hasText: 'Not connected' }).waitFor();
    await page.selectOption('#era', 'auto');
    await page.fill('#url', oauth.url);
    expect(await page.locator('#use-oauth').isChecked(), 'OAuth is off by default');
    const opened = page.waitForEvent('popup');
    await page.click('#connect');
    const popup = await opened;
    await popup.locator('#allow').waitFor();
    await shot('oauth-popup', popup);
    await popup.click('#allow');
    await page.locator('#status[data-state="connected"]').waitFor();
    const title = await page.textContent('#server-title');
    expect(title === 'OAuth Test Server', `server title ${JSON.stringify(title)}`);
    // It announces no list changes nor subscriptions: nothing to watch.
    expect(await page.locator('#watch-toggle').isDisabled(), 'Watch can start on a server with nothing to watch');
    await page.click('#tab-tools');
    const call = await callTool('whoami');
    await done(call);
    const text = await call.locator('.call-result').textContent();
    expect(text.includes('signed in: token'), `whoami: ${text}`);
    expect(oauth.tokensIssued() === 1, `${oauth.tokensIssued()} tokens issued`);
    await shot('oauth-connected');
    return 'the 401 opened the sign-in popup; after "Allow" the page connected and the tool call carried the token';
  });

  await check('no page errors', async () => {
    const shown = await page.locator('.error-box').count();
    const unexpected = await page.locator('#events .event', { hasText: 'unexpected error' }).count();
    expect(unexpected === 0, `${unexpected} unexpected errors in the notifications panel`);
    const errors = unexpectedErrors();
    expect(!errors.length, `${errors.length} page errors, first: ${errors[0]}`);
    expect(shown === 0, `${shown} error boxes shown`);
    return `no uncaught errors, no console errors (but the ${probeRefusals.length} refused era probe(s)), no failed requests shown`;
  });

  await page.click('#disconnect');
  await page.locator('#status[data-state="idle"]', { hasText: 'Not connected' }).waitFor();
} catch (error) {
  failed = true;
  console.log(`FAILED www: ${String(error?.message ?? error).split('\n')[0]}`);
} finally {
  await browser.close();
  await oauth.close();
  await proxy.close();
}
process.exit(failed ? 1 : 0);
