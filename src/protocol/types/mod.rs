//! The MCP types a client sends and receives, 2024-11-05 to 2025-11-25.
//!
//! Parsing is lenient: every field a revision added later is optional, and
//! unknown fields are ignored (the schema's objects are open). Content blocks
//! of a type this client does not know are kept whole as [`ContentBlock::Unknown`]
//! rather than failing the whole result.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::fields::{Fields, deserialize_by_fields};

mod asked;
mod content;

pub use asked::{
    CreateMessageParams, CreateMessageResult, ElicitAction, ElicitParams, ElicitResult, ListRootsResult, Root,
    SamplingMessage,
};
pub use content::ContentBlock;

/// A JSON object.
pub type JsonObject = Map<String, Value>;

/// Name and version of a client or server (`Implementation`).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Implementation {
    /// Programmatic name.
    pub name: String,
    /// Version string.
    pub version: String,
    /// Human-readable name (2025-06-18+).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Description (2025-11-25+).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Home page (2025-11-25+).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub website_url: Option<String>,
}

deserialize_by_fields!(Implementation);

impl Implementation {
    fn from_fields(fields: &mut Fields) -> Result<Self, String> {
        let value = Implementation {
            name: fields.required_string("name"),
            version: fields.string("version").unwrap_or_default(),
            title: fields.string("title"),
            description: fields.string("description"),
            website_url: fields.string("websiteUrl"),
        };
        fields.done(value)
    }

    /// A name and a version.
    pub fn new(name: impl Into<String>, version: impl Into<String>) -> Self {
        Implementation { name: name.into(), version: version.into(), ..Default::default() }
    }

    /// As JSON, the same as its `Serialize` writes it, built by hand: the
    /// wasm needs no serializer for it (see `protocol::object!`).
    pub(crate) fn to_value(&self) -> Value {
        let mut object = crate::protocol::object! { "name": self.name.as_str(), "version": self.version.as_str() };
        for (key, member) in
            [("title", &self.title), ("description", &self.description), ("websiteUrl", &self.website_url)]
        {
            if let Some(member) = member {
                object[key] = Value::from(member.as_str());
            }
        }
        object
    }
}

/// What the server offers. Each field is present when the server declared it.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ServerCapabilities {
    /// `prompts{listChanged?}`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub prompts: Option<JsonObject>,
    /// `resources{subscribe?, listChanged?}`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resources: Option<JsonObject>,
    /// `tools{listChanged?}`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tools: Option<JsonObject>,
    /// `logging{}`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub logging: Option<JsonObject>,
    /// `completions{}` (2025-03-26+).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub completions: Option<JsonObject>,
    /// `tasks{...}` (2025-11-25, experimental).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tasks: Option<JsonObject>,
    /// `experimental{...}`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub experimental: Option<JsonObject>,
    /// `extensions{"<prefix>/<name>": {settings}}` (2026-07-28), e.g.
    /// `io.modelcontextprotocol/tasks`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub extensions: Option<JsonObject>,
}

deserialize_by_fields!(ServerCapabilities);

impl ServerCapabilities {
    fn from_fields(fields: &mut Fields) -> Result<Self, String> {
        let value = ServerCapabilities {
            prompts: fields.object("prompts"),
            resources: fields.object("resources"),
            tools: fields.object("tools"),
            logging: fields.object("logging"),
            completions: fields.object("completions"),
            tasks: fields.object("tasks"),
            experimental: fields.object("experimental"),
            extensions: fields.object("extensions"),
        };
        fields.done(value)
    }

    /// As JSON, the same as its `Serialize` writes it (`protocol::build`):
    /// `getServerCapabilities` of the JS face.
    #[cfg(any(all(target_arch = "wasm32", feature = "js"), test))]
    pub(crate) fn to_value(&self) -> Value {
        crate::protocol::build::Builder::new()
            .object("prompts", self.prompts.as_ref())
            .object("resources", self.resources.as_ref())
            .object("tools", self.tools.as_ref())
            .object("logging", self.logging.as_ref())
            .object("completions", self.completions.as_ref())
            .object("tasks", self.tasks.as_ref())
            .object("experimental", self.experimental.as_ref())
            .object("extensions", self.extensions.as_ref())
            .done()
    }

    /// Whether the server offers the extension `name` (2026-07-28).
    pub fn has_extension(&self, name: &str) -> bool {
        self.extensions.as_ref().is_some_and(|e| e.contains_key(name))
    }

    /// Whether the server declared `resources.subscribe: true`.
    pub fn resources_subscribe(&self) -> bool {
        flag(&self.resources, "subscribe")
    }

    /// Whether the server declared `tools.listChanged: true`.
    pub fn tools_list_changed(&self) -> bool {
        flag(&self.tools, "listChanged")
    }

