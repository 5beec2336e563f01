//! Scripted over the memory transport: `_meta` on every request, input
//! required and its rounds, tasks, sampling and roots in one round, the
//! result cache.

use super::*;

#[tokio::test]
async fn every_request_carries_meta_and_no_handshake_happens() {
    let (client, mut server) = stateless_client(elicitation_options()).await;
    assert_eq!(client.era(), Some(Era::Stateless));
    let discovery = client.discovery().expect("discovery kept");
    assert_eq!(discovery.cache.map(|c| c.ttl), Some(Duration::from_millis(5000)));

    let listing = tokio::spawn({
        let client = client.clone();
        async move { client.list_tools(None).await }
    });
    let request = next_request(&mut server).await;
    assert_eq!(request.method, "tools/list");
    let meta = meta_of(&request);
    assert_eq!(meta["io.modelcontextprotocol/protocolVersion"], "2026-07-28");
    assert_eq!(meta["io.modelcontextprotocol/clientCapabilities"], json!({"elicitation": {"form": {}}}));
    assert_eq!(meta["io.modelcontextprotocol/clientInfo"]["name"], "stateless-test");
    assert!(meta.get("io.modelcontextprotocol/logLevel").is_none(), "logLevel only when asked");
    answer(&server, request.id, json!({"resultType": "complete", "tools": [], "ttlMs": 0}));
    assert!(within("list", listing).await.expect("join").expect("tools/list").tools.is_empty());

    // logging/setLevel is not sent: the level rides on later requests.
    client.set_logging_level(mcp_edge::protocol::types::LoggingLevel::Warning).await.expect("level kept");
    let listing = tokio::spawn({
        let client = client.clone();
        async move { client.list_tools(None).await }
    });
    let request = next_request(&mut server).await;
    assert_eq!(request.method, "tools/list", "no logging/setLevel on the wire");
    assert_eq!(meta_of(&request)["io.modelcontextprotocol/logLevel"], "warning");
    // No resultType (an older server): complete.
    answer(&server, request.id, json!({"tools": []}));
    within("list", listing).await.expect("join").expect("tools/list");

    // Gone in this revision: typed, nothing sent.
    let initialize = client.request("initialize", None, Default::default()).await;
    assert!(matches!(initialize, Err(Error::NotInThisRevision { .. })), "{initialize:?}");
    // `resources/subscribe` is a listen, which this server's capabilities do not offer.
    let subscribe = client.subscribe_resource("x:/y").await;
    assert!(matches!(subscribe, Err(Error::CapabilityMissing { .. })), "{subscribe:?}");
}

#[tokio::test]
async fn input_required_is_answered_by_the_handlers_with_fresh_ids() {
    let (client, mut server) = stateless_client(elicitation_options()).await;
    let call = tokio::spawn({
        let client = client.clone();
        async move { client.call_tool("confirm", None).await }
    });
    let first = next_request(&mut server).await;
    assert_eq!(first.method, "tools/call");
    assert!(first.params.as_ref().is_some_and(|p| p.get("inputResponses").is_none()));
    let state = "opaque \u{e9} state =?base64?x?= ";
    answer(
        &server,
        first.id.clone(),
        json!({"resultType": "input_required", "requestState": state, "inputRequests": {
            "ok": {"method": "elicitation/create", "params": {"mode": "form", "message": "Sure?",
                "requestedSchema": {"type": "object", "properties": {"confirmed": {"type": "boolean", "default": true}}}}}}}),
    );
    let second = next_request(&mut server).await;
    assert_ne!(second.id, first.id, "each round has a new id");
    let params = second.params.clone().unwrap_or_default();
    assert_eq!(params["requestState"], state, "requestState echoed exactly");
    assert_eq!(params["inputResponses"]["ok"]["action"], "accept");
    assert_eq!(params["inputResponses"]["ok"]["content"]["confirmed"], true, "defaults filled in");
    assert_eq!(params["name"], "confirm");
    // A round with state only: the retry carries no inputResponses.
    answer(&server, second.id.clone(), json!({"resultType": "input_required", "requestState": "s2"}));
    let third = next_request(&mut server).await;
    let params = third.params.clone().unwrap_or_default();
    assert_eq!(params["requestState"], "s2");
    assert!(params.get("inputResponses").is_none());
    answer(&server, third.id, json!({"resultType": "complete", "content": [{"type": "text", "text": "done"}]}));
    let result = within("call", call).await.expect("join").expect("tools/call");
    assert_eq!(result.content.len(), 1);
}

