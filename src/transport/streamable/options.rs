//! How a Streamable HTTP connection is configured, and how its broken
//! streams are resumed.

use std::sync::Arc;
use std::time::Duration;

use crate::auth::AuthProvider;

/// How broken streams are resumed.
#[derive(Debug, Clone, PartialEq)]
pub struct ReconnectPolicy {
    /// Consecutive failed attempts before giving up.
    pub max_attempts: u32,
    /// The first delay when the server sent no `retry`.
    pub initial_delay: Duration,
    /// The longest delay.
    pub max_delay: Duration,
    /// How much each failed attempt multiplies the delay.
    pub factor: f64,
}

impl Default for ReconnectPolicy {
    fn default() -> Self {
        ReconnectPolicy {
            max_attempts: 5,
            initial_delay: Duration::from_millis(500),
            max_delay: Duration::from_secs(30),
            factor: 2.0,
        }
    }
}

impl ReconnectPolicy {
    /// The wait before attempt `attempt` (1-based). The server's `retry`
    /// wins; otherwise capped exponential backoff with ±20% jitter, so many
    /// clients cut at once do not come back at once.
    pub fn delay(&self, attempt: u32, server_retry: Option<Duration>) -> Duration {
        if let Some(retry) = server_retry {
            return retry;
        }
        // The factor to the power attempt - 1 (at most 30), multiplied out:
        // `powi` is a library routine of its own in the wasm.
        let mut base = self.initial_delay.as_secs_f64();
        for _ in 0..attempt.saturating_sub(1).min(30) {
            base *= self.factor;
        }
        let capped = base.min(self.max_delay.as_secs_f64());
        let jitter = 0.8 + 0.4 * crate::runtime::random_unit();
        crate::runtime::duration_from_millis((capped * jitter).min(self.max_delay.as_secs_f64()) * 1000.0)
    }
}

/// Configuration of a Streamable HTTP connection.
#[derive(Debug, Clone)]
pub struct StreamableHttpOptions {
    /// The MCP endpoint.
    pub url: String,
    /// Extra headers sent with every request (after the protocol's own).
    pub headers: Vec<(String, String)>,
    /// How broken streams are resumed.
    pub reconnect: ReconnectPolicy,
    /// Whether the standalone GET stream may be opened at all.
    pub open_server_stream: bool,
    /// Open it only when the engine says something needs it (a listener,
    /// a subscription, a server-request handler) rather than right after
    /// the handshake. Off here (a transport made by hand keeps the eager
    /// stream); [`crate::connect_url`] turns it on unless
    /// `ConnectOptions::eager_server_stream`.
    pub lazy_server_stream: bool,
    /// The largest JSON body or SSE event accepted.
    pub max_message_bytes: usize,
    /// Authorization (OAuth): credentials on every request, the flow on 401,
    /// step-up on 403 `insufficient_scope`.
    pub auth: Option<Arc<dyn AuthProvider>>,
}

impl StreamableHttpOptions {
    /// Defaults for this endpoint.
    pub fn new(url: impl Into<String>) -> Self {
        StreamableHttpOptions {
            url: url.into(),
            headers: Vec::new(),
            reconnect: ReconnectPolicy::default(),
            open_server_stream: true,
            lazy_server_stream: false,
            max_message_bytes: 16 * 1024 * 1024,
            auth: None,
        }
    }

    /// Authorizes every request through `provider` (e.g. [`crate::auth::OAuthProvider`]).
    pub fn with_auth(mut self, provider: impl AuthProvider) -> Self {
        self.auth = Some(Arc::new(provider));
        self
    }

    /// Adds a header to every request.
    pub fn header(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.headers.push((name.into(), value.into()));
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn server_retry_wins_over_backoff() {
        let policy = ReconnectPolicy::default();
        assert_eq!(policy.delay(3, Some(Duration::from_millis(1234))), Duration::from_millis(1234));
    }

    #[test]
    fn backoff_grows_and_is_capped() {
        let policy = ReconnectPolicy::default();
        for attempt in 1..40 {
            let delay = policy.delay(attempt, None);
            assert!(delay <= policy.max_delay, "attempt {attempt}: {delay:?}");
            assert!(delay >= policy.initial_delay.mul_f64(0.8), "attempt {attempt}: {delay:?}");
        }
        assert!(policy.delay(4, None) > policy.delay(1, None));
    }
}
