// Node and Deno: `node smoke.mjs <server url> <name>` or
// `deno run --allow-net --allow-read smoke.mjs <server url> <name>`.
// Imports the package as an application would, by its name: the full entry
// (reported as `<name>`) and the lite one (`<name>-lite`).
import { McpClient } from 'mcp-edge';
import { McpClient as LiteClient } from 'mcp-edge/lite';
import { check } from './check.js';

const [url, where] = globalThis.Deno ? Deno.args : process.argv.slice(2);
let failed = false;
for (const [client, name] of [[McpClient, where], [LiteClient, `${where}-lite`]]) {
  try {
    console.log(`OK ${name}: ${await check(client, url, name)}`);
  } catch (error) {
    failed = true;
    console.error(`FAILED ${name}: ${error?.stack ?? error}`);
  }
}
if (LiteClient === McpClient) {
  failed = true;
  console.error(`FAILED ${where}-lite: mcp-edge/lite gave the full entry's McpClient`);
}

// The lite entry leaves out the grants without a person: asking for one
// fails at `connect`, naming the feature, before any request; the full
// entry takes the same options (server-everything never asks for a token).
{
  const label = `${where}-lite-grants`;
  const auth = { grant: 'client_credentials', clientId: 'smoke', clientSecret: 'smoke' };
  try {
    let refusal = null;
    try {
      const lite = await LiteClient.connect(url, { auth, timeout: 20_000 });
      await lite.close();
    } catch (error) {
      refusal = String(error?.message ?? error);
    }
    if (refusal === null || !refusal.includes('machine-grants')) {
      throw new Error(`mcp-edge/lite did not refuse the client credentials grant by name: ${refusal}`);
    }
    const full = await McpClient.connect(url, { auth, timeout: 20_000 });
    await full.close();
    console.log(`OK ${label}: the full entry takes client_credentials, lite refuses it (${refusal})`);
  } catch (error) {
    failed = true;
    console.error(`FAILED ${label}: ${error?.stack ?? error}`);
  }
}
// The lite entry leaves out the tasks extension: declaring it fails at
// `connect`, naming the feature; the full entry declares it (server-everything
// answers every call directly either way).
{
  const label = `${where}-lite-tasks`;
  try {
    let refusal = null;
    try {
      const lite = await LiteClient.connect(url, { tasks: true, timeout: 20_000 });
      await lite.close();
    } catch (error) {
      refusal = `${error?.name}: ${error?.message ?? error}`;
    }
    if (refusal === null || !refusal.startsWith('TypeError: options.tasks is not in this build') || !refusal.includes('`tasks` feature')) {
      throw new Error(`mcp-edge/lite did not refuse tasks: true by name: ${refusal}`);
    }
    // `tasks: false` and a task timeout alone are accepted by both.
    const plain = await LiteClient.connect(url, { tasks: false, taskTimeout: 1_000, timeout: 20_000 });
    await plain.close();
    const full = await McpClient.connect(url, { tasks: true, timeout: 20_000 });
    const echoed = await full.callTool({ name: 'echo', arguments: { message: 'task' } });
    await full.close();
    if (echoed?.content?.[0]?.text !== 'Echo: task') throw new Error(`full entry with tasks: ${JSON.stringify(echoed)}`);
    console.log(`OK ${label}: the full entry declares tasks, lite refuses them (${refusal})`);
  } catch (error) {
    failed = true;
    console.error(`FAILED ${label}: ${error?.stack ?? error}`);
  }
}
if (failed) globalThis.Deno ? Deno.exit(1) : process.exit(1);

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
