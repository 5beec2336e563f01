//! Values and errors across the JS boundary.
//!
//! JS to Rust goes through `JSON.stringify`, so a value means exactly what it
//! would mean on the wire (`undefined` fields vanish, `toJSON` is honoured).
//! Rust to JS builds plain objects (never `Map`s): directly for small
//! values, through JSON text and `JSON.parse` for large ones (`to_js`).

use js_sys::Reflect;
use serde_json::{Map, Value};
use wasm_bindgen::JsValue;

use crate::client::Error;
use crate::protocol::RawResult;

/// Why a call from JS failed, before it becomes a JS exception.
#[derive(Debug)]
pub(crate) enum WebError {
    /// The engine failed: becomes an `McpError`. Boxed: every reader of a
    /// JS option returns a `Result` of this type, and each `?` moves the
    /// whole value, so the size of the largest variant is paid at every one
    /// (boxed, -1.0 KB gzip of the lite wasm; docs/size.md, session 30).
    Mcp(Box<Error>),
    /// The caller passed a value of the wrong shape: becomes a `TypeError`.
    Type(String),
    /// The caller's `AbortSignal` fired: becomes an `AbortError`.
    Aborted {
        /// What was aborted.
        method: String,
        /// `signal.reason`, kept as the error's `cause`.
        reason: JsValue,
    },
    /// A value could not be converted for JS.
    Convert(String),
    /// What a check in JS threw (`options.js`: a `TypeError` that names the
    /// option), thrown on as it is.
    Thrown(JsValue),
}

impl std::fmt::Display for WebError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            WebError::Mcp(error) => write!(f, "{error}"),
            WebError::Type(message) | WebError::Convert(message) => f.write_str(message),
            WebError::Aborted { method, .. } => write!(f, "{method} was aborted"),
            WebError::Thrown(thrown) => f.write_str(&message_of(thrown)),
        }
    }
}

impl From<Error> for WebError {
    fn from(error: Error) -> Self {
        WebError::Mcp(Box::new(error))
    }
}

/// The `code` the TypeScript SDK gives a request that timed out
/// (`ErrorCode.RequestTimeout`), so code written for it keeps working.
const REQUEST_TIMEOUT_CODE: i64 = -32001;

impl From<WebError> for JsValue {
    fn from(error: WebError) -> Self {
        match error {
            WebError::Mcp(error) => mcp_error(&error),
            WebError::Type(message) => js_sys::TypeError::new(&message).into(),
            WebError::Aborted { method, reason } => {
                let error = js_sys::Error::new(&format!("{method} was aborted"));
                error.set_name("AbortError");
                if !reason.is_undefined() {
                    set(&error, "cause", &reason);
                }
                error.into()
            }
            WebError::Convert(message) => {
                let error = js_sys::Error::new(&message);
                error.set_name("McpError");
                error.into()
            }
            WebError::Thrown(thrown) => thrown,
        }
    }
}

/// An `Error` named `McpError` with the message of `error`, its JSON-RPC
/// `code` (and `data`) when the server sent one.
fn mcp_error(error: &Error) -> JsValue {
    let js = js_sys::Error::new(&error.to_string());
    js.set_name("McpError");
    match error {
        Error::Rpc { error, .. } => {
            set(&js, "code", &JsValue::from_f64(error.code as f64));
            if let Some(data) = &error.data {
                // Data that cannot cross is dropped rather than hiding the error.
                if let Ok(data) = to_js(data) {
                    set(&js, "data", &data);
                }
            }
        }
        // Every kind of timeout (a request's, or a transport's wait such as
        // the legacy `endpoint` event) carries the SDK's timeout code.
        error if error.is_timeout() => set(&js, "code", &JsValue::from_f64(REQUEST_TIMEOUT_CODE as f64)),
        _ => {}
    }
    js.into()
}

fn set(target: &JsValue, key: &str, value: &JsValue) {
    // Setting a property on an object we just made cannot fail.
    let _ = Reflect::set(target, &JsValue::from_str(key), value);
}

/// A JSON value as a plain JS value, as JSON text through one
/// `JSON.parse` (an integer beyond 2^53 becomes the nearest double, as
/// `JSON.parse` makes it of the wire text; a `__proto__` key an own
/// property). Building it node by node across the boundary was faster only
/// for a value of few nodes holding a large text, and cost its own code.
pub(crate) fn to_js(value: &Value) -> Result<JsValue, WebError> {
    json_to_js(&crate::protocol::json_text(value))
}

/// A result as a plain JS value: its text through one `JSON.parse`.
pub(crate) fn raw_to_js(result: &RawResult) -> Result<JsValue, WebError> {
    json_to_js(result.text())
}

/// JSON text as a plain JS value.
pub(crate) fn json_to_js(text: &str) -> Result<JsValue, WebError> {
    js_sys::JSON::parse(text)
        .map_err(|e| WebError::Convert(format!("cannot convert the value for JS: {}", message_of(&e))))
}

/// A JS value as JSON; `None` for `undefined` and for what JSON cannot
/// hold (a function, a symbol).
pub(crate) fn from_js(value: &JsValue, what: &str) -> Result<Option<Value>, WebError> {
    if value.is_undefined() {
        return Ok(None);
    }
    let text = js_sys::JSON::stringify(value)
        .map_err(|e| WebError::Type(format!("{what} cannot be sent as JSON: {}", message_of(&e))))?;
    let Some(text) = JsValue::from(text).as_string() else {
        return Ok(None);
    };
    crate::protocol::json::parse(&text).map(Some).map_err(|e| WebError::Type(format!("{what} is not valid JSON: {e}")))
}

/// A JS value that must be a JSON object, or absent (`undefined`/`null`).
pub(crate) fn object_from_js(value: &JsValue, what: &str) -> Result<Option<Map<String, Value>>, WebError> {
    if value.is_null() {
        return Ok(None);
    }
    match from_js(value, what)? {
        None => Ok(None),
        Some(Value::Object(object)) => Ok(Some(object)),
        Some(other) => {
            Err(WebError::Type(format!("{what} must be an object, not {}", crate::protocol::json_kind(&other))))
        }
    }
}

/// The text of a thrown value (the fetch seam's reader of it).
pub(crate) use crate::http::message_of;

/// A property of an object; `None` when absent, `undefined` or `null`, or
/// when `target` is not an object.
pub(crate) fn property(target: &JsValue, key: &str) -> Option<JsValue> {
    if !target.is_object() && !target.is_function() {
        return None;
    }
    Reflect::get(target, &JsValue::from_str(key)).ok().filter(|v| !v.is_undefined() && !v.is_null())
}

/// Aborts its controller if dropped while armed: a future that handed JS
/// the signal was dropped before JS settled (the server cancelled, the
/// session closed, the caller stopped waiting).
pub(crate) struct AbortOnDrop(Option<web_sys::AbortController>);

impl AbortOnDrop {
    /// A new controller, armed.
    pub(crate) fn armed() -> Self {
        AbortOnDrop(web_sys::AbortController::new().ok())
    }

    /// Nothing to abort (JS that takes no signal).
    pub(crate) fn unarmed() -> Self {
        AbortOnDrop(None)
    }

    /// The signal to hand JS (none where the host made no controller).
    pub(crate) fn signal(&self) -> Option<web_sys::AbortSignal> {
        self.0.as_ref().map(web_sys::AbortController::signal)
    }

    /// JS settled: the signal must not fire now.
    pub(crate) fn disarm(&mut self) {
        self.0 = None;
    }
}

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        if let Some(controller) = self.0.take() {
            controller.abort();
        }
    }
}
