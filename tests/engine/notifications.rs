//! Notifications: listeners, batches, subscriptions to resources, and
//! listens in both eras (a 2026-07-28 `subscriptions/listen`, a
//! handshake-era subscription).

use super::*;

tests! {
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

    async fn a_kept_listen_ends_with_the_client() {
        // The background work of a kept listen holds the client weakly:
        // dropping every handle ends the listen (the server hears it cancelled).
        let (client, mut server) = connected_stateless().await;
        let server_side = async {
            let listen = next_request(&mut server).await;
            server.send(tagged("notifications/subscriptions/acknowledged", &listen.id,
                json!({"notifications": {"resourceSubscriptions": ["demo://r"]}})));
            listen.id
        };
        let (outcome, id) = futures::join!(within("subscribe", client.subscribe_resource("demo://r")), server_side);
        ok(outcome);
        drop(client);
        let cancelled = within("the cancellation", next_notification(&mut server)).await;
        assert_eq!(cancelled.method, "notifications/cancelled");
        assert_eq!(cancelled.params.unwrap_or_default()["requestId"], id.to_value());
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
