//! The flows that succeed: the first authorization, refresh before expiry and
//! after a 401, step-up, client credentials, stored tokens, pre-registered and
//! CIMD clients, legacy servers, a move to another authorization server.

use super::*;

#[tokio::test]
async fn the_full_flow_then_bearer_on_every_request() {
    let mock = Mock::new(Knobs { challenge_scope: Some("mcp:basic".into()), ..Knobs::default() });
    let mut transport = transport(&mock, provider(&mock, config(), Browser::default()));
    request(&mut transport, 1).await.unwrap();
    request(&mut transport, 2).await.unwrap();

    let paths = mock.paths();
    assert_eq!(
        paths,
        vec![
            "POST https://mcp.test/mcp",
            "GET https://mcp.test/.well-known/oauth-protected-resource/mcp",
            "GET https://as.test/.well-known/oauth-authorization-server",
            "POST https://as.test/register",
            "POST https://as.test/token",
            "POST https://mcp.test/mcp",
            "POST https://mcp.test/mcp",
        ]
    );
    let world = mock.world.lock().unwrap();
    let authorization = &world.authorizations[0];
    assert_eq!(get(authorization, "client_id"), Some("dyn-client"));
    assert_eq!(get(authorization, "resource"), Some(MCP));
    assert_eq!(get(authorization, "scope"), Some("mcp:basic"));
    let token_form = &world.token_forms[0];
    assert_eq!(get(token_form, "resource"), Some(MCP));
    assert_eq!(get(token_form, "redirect_uri"), Some(REDIRECT));
    assert_eq!(get(token_form, "client_id"), Some("dyn-client"));
    // The registration asked for refresh tokens.
    let registration = world.requests.iter().find(|r| r.url.ends_with("/register")).unwrap();
    let body: Value = serde_json::from_str(registration.body.as_deref().unwrap()).unwrap();
    assert_eq!(body["grant_types"], json!(["authorization_code", "refresh_token"]));
    assert_eq!(body["redirect_uris"], json!([REDIRECT]));
    // Bearer on the retried and later requests; no token in any URL.
    let mcp_posts: Vec<&HttpRequest> = world.requests.iter().filter(|r| r.url == MCP).collect();
    assert_eq!(header(mcp_posts[0], "authorization"), None);
    assert_eq!(header(mcp_posts[1], "authorization"), Some("Bearer access-1"));
    assert_eq!(header(mcp_posts[2], "authorization"), Some("Bearer access-1"));
    assert!(world.requests.iter().all(|r| !r.url.contains("access-")));
}

#[tokio::test]
async fn expiring_tokens_are_refreshed_before_use_with_the_resource() {
    let mock = Mock::new(Knobs { expires_in: 2, ..Knobs::default() });
    let mut transport = transport(&mock, provider(&mock, config(), Browser::default()));
    request(&mut transport, 1).await.unwrap();
    // The margin is half the 2 s lifetime: after a second access-1 is due,
    // and the next request refreshes first.
    tokio::time::sleep(std::time::Duration::from_millis(1100)).await;
    request(&mut transport, 2).await.unwrap();
    let world = mock.world.lock().unwrap();
    let refresh = world.token_forms.iter().find(|f| get(f, "grant_type") == Some("refresh_token")).unwrap();
    assert_eq!(get(refresh, "refresh_token"), Some("refresh-1"));
    assert_eq!(get(refresh, "resource"), Some(MCP));
    assert_eq!(world.authorizations.len(), 1, "refresh, not a new authorization");
    let last = world.requests.iter().rev().find(|r| r.url == MCP).unwrap();
    assert_ne!(header(last, "authorization"), Some("Bearer access-1"));
    // Never a 401 after the first: the refresh happened before the token was used.
    assert_eq!(world.requests.iter().filter(|r| r.url == MCP && header(r, "authorization").is_none()).count(), 1);
}

