//! The JS/TypeScript face: an `McpClient` class whose names follow the
//! official TypeScript SDK's `Client`, so code can move between them.
//!
//! Every call returns a promise of the result exactly as the server sent it
//! (plain JS objects). Failures reject with an `Error` named `McpError`
//! (with the JSON-RPC `code` and `data` when the server sent an error), an
//! `AbortError` when the caller's `AbortSignal` fired, or a `TypeError` for
//! arguments of the wrong shape.

mod auth;
mod convert;
mod handlers;
mod listen;
mod options;
mod persist;
mod popup;
mod store;
mod types;

use futures::FutureExt;
use futures::future::{LocalBoxFuture, ready};
use js_sys::{Function, Promise};
use serde_json::{Map, Value};
use wasm_bindgen::prelude::*;

pub use self::listen::McpSubscription;

use self::convert::{WebError, object_from_js, raw_to_js, to_js};
use self::handlers::notify_listener;
use self::options::{CallOptions, abortable, connect_options};
use crate::client::{Client, Error, connect_url_with_http};
use crate::protocol::{Era, ProtocolVersion, RawResult, methods};

/// A connection to one MCP server, made with `McpClient.connect`.
#[wasm_bindgen]
#[derive(Debug, Clone)]
pub struct McpClient {
    client: Client,
    /// What `addNotificationListener` added, for `removeNotificationListener`.
    listeners: std::cell::RefCell<Vec<(Function, crate::client::ListenerId)>>,
}

impl From<Client> for McpClient {
    fn from(client: Client) -> Self {
        McpClient { client, listeners: Default::default() }
    }
}

/// A promise of `work`'s value.
pub(crate) fn promise<F>(work: F) -> Promise
where
    F: Future<Output = Result<JsValue, WebError>> + 'static,
{
    // Boxed as it is, not wrapped in an async block, which would hold the
    // future as its argument and again as what it awaits (measured with
    // -Zprint-type-sizes: 8,608 bytes per call in flight for `send`'s
    // 2,144-byte future). Boxed as a `dyn Future`, so that the promise, the
    // task machinery under it and the error's conversion are compiled once
    // for every method, not once per method's future type (-1.6 KB gzip of
    // the full wasm for the first two, -0.6 KB of the lite one for the third).
    start(Box::pin(work))
}

/// The promise of boxed work (compiled once, not once per method, and so
/// is the turning of its error into a JS value).
fn start(work: LocalBoxFuture<'static, Result<JsValue, WebError>>) -> Promise {
    let made = pending();
    let (resolve, reject): (Function, Function) = (made.get(1).unchecked_into(), made.get(2).unchecked_into());
    // Started now, in the caller's turn, rather than in a microtask: what
    // the work does before its first wait (a call's request handed to the
    // session loop) lets the loop run in the first microtask, where the
    // rest of the call then runs too (`runtime/tasks.rs`).
    crate::runtime::spawn_started(Box::pin(async move {
        let _ = match work.await {
            Ok(value) => resolve.call1(&JsValue::UNDEFINED, &value),
            Err(error) => reject.call1(&JsValue::UNDEFINED, &JsValue::from(error)),
        };
    }));
    made.get(0).unchecked_into()
}

/// Sends a notification (already read from JS); resolves once the server
/// accepted it. One state machine for both methods that notify.
fn notify(client: Client, message: Result<(String, Option<Value>), WebError>) -> Promise {
    promise(async move {
        let (method, params) = message?;
        client.notify(&method, params).await?;
        Ok(JsValue::UNDEFINED)
    })
}

/// Params that must be an object or absent.
fn params(value: &JsValue, what: &str) -> Result<Option<Value>, WebError> {
    Ok(object_from_js(value, what)?.map(Value::Object))
}

