//! Content blocks: text, images, audio, links and embedded resources, with
//! blocks of unknown types kept whole.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::ResourceContents;

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
                .and_then(|r| crate::protocol::raw::from_value::<ResourceContents>(r).ok())
                .map(|resource| ContentBlock::Resource { resource }),
            _ => None,
        };
        parsed.unwrap_or(ContentBlock::Unknown(value))
    }

    /// The block as JSON.
    pub fn to_value(&self) -> Value {
        use crate::protocol::object;
        match self {
            ContentBlock::Text { text } => object! {"type": "text", "text": text.as_str()},
            ContentBlock::Image { data, mime_type } => {
                object! {"type": "image", "data": data.as_str(), "mimeType": mime_type.as_str()}
            }
            ContentBlock::Audio { data, mime_type } => {
                object! {"type": "audio", "data": data.as_str(), "mimeType": mime_type.as_str()}
            }
            ContentBlock::ResourceLink { uri, name, mime_type } => {
                let mut v = object! {"type": "resource_link", "uri": uri.as_str(), "name": name.as_str()};
                if let Some(m) = mime_type {
                    v["mimeType"] = Value::from(m.as_str());
                }
                v
            }
            ContentBlock::Resource { resource } => {
                // A typed `ResourceContents`: the typed API's path, not the JS face's.
                let resource = serde_json::to_value(resource).unwrap_or(Value::Null);
                object! {"type": "resource", "resource": resource}
            }
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
