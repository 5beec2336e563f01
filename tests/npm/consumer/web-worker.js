// The module Web Worker: the same check, from inside the worker, with the
// entry the page asks for.
import { McpClient } from 'mcp-edge';
import { McpClient as LiteClient } from 'mcp-edge/lite';
import { check } from './check.js';

self.onmessage = async (event) => {
  const { server, lite } = event.data;
  try {
    const where = lite ? 'worker-lite' : 'worker';
    self.postMessage(`OK ${await check(lite ? LiteClient : McpClient, server, where)}`);
  } catch (error) {
    self.postMessage(`FAILED ${error?.stack ?? error}`);
  }
};
