//! The JS API (`McpClient`) in headless Chromium against the real
//! server-everything over Streamable HTTP. The test page and the server are
//! on different ports, so every request is cross-origin and goes through
//! the server's real CORS policy.
//!
//! The server's URL is baked in at compile time from
//! `MCP_EDGE_TEST_SERVER_URL`; `cargo xtask test` starts the server and sets it.

#![cfg(target_arch = "wasm32")]

mod support;

use support::{sleep, web};

use std::cell::RefCell;
use std::rc::Rc;
use std::time::Duration;

use js_sys::{Array, Promise, Reflect};
use mcp_edge::web::McpClient;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_test::{wasm_bindgen_test, wasm_bindgen_test_configure};
use web::{
    close, describe, function2, get, json, object, rejected, required_url, resolved, result_text, text, tool, within,
};

wasm_bindgen_test_configure!(run_in_browser);

const SERVER_URL: Option<&str> = option_env!("MCP_EDGE_TEST_SERVER_URL");

fn server_url() -> String {
    required_url(
        SERVER_URL,
        "MCP_EDGE_TEST_SERVER_URL was not set when these tests were compiled. Run `cargo xtask test`, \
         which starts server-everything (Streamable HTTP) and sets it; or start it by hand and build with \
         MCP_EDGE_TEST_SERVER_URL=http://127.0.0.1:<port>/mcp",
    )
}

/// `target.a.b.0.c`, with array indexes as numbers.
fn path(target: &JsValue, keys: &str) -> JsValue {
    keys.split('.').fold(target.clone(), |value, key| match key.parse::<u32>() {
        Ok(index) if Array::is_array(&value) => Array::from(&value).get(index),
        _ if value.is_object() => get(&value, key),
        _ => JsValue::UNDEFINED,
    })
}

fn function1(f: impl FnMut(JsValue) -> JsValue + 'static) -> JsValue {
    Closure::<dyn FnMut(JsValue) -> JsValue>::new(f).into_js_value()
}

async fn connect(options: JsValue) -> McpClient {
    web::connect_client("McpClient.connect", 20, server_url(), options).await
}

#[wasm_bindgen_test]
async fn connect_negotiates_the_latest_revision_over_streamable_http() {
    let options = object(&[("clientInfo", object(&[("name", "browser-test".into()), ("version", "1.0.0".into())]))]);
    let client = connect(options).await;
    assert_eq!(text(&client.get_negotiated_protocol_version()), "2025-11-25");
    assert_eq!(client.transport(), "streamable-http");
    let server = client.get_server_version();
    assert!(!text(&get(&server, "name")).is_empty(), "the server has a name: {}", json(&server));
    let capabilities = client.get_server_capabilities();
    assert!(get(&capabilities, "tools").is_object(), "server-everything offers tools: {}", json(&capabilities));
    assert!(client.get_instructions().as_string().is_some(), "server-everything sends instructions");
    resolved("ping", 10, client.ping(JsValue::UNDEFINED)).await;
    close(client).await;
}

#[wasm_bindgen_test]
async fn list_tools_contains_echo() {
    let client = connect(JsValue::UNDEFINED).await;
    let page = resolved("listTools", 10, client.list_tools(JsValue::UNDEFINED, JsValue::UNDEFINED)).await;
    let names: Vec<String> = Array::from(&get(&page, "tools")).iter().map(|tool| text(&get(&tool, "name"))).collect();
    assert!(names.iter().any(|n| n == "echo"), "tools/list has echo: {names:?}");
    let echo = Array::from(&get(&page, "tools")).iter().find(|t| text(&get(t, "name")) == "echo");
    let schema = echo.map(|t| get(&t, "inputSchema")).unwrap_or(JsValue::UNDEFINED);
    assert_eq!(text(&get(&schema, "type")), "object", "raw inputSchema kept: {}", json(&schema));
    assert!(!schema.is_instance_of::<js_sys::Map>(), "objects cross as plain objects, not Maps");

    let all = resolved("listAllTools", 10, client.list_all_tools(JsValue::UNDEFINED)).await;
    assert!(Array::is_array(&all));
    assert!(Array::from(&all).iter().any(|t| text(&get(&t, "name")) == "echo"), "listAllTools has echo");
    close(client).await;
}

