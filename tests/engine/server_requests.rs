//! The server's requests: handlers, their answers checked by revision, the
//! limits on handlers running and answers waiting, cancellation by the
//! server.

use super::*;

tests! {
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
}
