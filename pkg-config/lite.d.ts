// `mcp-edge/lite`: the same `McpClient` API as `mcp-edge` (Streamable HTTP,
// both protocol eras, handlers, progress, cancellation, resumption, OAuth
// with PKCE: authorization code, refresh, discovery, Client ID Metadata
// Documents, dynamic registration, client secrets), from a WebAssembly
// module built without six Cargo features. The options and methods that
// need them are accepted by the types but fail at run time with an error
// that names the missing feature:
//
// - `transport: "sse"` (and the automatic fallback to the legacy HTTP+SSE
//   transport of 2024-11-05): feature `legacy-sse`;
// - `auth.privateKeyPem` (client authentication by `private_key_jwt`):
//   feature `private-key-jwt`;
// - DPoP-bound tokens (feature `dpop`): never asked for; the lite client
//   uses plain Bearer tokens;
// - `auth.grant` "client_credentials", "jwt_bearer" or "identity_assertion"
//   (the grants without a person): feature `machine-grants`;
// - `McpClient.restore` (rejects), `client.snapshot()`,
//   `McpClient.exportVerdicts()` and `McpClient.importVerdicts()` (throw a
//   TypeError): feature `persist`;
// - `tasks: true` (the tasks extension of 2026-07-28: a tool call the
//   server runs as a task; `connect` fails): feature `tasks`.
//
// Use `mcp-edge` (the full entry) for those.
export * from './mcp_edge_lite.js';
export { default as init } from './mcp_edge_lite.js';