/// Params that must be an object with a string field `key`.
fn params_with(value: &JsValue, what: &str, key: &str) -> Result<Value, WebError> {
    let object = object_from_js(value, what)?.unwrap_or_default();
    match object.get(key) {
        Some(Value::String(_)) => Ok(Value::Object(object)),
        _ => Err(WebError::Type(format!("{what}.{key} must be a string"))),
    }
}

impl McpClient {
    /// Sends `method` with `params` under `options` and resolves to the raw result.
    fn call(&self, method: &'static str, params: Result<Option<Value>, WebError>, options: &JsValue) -> Promise {
        let message = params.map(|params| (method.to_owned(), params));
        send(self.client.clone(), message, CallOptions::parse(options))
    }

    /// Follows `nextCursor` through every page `page` (the JS method)
    /// gives, collecting `key`.
    fn call_all(&self, page: &str, method: &str, key: &str, options: &JsValue) -> Promise {
        let max_pages = self.client.options().max_pages as f64;
        list_all(McpClient::from(self.client.clone()), page, method, key, max_pages, options)
    }
}

#[wasm_bindgen(module = "/src/web/options.js")]
extern "C" {
    /// Every item under `key` of every page `client[page](params, options)`
    /// gives (`method`'s results), following `nextCursor`: at most
    /// `max_pages` pages, and no cursor twice. Frees `client`, a handle of
    /// its own, once done. Written in JS: the pages reach it as JS values,
    /// and the loop and its checks in Rust were some 1.5 KB of the wasm's
    /// gzip (docs/size.md, session 38).
    /// `[promise, resolve, reject]`: a new promise and its two settlers
    /// (`new Promise` through the glue is a closure shim of its own).
    fn pending() -> js_sys::Array;
    #[wasm_bindgen(js_name = listAll)]
    fn list_all(client: McpClient, page: &str, method: &str, key: &str, max_pages: f64, options: &JsValue) -> Promise;
}

/// Sends one request (already read from JS) and resolves to its raw result;
/// the options' signal can abort it.
fn send(
    client: Client,
    message: Result<(String, Option<Value>), WebError>,
    options: Result<CallOptions, WebError>,
) -> Promise {
    let ((method, params), options) = match (message, options) {
        (Ok(message), Ok(options)) => (message, options),
        (Err(error), _) | (_, Err(error)) => return promise(ready(Err(error))),
    };
    let engine = options.engine();
    let named = method.clone();
    // One future per call in flight, each part held once (see `promise`).
    let work = async move {
        let result = client.request_raw(&method, params, engine).await.map_err(WebError::from)?;
        raw_to_js(&object_result(&method, result)?)
    };
    promise(abortable(named, options.signal, work))
}

/// Every MCP result is an object (the schema's `Result`). The typed Rust API
/// refuses anything else when it decodes the result; the JS API hands the
/// result on as it came, so it checks the shape here, or a `null` result
/// would resolve as if the call had succeeded.
fn object_result(method: &str, result: RawResult) -> Result<RawResult, WebError> {
    if result.is_object() {
        return Ok(result);
    }
    let reason = format!("the result is {}, not an object", result.kind());
    Err(Error::InvalidResult { method: method.to_owned(), reason }.into())
}

#[wasm_bindgen]
impl McpClient {
    /// Connects to the MCP server at `url` and performs the `initialize`
    /// handshake. The transport is detected (Streamable HTTP, else the
    /// legacy HTTP+SSE transport) unless `options.transport` forces one.
    /// With `options.auth`, a server that asks for authorization gets the
    /// OAuth 2.1 flow; a redirect-mode flow that brought the browser back
    /// to this page is finished first.
    #[wasm_bindgen(unchecked_return_type = "Promise<McpClient>")]
    pub fn connect(
        url: String,
        #[wasm_bindgen(unchecked_optional_param_type = "ConnectOptions")] options: JsValue,
    ) -> Promise {
        let connect = connect_options(&url, &options);
        promise(async move {
            let (http, connect, client) = connect?.ready(&url).await?;
            let client = connect_url_with_http(http, &url, connect, client).await?;
            Ok(McpClient::from(client).into())
        })
    }

