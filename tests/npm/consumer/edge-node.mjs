// Node 22: `node edge-node.mjs <server url>`. The edge recipe with the
// snapshot passed from one client to another through JSON, counting what
// each sends through the global `fetch` the package uses: a restored client
// makes exactly one request for its first tool result.
import { McpClient } from 'mcp-edge';
import { first, second } from './edge.js';

const [url] = process.argv.slice(2);
const log = [];
const realFetch = globalThis.fetch;
globalThis.fetch = async (input, init) => {
  const request = new Request(input, init);
  let what = request.method;
  const body = request.method === 'POST' ? await request.clone().text() : '';
  if (body) {
    try {
      const message = JSON.parse(body);
      what += message.method ? ` ${message.method}` : ' (reply)';
    } catch {
      what += ' (not JSON)';
    }
  }
  log.push(what);
  return realFetch(request);
};

try {
  const kept = await first(McpClient, url, 'node');
  const fresh = log.slice(0, log.indexOf('POST tools/call') + 1);
  const mark = log.length;
  await second(McpClient, url, kept, 'node');
  const sent = log.slice(mark);
  if (sent.length !== 1 || sent[0] !== 'POST tools/call') {
    throw new Error(`the restored client sent ${JSON.stringify(sent)}, not exactly one tools/call`);
  }
  console.log(`OK node-restore: first tool result after ${fresh.length} requests fresh (${fresh.join(', ')}), ${sent.length} restored`);
} catch (error) {
  console.error(`FAILED node-restore: ${error?.stack ?? error}`);
  process.exit(1);
}