#[wasm_bindgen_test]
async fn call_tool_echo() {
    let client = connect(JsValue::UNDEFINED).await;
    let params = tool("echo", object(&[("message", "hi".into())]));
    let result = resolved("callTool echo", 10, client.call_tool(params, JsValue::UNDEFINED)).await;
    assert_eq!(text(&path(&result, "content.0.text")), "Echo: hi");
    assert_eq!(text(&path(&result, "content.0.type")), "text");
    close(client).await;
}

/// `(progress, total)` of one progress update.
type Update = (f64, Option<f64>);

#[wasm_bindgen_test]
async fn progress_reaches_onprogress() {
    let client = connect(JsValue::UNDEFINED).await;
    let seen: Rc<RefCell<Vec<Update>>> = Rc::default();
    let record = seen.clone();
    let onprogress = function1(move |progress| {
        record
            .borrow_mut()
            .push((get(&progress, "progress").as_f64().unwrap_or(-1.0), get(&progress, "total").as_f64()));
        JsValue::UNDEFINED
    });
    let params = tool("trigger-long-running-operation", object(&[("duration", 2.into()), ("steps", 4.into())]));
    let options = object(&[("onprogress", onprogress), ("timeout", 15_000.into())]);
    let result = resolved("the long-running operation", 20, client.call_tool(params, options)).await;
    assert!(result_text(&result).contains("Long running operation completed"), "{}", json(&result));
    let seen = seen.borrow().clone();
    assert_eq!(seen, vec![(1.0, Some(4.0)), (2.0, Some(4.0)), (3.0, Some(4.0)), (4.0, Some(4.0))]);
    close(client).await;
}

#[wasm_bindgen_test]
async fn abort_signal_cancels_a_running_call() {
    let client = connect(JsValue::UNDEFINED).await;
    let controller = web_sys::AbortController::new().expect("AbortController");
    let params = tool("trigger-long-running-operation", object(&[("duration", 30.into()), ("steps", 30.into())]));
    let options = object(&[("signal", controller.signal().into())]);
    let call = client.call_tool(params, options);
    sleep(Duration::from_millis(700)).await;
    let aborted_at = js_sys::Date::now();
    controller.abort();
    let error = rejected("the aborted call", 5, call).await;
    let took = js_sys::Date::now() - aborted_at;
    assert_eq!(text(&get(&error, "name")), "AbortError", "{}", describe(&error));
    assert!(error.is_instance_of::<js_sys::Error>(), "rejects with an Error");
    assert!(took < 1000.0, "the abort took effect in {took} ms");
    // The session goes on.
    resolved("ping after abort", 10, client.ping(JsValue::UNDEFINED)).await;
    let echoed = resolved(
        "echo after abort",
        10,
        client.call_tool(tool("echo", object(&[("message", "still here".into())])), JsValue::UNDEFINED),
    )
    .await;
    assert_eq!(text(&path(&echoed, "content.0.text")), "Echo: still here");
    close(client).await;
}

#[wasm_bindgen_test]
async fn an_already_aborted_signal_rejects_at_once() {
    let client = connect(JsValue::UNDEFINED).await;
    let controller = web_sys::AbortController::new().expect("AbortController");
    controller.abort();
    let options = object(&[("signal", controller.signal().into())]);
    let error = rejected("a call with an aborted signal", 2, client.ping(options)).await;
    assert_eq!(text(&get(&error, "name")), "AbortError", "{}", describe(&error));
    close(client).await;
}

#[wasm_bindgen_test]
async fn sampling_handler_round_trip() {
    let seen: Rc<RefCell<Option<(JsValue, JsValue)>>> = Rc::default();
    let record = seen.clone();
    let sampling = function2(move |params, extra| {
        *record.borrow_mut() = Some((params, extra));
        let answer = object(&[
            ("role", "assistant".into()),
            ("content", object(&[("type", "text".into()), ("text", "sampled in the browser".into())])),
            ("model", "test-model".into()),
            ("stopReason", "endTurn".into()),
        ]);
        // Answer asynchronously, as a real model call would.
        wasm_bindgen_futures::future_to_promise(async move {
            sleep(Duration::from_millis(50)).await;
            Ok(answer)
        })
        .into()
    });
    let client = connect(object(&[("sampling", sampling)])).await;
    let params = tool("trigger-sampling-request", object(&[("prompt", "hello".into()), ("maxTokens", 10.into())]));
    let result = resolved("trigger-sampling-request", 15, client.call_tool(params, JsValue::UNDEFINED)).await;
    let answer = result_text(&result);
    assert!(answer.contains("sampled in the browser") && answer.contains("test-model"), "{answer}");

    let (params, extra) = seen.borrow().clone().expect("the sampling handler was called");
    assert!(text(&path(&params, "messages.0.content.text")).contains("hello"), "{}", json(&params));
    assert_eq!(get(&params, "maxTokens").as_f64(), Some(10.0));
    assert!(get(&extra, "signal").is_instance_of::<web_sys::AbortSignal>(), "extra.signal is an AbortSignal");
    assert_eq!(text(&get(&extra, "method")), "sampling/createMessage");
    assert!(!get(&extra, "requestId").is_undefined(), "extra.requestId is set");
    close(client).await;
}

