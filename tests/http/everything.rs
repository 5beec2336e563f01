//! The reference `server-everything`: handshake, tools, progress, sampling and
//! elicitation round trips, DELETE on close.

use super::*;

#[tokio::test]
async fn everything_connects_with_the_latest_version_and_a_session() {
    bounded(async {
        let Some(peer) = Peer::everything().await else { return };
        let (client, observed) = connect(peer.url("/mcp"), ClientOptions::default(), ReconnectPolicy::default()).await;
        let negotiated = client.negotiated().expect("negotiated after connect");
        assert_eq!(negotiated.version, ProtocolVersion::V2025_11_25);
        let session = observed.session_id().expect("server-everything assigns a session id");
        assert!(
            peer.logs(&format!("Session initialized with ID: {session}")).await,
            "the server did not log our session {session}: {:#?}",
            peer.output.get()
        );
        within("ping", client.ping()).await.expect("ping");
        within("close", client.close()).await;
    })
    .await
}

#[tokio::test]
async fn everything_lists_tools_and_echoes() {
    bounded(async {
        let Some(peer) = Peer::everything().await else { return };
        let (client, _) = connect(peer.url("/mcp"), ClientOptions::default(), ReconnectPolicy::default()).await;
        let tools = within("tools/list", client.list_all_tools()).await.expect("tools/list");
        let names: Vec<&str> = tools.iter().map(|tool| tool.name.as_str()).collect();
        for expected in ["echo", "get-sum", "trigger-long-running-operation"] {
            assert!(names.contains(&expected), "{expected} missing from {names:?}");
        }
        // Offered only to clients that declare sampling / elicitation.
        assert!(!names.contains(&"trigger-sampling-request"), "{names:?}");
        assert!(!names.contains(&"trigger-elicitation-request"), "{names:?}");

        let message = "héllo over HTTP ✓";
        let result =
            within("echo", client.call_tool("echo", arguments(json!({ "message": message })))).await.expect("echo");
        assert!(!result.is_error());
        assert_eq!(texts(&result), format!("Echo: {message}"));
        within("close", client.close()).await;
    })
    .await
}

#[tokio::test]
async fn everything_long_running_operation_reports_progress() {
    bounded(async {
        let Some(peer) = Peer::everything().await else { return };
        let (client, _) = connect(peer.url("/mcp"), ClientOptions::default(), ReconnectPolicy::default()).await;
        let updates = Arc::new(Mutex::new(Vec::new()));
        let sink = updates.clone();
        let options =
            RequestOptions::default().with_progress(move |p| sink.lock().unwrap().push((p.progress, p.total)));
        let call = client.call_tool_with(
            "trigger-long-running-operation",
            arguments(json!({ "duration": 2, "steps": 4 })),
            options,
        );
        let result = within("trigger-long-running-operation", call).await.expect("the operation");
        assert!(texts(&result).contains("Long running operation completed"), "{result:?}");
        let updates = updates.lock().unwrap().clone();
        let expected: Vec<(f64, Option<f64>)> = (1..=4).map(|i| (f64::from(i), Some(4.0))).collect();
        assert_eq!(updates, expected);
        within("close", client.close()).await;
    })
    .await
}

#[tokio::test]
async fn everything_sampling_round_trip() {
    bounded(async {
        let Some(peer) = Peer::everything().await else { return };
        let asked = Arc::new(Mutex::new(Vec::new()));
        let seen = asked.clone();
        let options = ClientOptions::default().on_sampling(move |params, _context| {
            seen.lock().unwrap().push(params.messages.iter().map(|m| m.content.to_string()).collect::<Vec<_>>());
            async move {
                Ok(CreateMessageResult {
                    role: "assistant".into(),
                    content: json!({ "type": "text", "text": "a fixed answer from the Rust handler: 42" }),
                    model: "mcp-edge-test-model".into(),
                    stop_reason: Some("endTurn".into()),
                })
            }
        });
        let (client, _) = connect(peer.url("/mcp"), options, ReconnectPolicy::default()).await;
        let call = client.call_tool(
            "trigger-sampling-request",
            arguments(json!({ "prompt": "what is six times seven?", "maxTokens": 20 })),
        );
        let result = within("trigger-sampling-request", call).await.expect("the sampling tool");
        let text = texts(&result);
        assert!(text.contains("a fixed answer from the Rust handler: 42"), "{text}");
        assert!(text.contains("mcp-edge-test-model"), "{text}");
        let asked = asked.lock().unwrap().clone();
        assert_eq!(asked.len(), 1, "{asked:?}");
        assert!(asked[0][0].contains("what is six times seven?"), "{asked:?}");
        within("close", client.close()).await;
    })
    .await
}

#[tokio::test]
async fn everything_elicitation_round_trip() {
    bounded(async {
        let Some(peer) = Peer::everything().await else { return };
        let options = ClientOptions::default().on_elicitation(
            |params, _context| async move {
                assert!(params.message.contains("Please provide inputs"), "{params:?}");
                let content = json!({ "name": "Ada Lovelace", "check": true, "email": "ada@example.org" });
                Ok(ElicitResult { action: ElicitAction::Accept, content: arguments(content) })
            },
            true,
        );
        let (client, _) = connect(peer.url("/mcp"), options, ReconnectPolicy::default()).await;
        let call = client.call_tool("trigger-elicitation-request", arguments(json!({})));
        let result = within("trigger-elicitation-request", call).await.expect("the elicitation tool");
        let text = texts(&result);
        assert!(text.contains("User provided the requested information"), "{text}");
        assert!(text.contains("- Name: Ada Lovelace"), "{text}");
        assert!(text.contains("- Agreed to terms: true"), "{text}");
        assert!(text.contains("- Email: ada@example.org"), "{text}");
        // fill_defaults: the schema's default for a field the handler left out.
        assert!(text.contains("- Favorite Integer: 42"), "{text}");
        within("close", client.close()).await;
    })
    .await
}

#[tokio::test]
async fn everything_close_deletes_the_session() {
    bounded(async {
        let Some(peer) = Peer::everything().await else { return };
        let (client, observed) = connect(peer.url("/mcp"), ClientOptions::default(), ReconnectPolicy::default()).await;
        let session = observed.session_id().expect("a session id");
        within("tools/list", client.list_tools(None)).await.expect("tools/list");
        within("close", client.close()).await;
        assert!(
            peer.logs(&format!("Received session termination request for session {session}")).await,
            "no DELETE for {session} reached the server: {:#?}",
            peer.output.get()
        );
        // The old session id is no longer accepted (server-everything answers
        // 400 "No valid session ID" for ids it does not know).
        let request = reqwest::Client::new()
            .post(peer.url("/mcp"))
            .header("Content-Type", "application/json")
            .header("Accept", "application/json, text/event-stream")
            .header("Mcp-Session-Id", &session)
            .header("MCP-Protocol-Version", "2025-11-25")
            .body(r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#)
            .send();
        let response = within("POST with the old session", request).await.expect("the server answers");
        let status = response.status().as_u16();
        let body = within("reading the body", response.text()).await.unwrap_or_default();
        assert!(status == 400 || status == 404, "the deleted session still works: HTTP {status} {body}");
        assert!(body.contains("No valid session ID"), "{body}");
        // A closed client refuses further calls instead of hanging.
        let after = within("a call after close", client.list_tools(None)).await;
        assert!(matches!(after, Err(Error::Transport(_))), "{after:?}");
    })
    .await
}
