//! One request to a stateless server: the methods the revision does not
//! have, the result cache, and the rounds (the multi round-trip loop, the
//! corrective retry, the re-listing after a header mismatch).

use std::time::Duration;

use serde_json::{Map, Value};

use super::cache;
use crate::client::handlers::RequestContext;
use crate::client::{Client, Error, RequestOptions};
use crate::debug::Quoted;
use crate::protocol::stateless::result::InputRequest;
use crate::protocol::stateless::{InputRequired, ResultType, headers};
use crate::protocol::types::LoggingLevel;
use crate::protocol::{ErrorObject, ProtocolVersion, RequestId, methods, object};
use crate::transport::TransportKind;

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

impl Client {
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
                let mut discover = self.discover_options(options.timeout);
                return self.send_discover(version, &mut discover).await.map(|_| object! {});
            }
            methods::LOGGING_SET_LEVEL => {
                let level = params
                    .as_ref()
                    .and_then(|p| p.get("level"))
                    .and_then(Value::as_str)
                    .and_then(LoggingLevel::from_name)
                    .ok_or_else(|| Error::InvalidArgument("logging/setLevel needs a `level`".into()))?;
                self.stateless_state().log_level = Some(level);
                return Ok(object! {});
            }
            // No `resources/subscribe` in this revision: a `subscriptions/listen`
            // for the one resource, kept open until unsubscribed, does the same.
            methods::RESOURCES_SUBSCRIBE => {
                let uri = uri_param(method, params.as_ref())?;
                let subscription =
                    self.listen_without_reopen(crate::protocol::stateless::ListenFilter::resource(uri.clone())).await?;
                self.keep_resource_listen(uri, subscription)?;
                return Ok(object! {});
            }
            methods::RESOURCES_UNSUBSCRIBE => {
                self.end_resource_listen(&uri_param(method, params.as_ref())?);
                return Ok(object! {});
            }
            methods::INITIALIZE => return Err(not_here("stateless servers have no handshake")),
            _ => {}
        }
        if self.inner.options.strict_capabilities
            && let Some(negotiated) = self.negotiated()
        {
            crate::client::api::check_capability(&negotiated, method)?;
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
            // Pair by pair: `Extend` of a map is its own code in the wasm.
            for (key, value) in &extra {
                params.insert(key.clone(), value.clone());
            }
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
                    if let Err(error) = self.relist_tools().await {
                        log::warn!("re-listing tools after a header mismatch failed: {error}");
                    }
                    continue;
                }
                other => other?,
            };
            match ResultType::of(&result) {
                // Older servers send none: complete.
                ResultType::Unstated | ResultType::Complete => {
                    let first_page = !base.contains_key("cursor");
                    return Ok((self.completed(method, first_page, result), !extra.is_empty()));
                }
                // Only a tools/call of a client that declared the extension.
                #[cfg(feature = "tasks")]
                ResultType::Task if method == methods::TOOLS_CALL && self.inner.options.tasks => {
                    // The caller's hard limit, if shorter, bounds the task too.
                    let limit = options
                        .max_total_timeout
                        .map_or(self.inner.options.task_timeout, |hard| hard.min(self.inner.options.task_timeout));
                    return Ok((self.drive_task(method, result, version, limit).await?, true));
                }
                ResultType::InputRequired if multi_round(method) => {
                    // The next round's `inputResponses` and `requestState`.
                    extra = Map::new();
                    let asked = InputRequired::of(&result);
                    if let Some(requests) = asked.input_requests {
                        let responses = self.answer_requests(method, requests.iter()).await?;
                        extra.insert("inputResponses".into(), Value::Object(responses));
                    }
                    if let Some(state) = asked.request_state {
                        // Echoed exactly as received, never read.
                        extra.insert("requestState".into(), state.clone());
                    }
                    if extra.is_empty() {
                        return Err(Error::InvalidResult {
                            method: method.to_owned(),
                            reason: "an input_required result with neither inputRequests nor requestState".into(),
                        });
                    }
                    if !extra.contains_key("inputResponses") {
                        // Only state (e.g. load shedding): retry after a short pause.
                        crate::runtime::sleep(Duration::from_millis(50 * rounds as u64)).await;
                    }
                }
                kind => {
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
    /// for their `Mcp-Param-*` headers. A first page (no `cursor`) starts
    /// the remembered set anew, so tools the server no longer lists do not
    /// stay for the life of the client; only tools with headers are kept.
    fn completed(&self, method: &str, first_page: bool, result: Value) -> Value {
        if method != methods::TOOLS_LIST {
            return result;
        }
        let mut result = result;
        let http = self.transport_kind() == TransportKind::StreamableHttp;
        if let Some(tools) = result.get_mut("tools").and_then(Value::as_array_mut) {
            let mut state = self.stateless_state();
            if first_page {
                state.tool_headers.clear();
            }
            tools.retain(|tool| {
                let name = tool.get("name").and_then(Value::as_str).unwrap_or_default();
                // Read in place: a 10,000-tool list is not copied tool by tool.
                match headers::param_headers(tool.get("inputSchema").unwrap_or(&Value::Null)) {
                    Ok(found) if found.is_empty() => {
                        state.tool_headers.remove(name);
                        true
                    }
                    Ok(found) => {
                        state.tool_headers.insert(name.to_owned(), found);
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
            let InputRequest { method: kind, params } = InputRequest::of(request);
            let Some(handler) = self.inner.options.handlers.get(kind).cloned() else {
                return Err(Error::InvalidResult {
                    method: method.to_owned(),
                    reason: format!(
                        "the server asked for {kind} input, which this client did not declare",
                        kind = Quoted(kind)
                    ),
                });
            };
            let context =
                RequestContext { id: RequestId::Str(key.clone()), method: kind.to_owned(), progress_token: None };
            match handler.handle(params.cloned(), context).await {
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
}
