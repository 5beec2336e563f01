//! The floor of `cargo xtask size`: the least a Rust MCP client compiled to
//! wasm can be. It speaks JSON-RPC over `fetch` to a Streamable HTTP server
//! (protocol 2025-11-25): `initialize` and `notifications/initialized`,
//! then requests carrying the session header, with a JSON body or a
//! single-event SSE stream as the reply; a JSON-RPC or HTTP error rejects.
//! Nothing else: no second era, no OAuth, no server requests, no progress,
//! no cancellation, no resumption, no timeouts, one session per module.
//!
//! What it weighs is what the toolchain, wasm-bindgen, `fetch` and (with the
//! `serde-json` feature) serde_json cost before any engine is written; the
//! package's bounds read against it.

use std::cell::{Cell, RefCell};
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;

const PROTOCOL_VERSION: &str = "2025-11-25";

thread_local! {
    static SESSION: RefCell<Option<String>> = const { RefCell::new(None) };
    static NEXT_ID: Cell<u64> = const { Cell::new(1) };
}

#[wasm_bindgen]
extern "C" {
    /// The global `fetch` of a page, a worker, Node or Deno, given the URL
    /// and the init (no `Request` object: one allocation and copy fewer).
    #[wasm_bindgen(js_name = fetch)]
    fn fetch(url: &str, init: &web_sys::RequestInit) -> js_sys::Promise;
}

fn error(message: &str) -> JsValue {
    JsError::new(message).into()
}

/// POSTs one JSON-RPC message; the reply's JSON text (`None` for 202).
async fn post(url: &str, body: &str) -> Result<Option<String>, JsValue> {
    let headers = web_sys::Headers::new()?;
    headers.set("content-type", "application/json")?;
    headers.set("accept", "application/json, text/event-stream")?;
    headers.set("mcp-protocol-version", PROTOCOL_VERSION)?;
    if let Some(session) = SESSION.with_borrow(Clone::clone) {
        headers.set("mcp-session-id", &session)?;
    }
    let init = web_sys::RequestInit::new();
    init.set_method("POST");
    init.set_headers(&headers);
    init.set_body(&JsValue::from_str(body));
    let response: web_sys::Response = JsFuture::from(fetch(url, &init)).await?.dyn_into()?;
    if !response.ok() {
        return Err(error(&format!("HTTP status {}", response.status())));
    }
    if let Some(session) = response.headers().get("mcp-session-id")? {
        SESSION.with_borrow_mut(|slot| *slot = Some(session));
    }
    if response.status() == 202 {
        return Ok(None);
    }
    let sse = response.headers().get("content-type")?.is_some_and(|t| t.starts_with("text/event-stream"));
    let text = JsFuture::from(response.text()?).await?.as_string().ok_or_else(|| error("the body is not text"))?;
    Ok(Some(if sse { last_event_data(&text) } else { text }))
}

/// The data of an SSE stream's last event (a reply stream of one event).
fn last_event_data(stream: &str) -> String {
    let mut data = String::new();
    let mut last = String::new();
    for line in stream.lines() {
        if line.is_empty() {
            if !data.is_empty() {
                last = std::mem::take(&mut data);
            }
        } else if let Some(value) = line.strip_prefix("data:") {
            if !data.is_empty() {
                data.push('\n');
            }
            data.push_str(value.strip_prefix(' ').unwrap_or(value));
        }
    }
    if data.is_empty() { last } else { data }
}

fn next_id() -> u64 {
    NEXT_ID.with(|next| next.replace(next.get() + 1))
}

/// The envelope by serde_json, as the package writes and reads it.
#[cfg(feature = "serde-json")]
mod envelope {
    use super::{JsValue, error, next_id};
    use serde_json::{Value, json};

    pub fn request(method: &str, params: &JsValue) -> Result<String, JsValue> {
        let text = js_sys::JSON::stringify(params)?.as_string().unwrap_or_default();
        let params: Value = serde_json::from_str(&text).map_err(|e| error(&e.to_string()))?;
        Ok(json!({ "jsonrpc": "2.0", "id": next_id(), "method": method, "params": params }).to_string())
    }

    pub fn notification(method: &str) -> String {
        json!({ "jsonrpc": "2.0", "method": method }).to_string()
    }

    pub fn result(reply: &str) -> Result<JsValue, JsValue> {
        let mut reply: Value = serde_json::from_str(reply).map_err(|e| error(&e.to_string()))?;
        if let Some(failure) = reply.get("error") {
            return Err(error(failure.get("message").and_then(Value::as_str).unwrap_or("a JSON-RPC error")));
        }
        let result = reply.get_mut("result").map(Value::take).ok_or_else(|| error("a reply without a result"))?;
        js_sys::JSON::parse(&result.to_string())
    }
}

/// The envelope by the host's `JSON`.
#[cfg(not(feature = "serde-json"))]
mod envelope {
    use super::{JsValue, error, next_id};

    fn json(value: &JsValue) -> Result<String, JsValue> {
        js_sys::JSON::stringify(value)?.as_string().ok_or_else(|| error("not JSON"))
    }

    pub fn request(method: &str, params: &JsValue) -> Result<String, JsValue> {
        let method = json(&JsValue::from_str(method))?;
        Ok(format!(r#"{{"jsonrpc":"2.0","id":{},"method":{method},"params":{}}}"#, next_id(), json(params)?))
    }

    pub fn notification(method: &str) -> String {
        format!(r#"{{"jsonrpc":"2.0","method":"{method}"}}"#)
    }

    pub fn result(reply: &str) -> Result<JsValue, JsValue> {
        let reply = js_sys::JSON::parse(reply)?;
        let failure = js_sys::Reflect::get(&reply, &"error".into())?;
        if !failure.is_undefined() {
            let message = js_sys::Reflect::get(&failure, &"message".into())?.as_string();
            return Err(error(message.as_deref().unwrap_or("a JSON-RPC error")));
        }
        let result = js_sys::Reflect::get(&reply, &"result".into())?;
        if result.is_undefined() {
            return Err(error("a reply without a result"));
        }
        Ok(result)
    }
}

/// One request; `params` is a JSON-able JS value. Resolves to the result.
#[wasm_bindgen]
pub async fn request(url: String, method: String, params: JsValue) -> Result<JsValue, JsValue> {
    let reply = post(&url, &envelope::request(&method, &params)?).await?;
    envelope::result(&reply.ok_or_else(|| error("a request answered with 202"))?)
}

/// `initialize`, then `notifications/initialized`. Resolves to the
/// server's `InitializeResult`.
#[wasm_bindgen]
pub async fn connect(url: String) -> Result<JsValue, JsValue> {
    SESSION.with_borrow_mut(|slot| *slot = None);
    let params = js_sys::JSON::parse(&format!(
        r#"{{"protocolVersion":"{PROTOCOL_VERSION}","capabilities":{{}},"clientInfo":{{"name":"mcp-size-floor","version":"0.1.0"}}}}"#
    ))?;
    let result = request(url.clone(), "initialize".into(), params).await?;
    post(&url, &envelope::notification("notifications/initialized")).await?;
    Ok(result)
}
