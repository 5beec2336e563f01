//! JSON, versions and eras, snapshots and verdicts, errors, and the MCP
//! shapes results carry: content blocks, tools, resources, prompts,
//! completions.

use wasm_bindgen::prelude::*;

#[wasm_bindgen(typescript_custom_section)]
const TS_RESULTS: &str = r#"
/** Any JSON value. */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };
/** A JSON object. */
export type JsonObject = { [key: string]: JsonValue };

/** A protocol revision this client speaks. */
export type ProtocolVersion = "2024-11-05" | "2025-03-26" | "2025-06-18" | "2025-11-25" | "2026-07-28";
/** How a session is set up (`McpClient.era`): with the `initialize`
 * handshake (2024-11-05 to 2025-11-25), or statelessly (2026-07-28). */
export type Era = "handshake" | "stateless";

/** What `McpClient.exportVerdicts()` returns: which era and transport each
 * server was found to speak, and when (ms since the epoch). */
export interface Verdicts {
  version: 1;
  era: { [server: string]: { verdict: "handshake" | ProtocolVersion; at: number } };
  transport: { [url: string]: { verdict: "streamable-http" | "sse"; at: number } };
}

/** What `McpClient.snapshot()` returns and `McpClient.restore()` takes: plain
 * JSON, safe to keep in KV, a Durable Object or `localStorage` (no token is
 * ever in it). `version` is the shape's version (1); another is refused. */
export interface ClientSnapshot {
  version: 1;
  era: Era;
  protocolVersion: ProtocolVersion;
  transport: "streamable-http";
  /** The server's `Mcp-Session-Id` (handshake era). */
  sessionId?: string;
  /** The GET stream's last event id, where a restored client resumes it. */
  lastEventId?: string;
  /** What the server said of itself (initialize's result, or its shape made from server/discover). */
  server: { protocolVersion: string; capabilities: ServerCapabilities; serverInfo: Implementation; instructions?: string };
  /** The raw `server/discover` result (2026-07-28). */
  discover?: JsonObject;
  /** When that result came (ms since the epoch); with its `ttlMs` it says whether it is still fresh (a restored client
   * sends at once either way; call `discover()` for current capabilities). */
  discoveredAt?: number;
  /** The key the era verdict is cached under (the URL). */
  verdictKey?: string;
  /** When the snapshot was taken (ms since the epoch). */
  takenAt: number;
  /** 2026-07-28: the `x-mcp-header` annotations of the tools listed so far (tool name to the arguments sent as
   * `Mcp-Param-*` headers), so a restored client's first call carries them. */
  toolHeaders?: Record<string, { path: string[]; name: string }[]>;
}
/** The transport a client uses. */
export type TransportKind = "streamable-http" | "sse (legacy)";
/** A JSON-RPC request id. */
export type RequestId = string | number;
/** A progress token (`_meta.progressToken`). */
export type ProgressToken = string | number;
/** Who a message or an annotation is for. */
export type Role = "user" | "assistant";
/** Log levels of `logging/setLevel` (RFC 5424). */
export type LoggingLevel = "debug" | "info" | "notice" | "warning" | "error" | "critical" | "alert" | "emergency";

/** `_meta` of a request. */
export interface RequestMeta {
  progressToken?: ProgressToken;
  [key: string]: JsonValue | undefined;
}

/** A request failed. `code` is the JSON-RPC error code when the server sent
 * an error (and -32001 for a request that timed out, as in the TypeScript SDK). */
export interface McpError extends Error {
  name: "McpError";
  code?: number;
  data?: JsonValue;
}

/** The caller's `AbortSignal` fired; `cause` is the signal's reason. */
export interface AbortError extends Error {
  name: "AbortError";
  cause?: unknown;
}

/** An icon of a server, tool, resource or prompt (2025-11-25). */
export interface Icon {
  src: string;
  mimeType?: string;
  sizes?: string[];
  theme?: "light" | "dark";
}

/** Name and version of a client or server. */
export interface Implementation {
  name: string;
  version: string;
  title?: string;
  description?: string;
  websiteUrl?: string;
  icons?: Icon[];
}

/** What the server offers; each field is present when declared. */
export interface ServerCapabilities {
  experimental?: { [key: string]: JsonObject };
  logging?: JsonObject;
  completions?: JsonObject;
  prompts?: { listChanged?: boolean; [key: string]: JsonValue | undefined };
  resources?: { subscribe?: boolean; listChanged?: boolean; [key: string]: JsonValue | undefined };
  tools?: { listChanged?: boolean; [key: string]: JsonValue | undefined };
  tasks?: JsonObject;
  /** Extensions the server offers (2026-07-28), e.g. `io.modelcontextprotocol/tasks`. */
  extensions?: { [name: string]: JsonObject };
}

/** Hints on how a client should use or show an object. */
export interface Annotations {
  audience?: Role[];
  priority?: number;
  lastModified?: string;
}

export interface TextContent {
  type: "text";
  text: string;
  annotations?: Annotations;
  _meta?: JsonObject;
}

