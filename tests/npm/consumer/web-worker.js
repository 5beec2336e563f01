// The module Web Worker: the same check, from inside the worker.
import { McpClient } from 'mcp-edge';
import { check } from './check.js';

self.onmessage = async (event) => {
  try {
    self.postMessage(`OK ${await check(McpClient, event.data, 'worker')}`);
  } catch (error) {
    self.postMessage(`FAILED ${error?.stack ?? error}`);
  }
};
