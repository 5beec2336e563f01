// A legacy HTTP+SSE (2024-11-05) MCP server built on the official TypeScript
// SDK's SSEServerTransport, for tests/legacy.rs and tests/browser_legacy.rs.
// Node 20, node:http only (no framework).
//
//   GET  /sse                     opens a session: the first event is
//                                 `endpoint` (/messages?sessionId=<uuid>)
//   POST /messages?sessionId=...  one client message (202 Accepted); the
//                                 answer comes on the session's stream
//   GET  /stats                   {"sessions": open, "opened": total} (JSON)
//
// One tool, `echo {message}` -> "Echo: <message>". Every response carries
// permissive CORS headers, and OPTIONS preflights are answered, so a browser
// page on another origin can use it (with EventSource or fetch).
// PORT from the environment (default 3001).
import http from "node:http";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { SSEServerTransport } from "@modelcontextprotocol/sdk/server/sse.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";

const sessions = new Map();
let opened = 0;

function newServer() {
  const server = new Server({ name: "legacy-ts-server", version: "1.0.0" }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: [
      {
        name: "echo",
        description: "Echoes the message back",
        inputSchema: {
          type: "object",
          properties: { message: { type: "string", description: "What to echo" } },
          required: ["message"],
        },
      },
    ],
  }));
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    if (request.params.name !== "echo") {
      return { content: [{ type: "text", text: `unknown tool ${request.params.name}` }], isError: true };
    }
    const message = String(request.params.arguments?.message ?? "");
    return { content: [{ type: "text", text: `Echo: ${message}` }] };
  });
  return server;
}

function allowCors(req, res) {
  res.setHeader("Access-Control-Allow-Origin", "*");
  res.setHeader("Access-Control-Allow-Methods", "GET, POST, OPTIONS");
  res.setHeader("Access-Control-Allow-Headers", req.headers["access-control-request-headers"] ?? "*");
  res.setHeader("Access-Control-Expose-Headers", "*");
  res.setHeader("Access-Control-Max-Age", "600");
}

const httpServer = http.createServer(async (req, res) => {
  allowCors(req, res);
  const url = new URL(req.url ?? "/", "http://localhost");
  try {
    if (req.method === "OPTIONS") {
      res.writeHead(204).end();
    } else if (req.method === "GET" && url.pathname === "/sse") {
      const transport = new SSEServerTransport("/messages", res);
      const server = newServer();
      sessions.set(transport.sessionId, transport);
      opened += 1;
      transport.onclose = () => sessions.delete(transport.sessionId);
      await server.connect(transport);
    } else if (req.method === "POST" && url.pathname === "/messages") {
      const transport = sessions.get(url.searchParams.get("sessionId") ?? "");
      if (!transport) {
        res.writeHead(404, { "Content-Type": "text/plain" }).end("no such session");
        return;
      }
      await transport.handlePostMessage(req, res);
    } else if (req.method === "GET" && url.pathname === "/stats") {
      res.writeHead(200, { "Content-Type": "application/json" }).end(JSON.stringify({ sessions: sessions.size, opened }));
    } else {
      res.writeHead(404, { "Content-Type": "text/plain" }).end(`Cannot ${req.method} ${url.pathname}`);
    }
  } catch (error) {
    console.error(error);
    if (!res.headersSent) res.writeHead(500, { "Content-Type": "text/plain" }).end(String(error));
  }
});

const port = Number(process.env.PORT ?? 3001);
httpServer.listen(port, "127.0.0.1", () => console.error(`legacy-ts-server listening on http://127.0.0.1:${port}/sse`));