    /// Continues a session from `McpClient.snapshot()`'s object (kept in a
    /// worker's KV or Durable Object, or a page's storage) with the server at
    /// `url`: no handshake, no probe, no GET stream until something needs
    /// it; the first request goes straight out. A server that forgot the
    /// session answers 404 and a new one is started transparently. `options`
    /// are `connect`'s (handlers, auth: tokens come from its store, never
    /// from the snapshot). Not in `mcp-edge/lite`, where it rejects with a
    /// `TypeError` (the `persist` feature).
    #[wasm_bindgen(unchecked_return_type = "Promise<McpClient>")]
    pub fn restore(
        #[wasm_bindgen(unchecked_param_type = "ClientSnapshot")] snapshot: JsValue,
        url: String,
        #[wasm_bindgen(unchecked_optional_param_type = "ConnectOptions")] options: JsValue,
    ) -> Promise {
        persist::restore(&snapshot, url, &options)
    }

    /// The session as a plain JSON-serializable object (`version`, `era`,
    /// `protocolVersion`, `sessionId`, `server`, the `server/discover`
    /// result and when it came, `lastEventId`, `takenAt`) for
    /// `McpClient.restore`; never a token. `undefined` before the session
    /// is settled. Not in `mcp-edge/lite`, where it throws a `TypeError`.
    #[cfg(feature = "persist")]
    #[wasm_bindgen(unchecked_return_type = "ClientSnapshot | undefined")]
    pub fn snapshot(&self) -> JsValue {
        persist::snapshot(&self.client)
    }

    /// `snapshot` without the `persist` feature: throws.
    #[cfg(not(feature = "persist"))]
    #[wasm_bindgen(unchecked_return_type = "ClientSnapshot | undefined")]
    pub fn snapshot(&self) -> Result<JsValue, JsValue> {
        Err(persist::absent("snapshot").into())
    }

    /// What servers were found to speak (era and transport verdicts, each
    /// with when it was reached), as a plain object for the storage the
    /// page chooses (`localStorage`, IndexedDB); `McpClient.importVerdicts`
    /// puts it back after a reload, so the next `connect` does not probe.
    /// Not in `mcp-edge/lite`, where it throws a `TypeError`.
    #[cfg(feature = "persist")]
    #[wasm_bindgen(js_name = exportVerdicts, unchecked_return_type = "Verdicts")]
    pub fn export_verdicts() -> JsValue {
        persist::export_verdicts()
    }

    /// `exportVerdicts` without the `persist` feature: throws.
    #[cfg(not(feature = "persist"))]
    #[wasm_bindgen(js_name = exportVerdicts, unchecked_return_type = "Verdicts")]
    pub fn export_verdicts() -> Result<JsValue, JsValue> {
        Err(persist::absent("exportVerdicts").into())
    }

    /// Adds verdicts from `McpClient.exportVerdicts()` (expired or unknown
    /// entries are skipped; today's expiry rules hold from when each was
    /// reached). Load the module first (`await init()`, or any `connect`).
    /// Not in `mcp-edge/lite`, where it throws a `TypeError`.
    #[wasm_bindgen(js_name = importVerdicts)]
    pub fn import_verdicts(
        #[wasm_bindgen(unchecked_param_type = "Verdicts")] verdicts: JsValue,
    ) -> Result<(), JsValue> {
        persist::import_verdicts(&verdicts).map_err(JsValue::from)
    }

    /// Stops this client without ending the session on the server (no
    /// DELETE), so a later `McpClient.restore` continues it; pending
    /// requests reject. Take the snapshot first.
    #[wasm_bindgen(unchecked_return_type = "Promise<void>")]
    pub fn detach(&self) -> Promise {
        promise(self.client.detaching().map(|_| Ok(JsValue::UNDEFINED)))
    }

