//! Method names, so a typo is a compile error rather than a -32601.

/// `initialize`: the client's first request, negotiating revision and capabilities.
pub const INITIALIZE: &str = "initialize";
/// `notifications/initialized`: the client's notice that the handshake is complete.
pub const INITIALIZED: &str = "notifications/initialized";
/// `ping`: a liveness check either side may send.
pub const PING: &str = "ping";
/// `notifications/cancelled`: abandons an in-flight request by id.
pub const CANCELLED: &str = "notifications/cancelled";
/// `notifications/progress`: progress of a request that carried a progress token.
pub const PROGRESS: &str = "notifications/progress";

/// `tools/list`: one page of the server's tools.
pub const TOOLS_LIST: &str = "tools/list";
/// `tools/call`: runs a tool with arguments.
pub const TOOLS_CALL: &str = "tools/call";
/// `notifications/tools/list_changed`: the server's tool list changed.
pub const TOOLS_LIST_CHANGED: &str = "notifications/tools/list_changed";

/// `resources/list`: one page of the server's resources.
pub const RESOURCES_LIST: &str = "resources/list";
/// `resources/templates/list`: one page of the server's resource templates.
pub const RESOURCES_TEMPLATES_LIST: &str = "resources/templates/list";
/// `resources/read`: the contents of one resource by URI.
pub const RESOURCES_READ: &str = "resources/read";
/// `resources/subscribe`: asks for update notices about one resource.
pub const RESOURCES_SUBSCRIBE: &str = "resources/subscribe";
/// `resources/unsubscribe`: stops update notices about one resource.
pub const RESOURCES_UNSUBSCRIBE: &str = "resources/unsubscribe";
/// `notifications/resources/updated`: a subscribed resource changed.
pub const RESOURCES_UPDATED: &str = "notifications/resources/updated";
/// `notifications/resources/list_changed`: the server's resource list changed.
pub const RESOURCES_LIST_CHANGED: &str = "notifications/resources/list_changed";

/// `prompts/list`: one page of the server's prompts.
pub const PROMPTS_LIST: &str = "prompts/list";
/// `prompts/get`: one prompt rendered with arguments.
pub const PROMPTS_GET: &str = "prompts/get";
/// `notifications/prompts/list_changed`: the server's prompt list changed.
pub const PROMPTS_LIST_CHANGED: &str = "notifications/prompts/list_changed";

/// `logging/setLevel`: the minimum level of log messages the server sends.
pub const LOGGING_SET_LEVEL: &str = "logging/setLevel";
/// `notifications/message`: one log message from the server.
pub const LOGGING_MESSAGE: &str = "notifications/message";

/// `completion/complete`: argument completions for a prompt or resource template.
pub const COMPLETION_COMPLETE: &str = "completion/complete";

/// `roots/list`: the server asks the client for its roots.
pub const ROOTS_LIST: &str = "roots/list";
/// `notifications/roots/list_changed`: the client's roots changed.
pub const ROOTS_LIST_CHANGED: &str = "notifications/roots/list_changed";
/// `sampling/createMessage`: the server asks the client for an LLM completion.
pub const SAMPLING_CREATE_MESSAGE: &str = "sampling/createMessage";
/// `elicitation/create`: the server asks the client to collect input from the user.
pub const ELICITATION_CREATE: &str = "elicitation/create";
/// `notifications/elicitation/complete`: an out-of-band (URL) elicitation finished.
pub const ELICITATION_COMPLETE: &str = "notifications/elicitation/complete";

// Revision 2026-07-28 (stateless).
/// `server/discover`: the stateless revision's replacement for the handshake.
pub const SERVER_DISCOVER: &str = "server/discover";
/// `subscriptions/listen`: opens a stream of the notifications the client subscribes to.
pub const SUBSCRIPTIONS_LISTEN: &str = "subscriptions/listen";
/// The first notification of a `subscriptions/listen` stream.
pub const SUBSCRIPTIONS_ACKNOWLEDGED: &str = "notifications/subscriptions/acknowledged";
// The tasks extension (`io.modelcontextprotocol/tasks`).
/// `tasks/get`: the state (and, when done, the result) of a task.
pub const TASKS_GET: &str = "tasks/get";
/// `tasks/update`: the client sends a task the input it asked for (`inputResponses`).
pub const TASKS_UPDATE: &str = "tasks/update";
/// `tasks/cancel`: asks the server to cancel a task.
pub const TASKS_CANCEL: &str = "tasks/cancel";
