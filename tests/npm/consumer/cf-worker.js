// A Cloudflare Worker (ES modules): each request runs the check against
// env.MCP_URL and answers with its summary (status 500 on failure); the
// path `/lite` runs it with the lite entry.
import { McpClient } from 'mcp-edge';
import { McpClient as LiteClient } from 'mcp-edge/lite';
import { check } from './check.js';

export default {
  async fetch(request, env) {
    const lite = new URL(request.url).pathname === '/lite';
    try {
      const summary = await check(lite ? LiteClient : McpClient, env.MCP_URL, lite ? 'workerd-lite' : 'workerd');
      return new Response(`OK ${summary}`);
    } catch (error) {
      return new Response(`FAILED ${error?.stack ?? error}`, { status: 500 });
    }
  },
};
