//! The transport as a whole, against an HTTP client each test answers by
//! hand (native only: the tests run on tokio).

use std::sync::Mutex;
use std::time::Duration;

use futures::StreamExt;
use futures::channel::mpsc;

use super::super::streamable::{LAST_EVENT_ID_HEADER, ReconnectPolicy};
use super::*;
use crate::auth::{AuthChallenge, AuthError};
use crate::http::{HttpResponse, Method};
use crate::runtime::sleep;

/// The scripted HTTP client, and a transport on it.
#[cfg(not(target_arch = "wasm32"))]
mod scripted {
    pub use crate::http::scripted::{Exchange, Scripted, event_stream as stream, header, scripted};

    use super::*;

    pub fn transport(
        policy: ReconnectPolicy,
    ) -> (LegacySseTransport<Scripted>, futures::channel::mpsc::UnboundedReceiver<Exchange>) {
        let (http, exchanges) = scripted();
        let mut options = LegacySseOptions::new("http://test.invalid/sse");
        options.reconnect = policy;
        options.connect_timeout = Duration::from_secs(5);
        (LegacySseTransport::with_http(http, options), exchanges)
    }

    pub fn response(status: u16, content_type: &str, body: &str) -> HttpResponse {
        crate::http::scripted::response(status, &[("content-type", content_type)], body)
    }
}

/// Polls the transport (as the engine would) until the next exchange.
#[cfg(not(target_arch = "wasm32"))]
async fn next_exchange<H: HttpClient>(
    transport: &mut LegacySseTransport<H>,
    exchanges: &mut mpsc::UnboundedReceiver<scripted::Exchange>,
    events: &mut Vec<TransportEvent>,
) -> scripted::Exchange {
    let wait = futures::future::poll_fn(|cx| {
        while let Poll::Ready(event) = transport.poll_event(cx) {
            events.push(event);
        }
        exchanges.poll_next_unpin(cx)
    });
    tokio::time::timeout(Duration::from_secs(10), wait).await.expect("a request in time").expect("alive")
}

#[cfg(not(target_arch = "wasm32"))]
async fn next_event<H: HttpClient>(transport: &mut LegacySseTransport<H>) -> TransportEvent {
    let wait = futures::future::poll_fn(|cx| transport.poll_event(cx));
    tokio::time::timeout(Duration::from_secs(10), wait).await.expect("an event in time")
}

#[cfg(not(target_arch = "wasm32"))]
fn fast_policy() -> ReconnectPolicy {
    ReconnectPolicy {
        max_attempts: 2,
        initial_delay: Duration::from_millis(10),
        max_delay: Duration::from_millis(50),
        factor: 2.0,
    }
}

