// A Cloudflare Worker (ES modules): each request runs the check against
// env.MCP_URL and answers with its summary (status 500 on failure).
import { McpClient } from 'mcp-edge';
import { check } from './check.js';

export default {
  async fetch(request, env) {
    try {
      return new Response(`OK ${await check(McpClient, env.MCP_URL, 'workerd')}`);
    } catch (error) {
      return new Response(`FAILED ${error?.stack ?? error}`, { status: 500 });
    }
  },
};
