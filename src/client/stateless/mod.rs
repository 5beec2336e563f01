//! The stateless engine (revision 2026-07-28) beside the handshake one.
//!
//! Both run over the same [`super::Driver`] and transport; what differs is
//! what goes on the wire. Here every request carries its own `_meta`
//! (protocol version, client capabilities, client info, log level when
//! asked), HTTP requests carry the request-metadata headers, results are
//! read by `resultType`, and `tools/call`, `prompts/get` and
//! `resources/read` run the multi round-trip loop: an `input_required`
//! result is answered by the same handlers that answer server requests in
//! the handshake era, and the request is sent again, with a new id, the
//! responses and the server's `requestState` echoed byte for byte.
//!
//! [`Client::request`] switches to `Client::stateless_request` once the
//! era is known; the typed calls in `api.rs` do not know which ran.
//!
//! Here: the engine's state, the `_meta` and headers every request
//! carries, `server/discover`. The request loop is in `request.rs`,
//! `subscriptions/listen` in `listen.rs` (and the listens kept for
//! `resources/subscribe` in `kept.rs`), the result cache in `cache.rs`,
//! tasks in `tasks.rs`. The wire vocabulary is [`crate::protocol::stateless`].

mod cache;
mod kept;
mod listen;
mod request;
#[cfg(feature = "tasks")]
mod tasks;

pub(crate) use kept::StopOnDrop;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Map, Value};

use super::driver::Command;
use super::{Client, Error, NotificationListener, RequestOptions};
use crate::client::Negotiated;
#[cfg(feature = "tasks")]
use crate::protocol::stateless::tasks::extension_capability;
use crate::protocol::stateless::{DiscoverResult, ParamHeader, headers, meta};
use crate::protocol::types::LoggingLevel;
use crate::protocol::version::newest_stateless;
use crate::protocol::{Era, ErrorObject, Notification, ProtocolVersion, codes, methods, object};

/// A stateless request's params, `_meta` stamped, and its HTTP headers.
pub(crate) type StampedMessage = (Map<String, Value>, Vec<(String, String)>);

/// The tools' header annotations by tool name: only tools with annotations
/// are kept, in a `Keyed` (a list of 10,000 tools may all have them).
type ToolHeaders = crate::hash::Keyed<Vec<ParamHeader>>;

/// The stateless engine's state, held by the client.
#[derive(Default)]
pub(crate) struct StatelessState {
    /// The `x-mcp-header` annotations of every tool listed so far.
    tool_headers: ToolHeaders,
    /// Set by `logging/setLevel`: stamped on every later request.
    log_level: Option<LoggingLevel>,
    pub(crate) discovery: Option<DiscoverResult>,
    /// When `discovery` was received (milliseconds since the epoch).
    pub(crate) discovered_at: Option<f64>,
    /// Results the server said stay fresh for a while (`ttlMs`).
    pub(crate) cache: cache::ResultCache,
}

impl StatelessState {
    /// The tools whose calls carry `Mcp-Param-*` headers, for a snapshot.
    pub(crate) fn tool_headers_to_keep(&self) -> std::collections::HashMap<String, Vec<ParamHeader>> {
        let mut kept = std::collections::HashMap::new();
        for (name, headers) in self.tool_headers.iter() {
            if !headers.is_empty() {
                kept.insert(name.clone(), headers.clone());
            }
        }
        kept
    }

    /// Takes back what [`Self::tool_headers_to_keep`] gave (a restored client).
    pub(crate) fn keep_tool_headers(&mut self, kept: &std::collections::HashMap<String, Vec<ParamHeader>>) {
        for (name, headers) in kept {
            self.tool_headers.insert(name.clone(), headers.clone());
        }
    }

    /// The state of a new client, and the listener that must come first of
    /// all its listeners (so before anyone else hears of it): change
    /// notifications make cached results stale.
    pub(crate) fn shared() -> (Arc<Mutex<StatelessState>>, NotificationListener) {
        let state = Arc::new(Mutex::new(StatelessState::default()));
        let invalidated = Arc::clone(&state);
        let invalidator = Arc::new(move |notification: &Notification| {
            let mut state = invalidated.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
            state.cache.invalidate(notification);
        });
        (state, invalidator)
    }
}

/// The error for a server that names no stateless revision this client speaks.
pub(crate) fn no_mutual_version(supported: &[String]) -> Error {
    Error::UnsupportedProtocolVersion {
        method: methods::SERVER_DISCOVER.into(),
        requested: ProtocolVersion::LATEST_STATELESS.as_str().into(),
        supported: supported.to_vec(),
        error: Box::new(ErrorObject::new(
            codes::UNSUPPORTED_PROTOCOL_VERSION,
            "no protocol version in common with the server",
        )),
    }
}

impl Client {
    /// What the last `server/discover` said (stateless servers only).
    pub fn discovery(&self) -> Option<DiscoverResult> {
        self.stateless_state().discovery.clone()
    }

    pub(crate) fn stateless_state(&self) -> std::sync::MutexGuard<'_, StatelessState> {
        // Plain maps, never left half-written: a poisoned lock is usable.
        self.inner.stateless.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// The client capabilities in the stateless revision's shape: exactly
    /// what the registered handlers can answer as input requests.
    pub fn stateless_capabilities(&self) -> Value {
        let options = &self.inner.options;
        let mut capabilities = Map::new();
        if options.handlers.contains_key(methods::ROOTS_LIST) {
            capabilities.insert("roots".into(), object! {});
        }
        if options.handlers.contains_key(methods::SAMPLING_CREATE_MESSAGE) {
            capabilities.insert("sampling".into(), object! {});
        }
        if options.handlers.contains_key(methods::ELICITATION_CREATE) {
            let elicitation = if options.elicitation_url_mode {
                object! { "form": object! {}, "url": object! {} }
            } else {
                object! { "form": object! {} }
            };
            capabilities.insert("elicitation".into(), elicitation);
        }
        if let Some(experimental) = &options.experimental {
            capabilities.insert("experimental".into(), Value::Object(experimental.clone()));
        }
        #[cfg(feature = "tasks")]
        if options.tasks {
            capabilities.insert("extensions".into(), extension_capability());
        }
        Value::Object(capabilities)
    }