    /// Finishes a redirect-mode authorization whose answer is `url` (the
    /// URL the authorization server sent the browser to), for apps whose
    /// router consumed the page's URL before `connect` could read it: the
    /// code is exchanged and the tokens kept in `options.auth.store` (so
    /// use a lasting store, the default `sessionStorage` in a page).
    /// Resolves `false` when no pending flow of this browser tab matches.
    /// The package's entries load the module first, as for `connect`.
    #[wasm_bindgen(js_name = completeAuthorization, unchecked_return_type = "Promise<boolean>")]
    pub fn complete_authorization(
        url: String,
        #[wasm_bindgen(unchecked_optional_param_type = "ConnectOptions")] options: JsValue,
    ) -> Promise {
        promise(auth::complete_authorization(url, options))
    }

    /// The transport in use: `"streamable-http"` or `"sse (legacy)"`.
    #[wasm_bindgen(getter, unchecked_return_type = "TransportKind")]
    pub fn transport(&self) -> JsValue {
        // A JS string made from the `&'static str`, no `String` between.
        JsValue::from_str(self.client.transport_kind().as_str())
    }

    /// The protocol era of the session: `"handshake"` (2024-11-05 to
    /// 2025-11-25: `initialize`, sessions) or `"stateless"` (2026-07-28 on).
    #[wasm_bindgen(getter, unchecked_return_type = "Era")]
    pub fn era(&self) -> JsValue {
        // Between a handshake session's expiry and its restart nothing is
        // negotiated; only handshake sessions restart (stateless ones have
        // no session to lose), so that is still the handshake era.
        JsValue::from_str(match self.client.era().unwrap_or(Era::Handshake) {
            Era::Handshake => "handshake",
            Era::Stateless => "stateless",
        })
    }

    /// The server's name and version, from the handshake.
    #[wasm_bindgen(js_name = getServerVersion, unchecked_return_type = "Implementation | undefined")]
    pub fn get_server_version(&self) -> JsValue {
        self.negotiated_field(|n| to_js(&n.result.server_info.to_value()))
    }

    /// What the server offers, from the handshake.
    #[wasm_bindgen(js_name = getServerCapabilities, unchecked_return_type = "ServerCapabilities | undefined")]
    pub fn get_server_capabilities(&self) -> JsValue {
        self.negotiated_field(|n| to_js(&n.result.capabilities.to_value()))
    }

    /// The server's instructions for the model, if it gave any.
    #[wasm_bindgen(js_name = getInstructions, unchecked_return_type = "string | undefined")]
    pub fn get_instructions(&self) -> JsValue {
        self.negotiated_field(|n| {
            Ok(n.result.instructions.as_deref().map(JsValue::from_str).unwrap_or(JsValue::UNDEFINED))
        })
    }

    /// The protocol revision both sides settled on.
    #[wasm_bindgen(js_name = getNegotiatedProtocolVersion, unchecked_return_type = "ProtocolVersion | undefined")]
    pub fn get_negotiated_protocol_version(&self) -> JsValue {
        self.negotiated_field(|n| Ok(JsValue::from_str(n.version.as_str())))
    }

    /// Calls `listener` for every notification the server sends from now on
    /// (progress goes to the request it belongs to), until
    /// `removeNotificationListener(listener)`. As with `addEventListener`, a
    /// function already listening is not added twice.
    #[wasm_bindgen(js_name = addNotificationListener)]
    pub fn add_notification_listener(
        &self,
        #[wasm_bindgen(unchecked_param_type = "(notification: ServerNotification) => void")] listener: Function,
    ) {
        let mut listeners = self.listeners.borrow_mut();
        if listeners.iter().any(|(known, _)| known == &listener) {
            return;
        }
        let called = listener.clone();
        let id = self.client.on_notification(move |notification| notify_listener(&called, notification));
        listeners.push((listener, id));
    }

