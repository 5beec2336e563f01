// The figures of `cargo xtask bench` for one JavaScript runtime (Node or a
// Chromium page): bare `fetch` (the floor), the TS SDK's `Client` and
// mcp-edge's `McpClient`, against server.mjs. Every timed figure runs
// `rounds` rounds, rotating which client goes first, and keeps the median.
//
// `env` gives what differs between runtimes: `base` (the server's URL),
// `control` (the same server under another origin, for the control
// requests, when `base`'s connections may all be busy),
// `sdk` ({ Client, StreamableHTTPClientTransport }), `McpClient`,
// `wasmMemory()` (bytes of mcp-edge's linear memory), `gc()` and `heap()`
// (bytes of JS heap in use after a full collection), `log(line)`.

import { BEARER_TOKEN, reply } from './answers.mjs';

export const COUNTS = {
  full: { calls: 2000, concurrent: 2000, inFlight: 2000, flood: 20000, connects: 20, heapCalls: 10000, big: 20, many: 5, rounds: 5 },
  // Fewer calls and rounds, for a machine too busy for a full run in reasonable time.
  quick: { calls: 300, concurrent: 500, inFlight: 1000, flood: 20000, connects: 5, heapCalls: 2000, big: 5, many: 2, rounds: 3 },
  smoke: { calls: 20, concurrent: 20, inFlight: 20, flood: 200, connects: 2, heapCalls: 50, big: 2, many: 1, rounds: 1 },
};

const CLIENTS = ['bare', 'ts-sdk', 'mcp-edge'];

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

let nextId = 1;
const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

/** The headers of a bare request to `url`: `/mcp/auth` takes a bearer token. */
const headersFor = (url) => (url.endsWith('/mcp/auth') ? { ...HEADERS, authorization: `Bearer ${BEARER_TOKEN}` } : HEADERS);

/** One JSON-RPC request by bare fetch; returns the parsed reply (the
 * result of an SSE reply's last event). */
async function bare(url, method, params) {
  const response = await fetch(url, {
    method: 'POST',
    headers: headersFor(url),
    body: JSON.stringify({ jsonrpc: '2.0', id: nextId++, method, params }),
  });
  if (!(response.headers.get('content-type') ?? '').startsWith('text/event-stream')) return response.json();
  const text = await response.text();
  let last;
  for (const event of text.split('\n\n')) {
    const data = event.split('\n').find((line) => line.startsWith('data: '));
    if (data) last = JSON.parse(data.slice(6));
  }
  return last;
}

async function bareNotify(url, method) {
  const response = await fetch(url, { method: 'POST', headers: headersFor(url), body: JSON.stringify({ jsonrpc: '2.0', method }) });
  await response.arrayBuffer();
}

/** `fetch` answering `/mcp/inproc` and `/mcp/inproc-sse` itself, in this
 * thread, as server.mjs's JSON and SSE endpoints do (the same answers,
 * answers.mjs, and headers: a JSON body with its `content-length`, or one
 * SSE event as a streamed body of unknown length): with no network, no
 * server process and no idle wait between calls, a sequential call's time
 * is the client's own work, and machine noise moves it little. Other URLs
 * go to the real `fetch`. It is in place only between `on()` and `off()`:
 * while `globalThis.fetch` is replaced, mcp-edge's Node entry steps aside
 * from `node:http` for it (pkg-config/node-http.js), so the other figures
 * run with Node's own `fetch` in place, as an application's do. */
