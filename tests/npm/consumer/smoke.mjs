// Node and Deno: `node smoke.mjs <server url> <name>` or
// `deno run --allow-net --allow-read smoke.mjs <server url> <name>`.
// Imports the package as an application would, by its name.
import { McpClient } from 'mcp-edge';
import { check } from './check.js';

const [url, where] = globalThis.Deno ? Deno.args : process.argv.slice(2);
try {
  console.log(`OK ${where}: ${await check(McpClient, url, where)}`);
} catch (error) {
  console.error(`FAILED ${where}: ${error?.stack ?? error}`);
  globalThis.Deno ? Deno.exit(1) : process.exit(1);
}

// Node's fetch names why a server is unreachable (its `cause`): the error
// must keep it, and must not blame a browser (issue 19).
if (!globalThis.Deno) {
  const label = `${where}-unreachable`;
  try {
    const { createServer } = await import('node:net');
    const closed = await new Promise((resolve) => {
      const server = createServer().listen(0, '127.0.0.1', () => {
        const { port } = server.address();
        server.close(() => resolve(port));
      });
    });
    let message = null;
    try {
      const client = await McpClient.connect(`http://127.0.0.1:${closed}/mcp`, { timeout: 10_000 });
      await client.close();
    } catch (error) {
      message = String(error?.message ?? error);
    }
    if (message === null) throw new Error('connecting to a closed port succeeded');
    if (!message.includes('ECONNREFUSED') || message.includes('browser')) {
      throw new Error(`the error does not name ECONNREFUSED, or blames a browser: ${message}`);
    }
    console.log(`OK ${label}: ${message}`);
  } catch (error) {
    console.error(`FAILED ${label}: ${error?.stack ?? error}`);
    process.exit(1);
  }
}
