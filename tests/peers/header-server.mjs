// An MCP server (the TypeScript SDK, Streamable HTTP, stateless) that wants
// an API key, as hosted servers do: `X-API-Key: <KEY>` or
// `Authorization: Bearer <KEY>`, else 401. For the CLI's -H tests.
//
//   /mcp            MCP; tool `whoami` answers with the headers it was sent
//   /elsewhere      307 to the same path on a second port (another origin)
//   /nearby         307 to /mcp (same origin)
//
// A second listener on another port stands for another origin: it logs
// every request's x-api-key / authorization on stderr (`foreign saw ...`)
// and answers 404. Prints `listening <main port> <foreign port>` on stdout.
// Run: `KEY=secret node header-server.mjs`.
import { createServer } from 'node:http';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';

const KEY = process.env.KEY || 'secret';

function mcpServer(headers) {
  const server = new McpServer({ name: 'header-server', version: '1.0.0' });
  server.registerTool('whoami', { description: 'The headers this request carried' }, async () => ({
    content: [
      {
        type: 'text',
        text: JSON.stringify({
          'x-api-key': headers['x-api-key'] ?? null,
          authorization: headers.authorization ?? null,
          'x-extra': headers['x-extra'] ?? null,
        }),
      },
    ],
  }));
  return server;
}

const authorized = (headers) =>
  headers['x-api-key'] === KEY || headers.authorization === `Bearer ${KEY}`;

const foreign = createServer((request, response) => {
  process.stderr.write(
    `foreign saw ${request.method} ${request.url} x-api-key=${request.headers['x-api-key'] ?? '-'} ` +
      `authorization=${request.headers.authorization ?? '-'}\n`,
  );
  response.writeHead(404).end();
});

const main = createServer(async (request, response) => {
  const path = new URL(request.url, 'http://x').pathname;
  if (path === '/elsewhere') {
    const port = foreign.address().port;
    response.writeHead(307, { location: `http://127.0.0.1:${port}/mcp` }).end();
    return;
  }
  if (path === '/nearby') {
    response.writeHead(307, { location: '/mcp' }).end();
    return;
  }
  if (path !== '/mcp') {
    response.writeHead(404).end();
    return;
  }
  if (!authorized(request.headers)) {
    response.writeHead(401, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ error: 'an API key is required (X-API-Key or Authorization: Bearer)' }));
    return;
  }
  const server = mcpServer(request.headers);
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  response.on('close', () => {
    transport.close();
    server.close();
  });
  await server.connect(transport);
  await transport.handleRequest(request, response);
});

foreign.listen(0, '127.0.0.1', () => {
  main.listen(Number(process.env.PORT || 0), '127.0.0.1', () => {
    process.stdout.write(`listening ${main.address().port} ${foreign.address().port}\n`);
  });
});
