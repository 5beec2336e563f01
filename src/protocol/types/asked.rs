//! What a server asks of the client: roots, sampling, elicitation (the
//! params it sends and the answers it gets).

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::JsonObject;
use crate::protocol::fields::{Fields, deserialize_by_fields};

/// A root the client exposes to the server (`roots/list`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Root {
    /// A `file://` URI.
    pub uri: String,
    /// A display name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
}

deserialize_by_fields!(Root);

impl Root {
    pub(crate) fn from_fields(fields: &mut Fields) -> Result<Self, String> {
        let value = Root { uri: fields.required_string("uri"), name: fields.string("name") };
        fields.done(value)
    }

    /// As JSON, the same as its `Serialize` writes it, built by hand: the
    /// wasm needs no serializer for it (see `protocol::object!`).
    pub(crate) fn to_value(&self) -> Value {
        let mut object = crate::protocol::object! { "uri": self.uri.as_str() };
        if let Some(name) = &self.name {
            object["name"] = Value::from(name.as_str());
        }
        object
    }
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
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ElicitAction {
    /// Submitted (with content in form mode).
    Accept,
    /// Explicitly said no.
    Decline,
    /// Dismissed without choosing.
    Cancel,
}

crate::protocol::objects::read_by_name!(ElicitAction {
    Accept = "accept",
    Decline = "decline",
    Cancel = "cancel",
});

/// The answer to `elicitation/create`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ElicitResult {
    /// What the user did.
    pub action: ElicitAction,
    /// Form values, when accepted in form mode.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<JsonObject>,
}
