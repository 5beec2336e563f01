// The small JSON-RPC server over HTTP that the Node checks of this folder
// start for themselves (abandoned.mjs, inputs.mjs): POST only (405
// otherwise), a body that is not JSON gets 400, a notification 202, and a
// request is handed to `answer(message, send, res)`, which calls
// `send({ result })` or `send({ error })` now, later or never (`res`, the
// exchange's response, tells whether the client went away first).
import http from 'node:http';

/** Starts the server on 127.0.0.1; resolves to its MCP URL and a `close`. */
export async function startInstantServer(answer) {
  const server = http.createServer((req, res) => {
    if (req.method !== 'POST') {
      res.writeHead(405).end();
      return;
    }
    let body = '';
    req.on('data', (chunk) => {
      body += chunk;
    });
    req.on('end', () => {
      let message;
      try {
        message = JSON.parse(body);
      } catch {
        res.writeHead(400).end();
        return;
      }
      if (message.id === undefined) {
        res.writeHead(202).end();
        return;
      }
      const send = (payload) => {
        const text = JSON.stringify({ jsonrpc: '2.0', id: message.id, ...payload });
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) }).end(text);
      };
      answer(message, send, res);
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${server.address().port}/mcp`, close: () => server.close() };
}
