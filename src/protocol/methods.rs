//! Method names, so a typo is a compile error rather than a -32601.

pub const INITIALIZE: &str = "initialize";
pub const INITIALIZED: &str = "notifications/initialized";
pub const PING: &str = "ping";
pub const CANCELLED: &str = "notifications/cancelled";
pub const PROGRESS: &str = "notifications/progress";

pub const TOOLS_LIST: &str = "tools/list";
pub const TOOLS_CALL: &str = "tools/call";
pub const TOOLS_LIST_CHANGED: &str = "notifications/tools/list_changed";

pub const RESOURCES_LIST: &str = "resources/list";
pub const RESOURCES_TEMPLATES_LIST: &str = "resources/templates/list";
pub const RESOURCES_READ: &str = "resources/read";
pub const RESOURCES_SUBSCRIBE: &str = "resources/subscribe";
pub const RESOURCES_UNSUBSCRIBE: &str = "resources/unsubscribe";
pub const RESOURCES_UPDATED: &str = "notifications/resources/updated";
pub const RESOURCES_LIST_CHANGED: &str = "notifications/resources/list_changed";

pub const PROMPTS_LIST: &str = "prompts/list";
pub const PROMPTS_GET: &str = "prompts/get";
pub const PROMPTS_LIST_CHANGED: &str = "notifications/prompts/list_changed";

pub const LOGGING_SET_LEVEL: &str = "logging/setLevel";
pub const LOGGING_MESSAGE: &str = "notifications/message";

pub const COMPLETION_COMPLETE: &str = "completion/complete";

pub const ROOTS_LIST: &str = "roots/list";
pub const ROOTS_LIST_CHANGED: &str = "notifications/roots/list_changed";
pub const SAMPLING_CREATE_MESSAGE: &str = "sampling/createMessage";
pub const ELICITATION_CREATE: &str = "elicitation/create";
pub const ELICITATION_COMPLETE: &str = "notifications/elicitation/complete";

// Revision 2026-07-28 (stateless).
pub const SERVER_DISCOVER: &str = "server/discover";
pub const SUBSCRIPTIONS_LISTEN: &str = "subscriptions/listen";
/// The first notification of a `subscriptions/listen` stream.
pub const SUBSCRIPTIONS_ACKNOWLEDGED: &str = "notifications/subscriptions/acknowledged";
/// The tasks extension (`io.modelcontextprotocol/tasks`).
pub const TASKS_GET: &str = "tasks/get";
pub const TASKS_UPDATE: &str = "tasks/update";
pub const TASKS_CANCEL: &str = "tasks/cancel";
