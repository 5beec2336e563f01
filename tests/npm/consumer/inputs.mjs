// Node 22: `node inputs.mjs <label>`. Odd values in every option of
// `McpClient.connect` and in every argument and request option of its
// methods, with both entries: each call must settle (a result, or an error
// thrown to the caller) within a bound, never trap the wasm module (a panic
// there aborts it: `WebAssembly.RuntimeError: unreachable`), and the client
// must answer a ping after each method's round. A huge `timeout` once
// panicked this way; it now waits without a limit, which is checked too.
import { McpClient } from 'mcp-edge';
import { McpClient as LiteClient } from 'mcp-edge/lite';
import { startInstantServer } from './instant-server.mjs';

const [label] = process.argv.slice(2);

// An instant server: `initialize`, `tools/call` (echo), `tools/list`, `ping`;
// any other request gets "method not found".
const server = await startInstantServer(({ method, params }, send) => {
  if (method === 'initialize') {
    const capabilities = { tools: {}, prompts: {}, resources: { subscribe: true }, logging: {}, completions: {} };
    send({ result: { protocolVersion: params.protocolVersion, capabilities, serverInfo: { name: 'inputs', version: '1' } } });
  } else if (method === 'tools/call') {
    send({ result: { content: [{ type: 'text', text: JSON.stringify(params?.arguments ?? null) }] } });
  } else if (method === 'tools/list') {
    send({ result: { tools: [{ name: 'echo', inputSchema: { type: 'object' } }] } });
  } else if (method === 'ping') {
    send({ result: {} });
  } else {
    send({ error: { code: -32601, message: `no method ${method}` } });
  }
});
const url = server.url;

const cyclic = {};
cyclic.self = cyclic;
const boom = () => {
  throw new Error('boom');
};
const ODD = {
  undefined: undefined,
  null: null,
  NaN: NaN,
  Infinity: Infinity,
  '-Infinity': -Infinity,
  '-0': -0,
  '-1': -1,
  '0.5': 0.5,
  '1e300': 1e300,
  '-1e300': -1e300,
  '2**64': 2 ** 64,
  'a string': 'x',
  'an empty string': '',
  'a 100 KB string': 'y'.repeat(100_000),
  'a lone surrogate': '\ud800',
  'a NUL': 'a\u0000b',
  '{}': {},
  '[]': [],
  'pairs': [['a', 'b'], ['c']],
  'a symbol': Symbol('s'),
  'a bigint': 10n,
  'a function': () => 1,
  'a date': new Date(0),
  true: true,
  'a throwing proxy': new Proxy({}, { get: boom, has: boom, ownKeys: boom, getOwnPropertyDescriptor: boom }),
  'a cyclic object': cyclic,
  'a throwing toJSON': { toJSON: boom },
  'a 5,000-deep array': JSON.parse('['.repeat(5000) + ']'.repeat(5000)),
};
const CONNECT_OPTIONS = [
  'clientInfo', 'headers', 'credentials', 'timeout', 'protocolVersion', 'era', 'tasks', 'taskTimeout', 'resultCache',
  'transport', 'auth', 'openServerStream', 'eagerServerStream', 'reopenListens', 'validateStructuredContent',
  'maxConnections', 'sampling', 'elicitation', 'elicitationFillDefaults', 'elicitationValidate', 'roots',
];
// One wrong value of each option: the connect must fail with a TypeError
// that names the option (checked by src/web/options.js, `protocolVersion`
// in Rust).
const WRONG = {
  transport: 'carrier-pigeon', headers: 5, credentials: 'all', timeout: -1, protocolVersion: '1999-01-01',
  era: 'bronze', tasks: 'yes', taskTimeout: 'soon', resultCache: 1, openServerStream: 'no', eagerServerStream: 0,
  reopenListens: 'x', validateStructuredContent: 'x', maxConnections: 0.5, sampling: 'fn', elicitation: 1,
  elicitationFillDefaults: 'x', elicitationValidate: 'x', roots: 'x', onnotification: 1, onsessionrestarted: 1,
  onresubscribed: 1, clientInfo: 5, auth: 5,
};
const WRONG_AUTH = {
  authorizationTimeout: -1, redirectUri: 5, clientId: 5, clientSecret: 5, clientMetadataUrl: 5, privateKeyPem: 5,
  keyId: 5, tokenEndpointAuthMethod: 'magic', clientName: 5, grant: 'magic', assertion: 5, allowInsecureHttp: 'x',
  dpop: 'x', popupFeatures: 5, scope: 5, store: 'disk', authorize: 'window',
};
const WRONG_MORE = [
  [{ headers: { 'x-a': 5 } }, 'options.headers["x-a"]'],
  [{ headers: [['x-a']] }, 'options.headers'],
  [{ maxConnections: 0 }, 'options.maxConnections'],
  [{ auth: { scope: ['a', 5] } }, 'options.auth.scope'],
  [{ auth: { store: { load() {} } } }, 'options.auth.store'],
  [{ auth: { grant: 'jwt_bearer' } }, 'options.auth.grant'],
  [{ auth: { identityProvider: {} } }, 'options.auth.'],
];
const REQUEST_OPTIONS = ['signal', 'timeout', 'onprogress', 'resetTimeoutOnProgress', 'maxTotalTimeout'];
const BOUND_MS = 8_000;