#[wasm_bindgen_test]
async fn a_rejecting_handler_becomes_a_json_rpc_error() {
    let sampling = function2(|_params, _extra| {
        let error = js_sys::Error::new("the user said no");
        Reflect::set(&error, &"code".into(), &JsValue::from(-32042)).expect("set code");
        Promise::reject(&error).into()
    });
    let client = connect(object(&[("sampling", sampling)])).await;
    let params = tool("trigger-sampling-request", object(&[("prompt", "hello".into())]));
    // server-everything lets the failed sampling request's error through as
    // the tools/call error: our code and message make the round trip.
    let error = rejected("trigger-sampling-request", 15, client.call_tool(params, JsValue::UNDEFINED)).await;
    assert_eq!(text(&get(&error, "name")), "McpError", "{}", describe(&error));
    assert_eq!(get(&error, "code").as_f64(), Some(-32042.0), "{}", describe(&error));
    assert!(text(&get(&error, "message")).contains("the user said no"), "{}", describe(&error));
    close(client).await;
}

/// What a call that the server failed says: its error's message, or the
/// text of an `isError` result (server-everything gives a failed sampling or
/// elicitation request back either way).
async fn failure_text(what: &str, call: Promise) -> String {
    match web::settle(what, 15, call).await {
        Err(error) => text(&get(&error, "message")),
        Ok(result) => {
            assert_eq!(get(&result, "isError").as_bool(), Some(true), "{what}: {}", json(&result));
            result_text(&result)
        }
    }
}

#[wasm_bindgen_test]
async fn a_handler_result_of_the_wrong_shape_is_not_sent() {
    // A sampling answer without a model and with text where a content block
    // belongs, an elicitation answer with an action of its own: each is
    // refused here, with what is wrong, rather than sent to the server.
    let sampling = function2(|_params, _extra| object(&[("role", "assistant".into()), ("content", "hi".into())]));
    let elicitation = function2(|_params, _extra| object(&[("action", "ok".into())]));
    let client = connect(object(&[("sampling", sampling), ("elicitation", elicitation)])).await;
    let params = tool("trigger-sampling-request", object(&[("prompt", "hello".into()), ("maxTokens", 10.into())]));
    let failure = failure_text("trigger-sampling-request", client.call_tool(params, JsValue::UNDEFINED)).await;
    assert!(failure.contains("sampling handler's result was not sent: `model`"), "{failure}");
    let params = tool("trigger-elicitation-request", object(&[]));
    let failure = failure_text("trigger-elicitation-request", client.call_tool(params, JsValue::UNDEFINED)).await;
    assert!(failure.contains("elicitation handler's result was not sent: `action`"), "{failure}");
    resolved("ping after the refused answers", 10, client.ping(JsValue::UNDEFINED)).await;
    close(client).await;
}

#[wasm_bindgen_test]
async fn elicitation_handler_gets_the_form_and_defaults_are_filled() {
    let elicitation = function2(|params, _extra| {
        assert!(get(&params, "requestedSchema").is_object(), "form params: {}", json(&params));
        // A synchronous answer (not a promise) is fine too.
        object(&[("action", "accept".into()), ("content", object(&[("name", "Ada".into())]))])
    });
    let client = connect(object(&[("elicitation", elicitation)])).await;
    let params = tool("trigger-elicitation-request", object(&[]));
    let result = resolved("trigger-elicitation-request", 15, client.call_tool(params, JsValue::UNDEFINED)).await;
    let answer = result_text(&result);
    assert!(answer.contains("Name: Ada"), "{answer}");
    // Left out by the handler, filled from the schema's defaults.
    assert!(answer.contains("Favorite Integer: 42"), "{answer}");
    close(client).await;
}

