// The bench server's answers, shared by server.mjs (over HTTP) and the
// in-process `fetch` of core.mjs: one place says what each endpoint
// replies, so the in-process figure times the same bodies.

/** The bearer token `/mcp/auth` takes: shaped and sized like the JWT access
 * tokens authorization servers issue (1,298 characters), as every client
 * sends it on every request. */
export const BEARER_TOKEN =
  'eyJhbGciOiJSUzI1NiIsInR5cCI6ImF0K2p3dCJ9.' +
  'eyJpc3MiOiJodHRwczovL2FzLmV4YW1wbGUiLCJzdWIiOiJiZW5jaCIsImF1ZCI6Im1jcCIsInNjb3BlIjoi'.padEnd(912, 'YWJjZGVm') +
  '.' +
  'c2lnbmF0dXJl'.padEnd(344, 'QUJDREVG');

/** The output schema of `echo` on the `typed` endpoint, which each client
 * checks every result's `structuredContent` against. */
const ECHO_OUTPUT = {
  type: 'object',
  properties: { text: { type: 'string' }, length: { type: 'integer', minimum: 0 }, tags: { type: 'array', items: { type: 'string' } } },
  required: ['text', 'length'],
};

let big;
let many;
/** The 1 MB text of the `big` tool (made on first use). */
const bigText = () => (big ??= 'x'.repeat(1024 * 1024));
/** The 10,000 tools of the `many` endpoint (made on first use). */
const manyTools = () =>
  (many ??= Array.from({ length: 10000 }, (_, i) => ({
    name: `tool_${i}`,
    description: `Tool number ${i}, which does nothing but exist.`,
    inputSchema: { type: 'object', properties: { text: { type: 'string' } } },
  })));

/** The result of a request to `endpoint`, or undefined for an unknown method. */
export function result(message, endpoint) {
  const { method, params } = message;
  switch (method) {
    case 'initialize':
      return {
        protocolVersion: params?.protocolVersion ?? '2025-06-18',
        capabilities: { tools: {} },
        serverInfo: { name: 'bench-http', version: '1.0.0' },
      };
    case 'ping':
      return {};
    case 'tools/list':
      if (endpoint === 'many') return { tools: manyTools() };
      if (endpoint === 'typed') return { tools: [{ name: 'echo', inputSchema: { type: 'object' }, outputSchema: ECHO_OUTPUT }] };
      return { tools: [{ name: 'echo', inputSchema: { type: 'object' } }] };
    case 'tools/call': {
      if (params?.name === 'big') return { content: [{ type: 'text', text: bigText() }] };
      const text = JSON.stringify(params?.arguments ?? {});
      if (endpoint === 'typed') return { content: [{ type: 'text', text }], structuredContent: { text, length: text.length, tags: ['echo'] } };
      return { content: [{ type: 'text', text }] };
    }
    default:
      return undefined;
  }
}

/** The JSON-RPC reply to a request to `endpoint`. */
export function reply(message, endpoint) {
  const value = result(message, endpoint);
  return value === undefined
    ? { jsonrpc: '2.0', id: message.id, error: { code: -32601, message: `no method ${message.method}` } }
    : { jsonrpc: '2.0', id: message.id, result: value };
}
