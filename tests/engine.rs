//! The session engine against a scripted in-memory server: handshake,
//! ids, timeouts, cancellation races, progress, server requests, sessions.
//! Runs natively on tokio and, under wasm-bindgen-test, in headless Chromium
//! on the JS event loop: the same engine code on both.

mod support;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures::StreamExt;
use futures::future::{Either, select};
use mcp_edge::Client;
use mcp_edge::protocol::types::{CreateMessageResult, ElicitAction, ElicitResult};
use mcp_edge::protocol::{ErrorObject, Message, Notification, ProtocolVersion, Request, RequestId, Response, codes};
use mcp_edge::transport::TransportError;
use mcp_edge::transport::{MemoryServer, memory_pair};
use mcp_edge::{ClientOptions, EraChoice, Error, ListenFilter, RequestContext, RequestOptions, SessionEvent};
use serde_json::{Value, json};
use support::{sleep, spawn, within};

#[cfg(target_arch = "wasm32")]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

macro_rules! tests {
    ($(async fn $name:ident() $body:block)*) => {
        $(
            #[cfg_attr(not(target_arch = "wasm32"), tokio::test)]
            #[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
            async fn $name() $body
        )*
    };
}

fn start(options: ClientOptions) -> (Client, MemoryServer) {
    let (transport, server) = memory_pair();
    let (client, driver) = Client::new(transport, options);
    spawn(driver);
    (client, server)
}

async fn next(server: &mut MemoryServer) -> Message {
    within("a client message", server.recv()).await.unwrap_or_else(|| panic!("the client hung up"))
}

async fn next_request(server: &mut MemoryServer) -> Request {
    match next(server).await {
        Message::Request(request) => request,
        other => panic!("expected a request, got {other:?}"),
    }
}

async fn next_notification(server: &mut MemoryServer) -> Notification {
    match next(server).await {
        Message::Notification(notification) => notification,
        other => panic!("expected a notification, got {other:?}"),
    }
}

async fn next_response(server: &mut MemoryServer) -> Response {
    match next(server).await {
        Message::Response(response) => response,
        other => panic!("expected a response, got {other:?}"),
    }
}

fn init_result(version: &str) -> Value {
    json!({
        "protocolVersion": version,
        "capabilities": {"tools": {}, "resources": {"subscribe": true}, "prompts": {}, "logging": {}},
        "serverInfo": {"name": "scripted", "version": "1.0"}
    })
}

/// Answers the handshake as a server of `version` would.
async fn serve_handshake(server: &mut MemoryServer, version: &str) -> Request {
    let initialize = next_request(server).await;
    assert_eq!(initialize.method, "initialize");
    server.send(Message::result(initialize.id.clone(), init_result(version)));
    let initialized = next_notification(server).await;
    assert_eq!(initialized.method, "notifications/initialized");
    initialize
}

async fn connected(options: ClientOptions) -> (Client, MemoryServer) {
    let (client, mut server) = start(options);
    let (outcome, _) =
        futures::join!(within("initialize", client.initialize()), serve_handshake(&mut server, "2025-11-25"));
    if let Err(e) = outcome {
        panic!("initialize failed: {e}");
    }
    (client, server)
}

