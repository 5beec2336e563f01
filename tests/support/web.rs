//! Helpers shared by the browser test files (tests/browser*.rs), as
//! `support::web` (see tests/support/mod.rs).
//!
//! - URLs baked in at compile time with `option_env!` (a page cannot read
//!   the environment);
//! - bounded waits: every wait ends, with a panic that says what hung;
//! - the JS API (`McpClient`) from Rust: promises, plain JS objects, tool
//!   calls and their results, closures as JS functions, connect and close.

use std::fmt::Display;
use std::future::Future;
use std::time::Duration;

use js_sys::{Array, Object, Promise, Reflect};
use mcp_edge::web::McpClient;
use wasm_bindgen::JsValue;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::convert::TryFromJsValue;
use wasm_bindgen_futures::JsFuture;

/// A URL baked in at compile time (`option_env!`), if it was set and not
/// empty.
pub fn set(url: Option<&'static str>) -> Option<&'static str> {
    url.filter(|url| !url.is_empty())
}

/// A URL that must have been baked in at compile time; `unset` is the panic
/// message when it was not (it says how to set it).
pub fn required_url(url: Option<&'static str>, unset: impl Display) -> String {
    match set(url) {
        Some(url) => url.to_owned(),
        None => panic!("{unset}"),
    }
}

/// Every wait is bounded (see [`super::within_for`]).
pub async fn within<T>(what: &str, seconds: u64, work: impl Future<Output = T>) -> T {
    super::within_for(Duration::from_secs(seconds), what, work).await
}

/// Waits (bounded) for a promise.
pub async fn settle(what: &str, seconds: u64, promise: Promise) -> Result<JsValue, JsValue> {
    within(what, seconds, JsFuture::from(promise)).await
}

/// Waits (bounded) for a promise that must resolve.
pub async fn resolved(what: &str, seconds: u64, promise: Promise) -> JsValue {
    match settle(what, seconds, promise).await {
        Ok(value) => value,
        Err(error) => panic!("{what} rejected: {}", describe(&error)),
    }
}

/// Waits (bounded) for a promise that must reject.
pub async fn rejected(what: &str, seconds: u64, promise: Promise) -> JsValue {
    match settle(what, seconds, promise).await {
        Ok(value) => panic!("{what} resolved to {} but should have rejected", json(&value)),
        Err(error) => error,
    }
}

/// `name: message (the error as JSON)`.
pub fn describe(error: &JsValue) -> String {
    format!("{}: {} ({})", text(&get(error, "name")), text(&get(error, "message")), json(error))
}

/// The value as JSON, or its `Debug` form when it has none.
pub fn json(value: &JsValue) -> String {
    js_sys::JSON::stringify(value)
        .ok()
        .and_then(|s| JsValue::from(s).as_string())
        .unwrap_or_else(|| format!("{value:?}"))
}

/// The string, or `""` for anything else.
pub fn text(value: &JsValue) -> String {
    value.as_string().unwrap_or_default()
}

/// `target[key]`, `undefined` when it cannot be read.
pub fn get(target: &JsValue, key: &str) -> JsValue {
    Reflect::get(target, &JsValue::from_str(key)).unwrap_or(JsValue::UNDEFINED)
}

/// A plain JS object with these properties.
pub fn object(entries: &[(&str, JsValue)]) -> JsValue {
    let object = Object::new();
    for (key, value) in entries {
        Reflect::set(&object, &JsValue::from_str(key), value).expect("setting a property of a fresh object");
    }
    object.into()
}

/// `callTool` params: `{name, arguments}`.
pub fn tool(name: &str, arguments: JsValue) -> JsValue {
    object(&[("name", name.into()), ("arguments", arguments)])
}

/// The text of every text block of a tool result, joined.
pub fn result_text(result: &JsValue) -> String {
    let content = get(result, "content");
    assert!(Array::is_array(&content), "a tool result has a content array: {}", json(result));
    Array::from(&content).iter().filter_map(|block| get(&block, "text").as_string()).collect::<Vec<_>>().join("\n")
}

/// A JS function of two arguments (a handler's `(params, extra)`).
pub fn function2(f: impl FnMut(JsValue, JsValue) -> JsValue + 'static) -> JsValue {
    Closure::<dyn FnMut(JsValue, JsValue) -> JsValue>::new(f).into_js_value()
}

/// `McpClient.connect(url, options)`, which must resolve (bounded, as
/// `what`) to an `McpClient`.
pub async fn connect_client(what: &str, seconds: u64, url: String, options: JsValue) -> McpClient {
    let value = resolved(what, seconds, McpClient::connect(url, options)).await;
    match McpClient::try_from_js_value(value) {
        Ok(client) => client,
        Err(value) => panic!("connect resolved to {} instead of an McpClient", json(&value)),
    }
}

pub async fn close(client: McpClient) {
    resolved("close", 10, client.close()).await;
}
