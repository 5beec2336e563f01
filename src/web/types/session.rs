//! The shapes of a session: progress, roots, notifications, sampling and
//! elicitation, the handler context, the connect, auth and request options.

use wasm_bindgen::prelude::*;

#[wasm_bindgen(typescript_custom_section)]
const TS_SESSION: &str = r#"
/** A progress update of a running request. */
export interface Progress {
  progress: number;
  total?: number;
  message?: string;
}

/** A root the client exposes to the server. */
export interface Root {
  /** A `file://` URI. */
  uri: string;
  name?: string;
}

/** What `McpClient.listen` asks for (2026-07-28's `SubscriptionFilter`). */
export interface SubscriptionFilter {
  toolsListChanged?: boolean;
  promptsListChanged?: boolean;
  resourcesListChanged?: boolean;
  /** `notifications/resources/updated` for these URIs and resources under them. */
  resourceSubscriptions?: string[];
}

/** A notification from the server (progress excepted). */
export interface ServerNotification {
  method: string;
  params?: JsonObject;
}

/** A model's request to use a tool, in sampling (2025-11-25). */
export interface ToolUseContent {
  type: "tool_use";
  id: string;
  name: string;
  input: JsonObject;
  _meta?: JsonObject;
}

/** A tool's answer fed back to the model, in sampling (2025-11-25). */
export interface ToolResultContent {
  type: "tool_result";
  toolUseId: string;
  content: ContentBlock[];
  structuredContent?: JsonObject;
  isError?: boolean;
  _meta?: JsonObject;
}

export type SamplingContent = TextContent | ImageContent | AudioContent | ToolUseContent | ToolResultContent;

export interface SamplingMessage {
  role: Role;
  content: SamplingContent | SamplingContent[];
  _meta?: JsonObject;
}

export interface ModelPreferences {
  hints?: { name?: string }[];
  costPriority?: number;
  speedPriority?: number;
  intelligencePriority?: number;
}

/** What the server asks the client's model (`sampling/createMessage`). */
export interface CreateMessageRequestParams {
  messages: SamplingMessage[];
  modelPreferences?: ModelPreferences;
  systemPrompt?: string;
  includeContext?: "none" | "thisServer" | "allServers";
  temperature?: number;
  maxTokens: number;
  stopSequences?: string[];
  metadata?: JsonObject;
  tools?: Tool[];
  toolChoice?: { mode?: "auto" | "required" | "none" };
  _meta?: RequestMeta;
}

/** The model's answer to a sampling request. */
export interface CreateMessageResult {
  role: Role;
  content: SamplingContent | SamplingContent[];
  model: string;
  stopReason?: "endTurn" | "stopSequence" | "maxTokens" | "toolUse" | (string & {});
  _meta?: JsonObject;
}

/** A field of an elicitation form: a string, number, boolean or enum schema. */
export interface PrimitiveSchemaDefinition {
  type: "string" | "number" | "integer" | "boolean" | "array";
  title?: string;
  description?: string;
  default?: JsonValue;
  [key: string]: JsonValue | undefined;
}

/** Form mode: ask the user to fill in fields. */
export interface ElicitRequestFormParams {
  mode?: "form";
  message: string;
  requestedSchema: {
    $schema?: string;
    type: "object";
    properties: { [key: string]: PrimitiveSchemaDefinition };
    required?: string[];
  };
  _meta?: RequestMeta;
}

/** URL mode: send the user to a page (2025-11-25). */
export interface ElicitRequestURLParams {
  mode: "url";
  message: string;
  elicitationId: string;
  url: string;
  _meta?: RequestMeta;
}

/** What the server asks the user (`elicitation/create`). */
export type ElicitRequestParams = ElicitRequestFormParams | ElicitRequestURLParams;

/** The user's answer. */
export interface ElicitResult {
  action: "accept" | "decline" | "cancel";
  content?: { [key: string]: string | number | boolean | string[] };
  _meta?: JsonObject;
}

/** The second argument of a request handler. */
export interface RequestHandlerExtra {
  /** Aborts when the server cancels the request or the session closes. */
  signal: AbortSignal;
  requestId: RequestId;
  method: string;
  _meta?: RequestMeta;
}