/** How a call ended: 'ok', 'error', or a defect ('trap', 'hang'). */
async function settle(start) {
  let timer;
  const hang = new Promise((resolve) => {
    timer = setTimeout(() => resolve({ how: 'hang' }), BOUND_MS);
  });
  const outcome = (async () => start())().then(
    (value) => ({ how: 'ok', value }),
    (error) => ({ how: error instanceof WebAssembly.RuntimeError ? 'trap' : 'error', error }),
  );
  try {
    return await Promise.race([outcome, hang]);
  } finally {
    clearTimeout(timer);
  }
}

async function run(Client) {
  let cases = 0;
  const defects = [];
  const check = async (what, start) => {
    cases += 1;
    const outcome = await settle(start);
    if (outcome.how === 'trap' || outcome.how === 'hang') {
      defects.push(`${what}: ${outcome.how}${outcome.error ? ` (${outcome.error.message})` : ''}`);
    }
    return outcome;
  };
  const opened = [];
  const closeLater = (outcome) => {
    if (outcome.how === 'ok' && typeof outcome.value?.close === 'function') opened.push(outcome.value);
  };
  for (const key of CONNECT_OPTIONS) {
    for (const [name, value] of Object.entries(ODD)) {
      closeLater(await check(`connect, ${key}: ${name}`, () => Client.connect(url, { [key]: value, era: 'handshake' })));
    }
  }
  for (const [name, value] of Object.entries(ODD)) {
    closeLater(await check(`connect, options ${name}`, () => Client.connect(url, value)));
    closeLater(await check(`connect, url ${name}`, () => Client.connect(value, {})));
  }
  for (const client of opened.splice(0)) await settle(() => client.close());
  const wrong = [
    ...Object.entries(WRONG).map(([key, value]) => [{ [key]: value }, `options.${key}`]),
    ...Object.entries(WRONG_AUTH).map(([key, value]) => [{ auth: { [key]: value } }, `options.auth.${key}`]),
    ...WRONG_MORE,
  ];
  for (const [options, named] of wrong) {
    const outcome = await check(`connect with ${JSON.stringify(options)}`, () => Client.connect(url, options));
    closeLater(outcome);
    if (!(outcome.error instanceof TypeError) || !outcome.error.message.includes(named)) {
      throw new Error(`connect with ${JSON.stringify(options)}: not a TypeError naming ${named}: ${outcome.how} ${outcome.error ?? ''}`);
    }
  }

  const client = await Client.connect(url, { era: 'handshake' });
  try {
    const methods = {
      callTool: (a, o) => client.callTool(a, o),
      listTools: (a, o) => client.listTools(a, o),
      listAllTools: (o) => client.listAllTools(o),
      listPrompts: (a, o) => client.listPrompts(a, o),
      listResources: (a, o) => client.listResources(a, o),
      listResourceTemplates: (a, o) => client.listResourceTemplates(a, o),
      readResource: (a, o) => client.readResource(a, o),
      getPrompt: (a, o) => client.getPrompt(a, o),
      complete: (a, o) => client.complete(a, o),
      setLoggingLevel: (a, o) => client.setLoggingLevel(a, o),
      subscribeResource: (a, o) => client.subscribeResource(a, o),
      unsubscribeResource: (a, o) => client.unsubscribeResource(a, o),
      request: (a, o) => client.request(a, o),
      notification: (a) => client.notification(a),
      ping: (o) => client.ping(o),
      addNotificationListener: (a) => client.addNotificationListener(a),
      removeNotificationListener: (a) => client.removeNotificationListener(a),
    };
    const params = { name: 'echo', arguments: { text: 'x' } };
    for (const [method, call] of Object.entries(methods)) {
      for (const [name, value] of Object.entries(ODD)) {
        await check(`${method}(${name})`, () => call(value));
        const fields = { name: 'echo', arguments: value, uri: value, method: value, params: value, level: value, ref: value, argument: value, cursor: value };
        await check(`${method}(every field ${name})`, () => call(fields));
        await check(`${method}(params, ${name})`, () => call(params, value));
        for (const key of REQUEST_OPTIONS) await check(`${method}(params, {${key}: ${name}})`, () => call(params, { [key]: value }));
      }
      const alive = await settle(() => client.ping());
      if (alive.how !== 'ok') throw new Error(`after ${method}'s odd values the client no longer answers a ping: ${alive.error ?? alive.how}`);
    }
    // The values that once trapped: the longest wait is no limit at all.
    for (const timeout of [1e300, Number.MAX_VALUE, 2 ** 64]) {
      const result = await client.callTool(params, { timeout, maxTotalTimeout: timeout });
      if (result?.content?.[0]?.text !== '{"text":"x"}') throw new Error(`timeout ${timeout}: answered ${JSON.stringify(result)}`);
    }
    // Numbers reach the server as the caller gave them: floats whose
    // digits and power of ten, each rounded, name a neighbour, halfway
    // cases, the ends of the range (JSON.stringify's text, read by the
    // module and written again; the echo gives back what arrived).
    const floats = {
      a: 9.999999999999999e55, b: 0.30000000000000004, c: 5e-324, d: 1.7976931348623157e308,
      e: 2.2250738585072011e-308, f: 123456789012345680000, g: -0.1, h: 1.0000000000000002, i: 4.35e-200,
      j: Array.from({ length: 200 }, (_, k) => Math.sin(k + 1) * 10 ** ((k % 61) * 10 - 300)),
    };
    const echoed = await client.callTool({ name: 'echo', arguments: floats });
    if (echoed?.content?.[0]?.text !== JSON.stringify(floats)) throw new Error(`floats changed on the way: ${echoed?.content?.[0]?.text}`);
    const negative = await settle(() => client.callTool(params, { timeout: -1 }));
    if (negative.error?.name !== 'TypeError') throw new Error(`timeout -1: ${negative.how} ${negative.error ?? ''}`);
  } finally {
    await client.close();
  }
  if (defects.length) throw new Error(`${defects.length} of ${cases} calls trapped or hung:\n  ${defects.slice(0, 20).join('\n  ')}`);
  return cases;
}

let failed = false;
for (const [Client, name] of [[McpClient, label], [LiteClient, `${label}-lite`]]) {
  try {
    const cases = await run(Client);
    console.log(`OK ${name}: ${cases} calls with odd options and arguments each settled within ${BOUND_MS / 1000} s, none trapped the module, the client answered after each method`);
  } catch (error) {
    failed = true;
    console.error(`FAILED ${name}: ${error?.stack ?? error}`);
  }
}
server.close();
process.exit(failed ? 1 : 0);