    /// Whether the server declared `prompts.listChanged: true`.
    pub fn prompts_list_changed(&self) -> bool {
        flag(&self.prompts, "listChanged")
    }

    /// Whether the server declared `resources.listChanged: true`.
    pub fn resources_list_changed(&self) -> bool {
        flag(&self.resources, "listChanged")
    }
}

fn flag(object: &Option<JsonObject>, key: &str) -> bool {
    object.as_ref().and_then(|o| o.get(key)).and_then(Value::as_bool).unwrap_or(false)
}

/// The answer to `initialize`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct InitializeResult {
    /// The version the server chose.
    pub protocol_version: String,
    /// What the server offers.
    pub capabilities: ServerCapabilities,
    /// The server's name and version.
    pub server_info: Implementation,
    /// Hints for the model's system prompt (2025-03-26+).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub instructions: Option<String>,
}

deserialize_by_fields!(InitializeResult);

impl InitializeResult {
    /// As JSON, the same as its `Serialize` writes it (`protocol::build`):
    /// a snapshot's `server`.
    #[cfg(any(all(target_arch = "wasm32", feature = "js", feature = "persist"), test))]
    pub(crate) fn to_value(&self) -> Value {
        crate::protocol::build::Builder::new()
            .text("protocolVersion", Some(&self.protocol_version))
            .value("capabilities", Some(self.capabilities.to_value()))
            .value("serverInfo", Some(self.server_info.to_value()))
            .text("instructions", self.instructions.as_deref())
            .done()
    }

    pub(crate) fn from_fields(fields: &mut Fields) -> Result<Self, String> {
        let value = InitializeResult {
            protocol_version: fields.required_string("protocolVersion"),
            capabilities: match fields.object("capabilities") {
                Some(capabilities) => ServerCapabilities::from_fields(&mut Fields::of(capabilities))?,
                None => ServerCapabilities::default(),
            },
            server_info: match fields.object("serverInfo") {
                Some(info) => Implementation::from_fields(&mut Fields::of(info))?,
                None => Implementation::default(),
            },
            instructions: fields.string("instructions"),
        };
        fields.done(value)
    }
}

/// A tool the server offers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Tool {
    /// Its name, used in `tools/call`.
    pub name: String,
    /// Human-readable name (2025-06-18+).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What it does.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// JSON Schema of its arguments.
    #[serde(default = "empty_object_schema")]
    pub input_schema: Value,
    /// JSON Schema of its structured output (2025-06-18+).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_schema: Option<Value>,
    /// Behaviour hints (2025-03-26+).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<JsonObject>,
}

fn empty_object_schema() -> Value {
    crate::protocol::object! {"type": "object"}
}

/// A page of `tools/list`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ListToolsResult {
    /// The tools on this page.
    #[serde(default)]
    pub tools: Vec<Tool>,
    /// Where the next page starts, if there is one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
}

/// The answer to `tools/call`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CallToolResult {
    /// What the tool produced.
    #[serde(default)]
    pub content: Vec<ContentBlock>,
    /// Structured output (2025-06-18+).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub structured_content: Option<Value>,
    /// True when the tool itself failed; the content says why.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub is_error: Option<bool>,
}

impl CallToolResult {
    /// Whether the tool reported a failure.
    pub fn is_error(&self) -> bool {
        self.is_error.unwrap_or(false)
    }
}

/// A resource the server offers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Resource {
    /// Its URI.
    pub uri: String,
    /// Its name.
    #[serde(default)]
    pub name: String,
    /// Human-readable name (2025-06-18+).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What it is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Media type.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// Size in bytes, if known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size: Option<u64>,
}

/// A page of `resources/list`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ListResourcesResult {
    /// The resources on this page.
    #[serde(default)]
    pub resources: Vec<Resource>,
    /// Where the next page starts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
}

/// A parameterised resource (RFC 6570 URI template).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResourceTemplate {
    /// The URI template.
    pub uri_template: String,
    /// Its name.
    #[serde(default)]
    pub name: String,
    /// Human-readable name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What it is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Media type of what it yields.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
}

/// A page of `resources/templates/list`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ListResourceTemplatesResult {
    /// The templates on this page.
    #[serde(default)]
    pub resource_templates: Vec<ResourceTemplate>,
    /// Where the next page starts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
}

/// The contents of a resource: text or base64 bytes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResourceContents {
    /// The resource's URI.
    pub uri: String,
    /// Media type.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// Text contents.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// Base64 contents.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub blob: Option<String>,
}

/// The answer to `resources/read`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ReadResourceResult {
    /// One or more contents (a directory may yield several).
    #[serde(default)]
    pub contents: Vec<ResourceContents>,
}