#[cfg(not(target_arch = "wasm32"))]
#[tokio::test]
async fn posts_go_to_the_endpoint_and_a_reconnect_uses_the_new_one() {
    use scripted::*;
    let (mut transport, mut exchanges) = transport(fast_policy());
    let mut events = Vec::new();
    let (get, reply) = next_exchange(&mut transport, &mut exchanges, &mut events).await;
    assert_eq!(get.method, Method::Get);
    assert_eq!(header(&get, "accept"), Some("text/event-stream"));
    assert_eq!(header(&get, LAST_EVENT_ID_HEADER), None);
    let (opened, body) = stream();
    let _ = reply.send(opened);
    body.unbounded_send(Ok(b"retry: 20\nevent: endpoint\ndata: /m?s=1\n\n".to_vec())).unwrap();

    // The POST goes to the endpoint; its answer comes on the stream.
    let send = tokio::spawn(transport.send(Message::request(1, "ping", None)));
    let (post, reply) = next_exchange(&mut transport, &mut exchanges, &mut events).await;
    assert_eq!(post.method, Method::Post);
    assert_eq!(post.url, "http://test.invalid/m?s=1");
    assert_eq!(header(&post, "content-type"), Some("application/json"));
    let _ = reply.send(response(202, "text/plain", "Accepted"));
    assert_eq!(send.await.unwrap(), Ok(()));
    body.unbounded_send(Ok(b"id: 7\nevent: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n\n".to_vec()))
        .unwrap();
    match next_event(&mut transport).await {
        TransportEvent::Message(Message::Response(response)) => assert_eq!(response.id, Some(1.into())),
        other => panic!("{other:?}"),
    }

    // The stream drops: it is reopened with Last-Event-ID, and the new
    // endpoint is used from then on.
    drop(body);
    let (get, reply) = next_exchange(&mut transport, &mut exchanges, &mut events).await;
    assert_eq!(get.method, Method::Get);
    assert_eq!(header(&get, LAST_EVENT_ID_HEADER), Some("7"));
    let (opened, body) = stream();
    let _ = reply.send(opened);
    body.unbounded_send(Ok(b"event: endpoint\ndata: /m?s=2\n\n".to_vec())).unwrap();
    let send = tokio::spawn(transport.send(Message::notification("notifications/initialized", None)));
    let (post, reply) = next_exchange(&mut transport, &mut exchanges, &mut events).await;
    assert_eq!(post.url, "http://test.invalid/m?s=2");
    let _ = reply.send(response(
        500,
        "application/json",
        r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"no such session"}}"#,
    ));
    match send.await.unwrap() {
        Err(TransportError::Http { status: 500, message }) => {
            assert!(message.contains("no such session"), "{message}")
        }
        other => panic!("{other:?}"),
    }
    assert!(events.is_empty(), "{events:?}");
    drop(body);
}

#[cfg(not(target_arch = "wasm32"))]
#[tokio::test]
async fn a_stream_that_cannot_be_reopened_closes_the_transport() {
    use scripted::*;
    let (mut transport, mut exchanges) = transport(fast_policy());
    let mut events = Vec::new();
    let (_, reply) = next_exchange(&mut transport, &mut exchanges, &mut events).await;
    let (opened, body) = stream();
    let _ = reply.send(opened);
    body.unbounded_send(Ok(b"event: endpoint\ndata: /m\n\n".to_vec())).unwrap();
    drop(body);
    // Two failed reopenings (the policy's max_attempts), then the end.
    for _ in 0..2 {
        let (get, reply) = next_exchange(&mut transport, &mut exchanges, &mut events).await;
        assert_eq!(get.method, Method::Get);
        drop(reply); // connection refused
    }
    let closed = match events.pop() {
        Some(event) => event,
        None => next_event(&mut transport).await,
    };
    match closed {
        TransportEvent::Closed(TransportError::Legacy(LegacyError::StreamLost { attempts, last, .. })) => {
            assert_eq!(attempts, 2);
            assert!(last.contains("connection refused"), "{last}");
        }
        other => panic!("{other:?}"),
    }
    // A message after that fails at once with the reason.
    let outcome = transport.send(Message::request(2, "ping", None)).await;
    assert!(matches!(outcome, Err(TransportError::Legacy(LegacyError::StreamLost { .. }))), "{outcome:?}");
}

#[cfg(not(target_arch = "wasm32"))]
#[tokio::test]
async fn a_foreign_endpoint_is_refused_and_nothing_is_posted() {
    use scripted::*;
    let (http, mut exchanges) = scripted();
    let options = LegacySseOptions::new("http://test.invalid/sse");
    let connecting = tokio::spawn(LegacySseTransport::connect(http, options));
    let (_, reply) = tokio::time::timeout(Duration::from_secs(5), exchanges.next()).await.unwrap().unwrap();
    let (opened, body) = stream();
    let _ = reply.send(opened);
    body.unbounded_send(Ok(b"event: endpoint\ndata: https://evil.example/m\n\n".to_vec())).unwrap();
    match connecting.await.unwrap() {
        Err(LegacyError::ForeignEndpoint { endpoint, .. }) => assert_eq!(endpoint, "https://evil.example/m"),
        other => panic!("{other:?}"),
    }
    assert!(exchanges.try_recv().is_err(), "something was sent after the refusal");
}