    /// `params` with the request `_meta` of revision `version`.
    fn stamp(&self, params: Option<Value>, version: ProtocolVersion) -> Result<Map<String, Value>, Error> {
        let capabilities = self.stateless_capabilities();
        let info = self.inner.options.client_info.to_value();
        let level = self.stateless_state().log_level;
        super::request::with_meta(params, |meta| {
            meta.insert(meta::PROTOCOL_VERSION.into(), Value::from(version.as_str()));
            meta.insert(meta::CLIENT_CAPABILITIES.into(), capabilities);
            meta.insert(meta::CLIENT_INFO.into(), info);
            if let Some(level) = level {
                meta.insert(meta::LOG_LEVEL.into(), Value::from(level.as_str()));
            }
        })
    }

    /// Sends one round: a fresh id, stamped `_meta`, the era's headers.
    async fn stateless_round(
        &self,
        method: &str,
        params: Map<String, Value>,
        version: ProtocolVersion,
        options: &mut RequestOptions,
    ) -> Result<Value, Error> {
        let (params, headers) = self.stateless_message(method, params, version)?;
        options.stateless_headers = Some(headers);
        let result = self.send_request(method, Some(Value::Object(params)), options).await.map_err(Error::typed)?;
        crate::client::request::to_value(method, &result)
    }

    /// A request's params with its `_meta`, and its HTTP headers.
    pub(crate) fn stateless_message(
        &self,
        method: &str,
        params: Map<String, Value>,
        version: ProtocolVersion,
    ) -> Result<StampedMessage, Error> {
        let params = self.stamp(Some(Value::Object(params)), version)?;
        let headers = match (method, params.get("name").and_then(Value::as_str)) {
            (methods::TOOLS_CALL, Some(name)) => {
                let state = self.stateless_state();
                let tool_headers = state.tool_headers.get(name).map(Vec::as_slice);
                headers::request_headers(version.as_str(), method, &params, tool_headers)
            }
            _ => headers::request_headers(version.as_str(), method, &params, None),
        };
        Ok((params, headers))
    }

    /// The options of a `server/discover` with this timeout, made once for
    /// every attempt of a loop.
    pub(crate) fn discover_options(&self, timeout: Option<Duration>) -> RequestOptions {
        // Like `initialize`, the first request may wait for a person to sign in.
        RequestOptions { timeout: timeout.or(self.inner.options.handshake_timeout), ..RequestOptions::default() }
    }

    /// `server/discover` at `version`, the result unread: the round's own
    /// future, not an `async fn` around it (one state machine less at each
    /// of its callers).
    pub(crate) fn send_discover<'a>(
        &'a self,
        version: ProtocolVersion,
        options: &'a mut RequestOptions,
    ) -> impl Future<Output = Result<Value, Error>> + 'a {
        self.stateless_round(methods::SERVER_DISCOVER, Map::new(), version, options)
    }

    /// Adopts a `server/discover` result: the server speaks `version`.
    pub(crate) fn adopt_discovery(&self, version: ProtocolVersion, result: Value) -> Result<Arc<Negotiated>, Error> {
        let discovered = DiscoverResult::of(result);
        let initialize = discovered
            .initialize_result(version)
            .map_err(|reason| Error::InvalidResult { method: methods::SERVER_DISCOVER.into(), reason })?;
        {
            let mut state = self.stateless_state();
            state.discovery = Some(discovered);
            state.discovered_at = Some(crate::runtime::now_millis());
        }
        let negotiated = Arc::new(Negotiated { version, result: initialize });
        self.command(Command::Stateless)?;
        let mut state = self.state();
        state.negotiated = Some(negotiated.clone());
        state.generation += 1;
        Ok(negotiated)
    }

    /// Starts talking to a stateless server at `version`: `server/discover`,
    /// with the one corrective retry a -32022 allows.
    pub(crate) async fn begin_stateless(&self, version: ProtocolVersion) -> Result<Arc<Negotiated>, Error> {
        let mut version = version;
        let mut corrected = false;
        let mut options = self.discover_options(None);
        loop {
            match self.send_discover(version, &mut options).await {
                Ok(result) => return self.adopt_discovery(version, result),
                Err(Error::UnsupportedProtocolVersion { supported, .. }) if !corrected => {
                    corrected = true;
                    match newest_stateless(&supported) {
                        Some(mutual) => version = mutual,
                        None => return Err(no_mutual_version(&supported)),
                    }
                }
                Err(error) => return Err(error),
            }
        }
    }

    /// Forgets every cached result (see [`crate::ClientOptions::result_cache`]).
    pub fn clear_cache(&self) {
        self.stateless_state().cache.clear();
    }

    /// `server/discover` again (e.g. when its `ttlMs` ran out).
    pub async fn discover(&self) -> Result<DiscoverResult, Error> {
        let Some(negotiated) = self.negotiated().filter(|n| n.version.era() == Era::Stateless) else {
            return Err(Error::NotInitialized);
        };
        let result = self.send_discover(negotiated.version, &mut self.discover_options(None)).await?;
        self.adopt_discovery(negotiated.version, result)?;
        self.discovery().ok_or(Error::NotInitialized)
    }
}
