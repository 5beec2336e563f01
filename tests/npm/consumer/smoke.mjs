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
if (failed) globalThis.Deno ? Deno.exit(1) : process.exit(1);
