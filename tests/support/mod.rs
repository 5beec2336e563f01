//! Helpers shared by the test files. A test file includes them with
//! `mod support;` (this directory is not a test crate of its own):
//!
//! - here, what runs on both targets: bounded waits and tool results;
//! - [`native`]: the test peers (where they are, the one rule for a missing
//!   one) and server processes, on the host only;
//! - [`web`]: the JS API from Rust, in the browser suites only;
//! - [`faults`]: the fault catalog's runner (native and browser);
//! - [`watched`]: a pass-through transport a test watches (host only).
//!
//! Each test file uses only part of this, so unused items are not warned
//! about.
#![allow(dead_code)]

pub mod faults;
#[cfg(not(target_arch = "wasm32"))]
pub mod native;
#[cfg(not(target_arch = "wasm32"))]
pub mod watched;
#[cfg(target_arch = "wasm32")]
pub mod web;

use std::future::Future;
use std::pin::pin;
use std::time::Duration;

use futures::future::{Either, select};
use mcp_edge::protocol::types::{CallToolResult, ContentBlock, JsonObject};
use serde_json::Value;

/// Sleeps on the runtime the crate runs on: tokio natively, `setTimeout`
/// on wasm.
#[cfg(not(target_arch = "wasm32"))]
pub async fn sleep(duration: Duration) {
    tokio::time::sleep(duration).await
}

/// Sleeps on the runtime the crate runs on: tokio natively, `setTimeout`
/// on wasm.
#[cfg(target_arch = "wasm32")]
pub async fn sleep(duration: Duration) {
    let millis = u32::try_from(duration.as_millis()).unwrap_or(u32::MAX);
    gloo_timers::future::TimeoutFuture::new(millis).await
}

/// Runs `future` in the background: a tokio task natively (inside a tokio
/// test), the JS event loop on wasm.
#[cfg(not(target_arch = "wasm32"))]
pub fn spawn(future: impl Future<Output = ()> + Send + 'static) {
    tokio::spawn(future);
}

/// Runs `future` in the background: a tokio task natively (inside a tokio
/// test), the JS event loop on wasm.
#[cfg(target_arch = "wasm32")]
pub fn spawn(future: impl Future<Output = ()> + 'static) {
    wasm_bindgen_futures::spawn_local(future);
}

/// How long one awaited step may take unless a test says otherwise.
pub const STEP: Duration = Duration::from_secs(30);

/// Every wait is bounded: `future`, or a panic naming `what` after [`STEP`].
pub async fn within<T>(what: &str, future: impl Future<Output = T>) -> T {
    within_for(STEP, what, future).await
}

/// `future`, or a panic naming `what` after `limit`. On the runtime the
/// crate runs on (tokio natively, the JS event loop on wasm).
pub async fn within_for<T>(limit: Duration, what: &str, future: impl Future<Output = T>) -> T {
    match select(pin!(future), pin!(sleep(limit))).await {
        Either::Left((value, _)) => value,
        Either::Right(_) => panic!("{what} did not finish within {limit:?}"),
    }
}

/// Tool arguments from a `json!({...})` object.
pub fn arguments(value: Value) -> Option<JsonObject> {
    match value {
        Value::Object(object) => Some(object),
        other => panic!("tool arguments must be an object, not {other}"),
    }
}

/// The text of every text block of a tool result, joined by newlines.
pub fn texts(result: &CallToolResult) -> String {
    result
        .content
        .iter()
        .filter_map(|block| match block {
            ContentBlock::Text { text } => Some(text.as_str()),
            _ => None,
        })
        .collect::<Vec<_>>()
        .join("\n")
}
