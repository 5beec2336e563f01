// The page: runs the check here and in a module Web Worker, and shows each
// result in its <output> (`data-done` set when finished).
import { McpClient } from 'mcp-edge';
import { check } from './check.js';

const server = new URLSearchParams(location.search).get('server');

async function inPage() {
  try {
    return `OK ${await check(McpClient, server, 'page')}`;
  } catch (error) {
    return `FAILED ${error?.stack ?? error}`;
  }
}

function inWorker() {
  return new Promise((resolve) => {
    const worker = new Worker(new URL('./web-worker.js', import.meta.url), { type: 'module' });
    worker.onmessage = (event) => resolve(event.data);
    worker.onerror = (event) => resolve(`FAILED worker error: ${event.message}`);
    worker.postMessage(server);
  });
}

for (const [id, run] of [['page', inPage], ['worker', inWorker]]) {
  run().then((text) => {
    const output = document.getElementById(id);
    output.textContent = text;
    output.dataset.done = 'true';
  });
}