/// A client past `server/discover` of a 2026-07-28 server that offers
/// list changes and resource subscriptions.
async fn connected_stateless() -> (Client, MemoryServer) {
    let (client, mut server) = start(ClientOptions::default().with_era(EraChoice::Stateless));
    let server_side = async {
        let discover = next_request(&mut server).await;
        assert_eq!(discover.method, "server/discover");
        let capabilities =
            json!({"tools": {"listChanged": true}, "resources": {"subscribe": true, "listChanged": true}});
        server.send(Message::result(
            discover.id,
            json!({"resultType": "complete", "supportedVersions": ["2026-07-28"], "capabilities": capabilities,
                   "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "scripted", "version": "2"}}}),
        ));
    };
    let (outcome, ()) = futures::join!(within("start", client.start()), server_side);
    if let Err(e) = outcome {
        panic!("stateless start failed: {e}");
    }
    (client, server)
}

/// A notification of subscription `id` (2026-07-28).
fn tagged(method: &str, id: &RequestId, params: Value) -> Message {
    let mut params = params;
    params["_meta"] = json!({"io.modelcontextprotocol/subscriptionId": id.to_value()});
    Message::notification(method, Some(params))
}

/// Sends `method` as a notification before answering a ping: once the
/// ping is answered, the notification was heard.
async fn notify_then_answer_ping(client: &Client, server: &mut MemoryServer, method: &str) {
    let ping = client.request("ping", None, RequestOptions::default());
    let server_side = async {
        let request = next_request(server).await;
        server.send(Message::notification(method, None));
        server.send(Message::result(request.id, json!({})));
    };
    let (outcome, ()) = futures::join!(within("ping", ping), server_side);
    ok(outcome);
}

fn ok<T>(outcome: Result<T, Error>) -> T {
    outcome.unwrap_or_else(|e| panic!("unexpected error: {e}"))
}

tests! {
    async fn handshake_offers_latest_and_accepts_an_older_answer() {
        let options = ClientOptions::new("tester", "0.0.1")
            .on_sampling(|_, _| async { Err(ErrorObject::new(-1, "no")) })
            .with_roots(vec![]);
        let (client, mut server) = start(options);
        let server_side = async {
            let initialize = next_request(&mut server).await;
            let params = initialize.params.clone().unwrap_or_default();
            assert_eq!(params["protocolVersion"], "2025-11-25");
            assert_eq!(params["clientInfo"]["name"], "tester");
            assert_eq!(params["capabilities"]["sampling"], json!({}));
            assert_eq!(params["capabilities"]["roots"], json!({"listChanged": false}));
            assert!(params["capabilities"].get("elicitation").is_none(), "no elicitation handler, no capability");
            server.send(Message::result(initialize.id, init_result("2025-06-18")));
            let initialized = next_notification(&mut server).await;
            assert_eq!(initialized.method, "notifications/initialized");
            server
        };
        let (negotiated, server) = futures::join!(within("initialize", client.initialize()), server_side);
        let negotiated = ok(negotiated);
        assert_eq!(negotiated.version, ProtocolVersion::V2025_06_18);
        assert_eq!(negotiated.result.server_info.name, "scripted");
        assert_eq!(server.negotiated(), Some(ProtocolVersion::V2025_06_18));
        // `initialized` is reported to the transport once it was delivered.
        within("on_initialized", async { while !server.initialized() { sleep(Duration::from_millis(5)).await } }).await;
    }

    async fn an_unsupported_version_disconnects_with_a_clear_error() {
        let (client, mut server) = start(ClientOptions::default());
        let server_side = async {
            let initialize = next_request(&mut server).await;
            server.send(Message::result(initialize.id, init_result("2099-01-01")));
        };
        let (outcome, ()) = futures::join!(within("initialize", client.initialize()), server_side);
        match outcome {
            Err(Error::UnsupportedVersion { answered, offered }) => {
                assert_eq!(answered, "2099-01-01");
                assert_eq!(offered, "2025-11-25");
            }
            other => panic!("expected UnsupportedVersion, got {other:?}"),
        }
        assert!(server.was_closed(), "the transport must be closed");
        assert!(matches!(client.ping().await, Err(Error::NotInitialized)));
    }

    async fn a_refused_version_is_retried_with_one_the_server_supports() {
        let (client, mut server) = start(ClientOptions::default());
        let server_side = async {
            let first = next_request(&mut server).await;
            let mut error = ErrorObject::new(codes::INVALID_PARAMS, "Unsupported protocol version");
            error.data = Some(json!({"supported": ["2024-11-05", "2025-03-26"], "requested": "2025-11-25"}));
            server.send(Message::error(Some(first.id.clone()), error));
            let second = next_request(&mut server).await;
            assert_eq!(second.params.unwrap_or_default()["protocolVersion"], "2025-03-26");
            assert_ne!(second.id, first.id, "a new request needs a new id");
            server.send(Message::result(second.id, init_result("2025-03-26")));
            next_notification(&mut server).await;
        };
        let (outcome, ()) = futures::join!(within("initialize", client.initialize()), server_side);
        assert_eq!(ok(outcome).version, ProtocolVersion::V2025_03_26);
    }

    async fn answers_are_routed_by_exact_id_in_any_order() {
        let (client, mut server) = connected(ClientOptions::default()).await;
        let calls = futures::future::join3(
            client.request("tools/call", Some(json!({"name": "a"})), RequestOptions::default()),
            client.request("tools/call", Some(json!({"name": "b"})), RequestOptions::default()),
            client.request("tools/call", Some(json!({"name": "c"})), RequestOptions::default()),
        );
        let server_side = async {
            let mut requests = Vec::new();
            for _ in 0..3 {
                requests.push(next_request(&mut server).await);
            }
            let ids: Vec<_> = requests.iter().map(|r| r.id.clone()).collect();
            let mut sorted = ids.clone();
            sorted.dedup();
            assert_eq!(sorted.len(), 3, "ids are unique: {ids:?}");
            for window in ids.windows(2) {
                assert!(matches!((&window[0], &window[1]), (RequestId::Int(a), RequestId::Int(b)) if a < b));
            }
            // A string id that looks like ours must not match an integer id.
            if let RequestId::Int(n) = &ids[0] {
                server.send(Message::result(RequestId::Str(n.to_string()), json!({"wrong": true})));
            }
            for request in requests.into_iter().rev() {
                let name = request.params.as_ref().map(|p| p["name"].clone()).unwrap_or_default();
                server.send(Message::result(request.id, json!({"echo": name})));
            }
        };
        let ((a, b, c), ()) = futures::join!(within("three calls", calls), server_side);
        assert_eq!(ok(a)["echo"], "a");
        assert_eq!(ok(b)["echo"], "b");
        assert_eq!(ok(c)["echo"], "c");
    }

    async fn a_timeout_cancels_and_a_late_answer_is_ignored() {
        let (client, mut server) = connected(ClientOptions::default()).await;
        let options = RequestOptions::timeout(Duration::from_millis(100));
        let call = client.request("tools/call", Some(json!({"name": "slow"})), options);
        let server_side = async {
            let request = next_request(&mut server).await;
            let cancelled = next_notification(&mut server).await;
            assert_eq!(cancelled.method, "notifications/cancelled");
            let params = cancelled.params.unwrap_or_default();
            assert_eq!(params["requestId"], request.id.to_value());
            assert!(params["reason"].as_str().unwrap_or_default().contains("timed out"));
            // The late answer arrives after the cancellation: it must vanish.
            server.send(Message::result(request.id, json!({"late": true})));
            server
        };
        let (outcome, mut server) = futures::join!(within("the timeout", call), server_side);
        match outcome {
            Err(Error::Timeout { method, after }) => {
                assert_eq!(method, "tools/call");
                assert_eq!(after, Duration::from_millis(100));
            }
            other => panic!("expected a timeout, got {other:?}"),
        }
        // The session keeps working and the late answer went to nobody.
        let ping = client.ping();
        let server_side = async {
            let request = next_request(&mut server).await;
            assert_eq!(request.method, "ping");
            server.send(Message::result(request.id, json!({})));
        };
        let (pinged, ()) = futures::join!(within("ping", ping), server_side);
        ok(pinged);
    }

    async fn initialize_is_never_cancelled() {
        let (client, mut server) = start(ClientOptions::default().with_timeout(Duration::from_millis(80)));
        let (outcome, request) = futures::join!(within("initialize", client.initialize()), next_request(&mut server));
        assert_eq!(request.method, "initialize");
        assert!(matches!(outcome, Err(Error::Timeout { .. })), "{outcome:?}");
        // Nothing else may have been sent: no cancellation for initialize.
        let extra = select(Box::pin(server.recv()), Box::pin(sleep(Duration::from_millis(150)))).await;
        assert!(matches!(extra, Either::Right(_)), "unexpected message after an initialize timeout");
    }

    async fn timeouts_fire_in_deadline_order_whatever_order_they_were_made() {
        // On wasm every sleep shares one timer, set for the earliest
        // deadline: a shorter timeout made after a longer one must still
        // fire first, and an answered request's timeout must not stop the
        // others from firing.
        let (client, mut server) = connected(ClientOptions::default()).await;
        let call = |millis: u64| {
            let options = RequestOptions::timeout(Duration::from_millis(millis));
            let call = client.request("tools/call", Some(json!({"name": "slow"})), options);
            async move { (millis, call.await) }
        };
        // Each polled once, in this order, so their timers start in it.
        let mut calls = futures::stream::FuturesUnordered::new();
        for millis in [900, 150, 450] {
            let mut started = Box::pin(call(millis));
            assert!(futures::poll!(&mut started).is_pending());
            calls.push(started);
        }
        let answered = client.request("tools/call", Some(json!({"name": "quick"})), RequestOptions::default());
        let server_side = async {
            for _ in 0..3 {
                assert_eq!(next_request(&mut server).await.params.unwrap_or_default()["name"], "slow");
            }
            let first = next_request(&mut server).await;
            server.send(Message::result(first.id, json!({"quick": true})));
            server
        };
        let (quick, _server) = futures::join!(within("the quick call", answered), server_side);
        assert_eq!(ok(quick)["quick"], true);
        let mut order = Vec::new();
        while let Some((millis, outcome)) = within("the timeouts", calls.next()).await {
            assert!(matches!(outcome, Err(Error::Timeout { after, .. }) if after == Duration::from_millis(millis)));
            order.push(millis);
        }
        assert_eq!(order, [150, 450, 900]);
    }

    async fn dropping_a_request_cancels_it() {
        let (client, mut server) = connected(ClientOptions::default()).await;
        let call = client.request("tools/call", Some(json!({"name": "x"})), RequestOptions::default());
        let abandoned = select(Box::pin(call), Box::pin(sleep(Duration::from_millis(50)))).await;
        assert!(matches!(abandoned, Either::Right(_)));
        drop(abandoned);
        let request = next_request(&mut server).await;
        let cancelled = next_notification(&mut server).await;
        assert_eq!(cancelled.method, "notifications/cancelled");
        assert_eq!(cancelled.params.unwrap_or_default()["requestId"], request.id.to_value());
    }

    async fn progress_reaches_its_request_and_resets_the_timeout() {
        let (client, mut server) = connected(ClientOptions::default()).await;
        let seen = Arc::new(Mutex::new(Vec::new()));
        let log = seen.clone();
        let options = RequestOptions::timeout(Duration::from_millis(400))
            .with_progress(move |p| log.lock().unwrap_or_else(|e| e.into_inner()).push(p.progress))
            .reset_on_progress(Some(Duration::from_secs(5)));
        let call = client.request("tools/call", Some(json!({"name": "long"})), options);
        let server_side = async {
            let request = next_request(&mut server).await;
            let token = request.params.as_ref().map(|p| p["_meta"]["progressToken"].clone()).unwrap_or_default();
            assert_eq!(token, request.id.to_value(), "the progress token is the request id");
            // Eight updates 100 ms apart: 800 ms in all, beyond the 400 ms
            // timeout, which each update restarts (4x slack per gap).
            for step in 1..=8 {
                sleep(Duration::from_millis(100)).await;
                let params = json!({"progressToken": token, "progress": step, "total": 8});
                server.send(Message::notification("notifications/progress", Some(params)));
            }
            // Progress for a token nobody owns is dropped quietly.
            server.send(Message::notification("notifications/progress", Some(json!({"progressToken": "other", "progress": 1}))));
            server.send(Message::result(request.id, json!({"content": []})));
        };
        let (outcome, ()) = futures::join!(within("the long call", call), server_side);
        ok(outcome);
        assert_eq!(*seen.lock().unwrap_or_else(|e| e.into_inner()), vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]);
    }

    async fn progress_cannot_extend_past_the_hard_maximum() {
        let (client, mut server) = connected(ClientOptions::default()).await;
        // Updates every 50 ms against a 500 ms idle timeout (10x slack):
        // only the hard maximum can end it.
        let options = RequestOptions::timeout(Duration::from_millis(500))
            .with_progress(|_| {})
            .reset_on_progress(Some(Duration::from_millis(1000)));
        let call = client.request("tools/call", Some(json!({"name": "endless"})), options);
        let server_side = async {
            let request = next_request(&mut server).await;
            let token = request.id.to_value();
            for step in 1..=30 {
                sleep(Duration::from_millis(50)).await;
                server.send(Message::notification("notifications/progress", Some(json!({"progressToken": token, "progress": step}))));
            }
        };
        let (outcome, ()) = futures::join!(within("the capped call", call), server_side);
        assert!(matches!(outcome, Err(Error::Timeout { after, .. }) if after == Duration::from_millis(1000)), "{outcome:?}");
    }

    async fn without_reset_progress_does_not_extend_the_timeout() {
        let (client, mut server) = connected(ClientOptions::default()).await;
        let options = RequestOptions::timeout(Duration::from_millis(150)).with_progress(|_| {});
        let call = client.request("tools/call", Some(json!({"name": "slow"})), options);
        let server_side = async {
            let request = next_request(&mut server).await;
            for step in 1..=4 {
                sleep(Duration::from_millis(60)).await;
                server.send(Message::notification("notifications/progress", Some(json!({"progressToken": request.id.to_value(), "progress": step}))));
            }
        };
        let (outcome, ()) = futures::join!(within("the call", call), server_side);
        assert!(matches!(outcome, Err(Error::Timeout { .. })), "{outcome:?}");
    }

    async fn a_batch_from_the_server_is_received_whole() {
        let (client, mut server) = connected(ClientOptions::default()).await;
        let heard = Arc::new(Mutex::new(Vec::new()));
        let log = heard.clone();
        client.on_notification(move |n| log.lock().unwrap_or_else(|e| e.into_inner()).push(n.method.clone()));
        let call = client.request("tools/list", None, RequestOptions::default());
        let server_side = async {
            let request = next_request(&mut server).await;
            let batch = json!([
                {"jsonrpc": "2.0", "method": "notifications/tools/list_changed"},
                {"jsonrpc": "2.0", "broken": true},
                {"jsonrpc": "2.0", "id": request.id.to_value(), "result": {"tools": []}},
                {"jsonrpc": "2.0", "id": "srv-1", "method": "ping"}
            ]);
            assert_eq!(server.send_raw(&batch.to_string()), 3);
            let pong = next_response(&mut server).await;
            assert_eq!(pong.id, Some(RequestId::from("srv-1")));
            assert_eq!(pong.outcome.map(|r| r.to_value().ok()), Ok(Some(json!({}))));
        };
        let (outcome, ()) = futures::join!(within("tools/list", call), server_side);
        assert_eq!(ok(outcome), json!({"tools": []}));
        assert_eq!(*heard.lock().unwrap_or_else(|e| e.into_inner()), vec!["notifications/tools/list_changed".to_string()]);
    }

    async fn a_removed_listener_hears_nothing_more() {
        let (client, mut server) = connected(ClientOptions::default()).await;
        let (removed, kept) = (Arc::new(Mutex::new(Vec::new())), Arc::new(Mutex::new(Vec::new())));
        let log = removed.clone();
        let removed_id = client.on_notification(move |n| log.lock().unwrap_or_else(|e| e.into_inner()).push(n.method.clone()));
        let log = kept.clone();
        client.on_notification(move |n| log.lock().unwrap_or_else(|e| e.into_inner()).push(n.method.clone()));
        notify_then_answer_ping(&client, &mut server, "notifications/tools/list_changed").await;
        client.remove_notification_listener(removed_id);
        // Removing it twice is no error.
        client.remove_notification_listener(removed_id);
        notify_then_answer_ping(&client, &mut server, "notifications/prompts/list_changed").await;
        let heard = |log: &Arc<Mutex<Vec<String>>>| log.lock().unwrap_or_else(|e| e.into_inner()).clone();
        assert_eq!(heard(&removed), vec!["notifications/tools/list_changed".to_string()]);
        assert_eq!(
            heard(&kept),
            vec!["notifications/tools/list_changed".to_string(), "notifications/prompts/list_changed".to_string()]
        );
    }

    async fn server_requests_reach_handlers_and_unknown_methods_get_32601() {
        let options = ClientOptions::default().on_sampling(|params, context: RequestContext| async move {
            assert_eq!(context.method, "sampling/createMessage");
            if params.max_tokens == 0 {
                return Err(ErrorObject::new(-1, "user rejected"));
            }
            Ok(CreateMessageResult {
                role: "assistant".into(),
                content: json!({"type": "text", "text": format!("{} messages", params.messages.len())}),
                model: "fixed".into(),
                stop_reason: Some("endTurn".into()),
            })
        });
        let (_client, mut server) = connected(options).await;
        let sampling = json!({"messages": [{"role": "user", "content": {"type": "text", "text": "hi"}}], "maxTokens": 10});
        server.send(Message::request(RequestId::from("s1"), "sampling/createMessage", Some(sampling)));
        let answer = next_response(&mut server).await;
        assert_eq!(answer.id, Some(RequestId::from("s1")));
        let result = answer.outcome.unwrap_or_else(|e| panic!("{e}")).to_value().unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(result["content"]["text"], "1 messages");
        assert_eq!(result["model"], "fixed");

        server.send(Message::request(7, "sampling/createMessage", Some(json!({"messages": [], "maxTokens": 0}))));
        let rejected = next_response(&mut server).await;
        assert_eq!(rejected.id, Some(RequestId::Int(7)));
        assert_eq!(rejected.outcome.map_err(|e| e.code), Err(-1));

        server.send(Message::request(8, "sampling/createMessage", Some(json!({"messages": "not a list"}))));
        let invalid = next_response(&mut server).await;
        assert_eq!(invalid.outcome.map_err(|e| e.code), Err(codes::INVALID_PARAMS));

        server.send(Message::request(9, "roots/list", None));
        let unknown = next_response(&mut server).await;
        assert_eq!(unknown.id, Some(RequestId::Int(9)));
        assert_eq!(unknown.outcome.map_err(|e| e.code), Err(codes::METHOD_NOT_FOUND));
    }

    async fn a_sampling_answer_of_the_wrong_shape_or_revision_is_an_error_not_sent() {
        // The Rust API's sampling result holds its content as JSON: a list of
        // blocks is new in 2025-11-25, and a session that negotiated an older
        // revision must never be sent one (R7.14).
        let options = ClientOptions::default().on_sampling(|params, _context: RequestContext| async move {
            let block = json!({"type": "text", "text": "sampled"});
            let content = if params.max_tokens == 1 { json!([block]) } else { json!("not a block") };
            Ok(CreateMessageResult { role: "assistant".into(), content, model: "fixed".into(), stop_reason: None })
        });
        let (client, mut server) = start(options);
        let (outcome, _) =
            futures::join!(within("initialize", client.initialize()), serve_handshake(&mut server, "2025-06-18"));
        ok(outcome);
        for (id, max_tokens, named) in [(1, 1, "new in 2025-11-25"), (2, 2, "content block")] {
            let params = json!({"messages": [{"role": "user", "content": {"type": "text", "text": "hi"}}], "maxTokens": max_tokens});
            server.send(Message::request(id, "sampling/createMessage", Some(params)));
            let answer = next_response(&mut server).await;
            assert_eq!(answer.id, Some(RequestId::Int(id)));
            let error = answer.outcome.expect_err("a wrong answer is not sent");
            assert_eq!(error.code, codes::INTERNAL_ERROR);
            assert!(error.message.contains(named) && error.message.contains("not sent"), "{}", error.message);
        }
    }

    async fn requests_beyond_the_running_limit_or_with_an_id_in_use_are_refused_at_once() {
        // 128 handlers run at once (MAX_RUNNING_HANDLERS); these never end.
        let started = Arc::new(Mutex::new(0));
        let count = started.clone();
        let options = ClientOptions::default().on_request("x/wait", move |_params: Option<Value>, _ctx: RequestContext| {
            *count.lock().unwrap_or_else(|e| e.into_inner()) += 1;
            futures::future::pending::<Result<Value, ErrorObject>>()
        });
        let (_client, mut server) = connected(options).await;
        for id in 1..=130 {
            server.send(Message::request(id, "x/wait", None));
        }
        for id in [129, 130] {
            let refused = next_response(&mut server).await;
            assert_eq!(refused.id, Some(RequestId::Int(id)));
            let error = refused.outcome.expect_err("over the limit");
            assert_eq!(error.code, codes::INTERNAL_ERROR);
            assert!(error.message.contains("handling 128 requests") && error.message.contains("x/wait"), "{}", error.message);
        }
        assert_eq!(*started.lock().unwrap_or_else(|e| e.into_inner()), 128);
        // An id the client is still answering is not taken twice.
        server.send(Message::request(5, "x/wait", None));
        let duplicate = next_response(&mut server).await;
        assert_eq!(duplicate.outcome.map_err(|e| e.code), Err(codes::INVALID_REQUEST));
        // A cancelled one makes room.
        server.send(Message::notification("notifications/cancelled", Some(json!({"requestId": 1}))));
        server.send(Message::request(131, "x/wait", None));
        server.send(Message::request(132, "ping", None));
        let ping = next_response(&mut server).await;
        assert_eq!(ping.id, Some(RequestId::Int(132)), "131 is running, not refused");
        assert_eq!(*started.lock().unwrap_or_else(|e| e.into_inner()), 129);
    }

    async fn answers_to_a_flood_of_server_requests_go_out_32_at_a_time_and_at_most_1024_wait() {
        // The handler signals once it ran: by then every ping before it was
        // taken, as the loop takes messages in order.
        let (ran, mut handled) = futures::channel::mpsc::unbounded::<()>();
        let options = ClientOptions::default().on_request("x/echo", move |params: Option<Value>, _ctx: RequestContext| {
            let _ = ran.unbounded_send(());
            async move { Ok(params.unwrap_or(Value::Null)) }
        });
        let (_client, mut server) = connected(options).await;
        server.stall_sends();
        for id in 1..=2_000 {
            server.send(Message::request(id, "ping", None));
        }
        server.send(Message::request(5_000, "x/echo", Some(json!({"kept": true}))));
        within("the handler", handled.next()).await;
        // Its answer is made after a turn of the loop; then it waits too.
        sleep(Duration::from_millis(50)).await;
        assert_eq!(server.stalled_sends(), 32, "answers in flight at once");
        server.release_sends();
        // 32 sent, 1,024 held, the rest of the pings dropped; the handler's
        // answer is kept past the limit. Sends in flight at once may arrive
        // in any order, as parallel POSTs do.
        let mut answered = std::collections::BTreeSet::new();
        for _ in 0..1_057 {
            let answer = next_response(&mut server).await;
            if answer.id == Some(RequestId::Int(5_000)) {
                assert_eq!(answer.outcome.map(|r| r.to_value().ok()), Ok(Some(json!({"kept": true}))));
            }
            answered.extend(answer.id);
        }
        let expected: std::collections::BTreeSet<RequestId> =
            (1..=1_056).chain([5_000]).map(RequestId::Int).collect();
        assert_eq!(answered, expected);
        // Caught up: the next ping is answered at once.
        server.send(Message::request(6_000, "ping", None));
        assert_eq!(next_response(&mut server).await.id, Some(RequestId::Int(6_000)));
    }

    async fn handler_answers_waiting_for_a_send_count_against_the_running_limit() {
        let options = ClientOptions::default().on_request("x/echo", move |params: Option<Value>, _ctx: RequestContext| {
            async move { Ok(params.unwrap_or(Value::Null)) }
        });
        let (_client, mut server) = connected(options).await;
        server.stall_sends();
        // 128 start; their answers then go out 32 at a time and 96 wait.
        for id in 1..=128 {
            server.send(Message::request(id, "x/echo", Some(json!({"id": id}))));
        }
        for _ in 0..100 {
            if server.stalled_sends() == 32 {
                break;
            }
            sleep(Duration::from_millis(10)).await;
        }
        sleep(Duration::from_millis(50)).await;
        assert_eq!(server.stalled_sends(), 32);
        // With 96 answers waiting, only 32 more may start.
        for id in 1_001..=1_100 {
            server.send(Message::request(id, "x/echo", Some(json!({"id": id}))));
        }
        sleep(Duration::from_millis(50)).await;
        server.release_sends();
        let (mut answered, mut refused) = (std::collections::BTreeSet::new(), 0);
        for _ in 0..228 {
            let answer = next_response(&mut server).await;
            match answer.outcome {
                Ok(_) => {
                    answered.extend(answer.id);
                }
                Err(error) => {
                    assert_eq!(error.code, codes::INTERNAL_ERROR, "{}", error.message);
                    refused += 1;
                }
            }
        }
        let expected: std::collections::BTreeSet<RequestId> =
            (1..=128).chain(1_001..=1_032).map(RequestId::Int).collect();
        assert_eq!((answered, refused), (expected, 68));
    }

    async fn a_server_cancellation_stops_the_handler_without_an_answer() {
        let started = Arc::new(Mutex::new(0));
        let count = started.clone();
        let options = ClientOptions::default().on_request("x/slow", move |_params: Option<Value>, _ctx: RequestContext| {
            *count.lock().unwrap_or_else(|e| e.into_inner()) += 1;
            async {
                sleep(Duration::from_secs(30)).await;
                Ok(json!({"too": "late"}))
            }
        });
        let (_client, mut server) = connected(options).await;
        server.send(Message::request(1, "x/slow", None));
        sleep(Duration::from_millis(50)).await;
        server.send(Message::notification("notifications/cancelled", Some(json!({"requestId": 1, "reason": "bored"}))));
        server.send(Message::request(2, "ping", None));
        let answer = next_response(&mut server).await;
        assert_eq!(answer.id, Some(RequestId::Int(2)), "only the ping is answered");
        assert_eq!(*started.lock().unwrap_or_else(|e| e.into_inner()), 1);
        let extra = select(Box::pin(server.recv()), Box::pin(sleep(Duration::from_millis(100)))).await;
        assert!(matches!(extra, Either::Right(_)), "the cancelled request must get no answer");
    }

    async fn elicitation_defaults_are_filled_in_when_asked() {
        let options = ClientOptions::default().on_elicitation(
            |_params, _ctx| async {
                let mut content = serde_json::Map::new();
                content.insert("name".into(), json!("Ada"));
                Ok(ElicitResult { action: ElicitAction::Accept, content: Some(content) })
            },
            true,
        );
        let (_client, mut server) = connected(options).await;
        let params = json!({
            "message": "Who are you?",
            "requestedSchema": {"type": "object", "properties": {
                "name": {"type": "string", "default": "anonymous"},
                "age": {"type": "integer", "default": 36},
                "email": {"type": "string"}
            }}
        });
        server.send(Message::request(1, "elicitation/create", Some(params)));
        let answer = next_response(&mut server).await;
        let result = answer.outcome.unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(result, json!({"action": "accept", "content": {"name": "Ada", "age": 36}}));
    }

    async fn unknown_ids_and_garbage_do_not_disturb_the_session() {
        let (client, mut server) = connected(ClientOptions::default()).await;
        server.send(Message::result(RequestId::Int(424242), json!({})));
        server.send(Message::error(None, ErrorObject::new(codes::PARSE_ERROR, "you sent garbage")));
        assert_eq!(server.send_raw("{not json"), 0);
        let ping = client.ping();
        let server_side = async {
            let request = next_request(&mut server).await;
            server.send(Message::result(request.id, json!({})));
        };
        let (outcome, ()) = futures::join!(within("ping", ping), server_side);
        ok(outcome);
    }

    async fn missing_capabilities_are_refused_before_sending() {
        let (client, mut server) = start(ClientOptions::default());
        let server_side = async {
            let initialize = next_request(&mut server).await;
            let result = json!({"protocolVersion": "2025-11-25", "capabilities": {"tools": {}}, "serverInfo": {"name": "s", "version": "1"}});
            server.send(Message::result(initialize.id, result));
            next_notification(&mut server).await;
        };
        let (outcome, ()) = futures::join!(within("initialize", client.initialize()), server_side);
        ok(outcome);
        let refused = client.list_prompts(None).await;
        assert!(matches!(&refused, Err(Error::CapabilityMissing { capability, .. }) if capability == "prompts"), "{refused:?}");
        let refused = client.subscribe_resource("file:///x").await;
        assert!(matches!(&refused, Err(Error::CapabilityMissing { .. })), "{refused:?}");
    }

    async fn list_all_follows_cursors_and_stops_on_a_loop() {
        let (client, mut server) = connected(ClientOptions::default()).await;
        let list = client.list_all_tools();
        let server_side = async {
            for (cursor, next_cursor, names) in [(None, Some("p2"), ["a", "b"]), (Some("p2"), Some("p3"), ["c", "d"]), (Some("p3"), None, ["e", "f"])] {
                let request = next_request(&mut server).await;
                assert_eq!(request.method, "tools/list");
                let sent_cursor = request.params.as_ref().and_then(|p| p.get("cursor")).and_then(Value::as_str).map(str::to_owned);
                assert_eq!(sent_cursor.as_deref(), cursor);
                let tools: Vec<Value> = names.iter().map(|n| json!({"name": n, "inputSchema": {"type": "object"}})).collect();
                let mut result = json!({"tools": tools});
                if let Some(next_cursor) = next_cursor {
                    result["nextCursor"] = json!(next_cursor);
                }
                server.send(Message::result(request.id, result));
            }
        };
        let (tools, ()) = futures::join!(within("list_all_tools", list), server_side);
        let names: Vec<String> = ok(tools).into_iter().map(|t| t.name).collect();
        assert_eq!(names, ["a", "b", "c", "d", "e", "f"]);

        let list = client.list_all_tools();
        let server_side = async {
            for _ in 0..2 {
                let request = next_request(&mut server).await;
                server.send(Message::result(request.id, json!({"tools": [], "nextCursor": "same"})));
            }
        };
        let (looped, ()) = futures::join!(within("a looping list", list), server_side);
        assert!(matches!(looped, Err(Error::InvalidResult { .. })), "{looped:?}");
    }

    async fn an_expired_session_is_restarted_once_and_the_request_retried() {
        let events = Arc::new(Mutex::new(Vec::new()));
        let log = events.clone();
        let options = ClientOptions::default().on_event(move |e| log.lock().unwrap_or_else(|e| e.into_inner()).push(e.clone()));
        let (client, mut server) = connected(options).await;
        server.fail_next_send(TransportError::SessionExpired);
        let call = client.request("tools/call", Some(json!({"name": "after-restart"})), RequestOptions::default());
        let server_side = async {
            // The failed send never reached us; next comes a new handshake.
            serve_handshake(&mut server, "2025-11-25").await;
            let retried = next_request(&mut server).await;
            assert_eq!(retried.method, "tools/call");
            server.send(Message::result(retried.id, json!({"ok": true})));
        };
        let (outcome, ()) = futures::join!(within("the retried call", call), server_side);
        assert_eq!(ok(outcome), json!({"ok": true}));
        assert_eq!(client.restarts(), 1);
        assert_eq!(*events.lock().unwrap_or_else(|e| e.into_inner()), vec![SessionEvent::SessionRestarted]);
    }

    async fn a_subscription_left_unread_holds_at_most_4096_and_then_says_how_many_it_missed() {
        let (client, mut server) = connected(ClientOptions::default()).await;
        let server_side = async {
            let subscribe = next_request(&mut server).await;
            server.send(Message::result(subscribe.id, json!({})));
        };
        let (subscription, ()) =
            futures::join!(within("listen", client.listen(ListenFilter::resource("demo://r"))), server_side);
        let mut subscription = ok(subscription);
        for n in 0..5_000 {
            server.send(Message::notification("notifications/resources/updated", Some(json!({"uri": "demo://r", "n": n}))));
        }
        // Answered after the loop routed every notification before it.
        server.send(Message::request(1, "ping", None));
        assert_eq!(next_response(&mut server).await.id, Some(RequestId::Int(1)));
        for n in 0..4_096 {
            let notification = ok(within("a held notification", subscription.next()).await.expect("held"));
            assert_eq!(notification.params.unwrap_or_default()["n"], n);
        }
        let resync = ok(within("the resync", subscription.next()).await.expect("a resync"));
        assert_eq!(resync.method, mcp_edge::RESYNC);
        let reason = resync.params.unwrap_or_default()["reason"].as_str().unwrap_or_default().to_owned();
        assert!(reason.starts_with("904 notifications were dropped"), "{reason}");
        // Read again, it holds what comes.
        server.send(Message::notification("notifications/resources/updated", Some(json!({"uri": "demo://r", "n": "after"}))));
        let after = ok(within("the next one", subscription.next()).await.expect("delivered"));
        assert_eq!(after.params.unwrap_or_default()["n"], "after");
    }

    async fn subscriptions_sharing_a_resource_subscribe_once_and_unsubscribe_with_the_last() {
        let (client, mut server) = connected(ClientOptions::default()).await;
        let server_side = async {
            let subscribe = next_request(&mut server).await;
            assert_eq!(subscribe.method, "resources/subscribe");
            server.send(Message::result(subscribe.id, json!({})));
        };
        let (first, ()) = futures::join!(within("listen", client.listen(ListenFilter::resource("demo://r"))), server_side);
        let first = ok(first);
        // The second needs nothing from the server.
        let second = ok(within("listen", client.listen(ListenFilter::resource("demo://r"))).await);
        within("close", first.close()).await;
        server.send(Message::notification("notifications/resources/updated", Some(json!({"uri": "demo://r"}))));
        let mut second = second;
        let update = ok(within("an update", second.next()).await.expect("the second still hears"));
        assert_eq!(update.method, "notifications/resources/updated");
        let closing = async {
            let unsubscribe = next_request(&mut server).await;
            assert_eq!(unsubscribe.method, "resources/unsubscribe", "the last one out unsubscribes");
            server.send(Message::result(unsubscribe.id, json!({})));
        };
        futures::join!(within("close", second.close()), closing);
    }

    async fn closing_the_client_ends_a_stateless_listen_without_an_error() {
        let (client, mut server) = connected_stateless().await;
        let server_side = async {
            let listen = next_request(&mut server).await;
            server.send(tagged("notifications/subscriptions/acknowledged", &listen.id,
                json!({"notifications": {"toolsListChanged": true}})));
        };
        let filter = ListenFilter { tools_list_changed: true, ..ListenFilter::default() };
        let (subscription, ()) = futures::join!(within("listen", client.listen(filter)), server_side);
        let mut subscription = ok(subscription);
        within("close", client.close()).await;
        assert!(within("the end", subscription.next()).await.is_none(), "a graceful end, not an error");
    }

    async fn a_new_session_subscribes_to_the_same_resources_again() {
        let (client, mut server) = connected(ClientOptions::default()).await;
        for uri in ["demo://a", "demo://b"] {
            let server_side = async {
                let subscribe = next_request(&mut server).await;
                assert_eq!(subscribe.method, "resources/subscribe");
                server.send(Message::result(subscribe.id, json!({})));
            };
            let (outcome, ()) = futures::join!(within("subscribe", client.subscribe_resource(uri)), server_side);
            ok(outcome);
        }
        let server_side = async {
            let unsubscribe = next_request(&mut server).await;
            server.send(Message::result(unsubscribe.id, json!({})));
        };
        let (outcome, ()) = futures::join!(within("unsubscribe", client.unsubscribe_resource("demo://a")), server_side);
        ok(outcome);
        server.fail_next_send(TransportError::SessionExpired);
        let call = client.request("tools/list", None, RequestOptions::default());
        let server_side = async {
            serve_handshake(&mut server, "2025-11-25").await;
            let again = next_request(&mut server).await;
            assert_eq!(again.method, "resources/subscribe");
            assert_eq!(again.params.clone().unwrap_or_default()["uri"], "demo://b", "only what is still subscribed");
            server.send(Message::result(again.id, json!({})));
            let retried = next_request(&mut server).await;
            assert_eq!(retried.method, "tools/list");
            server.send(Message::result(retried.id, json!({"tools": []})));
        };
        let (outcome, ()) = futures::join!(within("the retried call", call), server_side);
        ok(outcome);
    }

    async fn a_dead_transport_fails_pending_and_later_requests_at_once() {
        let (client, mut server) = connected(ClientOptions::default()).await;
        let call = client.request("tools/call", Some(json!({"name": "doomed"})), RequestOptions::default());
        let server_side = async {
            next_request(&mut server).await;
            server.fail(TransportError::ProcessExited { status: "exit code 3".into(), stderr_tail: vec!["boom".into()] });
        };
        let (outcome, ()) = futures::join!(within("the doomed call", call), server_side);
        let message = match outcome {
            Err(error @ Error::Transport(TransportError::ProcessExited { .. })) => error.to_string(),
            other => panic!("expected ProcessExited, got {other:?}"),
        };
        assert!(message.contains("exit code 3") && message.contains("boom"), "{message}");
        let later = within("a request after the crash", client.ping()).await;
        assert!(matches!(later, Err(Error::Transport(TransportError::ProcessExited { .. }))), "{later:?}");
        // Closing after a failure still releases the transport (an HTTP
        // session would be DELETEd).
        assert!(!server.was_closed());
        within("close after the crash", client.close()).await;
        assert!(server.was_closed());
    }

    async fn close_fails_pending_requests_and_closes_the_transport() {
        let (client, mut server) = connected(ClientOptions::default()).await;
        let call = client.request("tools/call", Some(json!({"name": "open"})), RequestOptions::default());
        let closer = async {
            next_request(&mut server).await;
            within("close", client.close()).await;
        };
        let (outcome, ()) = futures::join!(within("the open call", call), closer);
        assert!(matches!(outcome, Err(Error::Transport(TransportError::Closed(_)))), "{outcome:?}");
        assert!(server.was_closed());
        assert!(matches!(within("ping after close", client.ping()).await, Err(Error::Transport(_))));
    }

    async fn a_stateless_listen_is_acknowledged_demultiplexed_and_ended_by_the_server() {
        let (client, mut server) = connected_stateless().await;
        let heard = Arc::new(Mutex::new(Vec::new()));
        let log = heard.clone();
        client.on_notification(move |n| log.lock().unwrap().push(n.method.clone()));
        let filter = ListenFilter { tools_list_changed: true, prompts_list_changed: true, ..ListenFilter::resource("demo://a") };
        let server_side = async {
            let listen = next_request(&mut server).await;
            assert_eq!(listen.method, "subscriptions/listen");
            let params = listen.params.clone().unwrap_or_default();
            // Prompts are not offered by the server: not asked for.
            assert_eq!(params["notifications"], json!({"toolsListChanged": true, "resourceSubscriptions": ["demo://a"]}));
            assert_eq!(params["_meta"]["io.modelcontextprotocol/protocolVersion"], "2026-07-28");
            server.send(tagged(
                "notifications/subscriptions/acknowledged",
                &listen.id,
                json!({"notifications": {"toolsListChanged": true}}),
            ));
            listen.id
        };
        let (subscription, id) = futures::join!(within("listen", client.listen(filter)), server_side);
        let mut subscription = ok(subscription);
        assert_eq!(subscription.id(), &id);
        assert_eq!(subscription.granted(), &ListenFilter { tools_list_changed: true, ..ListenFilter::default() });
        // Another subscription's notification is not this one's.
        server.send(tagged("notifications/tools/list_changed", &RequestId::Str("other".into()), json!({})));
        server.send(tagged("notifications/tools/list_changed", &id, json!({})));
        server.send(tagged("notifications/resources/updated", &id, json!({"uri": "demo://a/b"})));
        server.send(Message::result(id.clone(), json!({"resultType": "complete",
            "_meta": {"io.modelcontextprotocol/subscriptionId": id.to_value()}})));
        let first = within("a notification", subscription.next()).await;
        assert_eq!(ok(first.expect("one")).method, "notifications/tools/list_changed");
        let second = within("a notification", subscription.next()).await;
        assert_eq!(ok(second.expect("two")).params.unwrap()["uri"], "demo://a/b");
        assert!(within("the end", subscription.next()).await.is_none(), "a complete result ends it");
        // Listeners heard everything but the acknowledgement.
        let heard = heard.lock().unwrap().clone();
        assert_eq!(heard.iter().filter(|m| m.as_str() == "notifications/tools/list_changed").count(), 2, "{heard:?}");
        assert!(!heard.iter().any(|m| m.contains("acknowledged")), "{heard:?}");
    }

    async fn dropping_a_stateless_listen_cancels_it_and_a_server_cancel_ends_it() {
        let (client, mut server) = connected_stateless().await;
        for round in 0..2 {
            let server_side = async {
                let listen = next_request(&mut server).await;
                server.send(tagged("notifications/subscriptions/acknowledged", &listen.id,
                    json!({"notifications": {"toolsListChanged": true}})));
                listen.id
            };
            let filter = ListenFilter { tools_list_changed: true, ..ListenFilter::default() };
            let (subscription, id) = futures::join!(within("listen", client.listen(filter)), server_side);
            let mut subscription = ok(subscription);
            if round == 0 {
                drop(subscription);
                // Not HTTP: the cancellation is a notification naming the listen.
                let cancelled = next_notification(&mut server).await;
                assert_eq!(cancelled.method, "notifications/cancelled");
                assert_eq!(cancelled.params.unwrap()["requestId"], id.to_value());
            } else {
                server.send(Message::notification("notifications/cancelled",
                    Some(json!({"requestId": id.to_value(), "reason": "shutting down"}))));
                assert!(within("the end", subscription.next()).await.is_none(), "ended gracefully");
            }
        }
    }

    async fn a_listen_the_server_refuses_or_cannot_offer_is_a_typed_error() {
        let (client, mut server) = connected_stateless().await;
        let filter = ListenFilter { tools_list_changed: true, ..ListenFilter::default() };
        let server_side = async {
            let listen = next_request(&mut server).await;
            server.send(Message::error(Some(listen.id), ErrorObject {
                code: -32021,
                message: "missing capability".into(),
                data: Some(json!({"requiredCapabilities": {"roots": {}}})),
            }));
        };
        let (outcome, ()) = futures::join!(within("listen", client.listen(filter.clone())), server_side);
        assert!(matches!(outcome, Err(Error::MissingClientCapability { .. })), "{outcome:?}");
        assert!(matches!(client.listen(ListenFilter::default()).await, Err(Error::InvalidArgument(_))));
        // Prompts are not offered: nothing to ask for.
        let prompts = ListenFilter { prompts_list_changed: true, ..ListenFilter::default() };
        assert!(matches!(client.listen(prompts).await, Err(Error::CapabilityMissing { .. })));
    }

    async fn stateless_subscribe_resource_is_a_listen_kept_until_unsubscribe() {
        let (client, mut server) = connected_stateless().await;
        let heard = Arc::new(Mutex::new(Vec::new()));
        let log = heard.clone();
        client.on_notification(move |n| log.lock().unwrap().push(n.params.clone().unwrap_or_default()["uri"].clone()));
        let server_side = async {
            let listen = next_request(&mut server).await;
            assert_eq!(listen.method, "subscriptions/listen");
            assert_eq!(listen.params.clone().unwrap_or_default()["notifications"],
                json!({"resourceSubscriptions": ["demo://r"]}));
            server.send(tagged("notifications/subscriptions/acknowledged", &listen.id,
                json!({"notifications": {"resourceSubscriptions": ["demo://r"]}})));
            listen.id
        };
        let (outcome, id) = futures::join!(within("subscribe", client.subscribe_resource("demo://r")), server_side);
        ok(outcome);
        server.send(tagged("notifications/resources/updated", &id, json!({"uri": "demo://r"})));
        within("the update", async { while heard.lock().unwrap().is_empty() { sleep(Duration::from_millis(5)).await } }).await;
        ok(within("unsubscribe", client.unsubscribe_resource("demo://r")).await);
        let cancelled = next_notification(&mut server).await;
        assert_eq!(cancelled.method, "notifications/cancelled");
        assert_eq!(cancelled.params.unwrap()["requestId"], id.to_value());
    }

    async fn a_broken_stateless_resource_subscription_is_opened_again() {
        let events = Arc::new(Mutex::new(Vec::new()));
        let log = events.clone();
        let options = ClientOptions::default()
            .with_era(EraChoice::Stateless)
            .on_event(move |e| log.lock().unwrap_or_else(|e| e.into_inner()).push(e.clone()));
        let (client, mut server) = start(options);
        let server_side = async {
            let discover = next_request(&mut server).await;
            server.send(Message::result(discover.id, json!({"resultType": "complete",
                "supportedVersions": ["2026-07-28"], "capabilities": {"resources": {"subscribe": true}}})));
        };
        let (outcome, ()) = futures::join!(within("start", client.start()), server_side);
        ok(outcome);
        let acknowledge = |server: &MemoryServer, id: &RequestId| {
            server.send(tagged("notifications/subscriptions/acknowledged", id,
                json!({"notifications": {"resourceSubscriptions": ["demo://r"]}})));
        };
        let server_side = async {
            let listen = next_request(&mut server).await;
            acknowledge(&server, &listen.id);
            listen.id
        };
        let (outcome, first) = futures::join!(within("subscribe", client.subscribe_resource("demo://r")), server_side);
        ok(outcome);
        // The listen breaks (an error answer): it is opened again, with a new id.
        server.send(Message::error(Some(first.clone()), ErrorObject::new(-32603, "stream lost")));
        let again = next_request(&mut server).await;
        assert_eq!(again.method, "subscriptions/listen");
        assert_ne!(again.id, first);
        assert_eq!(again.params.clone().unwrap_or_default()["notifications"], json!({"resourceSubscriptions": ["demo://r"]}));
        acknowledge(&server, &again.id);
        within("the event", async {
            while events.lock().unwrap_or_else(|e| e.into_inner()).is_empty() {
                sleep(Duration::from_millis(5)).await;
            }
        })
        .await;
        assert_eq!(*events.lock().unwrap_or_else(|e| e.into_inner()),
            vec![SessionEvent::Resubscribed { uri: "demo://r".into() }]);
        ok(within("unsubscribe", client.unsubscribe_resource("demo://r")).await);
        let cancelled = next_notification(&mut server).await;
        assert_eq!(cancelled.method, "notifications/cancelled");
        assert_eq!(cancelled.params.unwrap_or_default()["requestId"], again.id.to_value());
    }

    async fn a_handshake_era_listen_subscribes_filters_and_unsubscribes_on_close() {
        let (client, mut server) = start(ClientOptions::default());
        let handshake = async {
            let initialize = next_request(&mut server).await;
            let mut result = init_result("2025-11-25");
            result["capabilities"]["tools"] = json!({"listChanged": true});
            server.send(Message::result(initialize.id, result));
            next_notification(&mut server).await;
        };
        let (outcome, ()) = futures::join!(within("initialize", client.initialize()), handshake);
        ok(outcome);
        let filter = ListenFilter { tools_list_changed: true, prompts_list_changed: true, ..ListenFilter::resource("demo://a") };
        let server_side = async {
            let subscribe = next_request(&mut server).await;
            assert_eq!(subscribe.method, "resources/subscribe");
            assert_eq!(subscribe.params.clone().unwrap_or_default()["uri"], "demo://a");
            server.send(Message::result(subscribe.id, json!({})));
        };
        let (subscription, ()) = futures::join!(within("listen", client.listen(filter)), server_side);
        let mut subscription = ok(subscription);
        assert!(subscription.granted().tools_list_changed && !subscription.granted().prompts_list_changed);
        server.send(Message::notification("notifications/resources/updated", Some(json!({"uri": "demo://other"}))));
        server.send(Message::notification("notifications/prompts/list_changed", None));
        server.send(Message::notification("notifications/resources/updated", Some(json!({"uri": "demo://a"}))));
        server.send(Message::notification("notifications/tools/list_changed", None));
        let first = ok(within("a notification", subscription.next()).await.expect("one"));
        assert_eq!(first.params.unwrap()["uri"], "demo://a");
        let second = ok(within("a notification", subscription.next()).await.expect("two"));
        assert_eq!(second.method, "notifications/tools/list_changed");
        let closing = async {
            let unsubscribe = next_request(&mut server).await;
            assert_eq!(unsubscribe.method, "resources/unsubscribe");
            server.send(Message::result(unsubscribe.id, json!({})));
        };
        futures::join!(within("close", subscription.close()), closing);
    }
}
