// The instant Streamable HTTP server of `cargo xtask bench`: it answers at
// once, so what the benchmark times is the client. It also serves the
// Chromium page (same origin), the packed package and the bundled TS SDK.
//
//   node server.mjs <static-root>   prints `listening http://127.0.0.1:<port>`
//
// MCP endpoints (POST; GET answers 405: no standalone stream; no session):
//   /mcp/json  replies are JSON bodies
//   /mcp/sse   replies are single-event SSE streams
//   /mcp/many  like /mcp/json, but `tools/list` lists 10,000 tools
//   /mcp/typed like /mcp/json, but `echo` has an output schema and its
//              results a `structuredContent` that matches it
//   /mcp/auth  like /mcp/json, but only with `Authorization: Bearer
//              <BEARER_TOKEN>` (answers.mjs); 401 without it
// Tools: `echo` (returns its arguments as text), `flood {count}` (an SSE
// reply with `count` progress notifications before the result), `big`
// (a 1 MB text result), `hold` (like `echo`, but after a POST to
// /bench/hold it is answered only when /bench/release is posted;
// /bench/held counts the calls waiting).
import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';

import { BEARER_TOKEN, reply } from './answers.mjs';

const root = process.argv[2] ?? process.cwd();
let held = [];
let holding = false;

const TYPES = { '.html': 'text/html', '.js': 'text/javascript', '.mjs': 'text/javascript', '.wasm': 'application/wasm', '.json': 'application/json' };

function sendJson(res, body) {
  const text = JSON.stringify(body);
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

function sendSse(res, events) {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  let text = '';
  for (const event of events) text += `event: message\ndata: ${JSON.stringify(event)}\n\n`;
  res.end(text);
}

function mcp(req, res, endpoint, body) {
  let message;
  try {
    message = JSON.parse(body);
  } catch {
    res.writeHead(400).end();
    return;
  }
  if (Array.isArray(message) || message.id === undefined) {
    res.writeHead(202).end(); // notifications (and responses) need no answer
    return;
  }
  const name = message.method === 'tools/call' ? message.params?.name : undefined;
  if (name === 'hold' && holding) {
    held.push(() => sendJson(res, reply(message, endpoint)));
    return;
  }
  if (name === 'flood') {
    const token = message.params?._meta?.progressToken;
    const count = Number(message.params?.arguments?.count ?? 0);
    const events = [];
    for (let i = 1; i <= count; i++) {
      events.push({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: token, progress: i, total: count } });
    }
    events.push(reply(message, endpoint));
    sendSse(res, events);
    return;
  }
  if (endpoint === 'sse') sendSse(res, [reply(message, endpoint)]);
  else sendJson(res, reply(message, endpoint));
}

function serveFile(res, urlPath) {
  const file = path.join(root, path.normalize(decodeURIComponent(urlPath)).replace(/^(\.\.[/\\])+/, ''));
  fs.readFile(file, (error, data) => {
    if (error) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': TYPES[path.extname(file)] ?? 'application/octet-stream' });
    res.end(data);
  });
}

const server = http.createServer((req, res) => {
  const url = new URL(req.url, 'http://localhost');
  const endpoint = url.pathname.match(/^\/mcp\/(json|sse|many|typed|auth)$/)?.[1];
  if (endpoint) {
    if (endpoint === 'auth' && req.headers.authorization !== `Bearer ${BEARER_TOKEN}`) {
      res.writeHead(401, { 'www-authenticate': 'Bearer error="invalid_token"' }).end();
      return;
    }
    if (req.method === 'POST') {
      const chunks = [];
      req.on('data', (c) => chunks.push(c));
      req.on('end', () => mcp(req, res, endpoint, Buffer.concat(chunks).toString('utf8')));
    } else {
      res.writeHead(405, { allow: 'POST' }).end(); // GET (no standalone stream), DELETE (no session)
    }
    return;
  }
  // Control requests come from the page under another origin (see core.mjs).
  if (url.pathname.startsWith('/bench/')) res.setHeader('access-control-allow-origin', '*');
  if (url.pathname === '/bench/held') {
    res.writeHead(200, { 'content-type': 'text/plain' }).end(String(held.length));
    return;
  }
  if (url.pathname === '/bench/hold') {
    holding = true;
    res.writeHead(200, { 'content-type': 'text/plain' }).end('holding');
    return;
  }
  if (url.pathname === '/bench/release') {
    holding = false;
    const waiting = held;
    held = [];
    for (const answer of waiting) answer();
    res.writeHead(200, { 'content-type': 'text/plain' }).end(String(waiting.length));
    return;
  }
  serveFile(res, url.pathname === '/' ? '/benches/js/page.html' : url.pathname);
});
// The clients' connections sit idle through the in-process figures (over a
// minute in a full run): a server closing one as a client reuses it fails
// that request ("other side closed"), so idle connections stay open.
server.keepAliveTimeout = 600_000;
server.listen(0, '127.0.0.1', () => {
  console.log(`listening http://127.0.0.1:${server.address().port}`);
});