#[tokio::test]
async fn a_401_with_a_refresh_token_refreshes_and_a_failed_refresh_reauthorizes() {
    let mock = Mock::new(Knobs::default());
    let mut transport = transport(&mock, provider(&mock, config(), Browser::default()));
    request(&mut transport, 1).await.unwrap();
    // The server forgets access-1: the 401 is answered with a refresh.
    mock.world.lock().unwrap().tokens.clear();
    request(&mut transport, 2).await.unwrap();
    assert_eq!(mock.world.lock().unwrap().authorizations.len(), 1);
    // Now it forgets the tokens and the refresh token: a new authorization.
    {
        let mut world = mock.world.lock().unwrap();
        world.tokens.clear();
        world.refresh.clear();
    }
    request(&mut transport, 3).await.unwrap();
    assert_eq!(mock.world.lock().unwrap().authorizations.len(), 2);
}

#[tokio::test]
async fn step_up_asks_for_the_union_and_gives_up_after_a_bound() {
    let mock = Mock::new(Knobs {
        challenge_scope: Some("mcp:basic".into()),
        required_scopes: vec!["mcp:basic".into(), "mcp:write".into()],
        ..Knobs::default()
    });
    let mut transport = transport(&mock, provider(&mock, config(), Browser::default()));
    request(&mut transport, 1).await.unwrap();
    {
        let world = mock.world.lock().unwrap();
        assert_eq!(world.authorizations.len(), 2);
        assert_eq!(get(&world.authorizations[0], "scope"), Some("mcp:basic"));
        assert_eq!(get(&world.authorizations[1], "scope"), Some("mcp:basic mcp:write"));
    }

    // A server that can never be satisfied: bounded authorizations, a clear error.
    {
        let mut knobs = mock.knobs.lock().unwrap();
        knobs.required_scopes = vec!["mcp:admin".into()];
        knobs.withheld_scopes = vec!["mcp:admin".into()];
    }
    let mut last = Ok(());
    for id in 2..10 {
        last = request(&mut transport, id).await;
    }
    assert!(last.is_err());
    let admin_authorizations = mock
        .world
        .lock()
        .unwrap()
        .authorizations
        .iter()
        .filter(|a| get(a, "scope").is_some_and(|s| s.contains("mcp:admin")))
        .count();
    assert_eq!(admin_authorizations, 3, "step-up is bounded at 3 authorizations per scope set");
    match last {
        Err(TransportError::Auth(AuthError::InsufficientScope { attempts: 3, .. })) => {}
        other => panic!("expected InsufficientScope, got {other:?}"),
    }
}

#[tokio::test]
async fn well_known_discovery_order_without_a_resource_metadata_hint() {
    let mock = Mock::new(Knobs { challenge_names_prm: false, serve_prm: true, ..Knobs::default() });
    let mut transport = transport(&mock, provider(&mock, config(), Browser::default()));
    request(&mut transport, 1).await.unwrap();
    assert_eq!(mock.paths()[1], "GET https://mcp.test/.well-known/oauth-protected-resource/mcp");
    assert_eq!(mock.count("/.well-known/oauth-protected-resource"), 0, "the root PRM is not needed");
}

#[tokio::test]
async fn pre_registered_confidential_clients_use_form_encoded_basic_credentials() {
    let mock = Mock::new(Knobs { auth_methods: vec!["client_secret_basic"], registration: false, ..Knobs::default() });
    let config = config().client("id:with space", Some("sécret&/".into()));
    let mut transport = transport(&mock, provider(&mock, config, Browser::default()));
    request(&mut transport, 1).await.unwrap();
    let world = mock.world.lock().unwrap();
    let token = world.requests.iter().find(|r| r.url.ends_with("/token")).unwrap();
    use base64::Engine;
    let expected = base64::engine::general_purpose::STANDARD.encode("id%3Awith+space:s%C3%A9cret%26%2F");
    assert_eq!(header(token, "authorization"), Some(format!("Basic {expected}").as_str()));
    assert_eq!(get(&form(&token.body), "client_secret"), None, "the secret goes in the header only");
}

#[tokio::test]
async fn a_configured_cimd_url_is_the_client_id_where_the_server_accepts_it() {
    // The mock AS does not advertise CIMD: the configured URL is not used,
    // registration is.
    let mock = Mock::new(Knobs::default());
    let config = config().client_metadata_url("https://app.example/client.json");
    let mut transport = transport(&mock, provider(&mock, config, Browser::default()));
    request(&mut transport, 1).await.unwrap();
    assert_eq!(get(&mock.world.lock().unwrap().authorizations[0], "client_id"), Some("dyn-client"));
}

