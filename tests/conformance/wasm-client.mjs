// The wasm adapter for the official MCP conformance suite: the same generic
// routine as examples/conformance.rs, through the public JS API of the npm
// package that `cargo xtask package` builds (target/npm/pkg), in Node 22.
//
//   node wasm-client.mjs <server url>     (MCP_CONFORMANCE_SCENARIO is ignored)
//
// Connect, list the tools, call each with arguments built from its input
// schema, answer elicitation by accepting (the library fills in the schema's
// defaults) and sampling with a fixed message, close.
//
// Authorization is always configured, as an app that may meet protected
// servers would, exactly as in the native adapter: what
// MCP_CONFORMANCE_CONTEXT holds becomes the `auth` options a user would
// enter (a pre-registered client id and secret, a private key, an
// enterprise ID token, a workload identity token); the Client ID Metadata
// Document URL is this app's own, so it is always set. There is no window
// in Node, so `auth.authorize` fetches the authorization page without
// following redirects and answers with its `Location`: the suite's
// authorization servers redirect at once.
import { readFile } from "node:fs/promises";

/** This app's Client ID Metadata Document (a real app hosts its own). */
const CLIENT_METADATA_URL = "https://conformance-test.local/client-metadata.json";
/** This app's registered redirect URI. */
const REDIRECT_URI = "http://localhost:3000/callback";
/** How long the authorization page may take to answer. */
const AUTHORIZE_TIMEOUT_MS = 10_000;

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

/**
 * What a person would type for a tool whose description asks for something
 * no schema can produce: the arguments the context lists for it, or, for
 * `json_schema_echo` ("the inputSchema the client observed for
 * json_schema_2020_12_tool"), that schema exactly as the library handed it
 * over. This chooses argument values only; the protocol path is the same.
 */
function userInput(name, tools) {
  const typed = (conformanceContext()?.toolCalls ?? []).find((call) => call?.name === name);
  if (typed?.arguments && typeof typed.arguments === "object") return typed.arguments;
  if (name === "json_schema_echo") {
    const observed = tools.find((tool) => tool.name === "json_schema_2020_12_tool");
    return observed ? { schema: observed.inputSchema } : undefined;
  }
  return undefined;
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

/** Opens the authorization page headlessly: its redirect is the answer. */
async function authorizeHeadlessly({ url }) {
  const response = await fetch(url, { redirect: "manual", signal: AbortSignal.timeout(AUTHORIZE_TIMEOUT_MS) });
  const location = response.headers.get("location");
  await response.body?.cancel();
  if (response.status < 300 || response.status >= 400 || !location) {
    throw new Error(
      `the authorization endpoint answered HTTP ${response.status} instead of redirecting: it needs a person to sign in`,
    );
  }
  return new URL(location, url).href;
}

/** The OAuth settings a user of this app would enter. */
function authOptions(context) {
  const text = (key) => (typeof context?.[key] === "string" ? context[key] : undefined);
  const auth = {
    clientMetadataUrl: CLIENT_METADATA_URL,
    redirectUri: REDIRECT_URI,
    clientName: "mcp-edge conformance client",
    clientId: text("client_id"),
    clientSecret: text("client_secret"),
    privateKeyPem: text("private_key_pem"),
    authorize: authorizeHeadlessly,
    store: "memory",
  };
  const [idpTokenEndpoint, idToken, idpClientId] = ["idp_token_endpoint", "idp_id_token", "idp_client_id"].map(text);
  if (idpTokenEndpoint && idToken && idpClientId) {
    auth.grant = "identity_assertion";
    auth.identityProvider = {
      tokenEndpoint: idpTokenEndpoint,
      idToken,
      clientId: idpClientId,
      clientSecret: text("idp_client_secret"),
    };
  } else if (text("valid_jwt")) {
    auth.grant = "jwt_bearer";
    auth.assertion = text("valid_jwt");
  }
  return auth;
}

function conformanceContext() {
  try {
    return JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT ?? "null");
  } catch {
    return null;
  }
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
    // Speak whichever era the server does, as the native adapter does.
    era: "auto",
    auth: authOptions(conformanceContext()),
  });
  try {
    if (client.getServerCapabilities()?.tools) {
      const tools = await client.listAllTools();
      for (const tool of tools) {
        const args = userInput(tool.name, tools) ?? exampleArguments(tool.inputSchema);
        try {
          const result = await client.callTool({ name: tool.name, arguments: args });
          console.error(`called ${tool.name}: ${result.isError ? "isError" : "ok"}`);
        } catch (error) {
          // A server may refuse one call with a JSON-RPC error; an
          // application reports it and goes on with the others.
          if (error?.name !== "McpError" || typeof error.code !== "number") throw error;
          console.error(`called ${tool.name}: error ${error.code} ${error.message}`);
        }
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