export interface ImageContent {
  type: "image";
  /** Base64-encoded bytes. */
  data: string;
  mimeType: string;
  annotations?: Annotations;
  _meta?: JsonObject;
}

export interface AudioContent {
  type: "audio";
  /** Base64-encoded bytes. */
  data: string;
  mimeType: string;
  annotations?: Annotations;
  _meta?: JsonObject;
}

export interface TextResourceContents {
  uri: string;
  mimeType?: string;
  text: string;
  _meta?: JsonObject;
}

export interface BlobResourceContents {
  uri: string;
  mimeType?: string;
  /** Base64-encoded bytes. */
  blob: string;
  _meta?: JsonObject;
}

/** A resource the server can read. */
export interface Resource {
  uri: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
  size?: number;
  annotations?: Annotations;
  icons?: Icon[];
  _meta?: JsonObject;
}

/** A link to a resource, in a tool result (2025-06-18). */
export interface ResourceLink extends Resource {
  type: "resource_link";
}

/** A resource's contents, inline. */
export interface EmbeddedResource {
  type: "resource";
  resource: TextResourceContents | BlobResourceContents;
  annotations?: Annotations;
  _meta?: JsonObject;
}

/** What tool results and prompt messages are made of. */
export type ContentBlock = TextContent | ImageContent | AudioContent | ResourceLink | EmbeddedResource;

/** A JSON Schema describing an object. */
export interface ObjectSchema {
  type: "object";
  properties?: { [key: string]: JsonObject };
  required?: string[];
  [key: string]: JsonValue | undefined;
}

/** Behaviour hints of a tool; untrusted unless the server is. */
export interface ToolAnnotations {
  title?: string;
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
}

/** A tool the server offers. */
export interface Tool {
  name: string;
  title?: string;
  description?: string;
  inputSchema: ObjectSchema;
  outputSchema?: ObjectSchema;
  annotations?: ToolAnnotations;
  execution?: { taskSupport?: "forbidden" | "optional" | "required" };
  icons?: Icon[];
  _meta?: JsonObject;
}

/** Params of the list methods. */
export interface PaginatedRequestParams {
  cursor?: string;
  _meta?: RequestMeta;
}

export interface ListToolsResult {
  tools: Tool[];
  nextCursor?: string;
  _meta?: JsonObject;
}

export interface CallToolRequestParams {
  name: string;
  arguments?: JsonObject;
  _meta?: RequestMeta;
}

/** A tool's answer. A failed tool sets `isError` and explains in `content`. */
export interface CallToolResult {
  content: ContentBlock[];
  structuredContent?: JsonObject;
  isError?: boolean;
  _meta?: JsonObject;
}

export interface ListResourcesResult {
  resources: Resource[];
  nextCursor?: string;
  _meta?: JsonObject;
}

/** A family of resources, by URI template (RFC 6570). */
export interface ResourceTemplate {
  uriTemplate: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
  annotations?: Annotations;
  icons?: Icon[];
  _meta?: JsonObject;
}

export interface ListResourceTemplatesResult {
  resourceTemplates: ResourceTemplate[];
  nextCursor?: string;
  _meta?: JsonObject;
}

export interface ReadResourceRequestParams {
  uri: string;
  _meta?: RequestMeta;
}

export interface ReadResourceResult {
  contents: (TextResourceContents | BlobResourceContents)[];
  _meta?: JsonObject;
}

export interface SubscribeRequestParams {
  uri: string;
  _meta?: RequestMeta;
}

export interface UnsubscribeRequestParams {
  uri: string;
  _meta?: RequestMeta;
}

export interface PromptArgument {
  name: string;
  title?: string;
  description?: string;
  required?: boolean;
}

/** A prompt template the server offers. */
export interface Prompt {
  name: string;
  title?: string;
  description?: string;
  arguments?: PromptArgument[];
  icons?: Icon[];
  _meta?: JsonObject;
}

export interface ListPromptsResult {
  prompts: Prompt[];
  nextCursor?: string;
  _meta?: JsonObject;
}

export interface GetPromptRequestParams {
  name: string;
  arguments?: { [key: string]: string };
  _meta?: RequestMeta;
}

export interface PromptMessage {
  role: Role;
  content: ContentBlock;
}

export interface GetPromptResult {
  description?: string;
  messages: PromptMessage[];
  _meta?: JsonObject;
}

export interface PromptReference {
  type: "ref/prompt";
  name: string;
  title?: string;
}

export interface ResourceTemplateReference {
  type: "ref/resource";
  uri: string;
}

export interface CompleteRequestParams {
  ref: PromptReference | ResourceTemplateReference;
  argument: { name: string; value: string };
  /** Values of arguments already filled in (2025-06-18). */
  context?: { arguments?: { [key: string]: string } };
  _meta?: RequestMeta;
}

export interface CompleteResult {
  completion: { values: string[]; total?: number; hasMore?: boolean };
  _meta?: JsonObject;
}

/** The answer of requests that only succeed or fail. */
export interface EmptyResult {
  _meta?: JsonObject;
}
"#;
