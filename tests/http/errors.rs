//! Errors a user can act on: each names what went wrong and where.

use super::*;

async fn connect_error(url: &str) -> Error {
    let transport = StreamableHttpTransport::new(StreamableHttpOptions::new(url));
    match within("connect", Client::connect(transport, ClientOptions::default())).await {
        Ok(_) => panic!("connecting to {url} should fail"),
        Err(error) => error,
    }
}

#[tokio::test]
async fn error_connection_refused_names_the_url() {
    bounded(async {
        let url = format!("http://127.0.0.1:{}/mcp", free_port());
        let error = connect_error(&url).await;
        let message = error.to_string();
        println!("connection refused: {message}");
        assert!(matches!(error, Error::Transport(TransportError::Io(_))), "{error:?}");
        assert!(message.contains(&url), "{message}");
        assert!(message.to_lowercase().contains("refused"), "{message}");
    })
    .await
}

#[tokio::test]
async fn error_html_reply_names_the_content_type() {
    bounded(async {
        let peer = Peer::chaos(&[]).await;
        let url = peer.url("/html");
        let error = connect_error(&url).await;
        let message = error.to_string();
        println!("html: {message}");
        assert!(message.contains("text/html"), "{message}");
        assert!(message.contains(&url), "{message}");
    })
    .await
}

#[tokio::test]
async fn error_500_shows_the_servers_message() {
    bounded(async {
        let peer = Peer::chaos(&[]).await;
        let error = connect_error(&peer.url("/fail500")).await;
        let message = error.to_string();
        println!("500: {message}");
        assert!(matches!(error, Error::Transport(TransportError::Http { status: 500, .. })), "{error:?}");
        assert!(message.contains("database is on fire"), "{message}");
    })
    .await
}

#[tokio::test]
async fn error_400_without_a_body_says_bad_request() {
    bounded(async {
        let peer = Peer::chaos(&[]).await;
        let error = connect_error(&peer.url("/fail400")).await;
        let message = error.to_string();
        println!("400: {message}");
        assert!(matches!(error, Error::Transport(TransportError::Http { status: 400, .. })), "{error:?}");
        assert!(message.contains("bad request"), "{message}");
    })
    .await
}
