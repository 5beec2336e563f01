//! The one error type of the client API.

use std::time::Duration;

use crate::protocol::stateless::{UnsupportedVersionData, required_capabilities};
use crate::protocol::{ErrorObject, codes};
use crate::transport::TransportError;

/// Everything a client call can fail with.
///
/// Ask what kind of failure it is with the predicates ([`is_timeout`](Self::is_timeout),
/// [`is_auth`](Self::is_auth), [`is_connect`](Self::is_connect), [`rpc_code`](Self::rpc_code)...)
/// rather than by matching on the text. The message already includes the
/// text of every cause, so wrapped failures are transparent (their
/// [`source`](std::error::Error::source) is the wrapped error's own, not the
/// wrapped error): a chain reporter prints each cause once. The causes
/// themselves are reached typed, by [`transport_error`](Self::transport_error),
/// [`auth_error`](Self::auth_error) and [`rpc_error`](Self::rpc_error).
///
/// The server's [`ErrorObject`] is boxed in every variant that carries one:
/// it is the largest payload, and unboxed it made every `Result` of the
/// API 200 bytes natively (104 boxed).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The server answered with a JSON-RPC error.
    #[error("the server answered {method} with an error: {error}")]
    Rpc {
        /// The method that failed.
        method: String,
        /// The error the server sent.
        error: Box<ErrorObject>,
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
    #[error(
        "the server chose protocol version {}, which this client does not speak (offered {offered})",
        crate::debug::Quoted(.answered)
    )]
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
    /// A tool's `structuredContent` does not match the `outputSchema` it
    /// was listed with (see [`crate::ClientOptions::validate_structured_content`]).
    #[error(
        "the structured content of tool {} does not match its output schema at {error}",
        crate::debug::Quoted(.tool)
    )]
    InvalidStructuredContent {
        /// The tool.
        tool: String,
        /// Where and why.
        error: crate::protocol::schema::SchemaError,
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
    #[error("{}: not an MCP server (neither Streamable HTTP nor HTTP+SSE)", crate::debug::joined(.attempts, "; "))]
    NotMcpServer {
        /// The URL.
        url: String,
        /// What was tried and what each attempt got, in order.
        attempts: Vec<String>,
    },
    /// A stateless server does not speak the revision of the request
    /// (-32022). Raised only after the one corrective retry.
    #[error("the server does not speak protocol version {requested} (it supports {})", crate::debug::joined(.supported, ", "))]
    UnsupportedProtocolVersion {
        /// The method.
        method: String,
        /// The version the request declared.
        requested: String,
        /// The versions the server named.
        supported: Vec<String>,
        /// The server's error.
        error: Box<ErrorObject>,
    },
    /// A stateless server needs a client capability the request did not
    /// declare (-32021).
    #[error("the server needs client capabilities this client does not declare for {method}: {}", crate::protocol::JsonText(.required))]
    MissingClientCapability {
        /// The method.
        method: String,
        /// `data.requiredCapabilities`, as the server sent it.
        required: serde_json::Value,
        /// The server's error.
        error: Box<ErrorObject>,
    },
    /// A stateless HTTP server found the request headers missing, malformed
    /// or different from the body (-32020).
    #[error("the server rejected the request headers of {method}: {}", .error.message)]
    HeaderMismatch {
        /// The method.
        method: String,
        /// The server's error.
        error: Box<ErrorObject>,
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
        self.rpc_error().map(|error| error.code)
    }

    /// The JSON-RPC error the server answered with, whichever variant
    /// carries it (the stateless revision's codes have typed variants).
    pub fn rpc_error(&self) -> Option<&ErrorObject> {
        match self {
            Error::Rpc { error, .. }
            | Error::UnsupportedProtocolVersion { error, .. }
            | Error::MissingClientCapability { error, .. }
            | Error::HeaderMismatch { error, .. } => Some(error),
            _ => None,
        }
    }

    /// Whether the server answered with a JSON-RPC error
    /// ([`rpc_error`](Self::rpc_error) says which).
    pub fn is_rpc(&self) -> bool {
        self.rpc_error().is_some()
    }

    /// Whether something did not happen in time: a request with no answer
    /// ([`Error::Timeout`]) or a transport that gave up waiting.
    pub fn is_timeout(&self) -> bool {
        match self {
            Error::Timeout { .. } => true,
            Error::Transport(error) => error.is_timeout(),
            _ => false,
        }
    }

    /// Whether the request was cancelled (by the caller, or by the server
    /// cancelling its task).
    pub fn is_cancelled(&self) -> bool {
        matches!(self, Error::Cancelled { .. })
    }

    /// Whether authorization failed: an [`AuthError`](crate::auth::AuthError)
    /// at any depth. A bare HTTP 401/403 (no auth provider configured) is not
    /// one; see [`http_status`](Self::http_status).
    pub fn is_auth(&self) -> bool {
        self.auth_error().is_some()
    }

    /// The authorization failure, if this is one ([`is_auth`](Self::is_auth)).
    pub fn auth_error(&self) -> Option<&crate::auth::AuthError> {
        self.transport_error().and_then(TransportError::auth_error)
    }

    /// Whether the failure is below the protocol (the process, the network,
    /// the bytes, authorization): a [`TransportError`].
    pub fn is_transport(&self) -> bool {
        self.transport_error().is_some()
    }

    /// The transport's failure, if this is one ([`is_transport`](Self::is_transport)).
    pub fn transport_error(&self) -> Option<&TransportError> {
        match self {
            Error::Transport(error) => Some(error),
            _ => None,
        }
    }

    /// Whether the server could not be reached or started (the process did
    /// not spawn; DNS, refused connection, TLS, or in a browser maybe CORS).
    pub fn is_connect(&self) -> bool {
        self.transport_error().is_some_and(TransportError::is_connect)
    }

    /// Whether the connection is gone: closed by either side, or the server
    /// process exited.
    pub fn is_closed(&self) -> bool {
        self.transport_error().is_some_and(TransportError::is_closed)
    }

    /// Whether the server ended the session (HTTP 404 on a request that
    /// carried `Mcp-Session-Id`), after the engine's one new-session retry.
    pub fn is_session_expired(&self) -> bool {
        self.transport_error().is_some_and(TransportError::is_session_expired)
    }

    /// The HTTP status code of the server's refusal, when the failure was one.
    pub fn http_status(&self) -> Option<u16> {
        self.transport_error().and_then(TransportError::http_status)
    }
}