export function inProcessServer() {
  const real = globalThis.fetch;
  const decoder = new TextDecoder();
  const encoder = new TextEncoder();
  const inProcess = async (input, init) => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    if (!url.includes('/mcp/inproc')) return real(input, init);
    const method = init?.method ?? (typeof input === 'object' && 'method' in input ? input.method : 'GET');
    if (method !== 'POST') return new Response(null, { status: 405, headers: { allow: 'POST' } });
    const raw = init?.body ?? input.body;
    const body =
      typeof raw === 'string' ? raw : ArrayBuffer.isView(raw) ? decoder.decode(raw) : await new Response(raw).text();
    const message = JSON.parse(body);
    if (message.id === undefined) return new Response(null, { status: 202 });
    const text = JSON.stringify(reply(message, 'json'));
    if (url.includes('/mcp/inproc-sse')) {
      const event = encoder.encode(`event: message\ndata: ${text}\n\n`);
      const body = new ReadableStream({
        start(controller) {
          controller.enqueue(event);
          controller.close();
        },
      });
      return new Response(body, { status: 200, headers: { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' } });
    }
    const length = encoder.encode(text).length;
    return new Response(text, { status: 200, headers: { 'content-type': 'application/json', 'content-length': String(length) } });
  };
  return {
    on: () => {
      globalThis.fetch = inProcess;
    },
    off: () => {
      globalThis.fetch = real;
    },
  };
}

/** A connected client of each kind, with one shape. */
async function connect(kind, env, url) {
  if (kind === 'wasm-floor') {
    // benches/size-floor: the least a Rust client in wasm can be (JSON-RPC
    // over fetch, serde_json), for the sequential figures only.
    await env.floor.connect(url);
    return {
      call: (name, args) => env.floor.request(url, 'tools/call', { name, arguments: args }),
      list: () => env.floor.request(url, 'tools/list', {}),
      close: async () => {},
    };
  }
  if (kind === 'bare-http') {
    // Node only: the request as bare `fetch` makes it, through `node:http`
    // (what mcp-edge's Node entry speaks HTTP with): the floor of a client
    // that does not use `fetch`.
    const request = async (method, params) => JSON.parse(await env.bareHttp(url, JSON.stringify({ jsonrpc: '2.0', id: nextId++, method, params })));
    await request('initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bench', version: '1' } });
    return {
      call: async (name, args) => (await request('tools/call', { name, arguments: args })).result,
      close: async () => {},
    };
  }
  if (kind === 'bare') {
    await bare(url, 'initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bench', version: '1' } });
    await bareNotify(url, 'notifications/initialized');
    return {
      call: async (name, args, onprogress) => {
        if (!onprogress) return (await bare(url, 'tools/call', { name, arguments: args })).result;
        // The floor of a progress flood: read the stream, parse every event.
        const response = await fetch(url, {
          method: 'POST',
          headers: HEADERS,
          body: JSON.stringify({ jsonrpc: '2.0', id: nextId++, method: 'tools/call', params: { name, arguments: args, _meta: { progressToken: 1 } } }),
        });
        const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
        let buffer = '';
        let result;
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          buffer += value;
          let end;
          while ((end = buffer.indexOf('\n\n')) >= 0) {
            const event = buffer.slice(0, end);
            buffer = buffer.slice(end + 2);
            const data = event.split('\n').find((line) => line.startsWith('data: '));
            if (!data) continue;
            const message = JSON.parse(data.slice(6));
            if (message.method === 'notifications/progress') onprogress(message.params);
            else result = message.result;
          }
        }
        return result;
      },
      list: async () => (await bare(url, 'tools/list', {})).result,
      close: async () => {},
    };
  }
  const authorized = url.endsWith('/mcp/auth');
  if (kind === 'ts-sdk') {
    const client = new env.sdk.Client({ name: 'bench', version: '1.0.0' });
    await client.connect(new env.sdk.StreamableHTTPClientTransport(new URL(url), authorized ? { authProvider: sdkTokens(url) } : undefined));
    return {
      call: (name, args, onprogress) =>
        client.callTool({ name, arguments: args }, undefined, onprogress ? { onprogress, timeout: 600000 } : undefined),
      list: () => client.listTools(),
      close: () => client.close(),
    };
  }
  const client = await env.McpClient.connect(url, {
    clientInfo: { name: 'bench', version: '1.0.0' },
    ...(authorized ? { auth: edgeTokens(url) } : {}),
  });
  return {
    call: (name, args, onprogress) => client.callTool({ name, arguments: args }, onprogress ? { onprogress, timeout: 600000 } : undefined),
    list: () => client.listTools(),
    close: () => client.close(),
  };
}

/** The TS SDK's OAuth provider, holding the bench token: what an app that
 * signed in earlier gives it. Any step of a new authorization fails. */
function sdkTokens(url) {
  const refuse = async () => {
    throw new Error('bench: the TS SDK was asked to authorize');
  };
  return {
    redirectUrl: new URL('/callback', url).href,
    clientMetadata: { client_name: 'bench', redirect_uris: [new URL('/callback', url).href] },
    clientInformation: async () => ({ client_id: 'bench' }),
    tokens: async () => ({ access_token: BEARER_TOKEN, token_type: 'Bearer', expires_in: 86400 }),
    saveTokens: refuse,
    redirectToAuthorization: refuse,
    saveCodeVerifier: refuse,
    codeVerifier: refuse,
  };
}