/** Options of `McpClient.connect`. */
export interface ConnectOptions {
  /** Who we are (default `mcp-edge` and its version). */
  clientInfo?: Implementation;
  /** Extra headers sent with every request (e.g. `Authorization`). */
  headers?: Record<string, string> | Headers | [string, string][];
  /** Whether cross-origin requests carry cookies (fetch's `credentials`). */
  credentials?: "omit" | "same-origin" | "include";
  /** The default timeout of each request, in milliseconds (default 60000). */
  timeout?: number;
  /** The revision offered in `initialize` (default the newest). */
  protocolVersion?: ProtocolVersion;
  /** Which protocol era to speak: `"auto"` (the default) probes with
   * `server/discover` and falls back to the handshake (cached per server);
   * `"handshake"` (2024-11-05 to 2025-11-25) and `"stateless"` (2026-07-28)
   * force one. */
  era?: "auto" | Era;
  /** Declare the tasks extension (2026-07-28): a server may run a tool call
   * as a task, which `callTool` drives to its end (default false). Not in
   * `mcp-edge/lite`, where `true` fails at `connect` naming the `tasks` feature. */
  tasks?: boolean;
  /** How long such a task may run before it is cancelled, in ms (default 600000). */
  taskTimeout?: number;
  /** Answer repeated lists and reads from results a 2026-07-28 server said
   * stay fresh (`ttlMs`), until a change notification (default true). */
  resultCache?: boolean;
  /** `"auto"` (the default) detects it: Streamable HTTP, else the legacy
   * HTTP+SSE transport (2024-11-05). The others force one. */
  transport?: "auto" | "streamable-http" | "sse";
  /** OAuth 2.1 for servers that ask for authorization (401): credentials on
   * every request, the flow on 401, step-up on 403 `insufficient_scope`. */
  auth?: AuthOptions;
  /** Whether the GET stream for messages the server sends unprompted may be
   * opened (default true). It is opened when something needs it: a
   * notification listener, a subscription, a sampling, elicitation or roots
   * handler. */
  openServerStream?: boolean;
  /** Open that stream right after every handshake, needed or not (default
   * false: an unneeded stream costs a connection, and workerd allows six). */
  eagerServerStream?: boolean;
  /** Reopen a 2026-07-28 `listen` stream that broke, telling its listener with a
   * `notifications/mcp-edge/resync` notification (default true). */
  reopenListens?: boolean;
  /** Check a tool result's `structuredContent` against the `outputSchema` its
   * tool was listed with (no code generation: it runs in workerd); a mismatch
   * rejects the call with an `McpError` naming the tool and the path (default true). */
  validateStructuredContent?: boolean;
  /** The most HTTP exchanges this client runs at once (POSTs with their reply
   * streams, the GET stream); the rest wait their turn. Default 6 in workerd (its
   * limit of simultaneous outgoing connections per request), none elsewhere; `null`: none. */
  maxConnections?: number | null;
  /** Answers `sampling/createMessage`; declares the `sampling` capability. An answer
   * without `role`, `model` or a content block is not sent: the server gets an error saying what is missing. */
  sampling?: (params: CreateMessageRequestParams, extra: RequestHandlerExtra) => Promise<CreateMessageResult> | CreateMessageResult;
  /** Answers `elicitation/create`; declares the `elicitation` capability. An answer
   * whose `action` is not accept, decline or cancel is not sent: the server gets an error saying so. */
  elicitation?: (params: ElicitRequestParams, extra: RequestHandlerExtra) => Promise<ElicitResult> | ElicitResult;
  /** Give an accepted form the schema's defaults for fields left out (default true). */
  elicitationFillDefaults?: boolean;
  /** Check an accepted form against the requested schema before it is sent; a mismatch answers the server with an error naming the field (default true). */
  elicitationValidate?: boolean;
  /** Answers `roots/list` with the list it returns, sent as returned (`_meta` kept); declares `roots` with
   * `listChanged`. A root without a string `uri` (or with a `name` that is not a string) is not sent: the server
   * gets an error naming the root. It is called as the other handlers are, `(params, extra)`. */
  roots?: (params: { _meta?: JsonObject }, extra: RequestHandlerExtra) => Promise<Root[]> | Root[];
  /** Hears every notification from the server (progress excepted). */
  onnotification?: (notification: ServerNotification) => void;
  /** The server forgot the session; a new one was started. */
  onsessionrestarted?: () => void;
  /** A stateless server's subscription to this resource (`subscribeResource`)
   * broke and was opened again: updates in between are lost, read it again. */
  onresubscribed?: (uri: string) => void;
}

/** What `auth.authorize` is given: have the user open `url`, and resolve
 * with the full URL the authorization server redirected to
 * (`redirectUri?code=...&state=...`). */
export interface AuthorizationRequest {
  /** The authorization page (https, or http to localhost). */
  url: string;
  /** Where the authorization server sends the browser back to. */
  redirectUri: string;
  /** The `state` in `url`; the library checks it again on the way back. */
  state: string;
}

/** Opens the authorization page for the user; resolves with the URL the
 * authorization server redirected to. */
export type AuthorizeFunction = (request: AuthorizationRequest) => Promise<string> | string;

