//! The one error type of the client API.

use std::time::Duration;

use crate::protocol::stateless::{UnsupportedVersionData, required_capabilities};
use crate::protocol::{ErrorObject, codes};
use crate::transport::TransportError;

/// Everything a client call can fail with.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The server answered with a JSON-RPC error.
    #[error("the server answered {method} with an error: {error}")]
    Rpc {
        /// The method that failed.
        method: String,
        /// The error the server sent.
        error: ErrorObject,
    },
    /// No answer in time. The server was told: `notifications/cancelled`
    /// (except for `initialize`; stateless HTTP: the exchange was ended), or
    /// `tasks/cancel` for a task that ran past its deadline.
    #[error("{method} timed out after {}", human(*.after))]
    Timeout {
        /// The method that timed out.
        method: String,
        /// How long we waited.
        after: Duration,
    },
    /// The caller cancelled the request.
    #[error("{method} was cancelled{}", .reason.as_ref().map(|r| format!(": {r}")).unwrap_or_default())]
    Cancelled {
        /// The method that was cancelled.
        method: String,
        /// Why, if the caller said.
        reason: Option<String>,
    },
    /// The server chose a protocol version this client does not speak.
    #[error("the server chose protocol version {answered:?}, which this client does not speak (offered {offered})")]
    UnsupportedVersion {
        /// What we offered.
        offered: String,
        /// What it answered.
        answered: String,
    },
    /// The server did not declare the capability this call needs.
    #[error("the server does not offer {capability} (needed for {method})")]
    CapabilityMissing {
        /// The capability, e.g. `tools` or `resources.subscribe`.
        capability: String,
        /// The method that needs it.
        method: String,
    },
    /// The server's answer does not have the shape the protocol requires.
    #[error("the server's answer to {method} is malformed: {reason}")]
    InvalidResult {
        /// The method.
        method: String,
        /// What is wrong.
        reason: String,
    },
    /// A call before `initialize` completed, or after the handshake failed.
    #[error("the session is not initialized")]
    NotInitialized,
    /// The transport failed.
    #[error(transparent)]
    Transport(#[from] TransportError),
    /// The caller passed something unusable.
    #[error("invalid argument: {0}")]
    InvalidArgument(String),
    /// Nothing at this URL speaks MCP over HTTP: neither Streamable HTTP nor
    /// the legacy HTTP+SSE transport answered.
    #[error("{}: not an MCP server (neither Streamable HTTP nor HTTP+SSE)", .attempts.join("; "))]
    NotMcpServer {
        /// The URL.
        url: String,
        /// What was tried and what each attempt got, in order.
        attempts: Vec<String>,
    },
    /// A stateless server does not speak the revision of the request
    /// (-32022). Raised only after the one corrective retry.
    #[error("the server does not speak protocol version {requested} (it supports {})", .supported.join(", "))]
    UnsupportedProtocolVersion {
        /// The method.
        method: String,
        /// The version the request declared.
        requested: String,
        /// The versions the server named.
        supported: Vec<String>,
        /// The server's error.
        error: ErrorObject,
    },
    /// A stateless server needs a client capability the request did not
    /// declare (-32021).
    #[error("the server needs client capabilities this client does not declare for {method}: {required}")]
    MissingClientCapability {
        /// The method.
        method: String,
        /// `data.requiredCapabilities`, as the server sent it.
        required: serde_json::Value,
        /// The server's error.
        error: ErrorObject,
    },
    /// A stateless HTTP server found the request headers missing, malformed
    /// or different from the body (-32020).
    #[error("the server rejected the request headers of {method}: {}", .error.message)]
    HeaderMismatch {
        /// The method.
        method: String,
        /// The server's error.
        error: ErrorObject,
    },
    /// A multi round-trip request still needed input after the most rounds
    /// allowed.
    #[error("{method} still needed input after {rounds} rounds")]
    TooManyRounds {
        /// The method.
        method: String,
        /// How many rounds were sent.
        rounds: usize,
    },
    /// The call does not exist in the era this server speaks (e.g.
    /// `resources/subscribe` with a stateless server).
    #[error("{method} is not part of protocol revision {version}{}", .hint.as_ref().map(|h| format!(": {h}")).unwrap_or_default())]
    NotInThisRevision {
        /// The method.
        method: String,
        /// The revision in use.
        version: String,
        /// What to use instead.
        hint: Option<String>,
    },
    /// The host cannot run the session.
    #[error(transparent)]
    Runtime(#[from] crate::runtime::SpawnError),
}

impl Error {
    /// The JSON-RPC error code, when the server sent one.
    pub fn rpc_code(&self) -> Option<i64> {
        match self {
            Error::Rpc { error, .. }
            | Error::UnsupportedProtocolVersion { error, .. }
            | Error::MissingClientCapability { error, .. }
            | Error::HeaderMismatch { error, .. } => Some(error.code),
            _ => None,
        }
    }
}

impl Error {
    /// The typed error for a JSON-RPC error whose code the stateless
    /// revision defines (-32020, -32021, -32022); any other error as it is.
    pub(crate) fn typed(self) -> Error {
        let Error::Rpc { method, error } = self else { return self };
        match error.code {
            codes::UNSUPPORTED_PROTOCOL_VERSION => {
                let UnsupportedVersionData { supported, requested } = UnsupportedVersionData::of(&error);
                Error::UnsupportedProtocolVersion { method, requested, supported, error }
            }
            codes::MISSING_REQUIRED_CLIENT_CAPABILITY => {
                let required = required_capabilities(&error);
                Error::MissingClientCapability { method, required, error }
            }
            codes::HEADER_MISMATCH => Error::HeaderMismatch { method, error },
            _ => Error::Rpc { method, error },
        }
    }
}

fn human(d: Duration) -> String {
    if d.as_millis() < 1000 { format!("{} ms", d.as_millis()) } else { format!("{:.1} s", d.as_secs_f64()) }
}