#[tokio::test]
async fn legacy_servers_without_metadata_use_the_default_endpoints() {
    // 2025-03-26: no PRM, no AS metadata at the MCP origin → /authorize,
    // /token, /register on the MCP origin. The mock serves none of those,
    // so the flow must at least reach /register there.
    let mock = Mock::new(Knobs { serve_prm: false, challenge_names_prm: false, ..Knobs::default() });
    let mut transport = transport(&mock, provider(&mock, config(), Browser::default()));
    let _ = request(&mut transport, 1).await;
    let paths = mock.paths();
    assert!(paths.contains(&"GET https://mcp.test/.well-known/oauth-authorization-server".to_owned()), "{paths:?}");
    assert!(paths.contains(&"POST https://mcp.test/register".to_owned()), "{paths:?}");
}

#[tokio::test]
async fn client_credentials_need_no_user() {
    let mock = Mock::new(Knobs {
        grants: vec!["client_credentials"],
        auth_methods: vec!["client_secret_post"],
        registration: false,
        ..Knobs::default()
    });
    let config = config().client("machine", Some("s3cret".into()));
    let provider = OAuthProvider::with_http(mock.clone(), MCP, config).unwrap();
    let mut transport = transport(&mock, provider);
    request(&mut transport, 1).await.unwrap();
    let world = mock.world.lock().unwrap();
    assert!(world.authorizations.is_empty());
    let form = &world.token_forms[0];
    assert_eq!(get(form, "grant_type"), Some("client_credentials"));
    assert_eq!(get(form, "client_secret"), Some("s3cret"));
    assert_eq!(get(form, "resource"), Some(MCP));
}

#[tokio::test]
async fn stored_tokens_are_used_without_a_new_flow() {
    let mock = Mock::new(Knobs::default());
    mock.world.lock().unwrap().tokens.insert("stored".into(), Vec::new());
    let store = Arc::new(MemoryTokenStore::new());
    let record = mcp_edge::auth::AuthRecord {
        tokens: Some(Tokens {
            access_token: "stored".into(),
            token_type: "Bearer".into(),
            refresh_token: None,
            expires_at: None,
            issued_at: None,
            scope: None,
        }),
        clients: Vec::new(),
    };
    store.save(MCP, &record).await.unwrap();
    let provider = provider(&mock, config(), Browser::default()).with_store(store.clone());
    let mut transport = transport(&mock, provider);
    request(&mut transport, 1).await.unwrap();
    assert_eq!(mock.paths(), vec!["POST https://mcp.test/mcp"]);
    assert!(!format!("{record:?}").contains("stored\""), "Debug must not print tokens");
}

#[tokio::test]
async fn a_server_that_moves_to_another_authorization_server_gets_a_new_registration_there() {
    let mock = Mock::new(Knobs::default());
    let mut transport = transport(&mock, provider(&mock, config(), Browser::default()));
    request(&mut transport, 1).await.unwrap();
    // The server now trusts only as2.test: the 401 leads to new discovery, a
    // registration at as2 and an authorization there, never a refresh at as.test.
    mock.knobs.lock().unwrap().current_as = "https://as2.test".into();
    request(&mut transport, 2).await.unwrap();
    let world = mock.world.lock().unwrap();
    assert_eq!(world.authorizations.len(), 2);
    assert_eq!(get(&world.authorizations[1], "client_id"), Some("client-of-as2.test"));
    let at_as2: Vec<&HttpRequest> = world.requests.iter().filter(|r| r.url.starts_with("https://as2.test")).collect();
    assert!(at_as2.iter().any(|r| r.url.ends_with("/register")));
    for request in at_as2 {
        assert!(!request.body.as_deref().unwrap_or("").contains("dyn-client"), "the as.test client id leaked to as2");
        assert!(!request.url.contains("dyn-client"));
    }
    assert!(world.token_forms.iter().all(|f| get(f, "grant_type") != Some("refresh_token")));
}