    /// Stops calling a listener `addNotificationListener` added (another
    /// function is ignored, as `removeEventListener` does).
    #[wasm_bindgen(js_name = removeNotificationListener)]
    pub fn remove_notification_listener(
        &self,
        #[wasm_bindgen(unchecked_param_type = "(notification: ServerNotification) => void")] listener: Function,
    ) {
        // Taken by value: a borrowed argument is the glue's only one, and
        // brings its stack of borrowed objects into the JS.
        let mut listeners = self.listeners.borrow_mut();
        if let Some(place) = listeners.iter().position(|(known, _)| *known == listener) {
            let (_, id) = listeners.remove(place);
            self.client.remove_notification_listener(id);
        }
    }

    /// Subscribes to change notifications (list changes, resource updates)
    /// and calls `listener` with each, in either era: 2026-07-28 servers
    /// get a `subscriptions/listen` request, older ones `resources/subscribe`
    /// (list changes come on the session's stream). Resolves once the server
    /// acknowledged it; only what the server's capabilities offer is asked for.
    /// A 2026-07-28 listen stream that breaks (edge proxies cut idle streams)
    /// is opened again by itself, with capped jittered backoff, and `listener`
    /// gets `{method: "notifications/mcp-edge/resync", params: {reason}}`:
    /// changes in between are lost, so re-list (option `reopenListens: false`
    /// ends the subscription instead). The same comes after a burst of more
    /// than 4,096 notifications the listener could not take as they came.
    #[wasm_bindgen(unchecked_return_type = "Promise<McpSubscription>")]
    pub fn listen(
        &self,
        #[wasm_bindgen(unchecked_param_type = "SubscriptionFilter")] filter: JsValue,
        #[wasm_bindgen(unchecked_param_type = "(notification: ServerNotification) => void")] listener: Function,
    ) -> Promise {
        listen::listen(self.client.clone(), &filter, listener)
    }

    /// `ping`: checks the server is alive.
    #[wasm_bindgen(unchecked_return_type = "Promise<EmptyResult>")]
    pub fn ping(&self, #[wasm_bindgen(unchecked_optional_param_type = "RequestOptions")] options: JsValue) -> Promise {
        self.call(methods::PING, Ok(None), &options)
    }

    /// One page of `tools/list`.
    #[wasm_bindgen(js_name = listTools, unchecked_return_type = "Promise<ListToolsResult>")]
    pub fn list_tools(
        &self,
        #[wasm_bindgen(unchecked_optional_param_type = "PaginatedRequestParams")] params: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "RequestOptions")] options: JsValue,
    ) -> Promise {
        self.call(methods::TOOLS_LIST, self::params(&params, "params"), &options)
    }

    /// Every tool, following `nextCursor` through all pages.
    #[wasm_bindgen(js_name = listAllTools, unchecked_return_type = "Promise<Tool[]>")]
    pub fn list_all_tools(
        &self,
        #[wasm_bindgen(unchecked_optional_param_type = "RequestOptions")] options: JsValue,
    ) -> Promise {
        self.call_all("listTools", methods::TOOLS_LIST, "tools", &options)
    }

    /// `tools/call`. A tool that fails answers with `isError: true`; a call
    /// the server refuses rejects with an `McpError`.
    #[wasm_bindgen(js_name = callTool, unchecked_return_type = "Promise<CallToolResult>")]
    pub fn call_tool(
        &self,
        #[wasm_bindgen(unchecked_param_type = "CallToolRequestParams")] params: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "RequestOptions")] options: JsValue,
    ) -> Promise {
        self.call(methods::TOOLS_CALL, params_with(&params, "params", "name").map(Some), &options)
    }

    /// One page of `resources/list`.
    #[wasm_bindgen(js_name = listResources, unchecked_return_type = "Promise<ListResourcesResult>")]
    pub fn list_resources(
        &self,
        #[wasm_bindgen(unchecked_optional_param_type = "PaginatedRequestParams")] params: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "RequestOptions")] options: JsValue,
    ) -> Promise {
        self.call(methods::RESOURCES_LIST, self::params(&params, "params"), &options)
    }

