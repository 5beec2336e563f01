// A scripted 2026-07-28 Streamable HTTP server (no SDK) whose
// `subscriptions/listen` streams are cut, the way an edge proxy cuts idle
// streams: each of the first CUTS listens (env, default 2) has its socket
// destroyed at a random moment 100-500 ms after its acknowledgement.
//
// POST /mcp: `server/discover`; `subscriptions/listen` (an SSE stream that
// opens with the acknowledgement); `tools/list` (`touch`, `measure`);
// `tools/call touch` (sends `notifications/tools/list_changed` on every open
// listen stream); `tools/call measure {good}` (its outputSchema wants an
// integer `n`: `good: false` answers a string). GET /stats: {listens, cuts}.
// Port from env PORT.
import { createServer } from 'node:http';

const CUTS = Number(process.env.CUTS ?? 2);
const V = '2026-07-28';
const SUBSCRIPTION_ID = 'io.modelcontextprotocol/subscriptionId';
const stats = { listens: 0, cuts: 0 };
const streams = new Map(); // subscription id -> response

const json = (res, body) => {
  res.writeHead(200, { 'Content-Type': 'application/json' });
  res.end(JSON.stringify(body));
};
const event = (res, message) => res.write(`data: ${JSON.stringify(message)}\n\n`);
const notification = (method, id, params = {}) => ({
  jsonrpc: '2.0',
  method,
  params: { ...params, _meta: { [SUBSCRIPTION_ID]: id } },
});

function onPost(res, message) {
  const { id, method, params } = message;
  if (method === 'server/discover') {
    return json(res, {
      jsonrpc: '2.0',
      id,
      result: {
        resultType: 'complete',
        supportedVersions: [V],
        capabilities: { tools: { listChanged: true } },
        ttlMs: 0,
        cacheScope: 'private',
        _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'listen-cut', version: '1.0.0' } },
      },
    });
  }
  if (method === 'subscriptions/listen') {
    stats.listens++;
    res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache' });
    event(res, notification('notifications/subscriptions/acknowledged', id, { notifications: params?.notifications ?? {} }));
    streams.set(JSON.stringify(id), res);
    res.on('close', () => streams.delete(JSON.stringify(id)));
    if (stats.listens <= CUTS) {
      setTimeout(() => {
        stats.cuts++;
        res.socket?.destroy();
      }, 100 + Math.floor(Math.random() * 400));
    }
    return;
  }
  if (method === 'tools/list') {
    const outputSchema = { type: 'object', properties: { n: { type: 'integer', minimum: 0 } }, required: ['n'] };
    const tools = [
      { name: 'touch', inputSchema: { type: 'object', properties: {} } },
      { name: 'measure', inputSchema: { type: 'object', properties: { good: { type: 'boolean' } } }, outputSchema },
    ];
    return json(res, { jsonrpc: '2.0', id, result: { resultType: 'complete', tools, ttlMs: 0, cacheScope: 'private' } });
  }
  if (method === 'tools/call' && params?.name === 'touch') {
    for (const [key, stream] of streams) event(stream, notification('notifications/tools/list_changed', JSON.parse(key)));
    return json(res, { jsonrpc: '2.0', id, result: { resultType: 'complete', content: [{ type: 'text', text: 'touched' }] } });
  }
  if (method === 'tools/call' && params?.name === 'measure') {
    const structuredContent = { n: params.arguments?.good ? 3 : 'three' };
    const content = [{ type: 'text', text: JSON.stringify(structuredContent) }];
    return json(res, { jsonrpc: '2.0', id, result: { resultType: 'complete', content, structuredContent } });
  }
  json(res, { jsonrpc: '2.0', id, error: { code: -32601, message: `unknown method ${method}` } });
}

createServer((req, res) => {
  if (req.method === 'GET' && req.url === '/stats') return json(res, stats);
  if (req.method !== 'POST') {
    res.writeHead(405);
    return res.end();
  }
  const chunks = [];
  req.on('data', (chunk) => chunks.push(chunk));
  req.on('end', () => {
    try {
      onPost(res, JSON.parse(Buffer.concat(chunks).toString('utf8')));
    } catch (error) {
      res.writeHead(400);
      res.end(String(error));
    }
  });
}).listen(Number(process.env.PORT ?? 0), '127.0.0.1');
