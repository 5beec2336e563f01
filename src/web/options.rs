//! `ConnectOptions` and `RequestOptions` read from JS objects, and
//! cancellation through an `AbortSignal`.

use std::future::Future;
use std::time::Duration;

use futures::FutureExt as _;
use futures::future::{AbortHandle, Abortable, Either, ready};
use js_sys::{Array, Function};
use wasm_bindgen::closure::Closure;
use wasm_bindgen::prelude::wasm_bindgen;
use wasm_bindgen::{JsCast, JsValue};
use web_sys::AbortSignal;

use super::auth::{WebAuth, web_auth};
use super::convert::WebError;
use super::handlers::{HandlerKind, JsHandler, call_listener, notify_listener};
use crate::client::negotiate::TransportChoice;
use crate::client::{ClientOptions, ConnectOptions, EraChoice, RequestOptions, SessionEvent};
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

#[wasm_bindgen(module = "/src/web/options.js")]
extern "C" {
    /// `ConnectOptions` checked: throws a `TypeError` naming the first
    /// option of the wrong type or value; returns what was given, each of
    /// the type [`Checked`] reads (the file says which).
    #[wasm_bindgen(js_name = connectOptions, catch)]
    fn check_connect_options(options: &JsValue, tasks: bool, machine_grants: bool) -> Result<JsValue, JsValue>;
    /// `RequestOptions` checked: throws a `TypeError` naming the first
    /// option of the wrong type; returns an array of what was given, by
    /// place (the file says which).
    #[wasm_bindgen(js_name = callOptions, catch)]
    fn check_call_options(options: &JsValue) -> Result<Array, JsValue>;
    /// Calls `onprogress` with `{progress, total?, message?}`: one call,
    /// where building the object from Rust took one per property. Returns
    /// what the callback threw, or undefined.
    #[wasm_bindgen(js_name = reportProgress)]
    fn call_onprogress(callback: &Function, progress: f64, total: Option<f64>, message: Option<&str>) -> JsValue;
    /// `options.auth` checked, as `connectOptions` checks it, with where
    /// this runs (`inPage`, `origin`) and the redirect URI it defaults to.
    #[wasm_bindgen(js_name = authOptions, catch)]
    pub(crate) fn check_auth_options(auth: &JsValue, machine_grants: bool) -> Result<JsValue, JsValue>;
    /// Calls `onabort` when `signal` aborts: `undefined` if it has aborted
    /// already, else the function that stops listening.
    #[wasm_bindgen(js_name = watchSignal, catch)]
    fn watch_signal(signal: &AbortSignal, onabort: &Function) -> Result<Option<Function>, JsValue>;
}

/// What `options.js` returned: an array of what was given, by place (its
/// `*_READ` lists name each place; the constants here are their indexes).
/// Each value is of its type or absent, so it is read without checking
/// again (a value of another type reads as absent).
pub(crate) struct Checked(pub(crate) JsValue);

impl Checked {
    pub(crate) fn value(&self, place: u32) -> Option<JsValue> {
        let value = self.0.unchecked_ref::<Array>().get(place);
        (!value.is_undefined()).then_some(value)
    }

    pub(crate) fn text(&self, place: u32) -> Option<String> {
        self.value(place)?.as_string()
    }

    pub(crate) fn flag(&self, place: u32) -> Option<bool> {
        self.value(place)?.as_bool()
    }

    pub(crate) fn number(&self, place: u32) -> Option<f64> {
        self.value(place)?.as_f64()
    }

    /// A choice among names, as its index in the file's list of them.
    pub(crate) fn index(&self, place: u32) -> Option<u32> {
        self.number(place).map(|n| n as u32)
    }

    pub(crate) fn millis(&self, place: u32) -> Option<Duration> {
        self.number(place).map(crate::runtime::duration_from_millis)
    }

    pub(crate) fn function(&self, place: u32) -> Option<Function> {
        self.value(place).filter(JsValue::is_function).map(JsCast::unchecked_into)
    }
}

