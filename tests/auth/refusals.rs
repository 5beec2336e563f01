//! What is refused, and the error that says why: an issuer mismatch, metadata
//! for another server, redirects to other origins, oversized metadata, a forged
//! `state`, a missing registration, a bad configuration.

use super::*;

#[tokio::test]
async fn an_issuer_mismatch_stops_before_any_authorization() {
    let mock = Mock::new(Knobs { issuer: Some("https://attacker.example".into()), ..Knobs::default() });
    let mut transport = transport(&mock, provider(&mock, config(), Browser::default()));
    let error = auth_error(request(&mut transport, 1).await);
    assert!(matches!(error, AuthError::IssuerMismatch { .. }), "{error}");
    assert!(mock.world.lock().unwrap().authorizations.is_empty());
    assert_eq!(mock.count("/register") + mock.count("/token"), 0);
}

#[tokio::test]
async fn metadata_for_another_server_is_refused() {
    let mock = Mock::new(Knobs { prm_resource: "https://evil.example/mcp".into(), ..Knobs::default() });
    let mut transport = transport(&mock, provider(&mock, config(), Browser::default()));
    let error = auth_error(request(&mut transport, 1).await);
    assert!(matches!(error, AuthError::ResourceMismatch { .. }), "{error}");
    assert!(error.to_string().contains("evil.example"));
    assert!(mock.world.lock().unwrap().authorizations.is_empty());
}

#[tokio::test]
async fn discovery_does_not_follow_redirects_to_other_origins() {
    let mock = Mock::new(Knobs {
        prm_redirect: Some("https://evil.example/.well-known/oauth-protected-resource".into()),
        ..Knobs::default()
    });
    let mut transport = transport(&mock, provider(&mock, config(), Browser::default()));
    let error = auth_error(request(&mut transport, 1).await);
    assert!(matches!(error, AuthError::CrossOriginRedirect { .. }), "{error}");
    assert!(mock.paths().iter().all(|p| !p.contains("evil.example")));
}

/// Discovery follows a same-origin redirect it is handed, unless the HTTP
/// client says it follows redirects itself (the web's `fetch` client): then
/// none is handed back, and the loop is not there to follow one.
#[tokio::test]
async fn discovery_follows_redirects_only_for_a_client_that_does_not() {
    for (follows, followed) in [(false, true), (true, false)] {
        let mock = Mock::new(Knobs {
            prm_redirect: Some("https://mcp.test/moved/prm".into()),
            follows_redirects: follows,
            ..Knobs::default()
        });
        let mut transport = transport(&mock, provider(&mock, config(), Browser::default()));
        let _ = request(&mut transport, 1).await;
        assert_eq!(mock.count("/moved/prm") > 0, followed, "follows_redirects() {follows}: {:?}", mock.paths());
    }
}

#[tokio::test]
async fn oversized_metadata_is_refused() {
    let mock = Mock::new(Knobs { metadata_padding: 300 * 1024, ..Knobs::default() });
    let mut transport = transport(&mock, provider(&mock, config(), Browser::default()));
    let error = auth_error(request(&mut transport, 1).await);
    assert!(matches!(error, AuthError::InvalidMetadata { .. }), "{error}");
}

#[tokio::test]
async fn a_forged_state_or_a_refusal_never_reaches_the_token_endpoint() {
    let mock = Mock::new(Knobs::default());
    let forged = Browser { forge_state: true, ..Browser::default() };
    let mut transport1 = transport(&mock, provider(&mock, config(), forged));
    assert_eq!(auth_error(request(&mut transport1, 1).await), AuthError::StateMismatch);
    let denied = Browser { deny: true, ..Browser::default() };
    let mut transport2 = transport(&mock, provider(&mock, config(), denied));
    let error = auth_error(request(&mut transport2, 1).await);
    assert!(matches!(error, AuthError::AuthorizationDenied { ref error, .. } if error == "access_denied"), "{error}");
    assert_eq!(mock.count("/token"), 0);
}

#[tokio::test]
async fn without_registration_or_cimd_the_error_says_what_to_configure() {
    let mock = Mock::new(Knobs { registration: false, ..Knobs::default() });
    let mut transport = transport(&mock, provider(&mock, config(), Browser::default()));
    let error = auth_error(request(&mut transport, 1).await);
    assert!(matches!(error, AuthError::ClientRegistrationNeeded { .. }), "{error}");
    let message = error.to_string();
    assert!(message.contains("client_id") && message.contains(REDIRECT), "{message}");
}

#[test]
fn configuration_errors_are_reported_up_front() {
    let mock = Mock::new(Knobs::default());
    let bad_key = config().private_key_pem("not a key");
    assert!(matches!(OAuthProvider::with_http(mock.clone(), MCP, bad_key), Err(AuthError::Crypto(_))));
    let bad_cimd = config().client_metadata_url("http://app.example/client.json");
    assert!(matches!(OAuthProvider::with_http(mock.clone(), MCP, bad_cimd), Err(AuthError::Config(_))));
    assert!(OAuthProvider::with_http(mock, "not a url", config()).is_err());
    let _ = Grant::AuthorizationCode;
}