/// An argument a prompt takes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PromptArgument {
    /// Its name.
    pub name: String,
    /// What it is for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Whether it must be given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub required: Option<bool>,
}

/// A prompt template the server offers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Prompt {
    /// Its name.
    pub name: String,
    /// Human-readable name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What it does.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Its arguments.
    #[serde(default)]
    pub arguments: Vec<PromptArgument>,
}

/// A page of `prompts/list`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ListPromptsResult {
    /// The prompts on this page.
    #[serde(default)]
    pub prompts: Vec<Prompt>,
    /// Where the next page starts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
}

/// One message of a prompt.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PromptMessage {
    /// `user` or `assistant`.
    pub role: String,
    /// What it says.
    pub content: ContentBlock,
}

/// The answer to `prompts/get`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct GetPromptResult {
    /// What the prompt is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Its messages.
    #[serde(default)]
    pub messages: Vec<PromptMessage>,
}

/// What `completion/complete` completes: a prompt argument or a template variable.
#[derive(Debug, Clone, PartialEq)]
pub enum CompletionReference {
    /// `ref/prompt` with the prompt's name.
    Prompt(String),
    /// `ref/resource` with a URI template.
    Resource(String),
}

impl CompletionReference {
    /// As the `ref` JSON object.
    pub fn to_value(&self) -> Value {
        match self {
            CompletionReference::Prompt(name) => crate::protocol::object! {"type": "ref/prompt", "name": name.as_str()},
            CompletionReference::Resource(uri) => {
                crate::protocol::object! {"type": "ref/resource", "uri": uri.as_str()}
            }
        }
    }
}

/// Suggested values from `completion/complete`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Completion {
    /// Up to 100 values.
    #[serde(default)]
    pub values: Vec<String>,
    /// How many there are in all, if known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total: Option<u64>,
    /// Whether more exist than were returned.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub has_more: Option<bool>,
}

/// The answer to `completion/complete`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct CompleteResult {
    /// The completion.
    #[serde(default)]
    pub completion: Completion,
}

/// Log levels of `logging/setLevel` (RFC 5424 names).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum LoggingLevel {
    /// Debug.
    Debug,
    /// Info.
    Info,
    /// Notice.
    Notice,
    /// Warning.
    Warning,
    /// Error.
    Error,
    /// Critical.
    Critical,
    /// Alert.
    Alert,
    /// Emergency.
    Emergency,
}

impl LoggingLevel {
    /// Its name, as its `Serialize` writes it.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            LoggingLevel::Debug => "debug",
            LoggingLevel::Info => "info",
            LoggingLevel::Notice => "notice",
            LoggingLevel::Warning => "warning",
            LoggingLevel::Error => "error",
            LoggingLevel::Critical => "critical",
            LoggingLevel::Alert => "alert",
            LoggingLevel::Emergency => "emergency",
        }
    }
}

crate::protocol::objects::read_by_name!(LoggingLevel {
    Debug = "debug",
    Info = "info",
    Notice = "notice",
    Warning = "warning",
    Error = "error",
    Critical = "critical",
    Alert = "alert",
    Emergency = "emergency",
});

/// The params of `notifications/progress`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Progress {
    /// Which request this is about.
    pub progress_token: Value,
    /// How far along; increases with every notification.
    pub progress: f64,
    /// The total, if known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total: Option<f64>,
    /// A human-readable message (2025-03-26+).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

impl Progress {
    /// A progress notification's params, read by hand: it is the message
    /// that may come thousands of times a second, and its four members need
    /// no parser (nor a `Deserialize` copy for `Value`s in the wasm module).
    pub(crate) fn from_params(params: Value) -> Result<Progress, String> {
        let Value::Object(mut params) = params else {
            return Err("the params are not an object".into());
        };
        let number = |value: Option<&Value>, name: &str| match value {
            None | Some(Value::Null) => Ok(None),
            Some(value) => value.as_f64().map(Some).ok_or_else(|| format!("`{name}` is not a number")),
        };
        let progress_token = params.remove("progressToken").ok_or("missing field `progressToken`")?;
        let progress = number(params.get("progress"), "progress")?.ok_or("missing field `progress`")?;
        let total = number(params.get("total"), "total")?;
        let message = match params.remove("message") {
            None | Some(Value::Null) => None,
            Some(Value::String(message)) => Some(message),
            Some(_) => return Err("`message` is not a string".into()),
        };
        Ok(Progress { progress_token, progress, total, message })
    }
}

/// The params of `notifications/message` (a server log line).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LoggingMessage {
    /// Its level.
    pub level: LoggingLevel,
    /// Who logged it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub logger: Option<String>,
    /// Any JSON.
    #[serde(default)]
    pub data: Value,
}