/// The places of `connectOptions`' answer (`options.js`'s `CONNECT_READ`).
mod connect {
    pub(super) const TRANSPORT: u32 = 0;
    pub(super) const OPEN_SERVER_STREAM: u32 = 1;
    pub(super) const EAGER_SERVER_STREAM: u32 = 2;
    pub(super) const CREDENTIALS: u32 = 3;
    pub(super) const TIMEOUT: u32 = 4;
    pub(super) const PROTOCOL_VERSION: u32 = 5;
    pub(super) const ERA: u32 = 6;
    #[cfg_attr(not(any(feature = "tasks", test)), allow(dead_code))]
    pub(super) const TASKS: u32 = 7;
    #[cfg_attr(not(any(feature = "tasks", test)), allow(dead_code))]
    pub(super) const TASK_TIMEOUT: u32 = 8;
    pub(super) const RESULT_CACHE: u32 = 9;
    pub(super) const REOPEN_LISTENS: u32 = 10;
    pub(super) const VALIDATE_STRUCTURED_CONTENT: u32 = 11;
    pub(super) const SAMPLING: u32 = 12;
    pub(super) const ELICITATION: u32 = 13;
    pub(super) const ELICITATION_FILL_DEFAULTS: u32 = 14;
    pub(super) const ELICITATION_VALIDATE: u32 = 15;
    pub(super) const ROOTS: u32 = 16;
    pub(super) const ONNOTIFICATION: u32 = 17;
    pub(super) const ONSESSIONRESTARTED: u32 = 18;
    pub(super) const ONRESUBSCRIBED: u32 = 19;
    pub(super) const HEADERS: u32 = 20;
    pub(super) const CLIENT_INFO: u32 = 21;
    pub(super) const UNLIMITED: u32 = 22;
    pub(super) const MAX_CONNECTIONS: u32 = 23;
    pub(super) const AUTH: u32 = 24;
}

/// The places of `clientInfo`'s answer (`options.js`'s `INFO_READ`).
mod info {
    pub(super) const NAME: u32 = 0;
    pub(super) const VERSION: u32 = 1;
    pub(super) const TITLE: u32 = 2;
    pub(super) const DESCRIPTION: u32 = 3;
    pub(super) const WEBSITE_URL: u32 = 4;
}

/// Reads `ConnectOptions`: checked by `options.js`, then made the engine's.
pub(crate) fn connect_options(url: &str, options: &JsValue) -> Result<Connect, WebError> {
    let read = check_connect_options(options, cfg!(feature = "tasks"), cfg!(feature = "machine-grants"))
        .map(Checked)
        .map_err(WebError::Thrown)?;
    let choice = match read.index(connect::TRANSPORT) {
        Some(1) => TransportChoice::StreamableHttp,
        Some(2) => TransportChoice::Sse,
        _ => TransportChoice::Auto,
    };
    let mut connect = ConnectOptions::new().with_transport(choice);
    if let Some(pairs) = read.value(connect::HEADERS) {
        // `options.js` made it: an array of `[name, value]` string pairs.
        let pairs: &Array = pairs.unchecked_ref();
        for at in 0..pairs.length() {
            let pair: Array = pairs.get(at).unchecked_into();
            connect
                .headers
                .push((pair.get(0).as_string().unwrap_or_default(), pair.get(1).as_string().unwrap_or_default()));
        }
    }
    if let Some(open) = read.flag(connect::OPEN_SERVER_STREAM) {
        connect.open_server_stream = open;
    }
    if let Some(eager) = read.flag(connect::EAGER_SERVER_STREAM) {
        connect.eager_server_stream = eager;
    }
    if read.flag(connect::UNLIMITED) == Some(true) {
        connect.max_connections = None;
    } else if let Some(limit) = read.number(connect::MAX_CONNECTIONS) {
        connect.max_connections = Some(limit as usize);
    }
    let auth = match read.value(connect::AUTH) {
        Some(auth) => Some(web_auth(url, &Checked(auth))?),
        None => None,
    };
    let credentials = match read.index(connect::CREDENTIALS) {
        Some(0) => Some(Credentials::Omit),
        Some(1) => Some(Credentials::SameOrigin),
        Some(2) => Some(Credentials::Include),
        _ => None,
    };

    let mut client = ClientOptions::default();
    if let Some(info) = read.value(connect::CLIENT_INFO).map(Checked) {
        client.client_info = Implementation {
            name: info.text(info::NAME).unwrap_or_default(),
            version: info.text(info::VERSION).unwrap_or_default(),
            title: info.text(info::TITLE),
            description: info.text(info::DESCRIPTION),
            website_url: info.text(info::WEBSITE_URL),
        };
    }
    if let Some(timeout) = read.millis(connect::TIMEOUT) {
        client.request_timeout = timeout;
    }
    if let Some(version) = read.text(connect::PROTOCOL_VERSION) {
        // The error names the versions this client speaks, both eras'.
        client.protocol_version = version
            .parse::<ProtocolVersion>()
            .map_err(|unsupported| WebError::Type(format!("options.protocolVersion: {unsupported}")))?;
    }
    client.era = match read.index(connect::ERA) {
        Some(1) => EraChoice::Handshake,
        Some(2) => EraChoice::Stateless,
        _ => EraChoice::Auto,
    };
    // Without the feature `options.js` refuses `tasks: true`.
    #[cfg(feature = "tasks")]
    {
        if let Some(tasks) = read.flag(connect::TASKS) {
            client.tasks = tasks;
        }
        if let Some(limit) = read.millis(connect::TASK_TIMEOUT) {
            client.task_timeout = limit;
        }
    }
    if let Some(cache) = read.flag(connect::RESULT_CACHE) {
        client.result_cache = cache;
    }
    if let Some(reopen) = read.flag(connect::REOPEN_LISTENS) {
        client.reopen_listens = reopen;
    }
    if let Some(validate) = read.flag(connect::VALIDATE_STRUCTURED_CONTENT) {
        client.validate_structured_content = validate;
    }
    Ok(Connect { connect, credentials, client: handlers(&read, client), auth })
}

