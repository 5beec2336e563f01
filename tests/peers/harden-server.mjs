// A small misbehaving MCP server (plain node:http, Streamable HTTP, handshake
// era) for the fixes of issue 19; every mode is chosen by the path's first
// segment, the rest of the path is free:
//
//   /ok               a well-behaved server: initialize, tools/list, tools/call `echo`
//   /silent           accepts every connection and never answers (nor closes)
//   /sse-silent       POST 405; GET opens an event stream that never names its endpoint
//   /gzip-json        /ok, every reply gzip-encoded JSON (whatever Accept-Encoding says)
//   /gzip-sse         /ok, every reply a gzip-encoded SSE stream
//   /deflate-json     /ok, replies deflate-encoded;  /br-json: brotli-encoded
//   /odd-coding       /ok, tools/call answered with `Content-Encoding: x-odd`
//   /away             307 to /ok on the second listener (another origin)
//   /near             307 to /ok (same origin)
//   /bad-<kind>       /ok, tools/call answered with a broken JSON reply (see BAD)
//   /big-event        /ok, tools/call answered by one 17 MiB SSE event
//   /odd-session      initialize answered with a session id holding a non-ASCII byte
//   /bom-json         /ok, every JSON reply starts with a UTF-8 BOM
//   /accepted         /ok, tools/call (a request) answered 202
//   /busy-first       the first POST answered 503 `Retry-After: 1`, then /ok
//   /busy-call        tools/call answered 429 `Retry-After: 1` once, then /ok
//   /guarded          every POST 401 without WWW-Authenticate; no metadata anywhere
//   /forbidden        every POST 403, nothing else
//   /no-caps          initialize result without `capabilities`
//   /stream-auth      /ok, but the GET (the server's event stream) wants `Authorization: Bearer stream-token`:
//                     401 with a Bearer challenge without it; with it, one `notifications/message`
//                     event ("stream authorized"), the stream then kept open
//   /foreign-log      what reached the other origin, as JSON lines (?with=TEXT: those containing it)
//
// The second listener (another origin) serves /ok whatever the path and logs
// what reaches it on stderr (`foreign saw ...`). Both answer CORS preflights.
// Prints `listening http://127.0.0.1:<port>` on stdout (PORT=0: any port).
import { createServer } from 'node:http';
import { gzipSync, deflateSync, brotliCompressSync } from 'node:zlib';

const BAD = {
  trailing: (id) => `{"jsonrpc":"2.0","id":${id},"result":{"content":[]}} garbage`,
  nan: (id) => `{"jsonrpc":"2.0","id":${id},"result":{"value":NaN}}`,
  deep: (id) => `{"jsonrpc":"2.0","id":${id},"result":${'['.repeat(10000)}${']'.repeat(10000)}}`,
  both: (id) => `{"jsonrpc":"2.0","id":${id},"result":{},"error":{"code":-1,"message":"x"}}`,
  nocode: (id) => `{"jsonrpc":"2.0","id":${id},"error":{"message":"tool exploded: disk full"}}`,
  nullid: () => `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"tool exploded: bad input"}}`,
  empty: () => '',
};

// Pages on other origins (the browser suites) may call either listener.
function cors(request, response) {
  response.setHeader('access-control-allow-origin', '*');
  response.setHeader('access-control-allow-methods', 'GET, POST, DELETE, OPTIONS');
  response.setHeader('access-control-allow-headers', request.headers['access-control-request-headers'] ?? '*');
  response.setHeader('access-control-expose-headers', 'mcp-session-id, www-authenticate');
  if (request.method !== 'OPTIONS') return false;
  response.writeHead(204).end();
  return true;
}

const counters = new Map();
const count = (key) => {
  const n = (counters.get(key) ?? 0) + 1;
  counters.set(key, n);
  return n;
};

function reply(response, mode, request, status, message) {
  const accept = request.headers['accept-encoding'] ?? '-';
  process.stderr.write(`${mode} accept-encoding=${accept}\n`);
  let body = Buffer.from(typeof message === 'string' ? message : JSON.stringify(message));
  const headers = { 'content-type': 'application/json' };
  if (mode === 'gzip-sse') {
    headers['content-type'] = 'text/event-stream';
    body = Buffer.from(`event: message\ndata: ${body}\n\n`);
  }
  if (mode === 'bom-json') body = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), body]);
  const coding = { 'gzip-json': 'gzip', 'gzip-sse': 'gzip', 'deflate-json': 'deflate', 'br-json': 'br' }[mode];
  if (coding) {
    headers['content-encoding'] = coding;
    body = { gzip: gzipSync, deflate: deflateSync, br: brotliCompressSync }[coding](body);
  }
  response.writeHead(status, headers).end(body);
}

