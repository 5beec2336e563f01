//! `ConnectOptions` and `RequestOptions` read from JS objects, and
//! cancellation through an `AbortSignal`.

use std::future::Future;
use std::time::Duration;

use futures::FutureExt as _;
use futures::future::{AbortHandle, Abortable, Either, ready};
use js_sys::{Array, Function};
use serde_json::{Map, Value};
use wasm_bindgen::closure::Closure;
use wasm_bindgen::{JsCast, JsValue};
use web_sys::AbortSignal;

use super::auth::{WebAuth, auth_options};
use super::convert::{
    WebError, as_bool, as_function, as_millis, bool_property, from_js, function_property, millis_property, property,
    property_at, string_property,
};
use super::handlers::{HandlerKind, JsHandler, call_listener, notify_listener};
use crate::client::negotiate::TransportChoice;
use crate::client::{ClientOptions, ConnectOptions, EraChoice, RequestOptions, SessionEvent};
use crate::debug::Quoted;
use crate::http::{Credentials, DefaultHttp};
use crate::protocol::types::{Implementation, Progress};
use crate::protocol::{ProtocolVersion, methods};

/// Everything `McpClient.connect` needs.
#[derive(Debug)]
pub(crate) struct Connect {
    pub(crate) connect: ConnectOptions,
    pub(crate) credentials: Option<Credentials>,
    pub(crate) client: ClientOptions,
    pub(crate) auth: Option<WebAuth>,
}

impl Connect {
    /// What connecting and restoring both start from: the HTTP backend with
    /// the credentials mode, and the OAuth provider once a redirect sign-in
    /// that brought the page back to `url` is finished.
    pub(crate) async fn ready(self, url: &str) -> Result<(DefaultHttp, ConnectOptions, ClientOptions), WebError> {
        let Connect { mut connect, credentials, client, auth } = self;
        let http = match credentials {
            Some(credentials) => DefaultHttp::with_credentials(credentials),
            None => DefaultHttp::new(),
        };
        if let Some(auth) = auth {
            auth.finish_redirect(url).await?;
            connect.auth = Some(auth.provider());
        }
        Ok((http, connect, client))
    }
}

fn check_object(value: &JsValue, what: &str) -> Result<(), WebError> {
    if value.is_undefined() || value.is_null() || value.is_object() {
        Ok(())
    } else {
        Err(WebError::Type(format!("{what} must be an object")))
    }
}