    /// One page of `resources/templates/list`.
    #[wasm_bindgen(js_name = listResourceTemplates, unchecked_return_type = "Promise<ListResourceTemplatesResult>")]
    pub fn list_resource_templates(
        &self,
        #[wasm_bindgen(unchecked_optional_param_type = "PaginatedRequestParams")] params: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "RequestOptions")] options: JsValue,
    ) -> Promise {
        self.call(methods::RESOURCES_TEMPLATES_LIST, self::params(&params, "params"), &options)
    }

    /// `resources/read`.
    #[wasm_bindgen(js_name = readResource, unchecked_return_type = "Promise<ReadResourceResult>")]
    pub fn read_resource(
        &self,
        #[wasm_bindgen(unchecked_param_type = "ReadResourceRequestParams")] params: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "RequestOptions")] options: JsValue,
    ) -> Promise {
        self.call(methods::RESOURCES_READ, params_with(&params, "params", "uri").map(Some), &options)
    }

    /// `resources/subscribe`: updates arrive as
    /// `notifications/resources/updated` notifications.
    #[wasm_bindgen(js_name = subscribeResource, unchecked_return_type = "Promise<EmptyResult>")]
    pub fn subscribe_resource(
        &self,
        #[wasm_bindgen(unchecked_param_type = "SubscribeRequestParams")] params: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "RequestOptions")] options: JsValue,
    ) -> Promise {
        self.call(methods::RESOURCES_SUBSCRIBE, params_with(&params, "params", "uri").map(Some), &options)
    }

    /// `resources/unsubscribe`.
    #[wasm_bindgen(js_name = unsubscribeResource, unchecked_return_type = "Promise<EmptyResult>")]
    pub fn unsubscribe_resource(
        &self,
        #[wasm_bindgen(unchecked_param_type = "UnsubscribeRequestParams")] params: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "RequestOptions")] options: JsValue,
    ) -> Promise {
        self.call(methods::RESOURCES_UNSUBSCRIBE, params_with(&params, "params", "uri").map(Some), &options)
    }

    /// One page of `prompts/list`.
    #[wasm_bindgen(js_name = listPrompts, unchecked_return_type = "Promise<ListPromptsResult>")]
    pub fn list_prompts(
        &self,
        #[wasm_bindgen(unchecked_optional_param_type = "PaginatedRequestParams")] params: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "RequestOptions")] options: JsValue,
    ) -> Promise {
        self.call(methods::PROMPTS_LIST, self::params(&params, "params"), &options)
    }

    /// `prompts/get`.
    #[wasm_bindgen(js_name = getPrompt, unchecked_return_type = "Promise<GetPromptResult>")]
    pub fn get_prompt(
        &self,
        #[wasm_bindgen(unchecked_param_type = "GetPromptRequestParams")] params: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "RequestOptions")] options: JsValue,
    ) -> Promise {
        self.call(methods::PROMPTS_GET, params_with(&params, "params", "name").map(Some), &options)
    }

    /// `completion/complete`. `context` is dropped for servers older than
    /// 2025-06-18, which do not know it.
    #[wasm_bindgen(unchecked_return_type = "Promise<CompleteResult>")]
    pub fn complete(
        &self,
        #[wasm_bindgen(unchecked_param_type = "CompleteRequestParams")] params: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "RequestOptions")] options: JsValue,
    ) -> Promise {
        let older = self.client.negotiated().is_some_and(|n| n.version < ProtocolVersion::V2025_06_18);
        let params = object_from_js(&params, "params").and_then(|object| {
            let mut object = object.unwrap_or_default();
            if !matches!(object.get("ref"), Some(Value::Object(_)))
                || !matches!(object.get("argument"), Some(Value::Object(_)))
            {
                return Err(WebError::Type("params must be {ref, argument: {name, value}, context?}".into()));
            }
            if older {
                object.remove("context");
            }
            Ok(Some(Value::Object(object)))
        });
        self.call(methods::COMPLETION_COMPLETE, params, &options)
    }

