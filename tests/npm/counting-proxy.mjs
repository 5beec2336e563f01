// A reverse proxy in front of an MCP server that logs every HTTP request it
// passes on (`POST tools/call`, `GET`, `DELETE`), so a test can count what a
// client sent, whichever runtime the client runs in. Bodies and SSE streams
// are piped through as they come.
import { createServer, request as forward } from 'node:http';

export async function startCountingProxy(target) {
  const upstream = new URL(target);
  const log = [];
  // Exchanges open at once (a request until its response has ended), and
  // the most seen since `resetPeak`.
  let open = 0;
  let peak = 0;
  const server = createServer((req, res) => {
    open += 1;
    peak = Math.max(peak, open);
    res.on('close', () => {
      open -= 1;
    });
    const chunks = [];
    req.on('data', (chunk) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      let what = req.method;
      if (body.length) {
        try {
          const message = JSON.parse(body.toString('utf8'));
          what += message.method ? ` ${message.method}` : ' (reply)';
        } catch {
          what += ' (not JSON)';
        }
      }
      log.push(what);
      const headers = { ...req.headers, host: upstream.host };
      const out = forward(
        { host: upstream.hostname, port: upstream.port, path: upstream.pathname + upstream.search, method: req.method, headers },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      out.on('error', (error) => {
        if (res.headersSent) return res.destroy();
        res.writeHead(502);
        res.end(String(error));
      });
      // A client that goes away (a reloaded page's aborted stream) goes away
      // upstream too, as it would without the proxy.
      res.on('close', () => out.destroy());
      out.end(body);
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  return {
    url: `http://127.0.0.1:${port}${upstream.pathname}`,
    log,
    /** The log since `mark` (an index into it). */
    since: (mark) => log.slice(mark),
    /** The most exchanges open at once since the last reset. */
    peak: () => peak,
    resetPeak: () => {
      peak = open;
    },
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(resolve));
    },
  };
}