/// Reads `ConnectOptions`.
pub(crate) fn connect_options(url: &str, options: &JsValue) -> Result<Connect, WebError> {
    const OWNER: &str = "options";
    check_object(options, OWNER)?;
    let choice = match string_property(options, "transport", OWNER)?.as_deref() {
        None | Some("auto") => TransportChoice::Auto,
        Some("streamable-http") => TransportChoice::StreamableHttp,
        Some("sse") => TransportChoice::Sse,
        Some(other) => {
            return Err(WebError::Type(format!(
                "options.transport must be \"auto\", \"streamable-http\" or \"sse\", not {other}",
                other = Quoted(other)
            )));
        }
    };

    let mut connect = ConnectOptions::new().with_transport(choice);
    connect.headers = headers(options)?;
    if let Some(open) = bool_property(options, "openServerStream", OWNER)? {
        connect.open_server_stream = open;
    }
    if let Some(eager) = bool_property(options, "eagerServerStream", OWNER)? {
        connect.eager_server_stream = eager;
    }
    let limit = if options.is_object() { js_sys::Reflect::get(options, &"maxConnections".into()).ok() } else { None };
    match limit.filter(|value| !value.is_undefined()) {
        None => {}
        Some(value) if value.is_null() => connect.max_connections = None,
        Some(value) => match value.as_f64() {
            Some(n) if n >= 1.0 && n.fract() == 0.0 => connect.max_connections = Some(n as usize),
            _ => return Err(WebError::Type("options.maxConnections must be a whole number from 1, or null".into())),
        },
    }
    let auth = auth_options(url, options)?;
    let credentials = match string_property(options, "credentials", OWNER)?.as_deref() {
        None => None,
        Some("omit") => Some(Credentials::Omit),
        Some("same-origin") => Some(Credentials::SameOrigin),
        Some("include") => Some(Credentials::Include),
        Some(other) => {
            return Err(WebError::Type(format!(
                "options.credentials must be \"omit\", \"same-origin\" or \"include\", not {other}",
                other = Quoted(other)
            )));
        }
    };

    let mut client = ClientOptions::default();
    if let Some(info) = property(options, "clientInfo") {
        let info = from_js(&info, "options.clientInfo")?.unwrap_or(Value::Null);
        client.client_info = crate::protocol::fields::from_value::<Implementation>(info, "{name, version, title?}")
            .map_err(|e| WebError::Type(format!("options.clientInfo must be {{name, version, title?}}: {e}")))?;
    }
    if let Some(timeout) = millis_property(options, "timeout", OWNER)? {
        client.request_timeout = timeout;
    }
    if let Some(version) = string_property(options, "protocolVersion", OWNER)? {
        client.protocol_version = version.parse::<ProtocolVersion>().map_err(|_| {
            let known: Vec<String> = ProtocolVersion::ALL.iter().map(|v| v.as_str().to_owned()).collect();
            WebError::Type(format!(
                "options.protocolVersion {version} is not one of {}",
                known.join(", "),
                version = Quoted(&version)
            ))
        })?;
    }
    if let Some(era) = string_property(options, "era", OWNER)? {
        client.era = match era.as_str() {
            "auto" => EraChoice::Auto,
            "handshake" => EraChoice::Handshake,
            "stateless" => EraChoice::Stateless,
            other => {
                return Err(WebError::Type(format!(
                    "options.era {other} is not one of auto, handshake, stateless",
                    other = Quoted(other)
                )));
            }
        };
    }
    let tasks = bool_property(options, "tasks", OWNER)?;
    let task_timeout = millis_property(options, "taskTimeout", OWNER)?;
    #[cfg(feature = "tasks")]
    {
        if let Some(tasks) = tasks {
            client.tasks = tasks;
        }
        if let Some(limit) = task_timeout {
            client.task_timeout = limit;
        }
    }
    // Without the feature the options are still read (a wrong type is the
    // same error); declaring the extension is refused by name, and a task
    // timeout alone bounds nothing.
    #[cfg(not(feature = "tasks"))]
    {
        let _ = task_timeout;
        if tasks == Some(true) {
            return Err(WebError::Type(
                "options.tasks is not in this build of mcp-edge (mcp-edge/lite does not run tool calls as \
                 tasks): import `mcp-edge`, or build with the `tasks` feature"
                    .into(),
            ));
        }
    }
    if let Some(cache) = bool_property(options, "resultCache", OWNER)? {
        client.result_cache = cache;
    }
    if let Some(reopen) = bool_property(options, "reopenListens", OWNER)? {
        client.reopen_listens = reopen;
    }
    if let Some(validate) = bool_property(options, "validateStructuredContent", OWNER)? {
        client.validate_structured_content = validate;
    }
    client = handlers(options, client)?;
    Ok(Connect { connect, credentials, client, auth })
}

/// `headers`: a plain object, a `Headers`, or an array of pairs.
fn headers(options: &JsValue) -> Result<Vec<(String, String)>, WebError> {
    let Some(value) = property(options, "headers") else {
        return Ok(Vec::new());
    };
    let invalid = || WebError::Type("options.headers must map header names to strings".into());
    if !value.is_object() {
        return Err(invalid());
    }
    if let Ok(Some(entries)) = js_sys::try_iter(&value) {
        let mut headers = Vec::new();
        for entry in entries {
            let entry = entry.map_err(|_| invalid())?;
            let pair = entry.dyn_into::<Array>().map_err(|_| invalid())?;
            match (pair.get(0).as_string(), pair.get(1).as_string()) {
                (Some(name), Some(value)) if pair.length() == 2 => headers.push((name, value)),
                _ => return Err(invalid()),
            }
        }
        return Ok(headers);
    }
    let object: Map<String, Value> = match from_js(&value, "options.headers")? {
        Some(Value::Object(object)) => object,
        _ => return Err(invalid()),
    };
    object
        .into_iter()
        .map(|(name, value)| match value {
            Value::String(value) => Ok((name, value)),
            _ => Err(WebError::Type(format!("options.headers[{name}] must be a string", name = Quoted(&name)))),
        })
        .collect()
}

