// The page: runs the check here and in a module Web Worker, with the full
// entry and the lite one, and shows each result in its <output>
// (`data-done` set when finished).
import { McpClient } from 'mcp-edge';
import { McpClient as LiteClient } from 'mcp-edge/lite';
import { check } from './check.js';

const server = new URLSearchParams(location.search).get('server');

async function inPage(client, where) {
  try {
    return `OK ${await check(client, server, where)}`;
  } catch (error) {
    return `FAILED ${error?.stack ?? error}`;
  }
}

function inWorker(lite) {
  return new Promise((resolve) => {
    const worker = new Worker(new URL('./web-worker.js', import.meta.url), { type: 'module' });
    worker.onmessage = (event) => resolve(event.data);
    worker.onerror = (event) => resolve(`FAILED worker error: ${event.message}`);
    worker.postMessage({ server, lite });
  });
}

const runs = [
  ['page', () => inPage(McpClient, 'page')],
  ['worker', () => inWorker(false)],
  ['page-lite', () => inPage(LiteClient, 'page-lite')],
  ['worker-lite', () => inWorker(true)],
];
for (const [id, run] of runs) {
  run().then((text) => {
    const output = document.getElementById(id);
    output.textContent = text;
    output.dataset.done = 'true';
  });
}