impl Error {
    /// The session loop is gone (the session was closed, detached or
    /// ended): what a request, a notification or a subscription that needed
    /// it fails with. One function for the five places that say it.
    pub(crate) fn session_ended() -> Error {
        Error::Transport(TransportError::Closed("the session has ended".into()))
    }

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

use crate::runtime::human_duration as human;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::auth::AuthError;

    fn rpc(code: i64) -> Error {
        Error::Rpc { method: "tools/call".into(), error: Box::new(ErrorObject::new(code, "nope")) }
    }

    #[test]
    fn a_json_rpc_error_is_rpc_and_nothing_else() {
        let error = rpc(-32601);
        assert!(error.is_rpc());
        assert_eq!(error.rpc_code(), Some(-32601));
        assert_eq!(error.rpc_error(), Some(&ErrorObject::new(-32601, "nope")));
        assert!(!error.is_transport() && !error.is_timeout() && !error.is_auth());
        assert_eq!(error.http_status(), None);
        let typed = rpc(codes::HEADER_MISMATCH).typed();
        assert!(matches!(typed, Error::HeaderMismatch { .. }));
        assert_eq!(typed.rpc_code(), Some(codes::HEADER_MISMATCH));
        assert!(typed.is_rpc());
    }

    #[test]
    fn timeouts_and_cancellations() {
        let timeout = Error::Timeout { method: "ping".into(), after: Duration::from_millis(50) };
        assert!(timeout.is_timeout() && !timeout.is_cancelled() && !timeout.is_rpc());
        assert_eq!(timeout.rpc_code(), None);
        let cancelled = Error::Cancelled { method: "ping".into(), reason: None };
        assert!(cancelled.is_cancelled() && !cancelled.is_timeout());
    }

    #[test]
    fn transport_failures_are_seen_through_the_wrapper() {
        let refused = Error::from(TransportError::Io("connection refused".into()));
        assert!(refused.is_transport() && refused.is_connect() && !refused.is_closed());
        #[cfg(not(target_arch = "wasm32"))]
        {
            let exited = Error::from(TransportError::ProcessExited { status: "signal 9".into(), stderr_tail: vec![] });
            assert!(exited.is_closed() && !exited.is_connect());
        }
        let expired = Error::from(TransportError::SessionExpired);
        assert!(expired.is_session_expired() && expired.is_transport());
        let refusal = Error::from(TransportError::Http { status: 403, message: "Forbidden".into() });
        assert_eq!(refusal.http_status(), Some(403));
        assert!(!refusal.is_auth());
        let auth = Error::from(TransportError::Auth(AuthError::Config("no client_id".into())));
        assert!(auth.is_auth() && auth.is_transport() && !auth.is_connect());
        assert_eq!(auth.auth_error(), Some(&AuthError::Config("no client_id".into())));
        assert!(!Error::NotInitialized.is_transport());
        assert!(!Error::NotInitialized.is_session_expired());
    }
}