#[tokio::test]
async fn rounds_are_capped_and_new_codes_are_typed() {
    let mut options = elicitation_options();
    options.max_input_rounds = 3;
    let (client, mut server) = stateless_client(options).await;
    let call = tokio::spawn({
        let client = client.clone();
        async move { client.call_tool("loop", None).await }
    });
    for _ in 0..3 {
        let request = next_request(&mut server).await;
        answer(&server, request.id, json!({"resultType": "input_required", "requestState": "again"}));
    }
    assert!(matches!(within("call", call).await.expect("join"), Err(Error::TooManyRounds { rounds: 3, .. })));

    let call = tokio::spawn({
        let client = client.clone();
        async move { client.call_tool("needs", None).await }
    });
    let request = next_request(&mut server).await;
    server.send(Message::Response(Response {
        id: Some(request.id),
        outcome: Err(mcp_edge::protocol::ErrorObject {
            code: -32021,
            message: "Missing required client capability".into(),
            data: Some(json!({"requiredCapabilities": {"sampling": {}}})),
        }),
    }));
    match within("call", call).await.expect("join") {
        Err(Error::MissingClientCapability { required, .. }) => assert_eq!(required, json!({"sampling": {}})),
        other => panic!("expected a typed -32021, got {other:?}"),
    }

    // An input_required result on a method that cannot have one is invalid.
    let listing = tokio::spawn({
        let client = client.clone();
        async move { client.list_tools(None).await }
    });
    let request = next_request(&mut server).await;
    answer(&server, request.id, json!({"resultType": "input_required", "requestState": "x"}));
    assert!(matches!(within("list", listing).await.expect("join"), Err(Error::InvalidResult { .. })));
}

