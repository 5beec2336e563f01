// Node 22: `node abandoned.mjs <label>`. Calls given up before their answer
// came (an AbortSignal, a timeout) reject at once, the answers that arrive
// later are dropped, and the client goes on with its next calls; with both
// entries, and both ways the package speaks HTTP in Node:
// - through `node:http` (the Node entries' node-http.js, the default): an
//   abandoned exchange's request is destroyed at once, so the server sees
//   each held exchange closed before its answer;
// - through the global `fetch` (without node-http.js, as the `raw` entry
//   is): undici makes an AbortSignal cost a request about 60 µs of CPU, so
//   none is passed, and an abandoned exchange is ended by cancelling its
//   response's body when the answer comes.
import { McpClient } from 'mcp-edge';
import { McpClient as LiteClient } from 'mcp-edge/lite';
import { startInstantServer } from './instant-server.mjs';

const [label] = process.argv.slice(2);

// Counts the response bodies cancelled: each abandoned exchange's, once its
// answer comes.
let cancelled = 0;
const cancel = ReadableStream.prototype.cancel;
ReadableStream.prototype.cancel = function (...args) {
  cancelled += 1;
  return cancel.apply(this, args);
};
const REQUEST_TIMEOUT = -32001;
// Where the Node entries install their `node:http` fetch; a client made
// while it is absent uses the global `fetch`.
const INSTALLED = Symbol.for('mcp-edge.fetch');
// Held exchanges the client closed before their answer.
let closedEarly = 0;

// A server whose `hold` tool answers only when told to.
const held = [];
const server = await startInstantServer((message, send, res) => {
  const text = (value) => send({ result: { content: [{ type: 'text', text: value }] } });
  if (message.method === 'initialize') {
    const result = { protocolVersion: message.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: 'hold', version: '1' } };
    send({ result });
  } else if (message.method === 'tools/call' && message.params?.name === 'hold') {
    res.on('close', () => {
      if (!res.writableFinished) closedEarly += 1;
    });
    held.push(() => text('late'));
  } else if (message.method === 'tools/call') {
    text('now');
  } else {
    send({ error: { code: -32601, message: `no method ${message.method}` } });
  }
});
const url = server.url;

async function until(what, test, ms = 5_000) {
  const end = Date.now() + ms;
  while (!test()) {
    if (Date.now() > end) throw new Error(`no ${what} within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

async function run(Client, name, http) {
  held.length = 0;
  const installed = globalThis[INSTALLED];
  if (http === 'fetch') delete globalThis[INSTALLED];
  else if (typeof installed !== 'function') throw new Error('the Node entry installed no node:http fetch');
  let client;
  try {
    client = await Client.connect(url, { clientInfo: { name, version: '0' }, era: 'handshake', timeout: 10_000 });
  } finally {
    globalThis[INSTALLED] = installed;
  }
  try {
    const controller = new AbortController();
    const settle = (call) => call.then((result) => ({ result }), (error) => ({ error }));
    const hold = { name: 'hold', arguments: {} };
    const aborted = Array.from({ length: 10 }, () => settle(client.callTool(hold, { signal: controller.signal })));
    const timedOut = Array.from({ length: 10 }, () => settle(client.callTool(hold, { timeout: 300 })));
    await until('20 calls held by the server', () => held.length === 20);
    const started = Date.now();
    controller.abort();
    const outcomes = await Promise.all([...aborted, ...timedOut]);
    const waited = Date.now() - started;
    outcomes.slice(0, 10).forEach(({ error }, i) => {
      if (error?.name !== 'AbortError') throw new Error(`aborted call ${i}: ${error ?? 'it was answered'}`);
    });
    outcomes.slice(10).forEach(({ error }, i) => {
      if (error?.code !== REQUEST_TIMEOUT) throw new Error(`timed-out call ${i}: ${error ?? 'it was answered'}`);
    });
    if (waited > 3_000) throw new Error(`the abandoned calls took ${waited} ms to reject`);
    if (http === 'fetch') {
      // The answers come after all, to nobody: their bodies are cancelled.
      const before = cancelled;
      for (const answer of held.splice(0)) answer();
      await until('20 answers cancelled', () => cancelled - before >= 20);
    } else {
      // The requests were ended when their calls were given up.
      await until('20 held exchanges closed by the client', () => closedEarly >= 20);
      for (const answer of held.splice(0)) answer();
    }
    for (let i = 0; i < 5; i++) {
      const result = await client.callTool({ name: 'echo', arguments: {} });
      if (result?.content?.[0]?.text !== 'now') throw new Error(`a later call answered ${JSON.stringify(result)}`);
    }
    return waited;
  } finally {
    await client.close();
  }
}

let failed = false;
const unhandled = [];
process.on('unhandledRejection', (reason) => unhandled.push(reason));
const runs = [
  [McpClient, label, 'node:http'],
  [LiteClient, `${label}-lite`, 'node:http'],
  [McpClient, `${label}-fetch`, 'fetch'],
];
for (const [Client, name, http] of runs) {
  closedEarly = 0;
  try {
    const waited = await run(Client, name, http);
    if (unhandled.length) throw new Error(`unhandled rejections: ${unhandled.join('; ')}`);
    const ended = http === 'fetch' ? 'their 20 late answers cancelled' : 'their 20 requests closed before the answers';
    console.log(`OK ${name}: 10 aborted and 10 timed-out calls rejected (the last ${waited} ms after the abort), ${ended}, 5 later calls answered (${http})`);
  } catch (error) {
    failed = true;
    console.error(`FAILED ${name}: ${error?.stack ?? error}`);
  }
}
server.close();
process.exit(failed ? 1 : 0);
