// Node 22: `node node-http.mjs <label>`. The Node entry speaks HTTP through
// `node:http` (node-http.js), and steps aside for a `fetch` someone put in
// place of Node's own (a test's mock, an instrumented wrapper), call by
// call. Told apart at the server: undici's `fetch` sends `Sec-Fetch-Mode`,
// `node:http` does not.
import { McpClient } from 'mcp-edge';
import { startInstantServer } from './instant-server.mjs';

const [label] = process.argv.slice(2);

const seen = [];
const server = await startInstantServer((message, send, res) => {
  seen.push({ method: message.method, undici: res.req.headers['sec-fetch-mode'] !== undefined });
  if (message.method === 'initialize') {
    const result = { protocolVersion: message.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: 'h', version: '1' } };
    send({ result });
  } else if (message.method === 'tools/call') {
    send({ result: { content: [{ type: 'text', text: String(message.params?.arguments?.text) }] } });
  } else {
    send({ error: { code: -32601, message: `no method ${message.method}` } });
  }
});

async function echo(client, text) {
  const result = await client.callTool({ name: 'echo', arguments: { text } });
  if (result?.content?.[0]?.text !== text) throw new Error(`echo ${text} answered ${JSON.stringify(result)}`);
  return seen.at(-1);
}

try {
  const client = await McpClient.connect(server.url, { clientInfo: { name: label, version: '0' }, era: 'handshake', timeout: 10_000 });
  try {
    if (seen.some((request) => request.undici)) throw new Error(`the handshake went through fetch: ${JSON.stringify(seen)}`);
    if ((await echo(client, 'one')).undici) throw new Error('a call went through fetch, not node:http');

    const own = globalThis.fetch;
    let wrapped = 0;
    globalThis.fetch = (input, init) => {
      wrapped += 1;
      return own(input, init);
    };
    try {
      if (!(await echo(client, 'two')).undici) throw new Error('with fetch replaced, a call did not reach it');
      if (wrapped !== 1) throw new Error(`the replaced fetch saw ${wrapped} calls, not 1`);
    } finally {
      globalThis.fetch = own;
    }
    if ((await echo(client, 'three')).undici) throw new Error('with fetch Node\'s own again, a call went through it');
  } finally {
    await client.close();
  }
  console.log(`OK ${label}: ${seen.length} requests; the handshake and calls through node:http, a call through a replaced fetch while it was in place`);
  server.close();
  process.exit(0);
} catch (error) {
  console.error(`FAILED ${label}: ${error?.stack ?? error}`);
  server.close();
  process.exit(1);
}
