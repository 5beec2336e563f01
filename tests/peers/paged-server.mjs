// A real MCP server on the official SDK that paginates tools/list: 25 tools
// in pages of 10. server-everything never paginates, so pagination needs its
// own peer. Each tools/list is logged to stderr so a test can count them.
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { ErrorCode, ListToolsRequestSchema, McpError } from "@modelcontextprotocol/sdk/types.js";

const TOTAL = 25;
const PAGE = 10;
const tools = Array.from({ length: TOTAL }, (_, i) => ({
  name: `tool-${String(i + 1).padStart(2, "0")}`,
  description: `Tool number ${i + 1}`,
  inputSchema: { type: "object", properties: {} },
}));

// Opaque cursors, as the spec asks clients to treat them.
const cursorFor = (start) => Buffer.from(`start=${start}`).toString("base64url");
const startOf = (cursor) => {
  const match = /^start=(\d+)$/.exec(Buffer.from(cursor, "base64url").toString());
  if (!match) throw new McpError(ErrorCode.InvalidParams, `unknown cursor ${cursor}`);
  return Number(match[1]);
};

const server = new Server({ name: "paged-server", version: "1.0.0" }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, async (request) => {
  const cursor = request.params?.cursor;
  const start = cursor === undefined ? 0 : startOf(cursor);
  const end = Math.min(start + PAGE, TOTAL);
  console.error(`paged-server: tools/list cursor=${cursor ?? "none"}`);
  return { tools: tools.slice(start, end), ...(end < TOTAL ? { nextCursor: cursorFor(end) } : {}) };
});

await server.connect(new StdioServerTransport());
