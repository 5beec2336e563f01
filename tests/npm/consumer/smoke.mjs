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
