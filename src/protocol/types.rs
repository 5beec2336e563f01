//! The MCP types a client sends and receives, 2024-11-05 to 2025-11-25.
//!
//! Parsing is lenient: every field a revision added later is optional, and
//! unknown fields are ignored (the schema's objects are open). Content blocks
//! of a type this client does not know are kept whole as [`ContentBlock::Unknown`]
//! rather than failing the whole result.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// A JSON object.
pub type JsonObject = Map<String, Value>;

/// Name and version of a client or server (`Implementation`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Implementation {
    /// Programmatic name.
    pub name: String,
    /// Version string.
    #[serde(default)]
    pub version: String,
    /// Human-readable name (2025-06-18+).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Description (2025-11-25+).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Home page (2025-11-25+).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub website_url: Option<String>,
}

impl Implementation {
    /// A name and a version.
    pub fn new(name: impl Into<String>, version: impl Into<String>) -> Self {
        Implementation { name: name.into(), version: version.into(), ..Default::default() }
    }
}

/// What the server offers. Each field is present when the server declared it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ServerCapabilities {
    /// `prompts{listChanged?}`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompts: Option<JsonObject>,
    /// `resources{subscribe?, listChanged?}`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resources: Option<JsonObject>,
    /// `tools{listChanged?}`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools: Option<JsonObject>,
    /// `logging{}`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub logging: Option<JsonObject>,
    /// `completions{}` (2025-03-26+).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub completions: Option<JsonObject>,
    /// `tasks{...}` (2025-11-25, experimental).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tasks: Option<JsonObject>,
    /// `experimental{...}`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub experimental: Option<JsonObject>,
    /// `extensions{"<prefix>/<name>": {settings}}` (2026-07-28), e.g.
    /// `io.modelcontextprotocol/tasks`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extensions: Option<JsonObject>,
}

impl ServerCapabilities {
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
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct InitializeResult {
    /// The version the server chose.
    pub protocol_version: String,
    /// What the server offers.
    #[serde(default)]
    pub capabilities: ServerCapabilities,
    /// The server's name and version.
    #[serde(default)]
    pub server_info: Implementation,
    /// Hints for the model's system prompt (2025-03-26+).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instructions: Option<String>,
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
    serde_json::json!({"type": "object"})
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

/// Text, an image, audio, a link or an embedded resource.
#[derive(Debug, Clone, PartialEq)]
pub enum ContentBlock {
    /// `{type: "text", text}`.
    Text {
        /// The text.
        text: String,
    },
    /// `{type: "image", data, mimeType}`, base64 data.
    Image {
        /// Base64 bytes.
        data: String,
        /// Media type.
        mime_type: String,
    },
    /// `{type: "audio", data, mimeType}` (2025-03-26+).
    Audio {
        /// Base64 bytes.
        data: String,
        /// Media type.
        mime_type: String,
    },
    /// `{type: "resource_link", uri, name, ...}` (2025-06-18+).
    ResourceLink {
        /// The resource's URI.
        uri: String,
        /// Its name.
        name: String,
        /// Its media type, if known.
        mime_type: Option<String>,
    },
    /// `{type: "resource", resource}`: an embedded resource.
    Resource {
        /// The embedded contents.
        resource: ResourceContents,
    },
    /// A block of a type this client does not know, kept whole.
    Unknown(Value),
}

impl ContentBlock {
    /// A text block.
    pub fn text(text: impl Into<String>) -> Self {
        ContentBlock::Text { text: text.into() }
    }

    /// Reads a block from JSON; anything unrecognised becomes `Unknown`.
    pub fn from_value(value: Value) -> Self {
        fn str_field(v: &Value, key: &str) -> Option<String> {
            v.get(key).and_then(Value::as_str).map(str::to_owned)
        }
        let kind = value.get("type").and_then(Value::as_str).unwrap_or_default();
        let parsed = match kind {
            "text" => str_field(&value, "text").map(|text| ContentBlock::Text { text }),
            "image" | "audio" => match (str_field(&value, "data"), str_field(&value, "mimeType")) {
                (Some(data), Some(mime_type)) if kind == "image" => Some(ContentBlock::Image { data, mime_type }),
                (Some(data), Some(mime_type)) => Some(ContentBlock::Audio { data, mime_type }),
                _ => None,
            },
            "resource_link" => str_field(&value, "uri").map(|uri| ContentBlock::ResourceLink {
                name: str_field(&value, "name").unwrap_or_default(),
                mime_type: str_field(&value, "mimeType"),
                uri,
            }),
            "resource" => value
                .get("resource")
                .and_then(|r| ResourceContents::deserialize(r).ok())
                .map(|resource| ContentBlock::Resource { resource }),
            _ => None,
        };
        parsed.unwrap_or(ContentBlock::Unknown(value))
    }

    /// The block as JSON.
    pub fn to_value(&self) -> Value {
        use serde_json::json;
        match self {
            ContentBlock::Text { text } => json!({"type": "text", "text": text}),
            ContentBlock::Image { data, mime_type } => json!({"type": "image", "data": data, "mimeType": mime_type}),
            ContentBlock::Audio { data, mime_type } => json!({"type": "audio", "data": data, "mimeType": mime_type}),
            ContentBlock::ResourceLink { uri, name, mime_type } => {
                let mut v = json!({"type": "resource_link", "uri": uri, "name": name});
                if let Some(m) = mime_type {
                    v["mimeType"] = json!(m);
                }
                v
            }
            ContentBlock::Resource { resource } => json!({"type": "resource", "resource": resource}),
            ContentBlock::Unknown(v) => v.clone(),
        }
    }
}

impl Serialize for ContentBlock {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.to_value().serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for ContentBlock {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Value::deserialize(deserializer).map(ContentBlock::from_value)
    }
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
            CompletionReference::Prompt(name) => serde_json::json!({"type": "ref/prompt", "name": name}),
            CompletionReference::Resource(uri) => serde_json::json!({"type": "ref/resource", "uri": uri}),
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
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
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

/// A root the client exposes to the server (`roots/list`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Root {
    /// A `file://` URI.
    pub uri: String,
    /// A display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
}

/// The answer to `roots/list`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ListRootsResult {
    /// The roots.
    pub roots: Vec<Root>,
}

/// A message in a sampling conversation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SamplingMessage {
    /// `user` or `assistant`.
    pub role: String,
    /// One block, or (2025-11-25) an array of blocks; kept as JSON.
    pub content: Value,
}