#[wasm_bindgen_test]
async fn roots_handler_and_server_notifications() {
    let notifications: Rc<RefCell<Vec<JsValue>>> = Rc::default();
    let record = notifications.clone();
    let onnotification = function1(move |notification| {
        record.borrow_mut().push(notification);
        JsValue::UNDEFINED
    });
    let roots = Closure::<dyn FnMut() -> JsValue>::new(|| {
        let root = object(&[("uri", "file:///work/project".into()), ("name", "Project".into())]);
        Promise::resolve(&Array::of1(&root)).into()
    })
    .into_js_value();
    let client = connect(object(&[("roots", roots), ("onnotification", onnotification)])).await;
    let result =
        resolved("get-roots-list", 15, client.call_tool(tool("get-roots-list", object(&[])), JsValue::UNDEFINED)).await;
    let answer = result_text(&result);
    assert!(answer.contains("file:///work/project") && answer.contains("Project"), "{answer}");

    // The server logs that it received our roots.
    let logged = || {
        notifications.borrow().iter().any(|n| {
            text(&get(n, "method")) == "notifications/message" && json(&get(n, "params")).contains("Roots updated")
        })
    };
    within("the roots log message", 10, async {
        while !logged() {
            sleep(Duration::from_millis(50)).await;
        }
    })
    .await;
    close(client).await;
}

#[wasm_bindgen_test]
async fn a_removed_notification_listener_hears_nothing_more() {
    let roots = Closure::<dyn FnMut() -> JsValue>::new(|| {
        Promise::resolve(&Array::of1(&object(&[("uri", "file:///work/project".into())]))).into()
    })
    .into_js_value();
    let client = connect(object(&[("roots", roots)])).await;
    // Counts the server's "Roots updated" log messages (it logs one each
    // time it has read our roots: 350 ms after the handshake, then after
    // every roots/list_changed).
    let counter = |count: Rc<RefCell<usize>>| {
        function1(move |notification| {
            if text(&get(&notification, "method")) == "notifications/message"
                && json(&get(&notification, "params")).contains("Roots updated")
            {
                *count.borrow_mut() += 1;
            }
            JsValue::UNDEFINED
        })
        .unchecked_into::<js_sys::Function>()
    };
    let (removed, kept) = (Rc::new(RefCell::new(0)), Rc::new(RefCell::new(0)));
    let (removed_listener, kept_listener) = (counter(removed.clone()), counter(kept.clone()));
    client.add_notification_listener(removed_listener.clone());
    // Added twice, it still hears each notification once.
    client.add_notification_listener(removed_listener.clone());
    client.add_notification_listener(kept_listener);
    let heard = |count: &Rc<RefCell<usize>>, at_least: usize| {
        let count = count.clone();
        async move {
            while *count.borrow() < at_least {
                sleep(Duration::from_millis(50)).await;
            }
        }
    };
    within("the first roots log message", 10, heard(&kept, 1)).await;
    assert_eq!(*removed.borrow(), *kept.borrow(), "a listener added twice heard it once");

    client.remove_notification_listener(removed_listener.clone());
    let before = *removed.borrow();
    resolved("notifications/roots/list_changed", 10, client.send_roots_list_changed()).await;
    within("the second roots log message", 10, heard(&kept, 2)).await;
    assert_eq!(*removed.borrow(), before, "the removed listener heard nothing more");
    close(client).await;
}

