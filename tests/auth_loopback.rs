//! The loopback authorizer with the test playing the browser: the injected
//! opener performs the redirect the authorization server would cause.
#![cfg(not(target_arch = "wasm32"))]

use std::time::Duration;

use mcp_edge::auth::{AuthorizationRequest, Authorizer, LoopbackAuthorizer};
use tokio::sync::mpsc;

/// What the fake browser saw: one (status, body) per request made.
type Seen = mpsc::UnboundedReceiver<(u16, String)>;

/// An authorizer whose "browser" requests each of `paths` (relative to the
/// redirect URI's origin) in turn.
fn authorizer_with_browser(paths: Vec<String>) -> (LoopbackAuthorizer, Seen) {
    let (send, receive) = mpsc::unbounded_channel();
    let authorizer = LoopbackAuthorizer::bind().unwrap().timeout(Duration::from_secs(20));
    let origin = authorizer.redirect_uri().trim_end_matches("/callback").to_owned();
    let authorizer = authorizer.with_opener(move |url| {
        assert!(url.starts_with("https://as.example/authorize?"), "{url}");
        let (origin, paths, send) = (origin.clone(), paths.clone(), send.clone());
        tokio::spawn(async move {
            let http = reqwest::Client::builder().timeout(Duration::from_secs(10)).build().unwrap();
            for path in paths {
                let response = http.get(format!("{origin}{path}")).send().await.unwrap();
                let status = response.status().as_u16();
                let _ = send.send((status, response.text().await.unwrap()));
            }
        });
        Ok(())
    });
    (authorizer, receive)
}

fn request(authorizer: &LoopbackAuthorizer) -> AuthorizationRequest {
    AuthorizationRequest {
        url: "https://as.example/authorize?response_type=code&state=s1".into(),
        redirect_uri: authorizer.redirect_uri().to_owned(),
        state: "s1".into(),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_redirect_comes_back() {
    let (authorizer, mut seen) = authorizer_with_browser(vec!["/callback?code=c%2F1&state=s1".into()]);
    let uri = authorizer.redirect_uri().to_owned();
    assert!(uri.starts_with("http://127.0.0.1:") && uri.ends_with("/callback"), "{uri}");
    let redirected = authorizer.authorize(&request(&authorizer)).await.unwrap();
    assert_eq!(redirected, format!("{uri}?code=c%2F1&state=s1"));
    let (status, body) = tokio::time::timeout(Duration::from_secs(10), seen.recv()).await.unwrap().unwrap();
    assert_eq!(status, 200);
    assert!(body.contains("You can close this tab"), "{body}");
    assert!(!body.contains("c%2F1") && !body.contains("s1"), "the page reflects the request: {body}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn other_requests_are_answered_and_ignored() {
    let (authorizer, mut seen) =
        authorizer_with_browser(vec!["/favicon.ico".into(), "/callback?error=access_denied&state=s1".into()]);
    let uri = authorizer.redirect_uri().to_owned();
    let redirected = authorizer.authorize(&request(&authorizer)).await.unwrap();
    // Errors come back too: the flow reports them.
    assert_eq!(redirected, format!("{uri}?error=access_denied&state=s1"));
    let (status, body) = seen.recv().await.unwrap();
    assert_eq!(status, 404);
    assert!(!body.contains("favicon"));
    assert_eq!(seen.recv().await.unwrap().0, 200);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_second_flow_reuses_the_listener() {
    let (authorizer, _seen) = authorizer_with_browser(vec!["/callback?code=x&state=s1".into()]);
    let uri = authorizer.redirect_uri().to_owned();
    assert_eq!(authorizer.authorize(&request(&authorizer)).await.unwrap(), format!("{uri}?code=x&state=s1"));
    // Same authorizer, same port, another redirect (step-up).
    assert_eq!(authorizer.authorize(&request(&authorizer)).await.unwrap(), format!("{uri}?code=x&state=s1"));
}

#[tokio::test]
async fn a_browser_that_never_comes_back_times_out() {
    let authorizer = LoopbackAuthorizer::bind().unwrap().with_opener(|_| Ok(())).timeout(Duration::from_millis(100));
    let error = authorizer.authorize(&request(&authorizer)).await.unwrap_err();
    assert!(matches!(error, mcp_edge::auth::AuthError::Timeout { .. }), "{error}");
}