/** Where tokens and client registrations are kept. Keys start with
 * `mcp-edge:`, values are JSON strings. Keep them where only this app can
 * read them. */
export interface TokenStorage {
  load(key: string): Promise<string | null | undefined> | string | null | undefined;
  save(key: string, value: string): Promise<void> | void;
  clear(key: string): Promise<void> | void;
}

/** The enterprise identity provider of the `identity_assertion` grant
 * (SEP-990): its ID token is exchanged there for an ID-JAG. */
export interface IdentityProviderOptions {
  /** The identity provider's token endpoint. */
  tokenEndpoint: string;
  /** The user's ID token from that provider. */
  idToken: string;
  /** This client's id at the identity provider. */
  clientId: string;
  /** This client's secret there, if it has one. */
  clientSecret?: string;
}

/** OAuth 2.1 with PKCE (MCP authorization, 2025-03-26 to 2025-11-25).
 *
 * In a page the defaults are a popup for the sign-in
 * (`authorize: "popup"`, which must start from a click: call `connect` in a
 * click handler), tokens in `sessionStorage`, and the redirect URI
 * `<page origin>/oauth-callback.html` (serve the package's
 * `oauth-callback.html` there). Where there is no window (workers, Node,
 * Deno) a flow that needs a person needs `authorize` (a function); grants
 * without a person (`client_credentials`, `jwt_bearer`,
 * `identity_assertion`) work anywhere. */
export interface AuthOptions {
  /** A client id registered with the authorization server beforehand. */
  clientId?: string;
  /** Its secret (a confidential client: servers and workers, never a page). */
  clientSecret?: string;
  /** This app's Client ID Metadata Document (an https URL), used as its
   * `client_id` where the authorization server accepts them. */
  clientMetadataUrl?: string;
  /** Where the authorization server sends the browser back to (default
   * `<page origin>/oauth-callback.html`). */
  redirectUri?: string;
  /** Scopes to ask for instead of the ones the server suggests. */
  scope?: string | string[];
  /** The grant (default: `authorization_code` when the server offers it,
   * else `client_credentials` when a secret or key is configured). */
  grant?: "authorization_code" | "client_credentials" | "jwt_bearer" | "identity_assertion";
  /** The JWT the `jwt_bearer` grant presents (e.g. a workload identity token). */
  assertion?: string;
  /** The identity provider of the `identity_assertion` grant. */
  identityProvider?: IdentityProviderOptions;
  /** A P-256 private key (PKCS#8 or SEC1 PEM) for `private_key_jwt`. */
  privateKeyPem?: string;
  /** The `kid` of client assertions signed with it. */
  keyId?: string;
  /** How to authenticate at the token endpoint (default: chosen from what
   * the server supports). */
  tokenEndpointAuthMethod?: "client_secret_basic" | "client_secret_post" | "private_key_jwt" | "none";
  /** The name shown on consent screens (dynamic registration). */
  clientName?: string;
  /** How the user reaches the authorization page: a popup (the default in a
   * page), a full-page redirect (the pending flow waits in sessionStorage
   * and the next `connect` with the same options finishes it), or your own
   * function (required where there is no window). */
  authorize?: "popup" | "redirect" | AuthorizeFunction;
  /** `window.open` features of the popup (default
   * `"popup=yes,width=520,height=720"`). */
  popupFeatures?: string;
  /** Milliseconds the user may take to sign in (default 300000). */
  authorizationTimeout?: number;
  /** Where tokens are kept: `"sessionStorage"` (the default in a page),
   * `"localStorage"`, `"memory"` (the default elsewhere) or your own.
   * `"localStorage"` is shared by the origin's tabs: a refresh runs under a
   * Web Lock, and each record is copied to the IndexedDB database
   * `"mcp-edge"` so that the next tab sees it at once. */
  store?: "memory" | "sessionStorage" | "localStorage" | TokenStorage;
  /** Allow plain http to authorization servers other than localhost
   * (development only). */
  allowInsecureHttp?: boolean;
  /** Bind tokens with DPoP even where the MCP server does not ask for it
   * (by default DPoP is used only when the server's challenge or metadata
   * asks for it, never because the authorization server offers it). */
  dpop?: boolean;
}

/** Options of one request. */
export interface RequestOptions {
  /** Cancels the request: the server is told, the promise rejects with an `AbortError`. */
  signal?: AbortSignal;
  /** Receives progress; makes the request carry a progress token. */
  onprogress?: (progress: Progress) => void;
  /** Milliseconds to wait for the answer (default: the connection's `timeout`). */
  timeout?: number;
  /** Restart the timeout whenever progress arrives. */
  resetTimeoutOnProgress?: boolean;
  /** A limit in milliseconds that progress cannot extend. */
  maxTotalTimeout?: number;
}
"#;