function answer(mode, message) {
  const { id, method, params } = message;
  if (method === 'initialize') {
    const result = {
      protocolVersion: params?.protocolVersion ?? '2025-06-18',
      capabilities: { tools: {} },
      serverInfo: { name: 'harden-server', version: '1.0.0' },
    };
    if (mode === 'no-caps') delete result.capabilities;
    return { jsonrpc: '2.0', id, result };
  }
  if (method === 'tools/list') {
    return { jsonrpc: '2.0', id, result: { tools: [{ name: 'echo', inputSchema: { type: 'object' } }] } };
  }
  if (method === 'tools/call') {
    const text = JSON.stringify(params?.arguments ?? {});
    return { jsonrpc: '2.0', id, result: { content: [{ type: 'text', text }] } };
  }
  if (method === 'ping') return { jsonrpc: '2.0', id, result: {} };
  return { jsonrpc: '2.0', id, error: { code: -32601, message: `no method ${method}` } };
}

// The other origin serves /ok too (so a client that followed a redirect
// there would get on with it), logging what each request carried.
const foreignLog = [];
const foreign = createServer((request, response) => {
  const h = request.headers;
  if (request.method !== 'OPTIONS') {
    const line =
      `foreign saw ${request.method} ${request.url} session=${h['mcp-session-id'] ?? '-'} ` +
      `authorization=${h.authorization ?? '-'} x-extra=${h['x-extra'] ?? '-'}`;
    foreignLog.push(line);
    process.stderr.write(`${line}\n`);
  }
  serve(request, response, 'ok');
});

const main = createServer((request, response) => {
  const url = new URL(request.url, 'http://x');
  const mode = url.pathname.split('/')[1] ?? '';
  if (mode === 'silent') return; // neither answers nor closes (not even a preflight)
  if (mode === 'foreign-log') {
    cors(request, response);
    const seen = foreignLog.filter((line) => line.includes(url.searchParams.get('with') ?? ''));
    return response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(seen));
  }
  serve(request, response, mode);
});

function serve(request, response, mode) {
  if (cors(request, response)) return;
  if (mode === 'away') {
    const port = foreign.address().port;
    response.writeHead(307, { location: `http://127.0.0.1:${port}/ok` }).end();
    return;
  }
  if (mode === 'near') {
    response.writeHead(307, { location: '/ok' }).end();
    return;
  }
  if (mode === 'sse-silent') {
    if (request.method !== 'GET') return response.writeHead(405).end();
    response.writeHead(200, { 'content-type': 'text/event-stream' });
    response.write(': no endpoint, ever\n\n');
    return;
  }
  if (mode === 'guarded') return response.writeHead(401).end();
  if (mode === 'forbidden') return response.writeHead(403).end();
  if (mode === 'stream-auth' && request.method === 'GET') {
    if (request.headers.authorization !== 'Bearer stream-token') {
      return response.writeHead(401, { 'www-authenticate': 'Bearer realm="stream-auth"' }).end();
    }
    response.writeHead(200, { 'content-type': 'text/event-stream' });
    const note = { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'stream authorized' } };
    response.write(`event: message\ndata: ${JSON.stringify(note)}\n\n`);
    return;
  }
  if (request.method === 'GET') return response.writeHead(405).end();
  if (request.method === 'DELETE') return response.writeHead(200).end();
  if (mode === 'busy-first' && count('busy-first') === 1) {
    return response.writeHead(503, { 'retry-after': '1' }).end('busy');
  }
  const chunks = [];
  request.on('data', (chunk) => chunks.push(chunk));
  request.on('end', () => {
    let message;
    try {
      message = JSON.parse(Buffer.concat(chunks).toString());
    } catch {
      return response.writeHead(400).end();
    }
    if (message.id === undefined) return response.writeHead(202).end();
    const headers = {};
    if (message.method === 'initialize') {
      headers['mcp-session-id'] = mode === 'odd-session' ? 'caf\u00e9' : `s-${count('session')}`;
    }
    for (const [name, value] of Object.entries(headers)) response.setHeader(name, value);
    if (message.method === 'tools/call') {
      if (mode === 'accepted') return response.writeHead(202).end();
      if (mode === 'busy-call' && count('busy-call') === 1) {
        return response.writeHead(429, { 'retry-after': '1' }).end();
      }
      if (mode === 'odd-coding') {
        return response.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'x-odd' }).end('??');
      }
      if (mode.startsWith('bad-')) return reply(response, mode, request, 200, BAD[mode.slice(4)](message.id));
      if (mode === 'big-event') {
        response.writeHead(200, { 'content-type': 'text/event-stream' });
        const text = 'x'.repeat(17 * 1024 * 1024);
        const result = { content: [{ type: 'text', text }] };
        response.end(`event: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', id: message.id, result })}\n\n`);
        return;
      }
    }
    reply(response, mode, request, 200, answer(mode, message));
  });
}

foreign.listen(0, '127.0.0.1', () => {
  main.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
    process.stdout.write(`listening http://127.0.0.1:${main.address().port}\n`);
  });
});