/// The handlers and listeners of `ConnectOptions`.
fn handlers(options: &JsValue, mut client: ClientOptions) -> Result<ClientOptions, WebError> {
    const OWNER: &str = "options";
    if let Some(sampling) = function_property(options, "sampling", OWNER)? {
        client = client.on_request(methods::SAMPLING_CREATE_MESSAGE, JsHandler::new(sampling, HandlerKind::Sampling));
    }
    if let Some(elicitation) = function_property(options, "elicitation", OWNER)? {
        let fill_defaults = bool_property(options, "elicitationFillDefaults", OWNER)?.unwrap_or(true);
        let validate = bool_property(options, "elicitationValidate", OWNER)?.unwrap_or(true);
        let handler = JsHandler::new(elicitation, HandlerKind::Elicitation { fill_defaults, validate });
        client = client.on_request(methods::ELICITATION_CREATE, handler);
    }
    if let Some(roots) = function_property(options, "roots", OWNER)? {
        client = client.on_request(methods::ROOTS_LIST, JsHandler::new(roots, HandlerKind::Roots));
        client.roots_list_changed = true;
    }
    if let Some(listener) = function_property(options, "onnotification", OWNER)? {
        client = client.on_notification(move |notification| notify_listener(&listener, notification));
    }
    if let Some(listener) = function_property(options, "onsessionrestarted", OWNER)? {
        client = client.on_event(move |event| match event {
            SessionEvent::SessionRestarted => call_listener(&listener, "onsessionrestarted"),
            // Resubscriptions reach `onresubscribed`.
            SessionEvent::Resubscribed { .. } => {}
        });
    }
    if let Some(listener) = function_property(options, "onresubscribed", OWNER)? {
        client = client.on_event(move |event| {
            if let SessionEvent::Resubscribed { uri } = event
                && let Err(thrown) = listener.call1(&JsValue::UNDEFINED, &JsValue::from_str(uri))
            {
                log::warn!("the onresubscribed listener threw: {thrown:?}");
            }
        });
    }
    Ok(client)
}

/// `RequestOptions` of one call, kept as read so each request (each page of
/// a `listAll*`) gets fresh engine options.
#[derive(Debug, Default)]
pub(crate) struct CallOptions {
    timeout: Option<Duration>,
    reset_timeout_on_progress: bool,
    max_total_timeout: Option<Duration>,
    onprogress: Option<Function>,
    pub(crate) signal: Option<AbortSignal>,
}

impl CallOptions {
    /// Reads `RequestOptions` (`undefined` means none).
    pub(crate) fn parse(options: &JsValue) -> Result<CallOptions, WebError> {
        const OWNER: &str = "options";
        // Most calls pass none: one look instead of one per option.
        if options.is_undefined() {
            return Ok(CallOptions::default());
        }
        check_object(options, OWNER)?;
        OPTION_KEYS.with(|keys| {
            let read = |key: &JsValue| property_at(options, key);
            Ok(CallOptions {
                signal: read(&keys.signal).map(abort_signal).transpose()?,
                timeout: as_millis(read(&keys.timeout), "timeout", OWNER)?,
                reset_timeout_on_progress: as_bool(
                    read(&keys.reset_timeout_on_progress),
                    "resetTimeoutOnProgress",
                    OWNER,
                )?
                .unwrap_or(false),
                max_total_timeout: as_millis(read(&keys.max_total_timeout), "maxTotalTimeout", OWNER)?,
                onprogress: as_function(read(&keys.onprogress), "onprogress", OWNER)?,
            })
        })
    }

    /// The engine's options for one request.
    pub(crate) fn engine(&self) -> RequestOptions {
        let mut options = RequestOptions {
            timeout: self.timeout,
            reset_timeout_on_progress: self.reset_timeout_on_progress,
            max_total_timeout: self.max_total_timeout,
            ..RequestOptions::default()
        };
        if let Some(callback) = self.onprogress.clone() {
            options = options.with_progress(move |progress: &Progress| report_progress(&callback, progress));
        }
        options
    }
}

