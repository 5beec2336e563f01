//! The vocabulary and messages of revision 2026-07-28 (the stateless
//! revision): no `initialize`, no session; every request carries its own
//! `_meta`, results say what they are with `resultType`, change
//! notifications come on `subscriptions/listen` streams.
//!
//! Pure data, like the rest of [`crate::protocol`]: results are read
//! leniently (unknown fields are ignored, a field of the wrong type reads
//! as absent), and what the server means to get back unread
//! (`requestState`) is kept as the raw value it sent, to be echoed as is.
//! Method names are in [`super::methods`], error codes in [`super::codes`].

pub(crate) mod cache;
pub(crate) mod discover;
pub(crate) mod headers;
pub(crate) mod listen;
pub(crate) mod result;
// The vocabulary is here either way; only the engine's use of it is behind
// the `tasks` feature.
#[cfg_attr(not(feature = "tasks"), allow(dead_code))]
pub(crate) mod tasks;

use serde_json::Value;

pub use cache::{CacheHint, CacheScope};
pub use discover::DiscoverResult;
pub use headers::ParamHeader;
pub use listen::ListenFilter;
pub use result::{InputRequired, ResultType};
#[cfg_attr(not(feature = "tasks"), allow(unused_imports))]
pub use tasks::Task;

use super::ErrorObject;

/// The `_meta` keys of the stateless revision.
pub mod meta {
    /// The revision the request is written in.
    pub const PROTOCOL_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
    /// The client's capabilities, per request.
    pub const CLIENT_CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";
    /// Who the client is.
    pub const CLIENT_INFO: &str = "io.modelcontextprotocol/clientInfo";
    /// The least severe log message wanted on this request's stream.
    pub const LOG_LEVEL: &str = "io.modelcontextprotocol/logLevel";
    /// Who the server is (on results).
    pub const SERVER_INFO: &str = "io.modelcontextprotocol/serverInfo";
    /// The `subscriptions/listen` request a notification belongs to.
    pub const SUBSCRIPTION_ID: &str = "io.modelcontextprotocol/subscriptionId";
}

/// What a -32022 ([`super::codes::UNSUPPORTED_PROTOCOL_VERSION`]) says in
/// its `data`: the revisions the server speaks and the one it was asked
/// for (empty when absent).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct UnsupportedVersionData {
    /// `data.supported`.
    pub supported: Vec<String>,
    /// `data.requested`.
    pub requested: String,
}

impl UnsupportedVersionData {
    /// Reads the error's `data` leniently.
    pub fn of(error: &ErrorObject) -> Self {
        let data = error.data.as_ref();
        UnsupportedVersionData {
            supported: super::version::supported_versions(data.and_then(|d| d.get("supported"))),
            requested: data.and_then(|d| d.get("requested")).and_then(Value::as_str).unwrap_or_default().to_owned(),
        }
    }
}

/// `data.requiredCapabilities` of a -32021
/// ([`super::codes::MISSING_REQUIRED_CLIENT_CAPABILITY`]), as the server
/// sent it (`null` when absent).
pub fn required_capabilities(error: &ErrorObject) -> Value {
    error.data.as_ref().and_then(|d| d.get("requiredCapabilities")).cloned().unwrap_or(Value::Null)
}
