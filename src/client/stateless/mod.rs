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
//! [`Client::request`] switches to [`Client::stateless_request`] once the
//! era is known; the typed calls in `api.rs` do not know which ran.

mod cache;
pub mod headers;
mod kept;
pub(crate) mod probe;
#[cfg(not(target_arch = "wasm32"))]
mod stdio;
pub mod tasks;

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

pub use headers::ParamHeader;
pub use probe::{EraChoice, EraVerdict, forget_era, remembered_era};
#[cfg(not(target_arch = "wasm32"))]
pub use stdio::connect_stdio;

use super::handlers::RequestContext;
use super::{Client, Error, Negotiated, RequestOptions};
use crate::protocol::types::{InitializeResult, LoggingLevel};
use crate::protocol::{Era, ErrorObject, ProtocolVersion, RequestId, methods};
use crate::transport::TransportKind;

/// `server/discover`.
pub const SERVER_DISCOVER: &str = "server/discover";
/// `subscriptions/listen`.
pub const SUBSCRIPTIONS_LISTEN: &str = "subscriptions/listen";

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

/// The error codes the stateless revision defines.
pub mod codes {
    /// Headers missing, malformed or different from the body.
    pub const HEADER_MISMATCH: i64 = -32020;
    /// The request did not declare a client capability the server needs.
    pub const MISSING_REQUIRED_CLIENT_CAPABILITY: i64 = -32021;
    /// The server does not speak the request's revision.
    pub const UNSUPPORTED_PROTOCOL_VERSION: i64 = -32022;
}

/// The default cap on multi round-trip rounds.
pub const DEFAULT_MAX_INPUT_ROUNDS: usize = 16;

/// Who may keep a cached result (`cacheScope`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CacheScope {
    /// Any client may share it.
    Public,
    /// Only for the same authorization context.
    Private,
}

/// The caching hints of a cacheable result (`ttlMs`, `cacheScope`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CacheHint {
    /// How long the result stays fresh; absent or negative means 0.
    pub ttl: Duration,
    /// Who may keep it; absent means `private`, the safe reading.
    pub scope: CacheScope,
}

impl CacheHint {
    /// The hints of a result (`None` when it carries neither field).
    pub fn of(result: &Value) -> Option<CacheHint> {
        let ttl = result.get("ttlMs");
        let scope = result.get("cacheScope");
        if ttl.is_none() && scope.is_none() {
            return None;
        }
        let millis = ttl.and_then(Value::as_f64).filter(|ms| ms.is_finite() && *ms > 0.0).unwrap_or(0.0);
        let scope = scope.cloned().and_then(|s| serde_json::from_value(s).ok()).unwrap_or(CacheScope::Private);
        Some(CacheHint { ttl: Duration::from_millis(millis.min(u64::MAX as f64) as u64), scope })
    }
}

/// What `server/discover` said.
#[derive(Debug, Clone, PartialEq)]
pub struct Discovery {
    /// The revisions the server speaks.
    pub supported_versions: Vec<String>,
    /// The raw result.
    pub result: Value,
    /// Its caching hints.
    pub cache: Option<CacheHint>,
}

/// The stateless engine's state, held by the client.
#[derive(Default)]
pub(crate) struct StatelessState {
    /// The `x-mcp-header` annotations of every tool listed so far.
    tool_headers: HashMap<String, Arc<[ParamHeader]>>,
    /// Set by `logging/setLevel`: stamped on every later request.
    log_level: Option<LoggingLevel>,
    discovery: Option<Discovery>,
    /// Results the server said stay fresh for a while (`ttlMs`).
    pub(crate) cache: cache::ResultCache,
}

/// The `uri` of `resources/subscribe` or `resources/unsubscribe`.
fn uri_param(method: &str, params: Option<&Value>) -> Result<String, Error> {
    match params.and_then(|p| p.get("uri")) {
        Some(Value::String(uri)) => Ok(uri.clone()),
        _ => Err(Error::InvalidArgument(format!("{method} needs a string `uri`"))),
    }
}

/// Methods whose results may be `input_required`.
fn multi_round(method: &str) -> bool {
    matches!(method, methods::TOOLS_CALL | methods::PROMPTS_GET | methods::RESOURCES_READ)
}

