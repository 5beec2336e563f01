//! How a legacy HTTP+SSE connection is configured.

use std::sync::Arc;
use std::time::Duration;

use super::super::streamable::ReconnectPolicy;
use crate::auth::AuthProvider;

/// Configuration of a legacy HTTP+SSE connection.
#[derive(Debug, Clone)]
pub struct LegacySseOptions {
    /// The SSE URL (the one the user gives).
    pub url: String,
    /// Extra headers sent with every request. In a browser, any header makes
    /// the stream use `fetch` instead of `EventSource`.
    pub headers: Vec<(String, String)>,
    /// How a dropped stream is reopened.
    pub reconnect: ReconnectPolicy,
    /// How long opening the stream may take, up to its `endpoint` event; also
    /// how long a message waits for an endpoint while the stream reconnects.
    pub connect_timeout: Duration,
    /// How long one POST may take until the server accepts it.
    pub post_timeout: Duration,
    /// The largest SSE event accepted.
    pub max_message_bytes: usize,
    /// In a browser with no extra header, read the stream with the browser's
    /// `EventSource` when there is one (on by default). Off: always `fetch`.
    /// Ignored natively, and off whenever `auth` is set.
    pub use_event_source: bool,
    /// Authorization (OAuth): credentials on the GET and every POST, the
    /// flow on 401, step-up on 403 `insufficient_scope`.
    pub auth: Option<Arc<dyn AuthProvider>>,
}

impl LegacySseOptions {
    /// Defaults for this SSE URL.
    pub fn new(url: impl Into<String>) -> Self {
        LegacySseOptions {
            url: url.into(),
            headers: Vec::new(),
            reconnect: ReconnectPolicy::default(),
            connect_timeout: Duration::from_secs(30),
            post_timeout: Duration::from_secs(60),
            max_message_bytes: 16 * 1024 * 1024,
            use_event_source: true,
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