#[wasm_bindgen_test]
async fn errors_from_the_server() {
    let client = connect(JsValue::UNDEFINED).await;
    // server-everything (TypeScript SDK McpServer) reports an unknown tool
    // as a tool error, not as a JSON-RPC error.
    let result = resolved(
        "callTool of an unknown tool",
        10,
        client.call_tool(tool("no-such-tool", object(&[])), JsValue::UNDEFINED),
    )
    .await;
    assert_eq!(get(&result, "isError").as_bool(), Some(true), "{}", json(&result));
    assert!(result_text(&result).contains("no-such-tool"), "{}", json(&result));

    // An unknown prompt is a JSON-RPC error: an McpError with the code.
    let params = object(&[("name", "no-such-prompt".into())]);
    let error = rejected("getPrompt of an unknown prompt", 10, client.get_prompt(params, JsValue::UNDEFINED)).await;
    assert!(error.is_instance_of::<js_sys::Error>(), "{}", describe(&error));
    assert_eq!(text(&get(&error, "name")), "McpError", "{}", describe(&error));
    assert_eq!(get(&error, "code").as_f64(), Some(-32602.0), "{}", describe(&error));
    assert!(text(&get(&error, "message")).contains("no-such-prompt"), "{}", describe(&error));

    // Arguments of the wrong shape are a TypeError, before anything is sent.
    let error = rejected("callTool without a name", 2, client.call_tool(object(&[]), JsValue::UNDEFINED)).await;
    assert!(error.is_instance_of::<js_sys::TypeError>(), "{}", describe(&error));
    // And so are options of the wrong shape, each named.
    let echo = || object(&[("name", "echo".into()), ("arguments", object(&[("message", "hi".into())]))]);
    for (option, value) in [
        ("timeout", JsValue::from(-1)),
        ("maxTotalTimeout", "soon".into()),
        ("resetTimeoutOnProgress", "yes".into()),
        ("onprogress", "log".into()),
        ("signal", object(&[])),
    ] {
        let options = object(&[(option, value)]);
        let error = rejected("callTool with a bad option", 2, client.call_tool(echo(), options)).await;
        assert!(error.is_instance_of::<js_sys::TypeError>(), "{option}: {}", describe(&error));
        assert!(text(&get(&error, "message")).contains(option), "{option}: {}", describe(&error));
    }
    close(client).await;
}

#[wasm_bindgen_test]
async fn forcing_the_legacy_transport_on_a_streamable_endpoint_says_what_the_get_got() {
    // `transport: "sse"` is taken as asked: no detection, the URL is opened
    // as an HTTP+SSE stream, and the error says what that GET got.
    let error = rejected(
        "connect with transport sse",
        30,
        McpClient::connect(server_url(), object(&[("transport", "sse".into())])),
    )
    .await;
    assert_eq!(text(&get(&error, "name")), "McpError", "{}", describe(&error));
    let message = text(&get(&error, "message"));
    assert!(
        message.contains(&server_url()) && message.contains("not an HTTP+SSE event stream"),
        "{}",
        describe(&error)
    );
}

#[wasm_bindgen_test]
async fn a_timeout_longer_than_any_clock_is_no_limit_and_a_negative_one_a_type_error() {
    // 1e300 ms does not fit a `Duration`: converting it used to panic, which
    // aborted the wasm module (`RuntimeError: unreachable`).
    let client = connect(object(&[("timeout", 1e300.into())])).await;
    let params = tool("echo", object(&[("message", "long".into())]));
    let options = object(&[("timeout", f64::MAX.into()), ("maxTotalTimeout", 1e300.into())]);
    let result = resolved("a call with the longest timeout", 10, client.call_tool(params, options)).await;
    assert_eq!(text(&path(&result, "content.0.text")), "Echo: long");
    let params = tool("echo", object(&[("message", "short".into())]));
    let error = rejected("a negative timeout", 5, client.call_tool(params, object(&[("timeout", (-1).into())]))).await;
    assert_eq!(text(&get(&error, "name")), "TypeError", "{}", describe(&error));
    assert!(text(&get(&error, "message")).contains("non-negative number of milliseconds"), "{}", describe(&error));
    close(client).await;
}

#[wasm_bindgen_test]
async fn a_request_timeout_is_an_mcp_error_with_code() {
    // The 300 ms timeout on the call only: as the client's timeout it would
    // also be the connect deadline, too short for a loaded machine.
    let client = connect(JsValue::UNDEFINED).await;
    let params = tool("trigger-long-running-operation", object(&[("duration", 5.into()), ("steps", 5.into())]));
    let options = object(&[("timeout", 300.into())]);
    let error = rejected("a call that times out", 5, client.call_tool(params, options)).await;
    assert_eq!(text(&get(&error, "name")), "McpError", "{}", describe(&error));
    assert_eq!(get(&error, "code").as_f64(), Some(-32001.0), "{}", describe(&error));
    assert!(text(&get(&error, "message")).contains("timed out"), "{}", describe(&error));
    resolved("ping after a timeout", 10, client.ping(JsValue::UNDEFINED)).await;
    close(client).await;
}