#[cfg(not(target_arch = "wasm32"))]
#[tokio::test]
async fn connect_reports_what_the_get_got() {
    use scripted::*;
    let (http, mut exchanges) = scripted();
    let options = LegacySseOptions::new("http://test.invalid/sse");
    let connecting = tokio::spawn(LegacySseTransport::connect(http, options.clone()));
    let (_, reply) = tokio::time::timeout(Duration::from_secs(5), exchanges.next()).await.unwrap().unwrap();
    let _ = reply.send(response(200, "text/html; charset=utf-8", "<html>hello</html>"));
    match connecting.await.unwrap() {
        Err(error @ LegacyError::NotAnEventStream { status: 200, .. }) => {
            assert_eq!(error.attempt(), "GET http://test.invalid/sse answered 200 text/html")
        }
        other => panic!("{other:?}"),
    }

    // A stream whose first event is not `endpoint`.
    let (http, mut exchanges) = scripted();
    let connecting = tokio::spawn(LegacySseTransport::connect(http, options));
    let (_, reply) = tokio::time::timeout(Duration::from_secs(5), exchanges.next()).await.unwrap().unwrap();
    let (opened, body) = stream();
    let _ = reply.send(opened);
    body.unbounded_send(Ok(b"data: {}\n\n".to_vec())).unwrap();
    assert!(matches!(connecting.await.unwrap(), Err(LegacyError::NoEndpoint { ref event, .. }) if event == "message"));
}

#[cfg(not(target_arch = "wasm32"))]
#[tokio::test]
async fn connect_gives_up_in_time_when_no_endpoint_comes() {
    use scripted::*;
    let (http, mut exchanges) = scripted();
    let mut options = LegacySseOptions::new("http://test.invalid/sse");
    options.connect_timeout = Duration::from_millis(200);
    let connecting = tokio::spawn(LegacySseTransport::connect(http, options));
    let (_, reply) = tokio::time::timeout(Duration::from_secs(5), exchanges.next()).await.unwrap().unwrap();
    let (opened, body) = stream();
    let _ = reply.send(opened);
    body.unbounded_send(Ok(b": just a comment\n\n".to_vec())).unwrap();
    let outcome = tokio::time::timeout(Duration::from_secs(5), connecting).await.unwrap().unwrap();
    assert!(matches!(outcome, Err(LegacyError::Timeout { .. })), "{outcome:?}");
    drop(body);
}

/// An auth provider that hands out `Bearer t<n>` after n authorizations,
/// each taking `delay`, and records the statuses it was challenged with.
#[cfg(not(target_arch = "wasm32"))]
#[derive(Debug, Default)]
struct CountingAuth {
    delay: Duration,
    authorizations: std::sync::atomic::AtomicU32,
    challenges: Mutex<Vec<u16>>,
}

#[cfg(not(target_arch = "wasm32"))]
impl AuthProvider for CountingAuth {
    fn headers<'a>(
        &'a self,
        _method: Method,
        _url: &'a str,
    ) -> BoxFuture<'a, Result<Vec<(String, String)>, AuthError>> {
        let n = self.authorizations.load(std::sync::atomic::Ordering::SeqCst);
        boxed(async move {
            Ok(if n == 0 { Vec::new() } else { vec![("Authorization".to_owned(), format!("Bearer t{n}"))] })
        })
    }

    fn challenged<'a>(
        &'a self,
        challenge: &'a AuthChallenge,
    ) -> BoxFuture<'a, Result<crate::auth::Recovery, AuthError>> {
        boxed(async move {
            self.challenges.lock().unwrap().push(challenge.status);
            sleep(self.delay).await;
            self.authorizations.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            Ok(crate::auth::Recovery::Credentials)
        })
    }
}