fn abort_signal(value: JsValue) -> Result<AbortSignal, WebError> {
    if value.is_instance_of::<AbortSignal>() {
        return Ok(value.unchecked_into());
    }
    // A signal from another realm (an iframe) fails `instanceof` but works.
    let looks_like_one = property(&value, "aborted").is_some_and(|a| a.as_bool().is_some())
        && property(&value, "addEventListener").is_some_and(|f| f.is_function());
    if looks_like_one {
        Ok(value.unchecked_into())
    } else {
        Err(WebError::Type("options.signal must be an AbortSignal".into()))
    }
}

/// The property names of `RequestOptions`, made once: a call with options
/// reads all five, and a name handed to JS from Rust text is decoded into
/// a new JS string each time.
struct OptionKeys {
    signal: JsValue,
    timeout: JsValue,
    reset_timeout_on_progress: JsValue,
    max_total_timeout: JsValue,
    onprogress: JsValue,
}

thread_local! {
    static OPTION_KEYS: OptionKeys = OptionKeys {
        signal: JsValue::from_str("signal"),
        timeout: JsValue::from_str("timeout"),
        reset_timeout_on_progress: JsValue::from_str("resetTimeoutOnProgress"),
        max_total_timeout: JsValue::from_str("maxTotalTimeout"),
        onprogress: JsValue::from_str("onprogress"),
    };
}

/// The property names of a progress update, made once: a JS string made
/// from Rust text costs a decode each time, and a flood of progress
/// notifications would pay it three times per update.
struct ProgressKeys {
    progress: JsValue,
    total: JsValue,
    message: JsValue,
}

thread_local! {
    static PROGRESS_KEYS: ProgressKeys = ProgressKeys {
        progress: JsValue::from_str("progress"),
        total: JsValue::from_str("total"),
        message: JsValue::from_str("message"),
    };
}

/// Calls `onprogress` with `{progress, total?, message?}`.
fn report_progress(callback: &Function, progress: &Progress) {
    let update = js_sys::Object::new();
    PROGRESS_KEYS.with(|keys| {
        // Setting a property on an object just made cannot fail.
        let _ = js_sys::Reflect::set(&update, &keys.progress, &JsValue::from_f64(progress.progress));
        if let Some(total) = progress.total {
            let _ = js_sys::Reflect::set(&update, &keys.total, &JsValue::from_f64(total));
        }
        if let Some(message) = &progress.message {
            let _ = js_sys::Reflect::set(&update, &keys.message, &JsValue::from_str(message));
        }
    });
    if let Err(thrown) = callback.call1(&JsValue::UNDEFINED, &update) {
        log::warn!("an onprogress callback threw: {}", super::convert::message_of(&thrown));
    }
}

/// Runs `work` until it finishes or `signal` fires. Firing drops `work`,
/// which makes the engine send `notifications/cancelled`; the call then
/// fails with an `AbortError`. An already-aborted signal fails at once.
///
/// Built from combinators rather than as an `async fn`: an `async fn` keeps
/// room for `work` as its argument and again as the future it awaits, and
/// every call in flight carries its future (measured with
/// `-Zprint-type-sizes`: 1,792 bytes as an `async fn` around an 872-byte
/// request).
pub(crate) fn abortable<T, W>(
    method: String,
    signal: Option<AbortSignal>,
    work: W,
) -> impl Future<Output = Result<T, WebError>>
where
    W: Future<Output = Result<T, WebError>>,
{
    let Some(signal) = signal else {
        return Either::Left(work);
    };
    let aborted = move |signal: &AbortSignal| WebError::Aborted { method, reason: signal.reason() };
    if signal.aborted() {
        return Either::Right(Either::Left(ready(Err(aborted(&signal)))));
    }
    let (handle, registration) = AbortHandle::new_pair();
    let on_abort = Closure::<dyn FnMut()>::new(move || handle.abort());
    let listener: &Function = on_abort.as_ref().unchecked_ref();
    if let Err(e) = signal.add_event_listener_with_callback("abort", listener) {
        let error = WebError::Type(format!("options.signal: {}", super::convert::message_of(&e)));
        return Either::Right(Either::Left(ready(Err(error))));
    }
    Either::Right(Either::Right(Abortable::new(work, registration).map(move |outcome| {
        // The work (and so the request) is dropped by now; stop listening.
        let _ = signal.remove_event_listener_with_callback("abort", on_abort.as_ref().unchecked_ref());
        drop(on_abort);
        outcome.unwrap_or_else(|_| Err(aborted(&signal)))
    })))
}
