//! Sessions across restarts, against an HTTP client each test answers by
//! hand (native only: the tests run on tokio).

use std::time::Duration;

use futures::StreamExt;

use super::*;
use crate::protocol::methods;

/// The scripted HTTP client, and a transport on it.
#[cfg(not(target_arch = "wasm32"))]
mod scripted {
    pub use crate::http::scripted::{Exchange, Scripted, header, response, scripted};

    use super::*;

    pub fn transport(
        policy: ReconnectPolicy,
    ) -> (StreamableHttpTransport<Scripted>, futures::channel::mpsc::UnboundedReceiver<Exchange>) {
        let (http, exchanges) = scripted();
        let mut options = StreamableHttpOptions::new("http://test.invalid/mcp");
        options.reconnect = policy;
        (StreamableHttpTransport::with_http(http, options), exchanges)
    }

    pub fn initialized(id: i64, session: &str) -> HttpResponse {
        let body = format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{{}}}}"#);
        response(200, &[("content-type", "application/json"), ("mcp-session-id", session)], &body)
    }

    pub fn session(request: &HttpRequest) -> Option<&str> {
        header(request, SESSION_HEADER)
    }
}

#[cfg(not(target_arch = "wasm32"))]
async fn next(exchanges: &mut futures::channel::mpsc::UnboundedReceiver<scripted::Exchange>) -> scripted::Exchange {
    tokio::time::timeout(Duration::from_secs(5), exchanges.next())
        .await
        .expect("a request in time")
        .expect("the transport is alive")
}

#[cfg(not(target_arch = "wasm32"))]
#[tokio::test]
async fn a_late_404_from_the_old_session_does_not_erase_the_new_one() {
    use scripted::*;
    let (mut transport, mut exchanges) = transport(ReconnectPolicy::default());
    let init = tokio::spawn(transport.send(Message::request(1, methods::INITIALIZE, None)));
    let (_, reply) = next(&mut exchanges).await;
    let _ = reply.send(initialized(1, "old"));
    assert_eq!(init.await.unwrap(), Ok(()));

    // B goes out in the old session and waits; A finds the session gone.
    let b = tokio::spawn(transport.send(Message::request(2, "tools/list", None)));
    let (request_b, reply_b) = next(&mut exchanges).await;
    assert_eq!(session(&request_b), Some("old"));
    let a = tokio::spawn(transport.send(Message::request(3, "tools/list", None)));
    let (_, reply_a) = next(&mut exchanges).await;
    let _ = reply_a.send(response(404, &[], ""));
    assert_eq!(a.await.unwrap(), Err(TransportError::SessionExpired));
    assert_eq!(transport.session_id(), None);

    // Until a new handshake, nothing else goes out without a session.
    assert_eq!(transport.send(Message::request(4, "tools/list", None)).await, Err(TransportError::SessionExpired));
    assert!(exchanges.try_recv().is_err(), "a request went out without a session");

    let init = tokio::spawn(transport.send(Message::request(5, methods::INITIALIZE, None)));
    let (request, reply) = next(&mut exchanges).await;
    assert_eq!(session(&request), None, "the new handshake must not carry the old session");
    let _ = reply.send(initialized(5, "new"));
    assert_eq!(init.await.unwrap(), Ok(()));

    // B's 404 arrives late: it expires the old session, not the new one.
    let _ = reply_b.send(response(404, &[], ""));
    assert_eq!(b.await.unwrap(), Err(TransportError::SessionExpired));
    assert_eq!(transport.session_id().as_deref(), Some("new"));
    let c = tokio::spawn(transport.send(Message::request(6, "tools/list", None)));
    let (request_c, reply_c) = next(&mut exchanges).await;
    assert_eq!(session(&request_c), Some("new"));
    let _ =
        reply_c.send(response(200, &[("content-type", "application/json")], r#"{"jsonrpc":"2.0","id":6,"result":{}}"#));
    assert_eq!(c.await.unwrap(), Ok(()));
}

#[cfg(not(target_arch = "wasm32"))]
#[tokio::test]
async fn a_stream_of_the_old_session_is_not_resumed_in_the_new_one() {
    use scripted::*;
    let policy = ReconnectPolicy { initial_delay: Duration::from_millis(300), ..ReconnectPolicy::default() };
    let (mut transport, mut exchanges) = transport(policy);
    let init = tokio::spawn(transport.send(Message::request(1, methods::INITIALIZE, None)));
    let (_, reply) = next(&mut exchanges).await;
    let _ = reply.send(initialized(1, "old"));
    assert_eq!(init.await.unwrap(), Ok(()));

    // B's stream breaks after its priming event: it will resume later.
    let b = tokio::spawn(transport.send(Message::request(2, "tools/call", None)));
    let (_, reply_b) = next(&mut exchanges).await;
    let _ = reply_b.send(response(200, &[("content-type", "text/event-stream")], "id: old-1\ndata:\n\n"));

    // Meanwhile the session expires and is replaced.
    let a = tokio::spawn(transport.send(Message::request(3, "tools/list", None)));
    let (_, reply_a) = next(&mut exchanges).await;
    let _ = reply_a.send(response(404, &[], ""));
    assert_eq!(a.await.unwrap(), Err(TransportError::SessionExpired));
    let init = tokio::spawn(transport.send(Message::request(4, methods::INITIALIZE, None)));
    let (_, reply) = next(&mut exchanges).await;
    let _ = reply.send(initialized(4, "new"));
    assert_eq!(init.await.unwrap(), Ok(()));

    // B gives up on its stream (the engine retries it) instead of sending
    // the new session a Last-Event-ID from the old one.
    let outcome = tokio::time::timeout(Duration::from_secs(5), b).await.expect("B ends").unwrap();
    assert_eq!(outcome, Err(TransportError::SessionExpired));
    assert!(exchanges.try_recv().is_err(), "the old stream was resumed in the new session");
}