/// The params of `sampling/createMessage`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CreateMessageParams {
    /// The conversation so far.
    pub messages: Vec<SamplingMessage>,
    /// Preferences for the model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model_preferences: Option<Value>,
    /// A system prompt.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub system_prompt: Option<String>,
    /// Context to include (soft-deprecated in 2025-11-25).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub include_context: Option<String>,
    /// Sampling temperature.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub temperature: Option<f64>,
    /// Maximum tokens to sample.
    #[serde(default)]
    pub max_tokens: u64,
    /// Stop sequences.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop_sequences: Option<Vec<String>>,
    /// Tools the model may call (2025-11-25).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools: Option<Value>,
    /// Everything else, as sent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Value>,
}

/// The answer to `sampling/createMessage`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CreateMessageResult {
    /// Usually `assistant`.
    pub role: String,
    /// The sampled content.
    pub content: Value,
    /// Which model answered.
    pub model: String,
    /// Why sampling stopped (`endTurn`, `stopSequence`, `maxTokens`, ...).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop_reason: Option<String>,
}

/// The params of `elicitation/create`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ElicitParams {
    /// `form` (default) or `url` (2025-11-25).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<String>,
    /// What to ask the user.
    #[serde(default)]
    pub message: String,
    /// Form mode: a flat JSON Schema object of primitive fields.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub requested_schema: Option<Value>,
    /// URL mode: the page to send the user to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// URL mode: the id to match `notifications/elicitation/complete`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub elicitation_id: Option<String>,
}

/// How the user answered an elicitation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ElicitAction {
    /// Submitted (with content in form mode).
    Accept,
    /// Explicitly said no.
    Decline,
    /// Dismissed without choosing.
    Cancel,
}

/// The answer to `elicitation/create`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ElicitResult {
    /// What the user did.
    pub action: ElicitAction,
    /// Form values, when accepted in form mode.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<JsonObject>,
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