    /// `logging/setLevel`: the least severe level the server should send as
    /// `notifications/message`.
    #[wasm_bindgen(js_name = setLoggingLevel, unchecked_return_type = "Promise<EmptyResult>")]
    pub fn set_logging_level(
        &self,
        #[wasm_bindgen(unchecked_param_type = "LoggingLevel")] level: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "RequestOptions")] options: JsValue,
    ) -> Promise {
        let params = match level.as_string() {
            Some(level) => Ok(Some(crate::protocol::object! { "level": level })),
            None => Err(WebError::Type("level must be a string such as \"info\"".into())),
        };
        self.call(methods::LOGGING_SET_LEVEL, params, &options)
    }

    /// Sends any request and resolves to its result as the server sent it.
    /// The server's declared capabilities are checked for the methods they cover.
    #[wasm_bindgen(unchecked_return_type = "Promise<JsonObject>")]
    pub fn request(
        &self,
        #[wasm_bindgen(unchecked_param_type = "{ method: string; params?: JsonObject }")] request: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "RequestOptions")] options: JsValue,
    ) -> Promise {
        let message = object_from_js(&request, "request").and_then(split_message);
        send(self.client.clone(), message, CallOptions::parse(&options))
    }

    /// Sends any notification; resolves once the server accepted it.
    #[wasm_bindgen(unchecked_return_type = "Promise<void>")]
    pub fn notification(
        &self,
        #[wasm_bindgen(unchecked_param_type = "{ method: string; params?: JsonObject }")] notification: JsValue,
    ) -> Promise {
        notify(self.client.clone(), object_from_js(&notification, "notification").and_then(split_message))
    }

    /// Tells the server the list of roots changed (needs a `roots` handler).
    #[wasm_bindgen(js_name = sendRootsListChanged, unchecked_return_type = "Promise<void>")]
    pub fn send_roots_list_changed(&self) -> Promise {
        let declared = self.client.roots_changed_declared().map_err(WebError::from);
        notify(self.client.clone(), declared.map(|()| (methods::ROOTS_LIST_CHANGED.to_owned(), None)))
    }

    /// Ends the session: pending requests reject, and the server is told
    /// (HTTP DELETE). Resolves once the connection is closed.
    #[wasm_bindgen(unchecked_return_type = "Promise<void>")]
    pub fn close(&self) -> Promise {
        promise(self.client.closing().map(|_| Ok(JsValue::UNDEFINED)))
    }
}

impl McpClient {
    /// The client handle, for Rust code that received an `McpClient` from JS.
    pub fn client(&self) -> &Client {
        &self.client
    }

    fn negotiated_field(&self, field: impl FnOnce(&crate::client::Negotiated) -> Result<JsValue, WebError>) -> JsValue {
        match self.client.negotiated() {
            // A value that cannot cross reads as absent: getters do not throw.
            Some(negotiated) => field(&negotiated).unwrap_or(JsValue::UNDEFINED),
            None => JsValue::UNDEFINED,
        }
    }
}

/// `{method, params?}` as a method name and params.
fn split_message(object: Option<Map<String, Value>>) -> Result<(String, Option<Value>), WebError> {
    let mut object = object.unwrap_or_default();
    let Some(Value::String(method)) = object.remove("method") else {
        return Err(WebError::Type("the message needs a string `method`".into()));
    };
    match object.remove("params") {
        None | Some(Value::Null) => Ok((method, None)),
        Some(params @ Value::Object(_)) => Ok((method, Some(params))),
        Some(_) => Err(WebError::Type("`params` must be an object".into())),
    }
}
