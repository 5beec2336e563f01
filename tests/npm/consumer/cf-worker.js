// A Cloudflare Worker (ES modules): `/` runs the check against env.MCP_URL
// and answers with its summary (status 500 on failure); `/snapshot` connects,
// calls a tool and answers the client's snapshot (kept by the test, as a KV
// or Durable Object binding would keep it); `POST /restore` continues that
// session from the snapshot in the body; `/concurrent` makes 20 calls at once
// with a listener open.
// `/lite` runs the check with the lite entry.
import { McpClient } from 'mcp-edge';
import { McpClient as LiteClient } from 'mcp-edge/lite';
import { check } from './check.js';
import { concurrent, first, second } from './edge.js';

export default {
  async fetch(request, env) {
    const lite = new URL(request.url).pathname === '/lite';
    try {
      const { pathname } = new URL(request.url);
      if (pathname === '/snapshot') return new Response(await first(McpClient, env.MCP_URL, 'workerd'));
      if (pathname === '/restore') {
        return new Response(`OK ${await second(McpClient, env.MCP_URL, await request.text(), 'workerd')}`);
      }
      if (pathname === '/concurrent') return new Response(`OK ${await concurrent(McpClient, env.MCP_URL, 'workerd')}`);
      const summary = await check(lite ? LiteClient : McpClient, env.MCP_URL, lite ? 'workerd-lite' : 'workerd');
      return new Response(`OK ${summary}`);
    } catch (error) {
      return new Response(`FAILED ${error?.stack ?? error}`, { status: 500 });
    }
  },
};
