// The wasm adapter for the official MCP conformance suite: the same generic
// routine as examples/conformance.rs, through the public JS API of the npm
// package that `cargo xtask package` builds (target/npm/pkg), in Node 22.
//
//   node wasm-client.mjs <server url>     (MCP_CONFORMANCE_SCENARIO is ignored)
//
// Connect, list the tools, call each with arguments built from its input
// schema, answer elicitation by accepting (the library fills in the schema's
// defaults) and sampling with a fixed message, close.
import { readFile } from "node:fs/promises";

const packageDir = new URL("../../target/npm/pkg/", import.meta.url);

/** The package entry Node would pick for `import "mcp-edge"`. */
async function loadPackage() {
  const manifest = JSON.parse(await readFile(new URL("package.json", packageDir), "utf8"));
  const pick = (target) => {
    if (typeof target === "string") return target;
    if (target && typeof target === "object") {
      for (const condition of ["node", "import", "default"]) {
        const found = condition in target ? pick(target[condition]) : undefined;
        if (found) return found;
      }
    }
    return undefined;
  };
  const exportsMap = manifest.exports?.["."] ?? manifest.exports;
  const entry = pick(exportsMap) ?? manifest.module ?? manifest.main;
  if (!entry) throw new Error("target/npm/pkg/package.json names no entry for Node");
  return import(new URL(entry, packageDir).href);
}

/** A value of the schema: its default, its first enum member, or a plain value of its type. */
function exampleValue(schema = {}) {
  if ("default" in schema) return schema.default;
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0];
  const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== "null") : schema.type;
  switch (type) {
    case "integer":
    case "number":
      return 1;
    case "boolean":
      return true;
    case "array":
      return [];
    case "object":
      return exampleArguments(schema);
    case "null":
      return null;
    default:
      return "test";
  }
}

/** Every required property, and every property with a default. */
function exampleArguments(schema = {}) {
  const required = new Set(schema.required ?? []);
  const args = {};
  for (const [name, property] of Object.entries(schema.properties ?? {})) {
    if (required.has(name) || "default" in (property ?? {})) args[name] = exampleValue(property);
  }
  return args;
}

async function main() {
  const url = process.argv.at(-1);
  if (!url?.startsWith("http")) throw new Error("usage: wasm-client.mjs <server url>");
  const { McpClient } = await loadPackage();
  const client = await McpClient.connect(url, {
    clientInfo: { name: "mcp-edge-conformance-wasm", version: "0.1.0" },
    timeout: 20000,
    sampling: async () => ({
      role: "assistant",
      content: { type: "text", text: "This is a fixed answer from the conformance client." },
      model: "mcp-edge-fixed",
      stopReason: "endTurn",
    }),
    elicitation: async () => ({ action: "accept", content: {} }),
    elicitationFillDefaults: true,
  });
  try {
    if (client.getServerCapabilities()?.tools) {
      for (const tool of await client.listAllTools()) {
        const result = await client.callTool({ name: tool.name, arguments: exampleArguments(tool.inputSchema) });
        console.error(`called ${tool.name}: ${result.isError ? "isError" : "ok"}`);
      }
    }
  } finally {
    await client.close();
  }
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(`conformance client (wasm): ${error?.name ?? "Error"}: ${error?.message ?? error}`);
    process.exit(1);
  },
);