/** mcp-edge's `auth` option holding the bench token in a store of the app's
 * own, as an app that signed in earlier has it. Any new authorization fails. */
function edgeTokens(url) {
  const record = JSON.stringify({
    tokens: { access_token: BEARER_TOKEN, token_type: 'Bearer', expires_at: Math.floor(Date.now() / 1000) + 86400 },
  });
  return {
    store: { load: async () => record, save: async () => {}, clear: async () => {} },
    redirectUri: new URL('/callback', url).href,
    authorize: async () => {
      throw new Error('bench: mcp-edge was asked to authorize');
    },
  };
}

/** Runs `body(kind)` for every client in `kinds`, `rounds` times with the
 * order rotated; returns { kind: [ms per round] }. */
async function rounds(count, kinds, body) {
  const times = Object.fromEntries(kinds.map((k) => [k, []]));
  for (let round = 0; round < count; round++) {
    const order = kinds.map((_, i) => kinds[(i + round) % kinds.length]);
    for (const kind of order) {
      const start = performance.now();
      await body(kind);
      times[kind].push(performance.now() - start);
    }
  }
  return times;
}

function check(condition, message) {
  if (!condition) throw new Error(`bench: ${message}`);
}

export async function runBench(env, counts) {
  const { base, log } = env;
  // The held calls may take every connection a browser opens to the
  // server's origin (6 over HTTP/1.1): control requests go to another one.
  const control = env.control ?? base;
  const figures = [];
  const add = (figure) => {
    figures.push(figure);
    log(formatFigure(env.runtime, figure));
  };
  const inProcess = inProcessServer();
  const IN_PROCESS = ['inproc', 'inproc-sse'];
  const clients = {};
  for (const endpoint of ['json', 'sse', 'many', 'inproc', 'inproc-sse', 'auth', 'typed']) {
    clients[endpoint] = {};
    if (IN_PROCESS.includes(endpoint)) inProcess.on();
    for (const kind of CLIENTS) clients[endpoint][kind] = await connect(kind, env, `${base}/mcp/${endpoint}`);
    inProcess.off();
  }
  // The size floor (benches/size-floor: the least a Rust client in wasm
  // can be) beside the three in the plain sequential figures: it keeps one
  // session, and these endpoints have none.
  const SEQUENTIAL = env.floor ? [...CLIENTS, 'wasm-floor'] : CLIENTS;
  if (env.floor) {
    for (const endpoint of ['json', 'sse', 'inproc', 'inproc-sse']) {
      if (IN_PROCESS.includes(endpoint)) inProcess.on();
      clients[endpoint]['wasm-floor'] = await connect('wasm-floor', env, `${base}/mcp/${endpoint}`);
      inProcess.off();
    }
  }
  // Node: bare requests through `node:http` too, in the sequential and
  // concurrent figures over the network.
  const OVER_HTTP = env.bareHttp ? ['bare-http'] : [];
  for (const endpoint of ['json', 'sse']) {
    for (const kind of OVER_HTTP) clients[endpoint][kind] = await connect(kind, env, `${base}/mcp/${endpoint}`);
  }
  // The clients learn `echo`'s output schema from the list.
  for (const kind of CLIENTS) check((await clients.typed[kind].list())?.tools?.[0]?.outputSchema, `${kind} typed tools/list`);
  const echo = (kind, endpoint, i) =>
    clients[endpoint][kind].call('echo', { text: `call ${i}` }).then((r) => check(r?.content?.[0]?.text?.includes(`call ${i}`), `${kind} echo`));
  for (const kind of SEQUENTIAL) for (let i = 0; i < 20; i++) await echo(kind, 'json', i); // warm-up

  // Memory per call in flight, first: wasm memory only grows, so a later
  // figure's high-water mark would hide this one's.
  {
    const values = {};
    for (const kind of ['ts-sdk', 'mcp-edge']) {
      await fetch(`${control}/bench/hold`, { method: 'POST' });
      await env.gc();
      const heap0 = await env.heap();
      const wasm0 = env.wasmMemory();
      const calls = [];
      for (let i = 0; i < counts.inFlight; i++) calls.push(clients.json[kind].call('hold', { i }));
      // Wait until the server holds all it will get (a browser sends 6 at a
      // time per origin over HTTP/1.1; the rest wait in its network stack).
      let held = -1;
      for (let stable = 0; stable < 3; ) {
        await new Promise((r) => setTimeout(r, 50));
        const now = Number(await (await fetch(`${control}/bench/held`)).text());
        stable = now === held ? stable + 1 : 0;
        held = now;
      }
      await env.gc();
      const heap1 = await env.heap();
      const wasm1 = env.wasmMemory();
      await fetch(`${control}/bench/release`, { method: 'POST' });
      await Promise.all(calls);
      values[kind] = { jsHeapPerCall: (heap1 - heap0) / counts.inFlight, wasmPerCall: (wasm1 - wasm0) / counts.inFlight, held };
    }
    add({ name: 'memory per call in flight', n: counts.inFlight, unit: 'bytes', memory: values });
  }

  for (const endpoint of ['json', 'sse']) {
    const times = await rounds(counts.rounds, [...SEQUENTIAL, ...OVER_HTTP], async (kind) => {
      for (let i = 0; i < counts.calls; i++) await echo(kind, endpoint, i);
    });
    add({ name: `sequential tools/call, ${endpoint.toUpperCase()} replies`, n: counts.calls, unit: 'ms', times });
  }
  {
    // A client signed in earlier: every request carries a JWT-sized token.
    for (const kind of CLIENTS) for (let i = 0; i < 20; i++) await echo(kind, 'auth', i); // warm-up
    const times = await rounds(counts.rounds, CLIENTS, async (kind) => {
      for (let i = 0; i < counts.calls; i++) await echo(kind, 'auth', i);
    });
    add({ name: 'sequential tools/call, JSON, 1.3 KB bearer token', n: counts.calls, unit: 'ms', times });
  }
  {
    // A tool with an output schema: each result's structuredContent is
    // checked against it (the bare floor does not check).
    const typed = (kind, i) =>
      clients.typed[kind]
        .call('echo', { text: `call ${i}` })
        .then((r) => check(r?.structuredContent?.text?.includes(`call ${i}`), `${kind} typed echo`));
    for (const kind of CLIENTS) for (let i = 0; i < 20; i++) await typed(kind, i); // warm-up
    const times = await rounds(counts.rounds, CLIENTS, async (kind) => {
      for (let i = 0; i < counts.calls; i++) await typed(kind, i);
    });
    add({ name: 'sequential tools/call, JSON, output schema checked', n: counts.calls, unit: 'ms', times });
  }
  for (const [endpoint, replies] of [
    ['inproc', 'JSON'],
    ['inproc-sse', 'SSE'],
  ]) {
    // Ten times the calls: each takes tens of microseconds.
    inProcess.on();
    for (const kind of SEQUENTIAL) for (let i = 0; i < 200; i++) await echo(kind, endpoint, i); // warm-up
    const times = await rounds(counts.rounds, SEQUENTIAL, async (kind) => {
      for (let i = 0; i < counts.calls * 10; i++) await echo(kind, endpoint, i);
    });
    inProcess.off();
    add({ name: `sequential tools/call, in-process fetch, ${replies} replies`, n: counts.calls * 10, unit: 'ms', times });
  }
  {
    const times = await rounds(counts.rounds, [...CLIENTS, ...OVER_HTTP], async (kind) => {
      await Promise.all(Array.from({ length: counts.concurrent }, (_, i) => echo(kind, 'json', i)));
    });
    add({ name: 'concurrent tools/call (all in flight)', n: counts.concurrent, unit: 'ms', times, throughput: true });
  }
  {
    const times = await rounds(counts.rounds, CLIENTS, async (kind) => {
      let seen = 0;
      const result = await clients.json[kind].call('flood', { count: counts.flood }, () => seen++);
      check(seen === counts.flood && result?.content, `${kind} saw ${seen} of ${counts.flood} progress notifications`);
    });
    add({ name: 'SSE progress notifications', n: counts.flood, unit: 'ms', times, throughput: true });
  }
  {
    const times = await rounds(counts.rounds, CLIENTS, async (kind) => {
      for (let i = 0; i < counts.connects; i++) {
        const client = await connect(kind, env, `${base}/mcp/json`);
        check((await client.list())?.tools?.length === 1, `${kind} tools/list`);
        await client.close();
      }
    });
    add({ name: 'connect + first tools/list', n: counts.connects, unit: 'ms', times });
  }
  {
    const times = await rounds(counts.rounds, CLIENTS, async (kind) => {
      for (let i = 0; i < counts.big; i++) {
        const result = await clients.json[kind].call('big', {});
        check(result?.content?.[0]?.text?.length === 1024 * 1024, `${kind} 1 MB result`);
      }
    });
    add({ name: '1 MB tools/call result', n: counts.big, unit: 'ms', times });
  }
  {
    const times = await rounds(counts.rounds, CLIENTS, async (kind) => {
      for (let i = 0; i < counts.many; i++) {
        check((await clients.many[kind].list())?.tools?.length === 10000, `${kind} 10,000 tools`);
      }
    });
    add({ name: '10,000-tool tools/list', n: counts.many, unit: 'ms', times });
  }
  {
    const values = {};
    // Collections settle over a few turns: finalizers (the FinalizationRegistry
    // wasm-bindgen frees JS-owned handles through, undici's) run after a
    // collection, in tasks of their own; a heap read at once still holds what
    // the phases before left behind. Both clients are warmed up first.
    const settle = async () => {
      for (let i = 0; i < 3; i++) {
        await env.gc();
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    };
    for (const kind of ['ts-sdk', 'mcp-edge']) {
      for (let i = 0; i < Math.min(500, counts.heapCalls); i++) await echo(kind, 'json', i);
      await settle();
      const heap0 = await env.heap();
      const wasm0 = env.wasmMemory();
      for (let i = 0; i < counts.heapCalls; i++) await echo(kind, 'json', i);
      await settle();
      values[kind] = { jsHeapGrowth: (await env.heap()) - heap0, wasmGrowth: env.wasmMemory() - wasm0 };
    }
    add({ name: 'memory over sequential calls, after GC', n: counts.heapCalls, unit: 'bytes', memory: values });
  }
  for (const endpoint of Object.values(clients)) for (const client of Object.values(endpoint)) await client.close();
  return { runtime: env.runtime, counts, figures };
}

const fmt = (ms) => (ms >= 100 ? ms.toFixed(0) : ms.toFixed(1));
const kib = (bytes) => `${(bytes / 1024).toFixed(1)} KiB`;

/** The figure's one printed line. */
export function formatFigure(runtime, figure) {
  const head = `${runtime.padEnd(8)} ${figure.name} (n=${figure.n})`.padEnd(64);
  if (figure.memory) {
    const parts = Object.entries(figure.memory).map(([kind, v]) =>
      `${kind} ${Object.entries(v)
        .map(([key, value]) => `${key} ${key === 'held' ? value : kib(value)}`)
        .join(' ')}`,
    );
    return `${head} ${parts.join(' | ')}`;
  }
  const med = Object.fromEntries(Object.entries(figure.times).map(([k, v]) => [k, median(v)]));
  // Time ratios: > 1 is slower. Throughput figures say how many times the
  // TS SDK's throughput mcp-edge reaches (> 1 is faster).
  const parts = [`bare ${fmt(med.bare)} ms`, `ts-sdk ${fmt(med['ts-sdk'])} ms (${(med['ts-sdk'] / med.bare).toFixed(2)}x bare)`];
  const edge = med['mcp-edge'];
  parts.push(
    `mcp-edge ${fmt(edge)} ms (${(edge / med.bare).toFixed(2)}x bare, ${(edge / med['ts-sdk']).toFixed(2)}x ts-sdk time` +
      (figure.throughput ? `, ${(med['ts-sdk'] / edge).toFixed(2)}x ts-sdk throughput)` : ')'),
  );
  const floor = med['wasm-floor'];
  if (floor !== undefined) parts.push(`wasm-floor ${fmt(floor)} ms (${(floor / med.bare).toFixed(2)}x bare)`);
  const overHttp = med['bare-http'];
  if (overHttp !== undefined) {
    parts.push(`bare-http ${fmt(overHttp)} ms (${(overHttp / med.bare).toFixed(2)}x bare; mcp-edge ${(edge / overHttp).toFixed(2)}x bare-http)`);
  }
  return `${head} ${parts.join(' | ')}`;
}