/// The typed error for a JSON-RPC error of the stateless revision.
pub(crate) fn typed_error(error: Error) -> Error {
    let Error::Rpc { method, error } = error else { return error };
    match error.code {
        codes::UNSUPPORTED_PROTOCOL_VERSION => {
            let data = error.data.clone().unwrap_or(Value::Null);
            let supported = data
                .get("supported")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(|v| v.as_str().map(str::to_owned))
                .collect();
            let requested = data.get("requested").and_then(Value::as_str).unwrap_or_default().to_owned();
            Error::UnsupportedProtocolVersion { method, requested, supported, error }
        }
        codes::MISSING_REQUIRED_CLIENT_CAPABILITY => {
            let required = error.data.as_ref().and_then(|d| d.get("requiredCapabilities")).cloned();
            Error::MissingClientCapability { method, required: required.unwrap_or(Value::Null), error }
        }
        codes::HEADER_MISMATCH => Error::HeaderMismatch { method, error },
        _ => Error::Rpc { method, error },
    }
}

impl Client {
    /// The era of the server, once known.
    pub fn era(&self) -> Option<Era> {
        self.negotiated().map(|n| n.version.era())
    }

    /// What the last `server/discover` said (stateless servers only).
    pub fn discovery(&self) -> Option<Discovery> {
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
            capabilities.insert("roots".into(), json!({}));
        }
        if options.handlers.contains_key(methods::SAMPLING_CREATE_MESSAGE) {
            capabilities.insert("sampling".into(), json!({}));
        }
        if options.handlers.contains_key(methods::ELICITATION_CREATE) {
            let elicitation =
                if options.elicitation_url_mode { json!({ "form": {}, "url": {} }) } else { json!({ "form": {} }) };
            capabilities.insert("elicitation".into(), elicitation);
        }
        if let Some(experimental) = &options.experimental {
            capabilities.insert("experimental".into(), Value::Object(experimental.clone()));
        }
        if options.tasks {
            capabilities.insert("extensions".into(), tasks::extension_capability());
        }
        Value::Object(capabilities)
    }

    /// `params` with the request `_meta` of revision `version`.
    fn stamp(&self, params: Option<Value>, version: ProtocolVersion) -> Result<Map<String, Value>, Error> {
        let mut object = match params {
            None => Map::new(),
            Some(Value::Object(object)) => object,
            Some(_) => return Err(Error::InvalidArgument("request params must be a JSON object".into())),
        };
        let meta = object.entry("_meta").or_insert_with(|| Value::Object(Map::new()));
        let Value::Object(meta) = meta else {
            return Err(Error::InvalidArgument("`_meta` in request params must be a JSON object".into()));
        };
        meta.insert(meta::PROTOCOL_VERSION.into(), Value::from(version.as_str()));
        meta.insert(meta::CLIENT_CAPABILITIES.into(), self.stateless_capabilities());
        let info = serde_json::to_value(&self.inner.options.client_info).unwrap_or(Value::Null);
        meta.insert(meta::CLIENT_INFO.into(), info);
        if let Some(level) = self.stateless_state().log_level {
            meta.insert(meta::LOG_LEVEL.into(), serde_json::to_value(level).unwrap_or(Value::Null));
        }
        Ok(object)
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
        self.send_request(method, Some(Value::Object(params)), options).await.map_err(typed_error)
    }

    /// A request's params with its `_meta`, and its HTTP headers.
    pub(crate) fn stateless_message(
        &self,
        method: &str,
        params: Map<String, Value>,
        version: ProtocolVersion,
    ) -> Result<(Map<String, Value>, Vec<(String, String)>), Error> {
        let params = self.stamp(Some(Value::Object(params)), version)?;
        let tool_headers = match (method, params.get("name").and_then(Value::as_str)) {
            (methods::TOOLS_CALL, Some(name)) => self.stateless_state().tool_headers.get(name).cloned(),
            _ => None,
        };
        let headers = headers::request_headers(version.as_str(), method, &params, tool_headers.as_deref());
        Ok((params, headers))
    }

    /// `server/discover` at `version`, the result unread.
    pub(crate) async fn send_discover(
        &self,
        version: ProtocolVersion,
        timeout: Option<Duration>,
    ) -> Result<Value, Error> {
        // Like `initialize`, the first request may wait for a person to sign in.
        let timeout = timeout.or(self.inner.options.handshake_timeout);
        let mut options = RequestOptions { timeout, ..RequestOptions::default() };
        self.stateless_round(SERVER_DISCOVER, Map::new(), version, &mut options).await
    }

    /// Adopts a `server/discover` result: the server speaks `version`.
    pub(crate) fn adopt_discovery(&self, version: ProtocolVersion, result: Value) -> Result<Arc<Negotiated>, Error> {
        let supported_versions: Vec<String> = result
            .get("supportedVersions")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|v| v.as_str().map(str::to_owned))
            .collect();
        let mut initialize = json!({
            "protocolVersion": version.as_str(),
            "capabilities": result.get("capabilities").cloned().unwrap_or_else(|| json!({})),
        });
        let server_info =
            result.get("_meta").and_then(|m| m.get(meta::SERVER_INFO)).or_else(|| result.get("serverInfo")).cloned();
        if let Some(info) = server_info {
            initialize["serverInfo"] = info;
        }
        if let Some(instructions) = result.get("instructions").cloned() {
            initialize["instructions"] = instructions;
        }
        let initialize: InitializeResult = serde_json::from_value(initialize)
            .map_err(|e| Error::InvalidResult { method: SERVER_DISCOVER.into(), reason: e.to_string() })?;
        let cache = CacheHint::of(&result);
        self.stateless_state().discovery = Some(Discovery { supported_versions, result, cache });
        let negotiated = Arc::new(Negotiated { version, result: initialize });
        self.command(super::driver::Command::Stateless)?;
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
        loop {
            match self.send_discover(version, None).await {
                Ok(result) => return self.adopt_discovery(version, result),
                Err(Error::UnsupportedProtocolVersion { supported, .. }) if !corrected => {
                    corrected = true;
                    match probe::newest_stateless(&supported) {
                        Some(mutual) => version = mutual,
                        None => return Err(probe::no_mutual_version(&supported)),
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
    pub async fn discover(&self) -> Result<Discovery, Error> {
        let Some(negotiated) = self.negotiated().filter(|n| n.version.era() == Era::Stateless) else {
            return Err(Error::NotInitialized);
        };
        let result = self.send_discover(negotiated.version, None).await?;
        self.adopt_discovery(negotiated.version, result)?;
        self.discovery().ok_or(Error::NotInitialized)
    }

    /// One request to a stateless server: `_meta` on every round, the
    /// multi round-trip loop where the method allows it, the typed errors.
    ///
    /// Boxed: a request may list tools again, which is itself a request.
    pub(crate) fn stateless_request<'a>(
        &'a self,
        method: &'a str,
        params: Option<Value>,
        options: RequestOptions,
        version: ProtocolVersion,
    ) -> crate::runtime::BoxFuture<'a, Result<Value, Error>> {
        crate::runtime::boxed(self.stateless_request_inner(method, params, options, version))
    }

    async fn stateless_request_inner(
        &self,
        method: &str,
        params: Option<Value>,
        options: RequestOptions,
        version: ProtocolVersion,
    ) -> Result<Value, Error> {
        let not_here = |hint: &str| Error::NotInThisRevision {
            method: method.to_owned(),
            version: version.as_str().to_owned(),
            hint: Some(hint.to_owned()),
        };
        match method {
            // Liveness without `ping`: the one method every server has.
            methods::PING => {
                return self.send_discover(version, options.timeout).await.map(|_| json!({}));
            }
            methods::LOGGING_SET_LEVEL => {
                let level = params
                    .as_ref()
                    .and_then(|p| p.get("level"))
                    .cloned()
                    .and_then(|l| serde_json::from_value::<LoggingLevel>(l).ok())
                    .ok_or_else(|| Error::InvalidArgument("logging/setLevel needs a `level`".into()))?;
                self.stateless_state().log_level = Some(level);
                return Ok(json!({}));
            }
            // No `resources/subscribe` in this revision: a `subscriptions/listen`
            // for the one resource, kept open until unsubscribed, does the same.
            methods::RESOURCES_SUBSCRIBE => {
                self.keep_resource_listen(uri_param(method, params.as_ref())?).await?;
                return Ok(json!({}));
            }
            methods::RESOURCES_UNSUBSCRIBE => {
                self.end_resource_listen(&uri_param(method, params.as_ref())?);
                return Ok(json!({}));
            }
            methods::INITIALIZE => return Err(not_here("stateless servers have no handshake")),
            _ => {}
        }
        if self.inner.options.strict_capabilities
            && let Some(negotiated) = self.negotiated()
        {
            super::api::check_capability(&negotiated, method)?;
        }
        let base = match params {
            None => Map::new(),
            Some(Value::Object(object)) => object,
            Some(_) => return Err(Error::InvalidArgument("request params must be a JSON object".into())),
        };
        let cache_key = (self.inner.options.result_cache && cache::cacheable(method))
            .then(|| cache::key(version.as_str(), method, &base));
        if let Some(key) = &cache_key
            && let Some(fresh) = self.stateless_state().cache.get(key, crate::runtime::now_millis())
        {
            return Ok(fresh);
        }
        let uri = base.get("uri").and_then(Value::as_str).map(str::to_owned);
        // A change notification that comes while the request is out makes
        // its answer stale before it arrives: such an answer is not kept.
        let epoch = self.stateless_state().cache.epoch();
        let outcome = self.stateless_rounds(method, base, options, version).await;
        let mut state = self.stateless_state();
        match (&outcome, cache_key) {
            // An answer given after input rounds depends on that input: never kept.
            (Ok((result, false)), Some(key)) if state.cache.epoch() == epoch => {
                state.cache.put(key, method, uri, result, crate::runtime::now_millis());
            }
            // A failed page (an invalid cursor?) casts doubt on every page.
            (Err(_), Some(_)) => state.cache.forget_method(method),
            _ => {}
        }
        drop(state);
        outcome.map(|(result, _)| result)
    }

    /// The rounds of one request: the multi round-trip loop where the
    /// method allows it, a corrective retry, a re-listing after a header
    /// mismatch. Also says whether input rounds led to the result.
    async fn stateless_rounds(
        &self,
        method: &str,
        base: Map<String, Value>,
        options: RequestOptions,
        version: ProtocolVersion,
    ) -> Result<(Value, bool), Error> {
        let mut options = options;
        let max_rounds = self.inner.options.max_input_rounds.max(1);
        let mut extra = Map::new();
        let mut rounds = 0;
        let mut corrected = false;
        let mut refreshed = false;
        loop {
            if rounds >= max_rounds {
                return Err(Error::TooManyRounds { method: method.to_owned(), rounds });
            }
            rounds += 1;
            let mut params = base.clone();
            params.extend(extra.clone());
            let result = match self.stateless_round(method, params, version, &mut options).await {
                // One corrective retry: the server named our version after all
                // (a transient rejection) — never a loop.
                Err(Error::UnsupportedProtocolVersion { supported, .. })
                    if !corrected && supported.iter().any(|v| v == version.as_str()) =>
                {
                    corrected = true;
                    rounds -= 1;
                    continue;
                }
                // The tool's header annotations may have changed: list again, retry once.
                Err(Error::HeaderMismatch { .. }) if method == methods::TOOLS_CALL && !refreshed => {
                    refreshed = true;
                    rounds -= 1;
                    // From the server, not from the cache.
                    self.stateless_state().cache.forget_method(methods::TOOLS_LIST);
                    if let Err(error) = self.list_all_tools().await {
                        log::warn!("re-listing tools after a header mismatch failed: {error}");
                    }
                    continue;
                }
                other => other?,
            };
            match result.get("resultType") {
                // Older servers send none: complete.
                None => return Ok((self.completed(method, result), !extra.is_empty())),
                Some(Value::String(kind)) if kind == "complete" => {
                    return Ok((self.completed(method, result), !extra.is_empty()));
                }
                // Only a tools/call of a client that declared the extension.
                Some(Value::String(kind))
                    if kind == "task" && method == methods::TOOLS_CALL && self.inner.options.tasks =>
                {
                    // The caller's hard limit, if shorter, bounds the task too.
                    let limit = options
                        .max_total_timeout
                        .map_or(self.inner.options.task_timeout, |hard| hard.min(self.inner.options.task_timeout));
                    return Ok((self.drive_task(method, result, version, limit).await?, true));
                }
                Some(Value::String(kind)) if kind == "input_required" && multi_round(method) => {
                    extra = self.answer_input(method, &result).await?;
                    if !extra.contains_key("inputResponses") {
                        // Only state (e.g. load shedding): retry after a short pause.
                        crate::runtime::sleep(Duration::from_millis(50 * rounds as u64)).await;
                    }
                }
                Some(kind) => {
                    return Err(Error::InvalidResult {
                        method: method.to_owned(),
                        reason: format!("resultType {kind} is not one this request allows"),
                    });
                }
            }
        }
    }

    /// A complete result; `tools/list` over HTTP loses the tools whose
    /// `x-mcp-header` annotations are invalid, and the rest are remembered
    /// for their `Mcp-Param-*` headers.
    fn completed(&self, method: &str, result: Value) -> Value {
        if method != methods::TOOLS_LIST {
            return result;
        }
        let mut result = result;
        let http = self.transport_kind() == TransportKind::StreamableHttp;
        if let Some(tools) = result.get_mut("tools").and_then(Value::as_array_mut) {
            let mut state = self.stateless_state();
            tools.retain(|tool| {
                let name = tool.get("name").and_then(Value::as_str).unwrap_or_default();
                let schema = tool.get("inputSchema").cloned().unwrap_or(Value::Null);
                match headers::param_headers(&schema) {
                    Ok(found) => {
                        state.tool_headers.insert(name.to_owned(), found.into());
                        true
                    }
                    Err(reason) if http => {
                        log::warn!("dropping tool {name:?}: {reason}");
                        state.tool_headers.remove(name);
                        false
                    }
                    // stdio has no headers: the annotation means nothing there.
                    Err(_) => true,
                }
            });
        }
        result
    }

    /// Answers input requests (`{key: {method, params}}`) with the
    /// registered handlers: the same ones that answer server requests in the
    /// handshake era.
    pub(crate) async fn answer_requests<'r>(
        &self,
        method: &str,
        requests: impl Iterator<Item = (&'r String, &'r Value)>,
    ) -> Result<Map<String, Value>, Error> {
        let mut responses = Map::new();
        for (key, request) in requests {
            let kind = request.get("method").and_then(Value::as_str).unwrap_or_default();
            let Some(handler) = self.inner.options.handlers.get(kind).cloned() else {
                return Err(Error::InvalidResult {
                    method: method.to_owned(),
                    reason: format!("the server asked for {kind:?} input, which this client did not declare"),
                });
            };
            let context =
                RequestContext { id: RequestId::Str(key.clone()), method: kind.to_owned(), progress_token: None };
            match handler.handle(request.get("params").cloned(), context).await {
                Ok(response) => {
                    responses.insert(key.clone(), response);
                }
                Err(ErrorObject { message, .. }) => {
                    // Nothing to send back for a failed sampling or roots
                    // request: the server is not waiting. Abandon the call.
                    return Err(Error::Cancelled {
                        method: method.to_owned(),
                        reason: Some(format!("the {kind} handler failed: {message}")),
                    });
                }
            }
        }
        Ok(responses)
    }

    /// The next round's `inputResponses` and `requestState`.
    async fn answer_input(&self, method: &str, result: &Value) -> Result<Map<String, Value>, Error> {
        let mut extra = Map::new();
        if let Some(requests) = result.get("inputRequests").and_then(Value::as_object) {
            let responses = self.answer_requests(method, requests.iter()).await?;
            extra.insert("inputResponses".into(), Value::Object(responses));
        }
        if let Some(state) = result.get("requestState") {
            // Echoed exactly as received, never read.
            extra.insert("requestState".into(), state.clone());
        }
        if extra.is_empty() {
            return Err(Error::InvalidResult {
                method: method.to_owned(),
                reason: "an input_required result with neither inputRequests nor requestState".into(),
            });
        }
        Ok(extra)
    }
}
