//! The client's own requests: ids, timeouts, cancellation, progress,
//! capabilities checked before sending, pagination, and input the
//! session ignores.

use super::*;

tests! {
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

    async fn malformed_progress_is_neither_reported_nor_extends_the_timeout() {
        let (client, mut server) = connected(ClientOptions::default()).await;
        let seen = Arc::new(Mutex::new(0));
        let count = seen.clone();
        let options = RequestOptions::timeout(Duration::from_millis(150))
            .with_progress(move |_| *count.lock().unwrap_or_else(|e| e.into_inner()) += 1)
            .reset_on_progress(Some(Duration::from_secs(5)));
        let call = client.request("tools/call", Some(json!({"name": "slow"})), options);
        let server_side = async {
            let request = next_request(&mut server).await;
            // The right token, but `progress` is not a number: 8 x 60 ms of
            // these must not keep the 150 ms timeout from running out before
            // the answer (had they reset it, the answer would arrive in time).
            for _ in 1..=8 {
                sleep(Duration::from_millis(60)).await;
                let params = json!({"progressToken": request.id.to_value(), "progress": "half"});
                server.send(Message::notification("notifications/progress", Some(params)));
            }
            server.send(Message::result(request.id, json!({"content": []})));
        };
        let (outcome, ()) = futures::join!(within("the call", call), server_side);
        assert!(matches!(outcome, Err(Error::Timeout { .. })), "{outcome:?}");
        assert_eq!(*seen.lock().unwrap_or_else(|e| e.into_inner()), 0, "malformed progress was reported");
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
}
