// The fault catalog through the JS API of the installed package, in Node 22:
// `node faults.mjs <fault server base URL> <label> [mode,mode,...]` (only
// those modes, one at a time: for a closer look). Reads the table of modes
// from the server (GET /modes, tests/peers/fault-server.mjs), runs every mode
// (a few at a time, each bounded) and judges it as tests/support/faults.rs
// does natively. Prints one line per mode, the score, and
// `OK <label>: ...` or `FAILED <label>: ...` for cargo xtask.
import { McpClient } from 'mcp-edge';

const [base, label, only] = process.argv.slice(2);

// Modes that fail in this runtime today for a reason the issue names and
// another branch fixes: reported, not fatal. A listed mode that passes is a
// failure (take it off the list).
const KNOWN = {};

// The code the package gives a request that timed out (the TS SDK's).
const TIMEOUT_CODE = -32001;
const SLACK_MS = 2000;

const bounded = (ms, promise) =>
  Promise.race([promise, new Promise((resolve) => setTimeout(() => resolve({ hung: true }), ms))]);

// The outcome; `timing.ended` says when it was known (not counting the close).
async function attempt(catalog, mode, timing) {
  const client = await McpClient.connect(`${base}/mode/${mode.name}/mcp`, {
    clientInfo: { name: `fault-catalog-${label}`, version: '0.0.0' },
    timeout: mode.timeoutMs,
    transport: mode.transport,
    era: mode.era,
  });
  try {
    if (mode.op === 'call') {
      const result = await client.callTool({ name: 'echo', arguments: { text: catalog.text } });
      const text = (result?.content ?? []).filter((b) => b.type === 'text').map((b) => b.text).join('\n');
      return `text:${text}${result?.isError ? ' (isError)' : ''}`;
    }
    if (mode.op === 'list') {
      const tools = await client.listAllTools();
      return `tools:${tools.length} (${new Set(tools.map((t) => t.name)).size} distinct)`;
    }
    return 'connected';
  } finally {
    timing.ended = Date.now();
    await bounded(2000, client.close().catch(() => {}));
  }
}

function judge(catalog, mode, took, got, error) {
  const expect = mode.expect;
  if ('ok' in expect) {
    if (error) return `expected ${expect.ok}, got the error: ${error?.message ?? error} (after ${took} ms)`;
    const want =
      expect.ok === 'text'
        ? `text:${catalog.text}`
        : expect.ok === 'connected'
          ? 'connected'
          : `${expect.ok} (${expect.ok.slice('tools:'.length)} distinct)`;
    return got === want ? null : `expected ${want.slice(0, 80)}, got ${String(got).slice(0, 80)}`;
  }
  if (!error) return `expected a ${expect.error} error, got ${String(got).slice(0, 80)}`;
  const message = String(error?.message ?? error);
  const kind = expect.error;
  let kindOk;
  if (kind === 'timeout') kindOk = error?.code === TIMEOUT_CODE || /timed out|did not .* in time/i.test(message);
  else if (kind.startsWith('rpc:')) kindOk = error?.code === Number(kind.slice(4));
  else if (kind.startsWith('http:')) kindOk = message.includes(`HTTP ${kind.slice(5)}`);
  else if (kind === 'expired') kindOk = /ended the session/i.test(message);
  else kindOk = error?.name === 'McpError';
  const inTime = kind === 'timeout' ? took <= mode.timeoutMs + SLACK_MS : took < mode.timeoutMs;
  const said = message.toLowerCase().includes(expect.phrase.toLowerCase());
  if (!kindOk) return `expected a ${kind} error, got (${error?.name} code ${error?.code}) ${message.slice(0, 300)}`;
  if (!inTime) return `${kind} error came after ${took} ms (timeout ${mode.timeoutMs} ms): ${message.slice(0, 200)}`;
  if (!said) return `the message does not say ${JSON.stringify(expect.phrase)}: ${message.slice(0, 300)}`;
  return null;
}

async function runOne(catalog, mode) {
  const started = Date.now();
  const limit = mode.timeoutMs * 3 + 5000;
  let got;
  let error;
  const timing = {};
  try {
    got = await bounded(limit, attempt(catalog, mode, timing));
  } catch (e) {
    error = e;
  }
  const took = (timing.ended ?? Date.now()) - started;
  if (got?.hung) return `no outcome within ${limit} ms (hung)`;
  return judge(catalog, mode, took, got, error);
}

try {
  const catalog = await (await fetch(`${base}/modes`)).json();
  const modes = only ? catalog.modes.filter((m) => only.split(',').includes(m.name)) : catalog.modes;
  const verdicts = new Array(modes.length);
  let next = 0;
  const worker = async () => {
    while (next < modes.length) {
      const i = next++;
      verdicts[i] = await runOne(catalog, modes[i]);
    }
  };
  // One at a time: the modes share one JS thread, and a mode that floods it
  // (an endless stream) would delay the timers of the others.
  await worker();
  const failed = [];
  modes.forEach((mode, i) => {
    const why = verdicts[i];
    console.log(`  ${why ? 'FAILED ' : 'ok     '} ${mode.name.padEnd(36)} ${why ?? ''}`);
    if (why) failed.push(mode.name);
  });
  const score = `${modes.length - failed.length}/${modes.length} modes pass`;
  console.log(`fault catalog, ${label}: ${score}`);
  for (const [name, why] of Object.entries(KNOWN)) console.log(`  known   ${name}: ${why}`);
  const unexpected = failed.filter((name) => !(name in KNOWN));
  const fixed = Object.keys(KNOWN).filter((name) => !failed.includes(name));
  if (unexpected.length || fixed.length) {
    console.error(
      `FAILED ${label}: ${score}; misbehaving: ${unexpected.join(', ') || 'none'}` +
        (fixed.length ? `; listed as known but passing: ${fixed.join(', ')}` : ''),
    );
    process.exit(1);
  }
  console.log(`OK ${label}: ${score} (${failed.length} known failures)`);
  process.exit(0);
} catch (error) {
  console.error(`FAILED ${label}: ${error?.stack ?? error}`);
  process.exit(1);
}
