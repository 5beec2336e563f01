//! The session's life: the version handshake, a restart when the server
//! forgets the session, and its end (a dead transport, `close`).

use super::*;

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

    async fn initialize_is_never_cancelled() {
        let (client, mut server) = start(ClientOptions::default().with_timeout(Duration::from_millis(80)));
        let (outcome, request) = futures::join!(within("initialize", client.initialize()), next_request(&mut server));
        assert_eq!(request.method, "initialize");
        assert!(matches!(outcome, Err(Error::Timeout { .. })), "{outcome:?}");
        // Nothing else may have been sent: no cancellation for initialize.
        let extra = select(Box::pin(server.recv()), Box::pin(sleep(Duration::from_millis(150)))).await;
        assert!(matches!(extra, Either::Right(_)), "unexpected message after an initialize timeout");
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
            // An I/O failure, which every build has (`ProcessExited` is stdio's,
            // not in the wasm build).
            server.fail(TransportError::Io("the pipe broke (exit code 3): boom".into()));
        };
        let (outcome, ()) = futures::join!(within("the doomed call", call), server_side);
        let message = match outcome {
            Err(error @ Error::Transport(TransportError::Io(_))) => error.to_string(),
            other => panic!("expected the I/O failure, got {other:?}"),
        };
        assert!(message.contains("exit code 3") && message.contains("boom"), "{message}");
        let later = within("a request after the crash", client.ping()).await;
        assert!(matches!(later, Err(Error::Transport(TransportError::Io(_)))), "{later:?}");
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
}