#[cfg(not(target_arch = "wasm32"))]
#[tokio::test]
async fn with_auth_a_401_runs_the_flow_and_a_403_steps_up_once() {
    use scripted::*;
    let auth = Arc::new(CountingAuth::default());
    let (http, mut exchanges) = scripted();
    let mut options = LegacySseOptions::new("http://test.invalid/sse");
    options.reconnect = fast_policy();
    options.auth = Some(auth.clone());
    let mut transport = LegacySseTransport::with_http(http, options);
    let mut events = Vec::new();

    // The GET is refused, authorized, sent again with the token.
    let (get, reply) = next_exchange(&mut transport, &mut exchanges, &mut events).await;
    assert_eq!(header(&get, "authorization"), None);
    let mut refused = response(401, "text/plain", "");
    refused.headers.push(("www-authenticate".into(), "Bearer realm=\"mcp\"".into()));
    let _ = reply.send(refused);
    let (get, reply) = next_exchange(&mut transport, &mut exchanges, &mut events).await;
    assert_eq!(get.method, Method::Get);
    assert_eq!(header(&get, "authorization"), Some("Bearer t1"));
    let (opened, body) = stream();
    let _ = reply.send(opened);
    body.unbounded_send(Ok(b"event: endpoint\ndata: /m?s=1\n\n".to_vec())).unwrap();

    // A POST whose token expired: the flow runs again, the POST goes again.
    let send = tokio::spawn(transport.send(Message::request(1, "ping", None)));
    let (post, reply) = next_exchange(&mut transport, &mut exchanges, &mut events).await;
    assert_eq!(header(&post, "authorization"), Some("Bearer t1"));
    let _ = reply.send(response(401, "text/plain", ""));
    let (post, reply) = next_exchange(&mut transport, &mut exchanges, &mut events).await;
    assert_eq!(post.url, "http://test.invalid/m?s=1");
    assert_eq!(header(&post, "authorization"), Some("Bearer t2"));
    let _ = reply.send(response(202, "text/plain", "Accepted"));
    assert_eq!(send.await.unwrap(), Ok(()));

    // insufficient_scope: one step-up, then the refusal is final.
    let insufficient = || {
        let mut refused = response(403, "text/plain", "");
        refused
            .headers
            .push(("www-authenticate".into(), "Bearer error=\"insufficient_scope\", scope=\"mcp:write\"".into()));
        refused
    };
    let send = tokio::spawn(transport.send(Message::request(2, "tools/call", None)));
    let (_, reply) = next_exchange(&mut transport, &mut exchanges, &mut events).await;
    let _ = reply.send(insufficient());
    let (post, reply) = next_exchange(&mut transport, &mut exchanges, &mut events).await;
    assert_eq!(header(&post, "authorization"), Some("Bearer t3"));
    let _ = reply.send(insufficient());
    match send.await.unwrap() {
        Err(TransportError::Http { status: 403, message }) => {
            assert!(message.contains("insufficient_scope") && message.contains("mcp:write"), "{message}")
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(*auth.challenges.lock().unwrap(), vec![401, 401, 403]);
    assert!(events.is_empty(), "{events:?}");
    drop(body);
}

#[cfg(not(target_arch = "wasm32"))]
#[tokio::test]
async fn waiting_for_the_endpoint_does_not_time_out_while_someone_signs_in() {
    use scripted::*;
    let auth = Arc::new(CountingAuth { delay: Duration::from_millis(600), ..CountingAuth::default() });
    let (http, mut exchanges) = scripted();
    let mut options = LegacySseOptions::new("http://test.invalid/sse");
    options.connect_timeout = Duration::from_millis(200);
    options.auth = Some(auth.clone());
    let connecting = tokio::spawn(LegacySseTransport::connect(http, options));
    let (_, reply) = tokio::time::timeout(Duration::from_secs(5), exchanges.next()).await.unwrap().unwrap();
    let _ = reply.send(response(401, "text/plain", ""));
    let (get, reply) = tokio::time::timeout(Duration::from_secs(5), exchanges.next()).await.unwrap().unwrap();
    assert_eq!(header(&get, "authorization"), Some("Bearer t1"));
    let (opened, body) = stream();
    let _ = reply.send(opened);
    body.unbounded_send(Ok(b"event: endpoint\ndata: /m\n\n".to_vec())).unwrap();
    let transport = tokio::time::timeout(Duration::from_secs(5), connecting).await.unwrap().unwrap();
    assert_eq!(transport.map(|t| t.endpoint()), Ok(Some("http://test.invalid/m".to_owned())));
    drop(body);
}
