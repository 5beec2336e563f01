//! What goes wrong with a legacy HTTP+SSE connection, in words a user can
//! act on.

use std::time::Duration;

use super::super::TransportError;
use crate::auth::AuthError;
use crate::cause::Cause;

/// Why a legacy HTTP+SSE connection could not be opened or kept.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum LegacyError {
    /// The SSE URL is not an absolute http(s) URL.
    #[error("{} is not an http:// or https:// URL: {reason}", crate::debug::Quoted(.url))]
    InvalidUrl {
        /// The URL.
        url: String,
        /// What is wrong with it.
        reason: String,
    },
    /// The GET was answered with something other than an event stream.
    #[error("{}: not an HTTP+SSE event stream", attempt_answered(.url, *.status, .media_type.as_deref(), .detail))]
    NotAnEventStream {
        /// The SSE URL.
        url: String,
        /// The status code.
        status: u16,
        /// The media type of the answer, if it had one.
        media_type: Option<String>,
        /// The start of the body, or the server's error message.
        detail: String,
    },
    /// The stream's first event was not `endpoint`.
    #[error("GET {url} opened an event stream whose first event is `{event}`, not `endpoint`: not an HTTP+SSE server")]
    NoEndpoint {
        /// The SSE URL.
        url: String,
        /// The type of the first event.
        event: String,
    },
    /// The `endpoint` event's data is not a usable URI reference.
    #[error(
        "the server at {url} named {} as its message endpoint, which is not a usable URI: {reason}",
        crate::debug::Quoted(.endpoint)
    )]
    InvalidEndpoint {
        /// The SSE URL.
        url: String,
        /// The event's data.
        endpoint: String,
        /// What is wrong with it.
        reason: String,
    },
    /// The `endpoint` event names another origin (scheme, host, port) than
    /// the SSE URL's. Messages are never sent there: a server must not be
    /// able to redirect them elsewhere.
    #[error(
        "the server at {url} named {endpoint} as its message endpoint, which is on another origin; \
         refusing to send messages there"
    )]
    ForeignEndpoint {
        /// The SSE URL.
        url: String,
        /// The resolved endpoint.
        endpoint: String,
    },
    /// No `endpoint` event in time.
    #[error("GET {url} sent no `endpoint` event within {}", human(*.after))]
    Timeout {
        /// The SSE URL.
        url: String,
        /// How long we waited.
        after: Duration,
    },
    /// The GET got no answer (network, DNS, TLS, CORS).
    #[error("GET {url} failed: {reason}")]
    Unreachable {
        /// The SSE URL.
        url: String,
        /// Why; its [`source`](std::error::Error::source) is the HTTP error,
        /// when there was one.
        #[source]
        reason: Cause,
    },
    /// The stream dropped and could not be reopened.
    #[error(
        "the event stream from {url} dropped and could not be re-established after {attempts} attempts (last: {last})"
    )]
    StreamLost {
        /// The SSE URL.
        url: String,
        /// Attempts made.
        attempts: u32,
        /// What the last attempt got.
        last: String,
    },
    /// Authorization failed (OAuth discovery, registration, consent, tokens).
    #[error(transparent)]
    Auth(AuthError),
    /// The transport was closed.
    #[error("the connection is closed")]
    Closed,
}

impl LegacyError {
    /// What the GET got, in a few words, for "what was tried" messages:
    /// `GET http://host/sse answered 404 text/html`.
    pub fn attempt(&self) -> String {
        match self {
            LegacyError::NotAnEventStream { url, status, media_type, .. } => {
                attempt_answered(url, *status, media_type.as_deref(), "")
            }
            other => other.to_string(),
        }
    }
}

fn attempt_answered(url: &str, status: u16, media_type: Option<&str>, detail: &str) -> String {
    let mut text = format!("GET {url} answered {status}");
    if let Some(media) = media_type {
        text.push(' ');
        text.push_str(media);
    }
    if !detail.is_empty() {
        text.push_str(&format!(" ({detail})"));
    }
    text
}

pub(super) use crate::runtime::human_duration as human;

impl From<LegacyError> for TransportError {
    fn from(error: LegacyError) -> Self {
        match error {
            // An HTTP refusal keeps its status, so 401/403 reach whoever
            // handles authorization.
            LegacyError::NotAnEventStream { status, .. } if !(200..300).contains(&status) => {
                TransportError::Http { status, message: error.to_string() }
            }
            LegacyError::Closed => TransportError::Closed("the transport is closed".into()),
            LegacyError::Unreachable { .. } => TransportError::Io(Cause::of(error)),
            LegacyError::Auth(error) => TransportError::Auth(error),
            other => TransportError::Legacy(other),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SSE: &str = "http://127.0.0.1:3001/sse";

    #[test]
    fn the_refusal_says_what_the_get_got() {
        let error = LegacyError::NotAnEventStream {
            url: SSE.into(),
            status: 404,
            media_type: Some("text/html".into()),
            detail: "Cannot GET /sse".into(),
        };
        assert_eq!(error.attempt(), format!("GET {SSE} answered 404 text/html"));
        assert_eq!(
            error.to_string(),
            format!("GET {SSE} answered 404 text/html (Cannot GET /sse): not an HTTP+SSE event stream")
        );
        assert!(matches!(TransportError::from(error), TransportError::Http { status: 404, .. }));
    }
}