#[tokio::test]
async fn fresh_results_come_from_the_cache_until_a_change_notification() {
    let (client, mut server) = stateless_client(elicitation_options()).await;
    let list = |client: &Client| {
        let client = client.clone();
        tokio::spawn(async move { client.list_tools(None).await })
    };
    let listing = list(&client);
    let request = next_request(&mut server).await;
    assert_eq!(request.method, "tools/list");
    answer(
        &server,
        request.id,
        json!({"resultType": "complete", "tools": [{"name": "a", "inputSchema": {"type": "object"}}],
        "ttlMs": 60000, "cacheScope": "private"}),
    );
    assert_eq!(within("list", listing).await.expect("join").expect("list").tools.len(), 1);
    // Fresh: answered without asking the server.
    assert_eq!(within("cached", list(&client)).await.expect("join").expect("list").tools.len(), 1);
    // A change notification makes it stale at once (the cache hears it
    // before any listener does).
    let heard = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let flag = std::sync::Arc::clone(&heard);
    client.on_notification(move |_| flag.store(true, std::sync::atomic::Ordering::SeqCst));
    server.send(Message::Notification(mcp_edge::protocol::Notification {
        method: "notifications/tools/list_changed".into(),
        params: None,
    }));
    within("the notification", async {
        while !heard.load(std::sync::atomic::Ordering::SeqCst) {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    })
    .await;
    let listing = list(&client);
    let request = next_request(&mut server).await;
    assert_eq!(request.method, "tools/list", "asked again after the change");
    answer(&server, request.id, json!({"resultType": "complete", "tools": [], "ttlMs": 0}));
    assert!(within("list", listing).await.expect("join").expect("list").tools.is_empty());
    // ttlMs 0: never kept.
    let listing = list(&client);
    let request = next_request(&mut server).await;
    answer(&server, request.id, json!({"resultType": "complete", "tools": []}));
    within("list", listing).await.expect("join").expect("list");
}

#[cfg(feature = "tasks")]
#[tokio::test]
async fn a_task_is_polled_given_input_and_its_result_returned() {
    let (client, mut server) = stateless_client(elicitation_options().with_tasks(true)).await;
    let calling = tokio::spawn({
        let client = client.clone();
        async move { client.call_tool("slow", None).await }
    });
    let call = next_request(&mut server).await;
    assert_eq!(call.method, "tools/call");
    assert_eq!(
        meta_of(&call)["io.modelcontextprotocol/clientCapabilities"]["extensions"],
        json!({"io.modelcontextprotocol/tasks": {}})
    );
    answer(
        &server,
        call.id,
        json!({"resultType": "task", "taskId": "t1", "status": "working",
        "createdAt": "2026-11-21T00:00:00Z", "lastUpdatedAt": "2026-11-21T00:00:00Z", "ttlMs": null, "pollIntervalMs": 60}),
    );
    let get = next_request(&mut server).await;
    assert_eq!(
        (get.method.as_str(), get.params.clone().unwrap_or_default()["taskId"].clone()),
        ("tasks/get", json!("t1"))
    );
    let asked = json!({"ask": {"method": "elicitation/create", "params": {"mode": "form", "message": "Sure?",
        "requestedSchema": {"type": "object", "properties": {}}}}});
    answer(
        &server,
        get.id,
        json!({"resultType": "complete", "taskId": "t1", "status": "input_required", "inputRequests": asked}),
    );
    let update = next_request(&mut server).await;
    assert_eq!(update.method, "tasks/update");
    let params = update.params.clone().unwrap_or_default();
    assert_eq!(params["taskId"], "t1");
    assert_eq!(params["inputResponses"]["ask"]["action"], "accept");
    answer(&server, update.id, json!({"resultType": "complete"}));
    // Still input_required with the same key (eventual consistency): not answered twice.
    let get = next_request(&mut server).await;
    answer(
        &server,
        get.id,
        json!({"resultType": "complete", "taskId": "t1", "status": "input_required", "inputRequests": asked}),
    );
    let get = next_request(&mut server).await;
    assert_eq!(get.method, "tasks/get", "the same input is not answered twice");
    answer(
        &server,
        get.id,
        json!({"resultType": "complete", "taskId": "t1", "status": "completed",
        "result": {"content": [{"type": "text", "text": "finished"}]}}),
    );
    let result = within("the task", calling).await.expect("join").expect("task result");
    assert_eq!(serde_json::to_value(&result.content).unwrap_or_default()[0]["text"], "finished");
}

#[cfg(feature = "tasks")]
#[tokio::test]
async fn an_abandoned_task_is_cancelled_and_a_failed_one_is_its_error() {
    let (client, mut server) = stateless_client(elicitation_options().with_tasks(true)).await;
    let calling = tokio::spawn({
        let client = client.clone();
        async move { client.call_tool("slow", None).await }
    });
    let call = next_request(&mut server).await;
    answer(&server, call.id, json!({"resultType": "task", "taskId": "t2", "status": "working", "pollIntervalMs": 50}));
    let get = next_request(&mut server).await;
    assert_eq!(get.method, "tasks/get");
    calling.abort();
    // The abandoned tasks/get itself is cancelled (not HTTP: a notification),
    // then the task.
    let cancel = loop {
        match within("a client message", server.recv()).await {
            Some(Message::Notification(n)) => assert_eq!(n.method, "notifications/cancelled"),
            Some(Message::Request(request)) => break request,
            other => panic!("{other:?}"),
        }
    };
    assert_eq!(
        (cancel.method.as_str(), cancel.params.clone().unwrap_or_default()["taskId"].clone()),
        ("tasks/cancel", json!("t2"))
    );

    let calling = tokio::spawn({
        let client = client.clone();
        async move { client.call_tool("slow", None).await }
    });
    let call = next_request(&mut server).await;
    answer(
        &server,
        call.id,
        json!({"resultType": "task", "taskId": "t3", "status": "failed",
        "error": {"code": -32000, "message": "the tool crashed"}}),
    );
    match within("the task", calling).await.expect("join") {
        Err(Error::Rpc { error, .. }) => assert_eq!(error.message, "the tool crashed"),
        other => panic!("{other:?}"),
    }
    // Without the extension declared, a task is not a result this client accepts.
    let (plain, mut server) = stateless_client(elicitation_options()).await;
    let calling = tokio::spawn(async move { plain.call_tool("slow", None).await });
    let call = next_request(&mut server).await;
    assert!(meta_of(&call)["io.modelcontextprotocol/clientCapabilities"].get("extensions").is_none());
    answer(&server, call.id, json!({"resultType": "task", "taskId": "t4", "status": "working"}));
    assert!(matches!(within("call", calling).await.expect("join"), Err(Error::InvalidResult { .. })));
}

/// Sampling and roots answered in one input_required round by the handlers
/// that answer server requests in the handshake era; the capabilities in
/// `_meta` name exactly them.
#[tokio::test]
async fn sampling_and_roots_are_answered_in_one_round() {
    use mcp_edge::protocol::types::{CreateMessageResult, Root};
    let options = ClientOptions::new("stateless-test", "1.0")
        .with_timeout(Duration::from_secs(10))
        .on_sampling(|_params, _context| async {
            Ok(CreateMessageResult {
                role: "assistant".into(),
                content: json!({"type": "text", "text": "sampled"}),
                model: "test-model".into(),
                stop_reason: Some("endTurn".into()),
            })
        })
        .with_roots(vec![Root { uri: "file:///work".into(), name: Some("work".into()) }]);
    let (client, mut server) = stateless_client(options).await;
    let call = tokio::spawn({
        let client = client.clone();
        async move { client.call_tool("summarize", None).await }
    });
    let first = next_request(&mut server).await;
    let capabilities = meta_of(&first)["io.modelcontextprotocol/clientCapabilities"].clone();
    assert_eq!(capabilities, json!({"roots": {}, "sampling": {}}), "no elicitation handler, none declared");
    answer(
        &server,
        first.id,
        json!({"resultType": "input_required", "inputRequests": {
            "llm": {"method": "sampling/createMessage", "params": {"messages": [
                {"role": "user", "content": {"type": "text", "text": "Summarize"}}], "maxTokens": 10}},
            "where": {"method": "roots/list", "params": {}}}}),
    );
    let second = next_request(&mut server).await;
    let responses = second.params.clone().unwrap_or_default()["inputResponses"].clone();
    assert_eq!(responses["llm"]["content"]["text"], "sampled");
    assert_eq!(responses["llm"]["model"], "test-model");
    assert_eq!(responses["where"]["roots"][0]["uri"], "file:///work");
    answer(&server, second.id, json!({"resultType": "complete", "content": []}));
    within("call", call).await.expect("join").expect("tools/call");
}

/// What an input round led to is never cached, nor an answer overtaken by a
/// change notification; a header mismatch lists tools from the server.
#[tokio::test]
async fn the_cache_keeps_only_what_is_safe_to_keep() {
    // The scripted server declares no `resources`: read anyway.
    let mut options = elicitation_options();
    options.strict_capabilities = false;
    let (client, mut server) = stateless_client(options).await;
    let read = |client: &Client| {
        let client = client.clone();
        tokio::spawn(async move { client.read_resource("demo://r").await })
    };
    // A read that needed input: answered, not kept.
    let reading = read(&client);
    let first = next_request(&mut server).await;
    answer(&server, first.id, json!({"resultType": "input_required", "requestState": "s"}));
    let second = next_request(&mut server).await;
    answer(&server, second.id, json!({"resultType": "complete", "contents": [], "ttlMs": 60000}));
    within("read", reading).await.expect("join").expect("read");
    let reading = read(&client);
    let again = next_request(&mut server).await;
    assert_eq!(again.method, "resources/read", "asked again: the first answer depended on input");
    // A change notification while the request is out: its answer is stale.
    server.send(Message::Notification(mcp_edge::protocol::Notification {
        method: "notifications/resources/updated".into(),
        params: Some(json!({"uri": "demo://r"})),
    }));
    tokio::time::sleep(Duration::from_millis(50)).await;
    answer(&server, again.id, json!({"resultType": "complete", "contents": [], "ttlMs": 60000}));
    within("read", reading).await.expect("join").expect("read");
    let reading = read(&client);
    let third = next_request(&mut server).await;
    assert_eq!(third.method, "resources/read", "asked again: overtaken by a change");
    answer(&server, third.id, json!({"resultType": "complete", "contents": [], "ttlMs": 60000}));
    within("read", reading).await.expect("join").expect("read");
    within("cached", read(&client)).await.expect("join").expect("now from the cache");

    // tools/list cached; a -32020 on a call re-lists from the server.
    let listing = tokio::spawn({
        let client = client.clone();
        async move { client.list_tools(None).await }
    });
    let list = next_request(&mut server).await;
    answer(
        &server,
        list.id,
        json!({"resultType": "complete", "tools": [{"name": "t", "inputSchema": {"type": "object"}}],
        "ttlMs": 60000}),
    );
    within("list", listing).await.expect("join").expect("list");
    let calling = tokio::spawn({
        let client = client.clone();
        async move { client.call_tool("t", None).await }
    });
    let call = next_request(&mut server).await;
    server.send(Message::Response(Response {
        id: Some(call.id),
        outcome: Err(mcp_edge::protocol::ErrorObject { code: -32020, message: "header mismatch".into(), data: None }),
    }));
    let relist = next_request(&mut server).await;
    assert_eq!(relist.method, "tools/list", "re-listed from the server, not the cache");
    answer(
        &server,
        relist.id,
        json!({"resultType": "complete", "tools": [{"name": "t", "inputSchema": {"type": "object"}}]}),
    );
    let retried = next_request(&mut server).await;
    assert_eq!(retried.method, "tools/call");
    answer(&server, retried.id, json!({"resultType": "complete", "content": []}));
    within("call", calling).await.expect("join").expect("call");
}

#[tokio::test]
async fn a_server_too_slow_for_the_probe_that_names_stateless_revisions_to_initialize_is_spoken_to_statelessly() {
    let key = "test:slow-stateless-server";
    let options = ClientOptions::new("stateless-test", "1.0")
        .with_timeout(Duration::from_secs(10))
        .with_era(EraChoice::Auto)
        .with_era_cache_key(key);
    let mut options = options;
    options.probe_timeout = Duration::from_millis(50);
    let (client, mut server, starting) = starting(options);
    // The probe goes unanswered: a handshake server, as far as the client can tell.
    let probe = next_request(&mut server).await;
    assert_eq!(probe.method, "server/discover");
    // Its cancellation (a timed-out request is cancelled), then the handshake.
    let initialize = loop {
        match within("a client message", server.recv()).await {
            Some(Message::Request(request)) if request.method != "server/discover" => break request,
            Some(Message::Notification(notice)) => assert_eq!(notice.method, "notifications/cancelled"),
            other => panic!("expected the handshake, got {other:?}"),
        }
    };
    assert_eq!(initialize.method, "initialize");
    // ... which names the stateless revision it speaks (R2.10).
    refuse_version(&server, initialize.id, "2025-11-25");
    let discover = next_request(&mut server).await;
    assert_eq!(discover.method, "server/discover");
    answer(
        &server,
        discover.id,
        json!({"resultType": "complete", "supportedVersions": ["2026-07-28"], "capabilities": {},
               "ttlMs": 0, "cacheScope": "public",
               "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "slow", "version": "1"}}}),
    );
    let negotiated = within("start", starting).await.expect("join").expect("stateless start");
    assert_eq!(negotiated.version, ProtocolVersion::V2026_07_28);
    assert_eq!(client.era(), Some(Era::Stateless));
    assert_eq!(mcp_edge::remembered_era(key), Some(EraVerdict::Stateless(ProtocolVersion::V2026_07_28)));
}