/// The handlers and listeners of `ConnectOptions`.
fn handlers(read: &Checked, mut client: ClientOptions) -> ClientOptions {
    if let Some(sampling) = read.function(connect::SAMPLING) {
        client = client.on_request(methods::SAMPLING_CREATE_MESSAGE, JsHandler::new(sampling, HandlerKind::Sampling));
    }
    if let Some(elicitation) = read.function(connect::ELICITATION) {
        let fill_defaults = read.flag(connect::ELICITATION_FILL_DEFAULTS).unwrap_or(true);
        let validate = read.flag(connect::ELICITATION_VALIDATE).unwrap_or(true);
        let handler = JsHandler::new(elicitation, HandlerKind::Elicitation { fill_defaults, validate });
        client = client.on_request(methods::ELICITATION_CREATE, handler);
    }
    if let Some(roots) = read.function(connect::ROOTS) {
        client = client.on_request(methods::ROOTS_LIST, JsHandler::new(roots, HandlerKind::Roots));
        client.roots_list_changed = true;
    }
    if let Some(listener) = read.function(connect::ONNOTIFICATION) {
        client = client.on_notification(move |notification| notify_listener(&listener, notification));
    }
    if let Some(listener) = read.function(connect::ONSESSIONRESTARTED) {
        client = client.on_event(move |event| match event {
            SessionEvent::SessionRestarted => call_listener(&listener, "onsessionrestarted"),
            // Resubscriptions reach `onresubscribed`.
            SessionEvent::Resubscribed { .. } => {}
        });
    }
    if let Some(listener) = read.function(connect::ONRESUBSCRIBED) {
        client = client.on_event(move |event| {
            if let SessionEvent::Resubscribed { uri } = event
                && let Err(thrown) = listener.call1(&JsValue::UNDEFINED, &JsValue::from_str(uri))
            {
                log::warn!("the onresubscribed listener threw: {thrown:?}");
            }
        });
    }
    client
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
    /// Reads `RequestOptions` (`undefined` means none), checked by
    /// `options.js`.
    pub(crate) fn parse(options: &JsValue) -> Result<CallOptions, WebError> {
        // Most calls pass none: no look at all.
        if options.is_undefined() {
            return Ok(CallOptions::default());
        }
        let read = check_call_options(options).map_err(WebError::Thrown)?;
        let at = |place: u32| Some(read.get(place)).filter(|value| !value.is_undefined());
        let millis = |place: u32| at(place).and_then(|ms| ms.as_f64()).map(crate::runtime::duration_from_millis);
        Ok(CallOptions {
            signal: at(0).map(JsCast::unchecked_into),
            timeout: millis(1),
            reset_timeout_on_progress: read.get(2).as_bool().unwrap_or(false),
            max_total_timeout: millis(3),
            onprogress: at(4).map(JsCast::unchecked_into),
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

/// Calls `onprogress` with `{progress, total?, message?}`.
fn report_progress(callback: &Function, progress: &Progress) {
    let thrown = call_onprogress(callback, progress.progress, progress.total, progress.message.as_deref());
    if !thrown.is_undefined() {
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
    let (handle, registration) = AbortHandle::new_pair();
    let on_abort = Closure::<dyn FnMut()>::new(move || handle.abort());
    let stop = match watch_signal(&signal, on_abort.as_ref().unchecked_ref()) {
        Ok(Some(stop)) => stop,
        Ok(None) => return Either::Right(Either::Left(ready(Err(aborted(&signal))))),
        Err(e) => {
            let error = WebError::Type(format!("options.signal: {}", super::convert::message_of(&e)));
            return Either::Right(Either::Left(ready(Err(error))));
        }
    };
    Either::Right(Either::Right(Abortable::new(work, registration).map(move |outcome| {
        // The work (and so the request) is dropped by now; stop listening.
        let _ = stop.call0(&JsValue::UNDEFINED);
        drop(on_abort);
        outcome.unwrap_or_else(|_| Err(aborted(&signal)))
    })))
}

// Run in Chromium by `cargo xtask test` (the library's wasm-bindgen suite).
#[cfg(test)]
mod tests {
    use wasm_bindgen_test::wasm_bindgen_test;

    use super::*;

    /// `options` (JSON) with the functions named in `functions` set too.
    fn js_options(json: &str, functions: &[&str]) -> JsValue {
        let options = js_sys::JSON::parse(json).unwrap_or_else(|e| panic!("bad test JSON: {e:?}"));
        for name in functions {
            let _ = js_sys::Reflect::set(&options, &JsValue::from_str(name), &Function::new_no_args(""));
        }
        options
    }

    /// Every option `options.js` hands back is where `connect` says it is:
    /// each is given a value no other place holds.
    #[wasm_bindgen_test]
    fn each_connect_option_is_read_from_its_place() {
        let options = js_options(
            r#"{"transport": "sse", "openServerStream": true, "eagerServerStream": false,
                "credentials": "include", "timeout": 1234, "protocolVersion": "2025-06-18",
                "era": "stateless", "tasks": true, "taskTimeout": 4321, "resultCache": false,
                "reopenListens": true, "validateStructuredContent": false,
                "elicitationFillDefaults": false, "elicitationValidate": true,
                "headers": {"x-a": "b"}, "maxConnections": 3,
                "clientInfo": {"name": "n", "version": "v", "title": "t", "description": "d", "websiteUrl": "w"}}"#,
            &["sampling", "elicitation", "roots", "onnotification", "onsessionrestarted", "onresubscribed"],
        );
        let read = match check_connect_options(&options, true, true) {
            Ok(read) => Checked(read),
            Err(e) => panic!("connectOptions threw: {e:?}"),
        };
        assert_eq!(read.index(connect::TRANSPORT), Some(2));
        assert_eq!(read.flag(connect::OPEN_SERVER_STREAM), Some(true));
        assert_eq!(read.flag(connect::EAGER_SERVER_STREAM), Some(false));
        assert_eq!(read.index(connect::CREDENTIALS), Some(2));
        assert_eq!(read.number(connect::TIMEOUT), Some(1234.0));
        assert_eq!(read.text(connect::PROTOCOL_VERSION).as_deref(), Some("2025-06-18"));
        assert_eq!(read.index(connect::ERA), Some(2));
        assert_eq!(read.flag(connect::TASKS), Some(true));
        assert_eq!(read.number(connect::TASK_TIMEOUT), Some(4321.0));
        assert_eq!(read.flag(connect::RESULT_CACHE), Some(false));
        assert_eq!(read.flag(connect::REOPEN_LISTENS), Some(true));
        assert_eq!(read.flag(connect::VALIDATE_STRUCTURED_CONTENT), Some(false));
        assert_eq!(read.flag(connect::ELICITATION_FILL_DEFAULTS), Some(false));
        assert_eq!(read.flag(connect::ELICITATION_VALIDATE), Some(true));
        for place in [
            connect::SAMPLING,
            connect::ELICITATION,
            connect::ROOTS,
            connect::ONNOTIFICATION,
            connect::ONSESSIONRESTARTED,
            connect::ONRESUBSCRIBED,
        ] {
            assert!(read.function(place).is_some(), "no function at {place}");
        }
        assert!(read.value(connect::HEADERS).is_some_and(|headers| Array::is_array(&headers)));
        assert_eq!(read.flag(connect::UNLIMITED), None);
        assert_eq!(read.number(connect::MAX_CONNECTIONS), Some(3.0));
        assert!(read.value(connect::AUTH).is_none());
        let info = read.value(connect::CLIENT_INFO).map(Checked);
        let info = info.unwrap_or_else(|| panic!("no clientInfo"));
        let texts = [info::NAME, info::VERSION, info::TITLE, info::DESCRIPTION, info::WEBSITE_URL]
            .map(|place| info.text(place));
        assert_eq!(texts, ["n", "v", "t", "d", "w"].map(|text| Some(text.to_owned())));
        // `maxConnections: null` is no limit.
        let read = check_connect_options(&js_options(r#"{"maxConnections": null}"#, &[]), false, false).map(Checked);
        assert!(read.is_ok_and(|read| read.flag(connect::UNLIMITED) == Some(true)));
    }
}
