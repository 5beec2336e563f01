#![cfg(not(target_arch = "wasm32"))]
//! The OAuth flow end to end, natively, against an in-process mock web: an
//! MCP server (resource server), its protected resource metadata and an
//! authorization server, all answered by a test `HttpClient`, so no port is
//! opened and every exchange can be inspected. The authorizer plays the
//! user's browser: it checks the authorization request and redirects back.
//!
//! Covers the happy path and the attacks: issuer mismatch, metadata for
//! another server, redirects to other origins, oversized and malformed
//! documents, a forged `state`, tokens in URLs.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use mcp_edge::BoxFuture;
use mcp_edge::auth::{
    AuthConfig, AuthError, AuthorizationRequest, Authorizer, Grant, MemoryTokenStore, OAuthProvider, TokenStore, Tokens,
};
use mcp_edge::http::{HttpClient, HttpError, HttpRequest, HttpResponse, Method};
use mcp_edge::protocol::Message;
use mcp_edge::transport::{StreamableHttpOptions, StreamableHttpTransport};
use mcp_edge::transport::{Transport, TransportError, TransportEvent};
use serde_json::{Value, json};

const MCP: &str = "https://mcp.test/mcp";
const AS: &str = "https://as.test";
const REDIRECT: &str = "http://localhost:3000/callback";

/// Knobs of the mock world.
#[derive(Clone)]
struct Knobs {
    /// The `resource` the PRM names.
    prm_resource: String,
    /// Send `resource_metadata` in the 401.
    challenge_names_prm: bool,
    /// The `scope` of the 401 challenge.
    challenge_scope: Option<String>,
    /// Scopes the MCP server requires (403 insufficient_scope otherwise).
    required_scopes: Vec<String>,
    /// Serve PRM at all.
    serve_prm: bool,
    /// The issuer the AS metadata names (default: its own origin).
    issuer: Option<String>,
    /// The authorization server the PRM names (and whose tokens the MCP server takes).
    current_as: String,
    /// Redirect the PRM URL here instead of serving it.
    prm_redirect: Option<String>,
    /// Pad the AS metadata to this many bytes.
    metadata_padding: usize,
    /// `expires_in` of issued tokens.
    expires_in: u64,
    /// Issue refresh tokens.
    refresh_tokens: bool,
    /// Advertise DCR.
    registration: bool,
    /// What the token endpoint supports.
    auth_methods: Vec<&'static str>,
    /// Grants the AS supports.
    grants: Vec<&'static str>,
    /// Scopes the AS never grants, whatever is asked.
    withheld_scopes: Vec<String>,
}

impl Default for Knobs {
    fn default() -> Self {
        Knobs {
            prm_resource: MCP.into(),
            challenge_names_prm: true,
            challenge_scope: None,
            required_scopes: Vec::new(),
            serve_prm: true,
            issuer: None,
            current_as: AS.into(),
            prm_redirect: None,
            metadata_padding: 0,
            expires_in: 3600,
            refresh_tokens: true,
            registration: true,
            auth_methods: vec!["none"],
            grants: vec!["authorization_code", "refresh_token"],
            withheld_scopes: Vec::new(),
        }
    }
}

#[derive(Default)]
struct World {
    requests: Vec<HttpRequest>,
    /// code → (code_challenge, scope, resource)
    codes: HashMap<String, (String, Option<String>, Option<String>)>,
    /// access token → scopes
    tokens: HashMap<String, Vec<String>>,
    /// access token → the authorization server that issued it
    issuers: HashMap<String, String>,
    refresh: HashMap<String, Vec<String>>,
    issued: u32,
    authorizations: Vec<Vec<(String, String)>>,
    token_forms: Vec<Vec<(String, String)>>,
}

#[derive(Clone)]
struct Mock {
    knobs: Arc<Mutex<Knobs>>,
    world: Arc<Mutex<World>>,
}

fn reply(status: u16, headers: &[(&str, &str)], body: &str) -> HttpResponse {
    let chunks = if body.is_empty() { Vec::new() } else { vec![Ok(body.as_bytes().to_vec())] };
    HttpResponse {
        status,
        headers: headers.iter().map(|(n, v)| (n.to_ascii_lowercase(), v.to_string())).collect(),
        body: Box::pin(futures::stream::iter(chunks)),
    }
}

fn json_reply(status: u16, value: Value) -> HttpResponse {
    reply(status, &[("content-type", "application/json")], &value.to_string())
}

fn form(body: &Option<String>) -> Vec<(String, String)> {
    url::form_urlencoded::parse(body.as_deref().unwrap_or("").as_bytes()).into_owned().collect()
}

/// The parts of a URL the mock looks at, read with the `url` crate: an
/// independent parser, not the crate's own under test.
struct Url {
    origin: String,
    path: String,
    host: String,
    pairs: Vec<(String, String)>,
}

impl Url {
    fn parse(text: &str) -> Result<Url, url::ParseError> {
        let url = url::Url::parse(text)?;
        Ok(Url {
            origin: url.origin().ascii_serialization(),
            path: url.path().to_owned(),
            host: url.host_str().unwrap_or_default().to_owned(),
            pairs: url.query_pairs().into_owned().collect(),
        })
    }

    fn origin(&self) -> String {
        self.origin.clone()
    }

    fn query_pairs(&self) -> Vec<(String, String)> {
        self.pairs.clone()
    }
}

/// The S256 PKCE challenge of `verifier` (RFC 7636 4.2), computed here
/// rather than by the crate under test.
fn s256(verifier: &str) -> String {
    use base64::Engine;
    use sha2::Digest;
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(sha2::Sha256::digest(verifier.as_bytes()))
}

/// A `scope` parameter's scopes: space-separated, each once, in order.
fn split_scope(scope: &str) -> Vec<String> {
    let mut scopes: Vec<String> = Vec::new();
    for scope in scope.split(' ').filter(|s| !s.is_empty()) {
        if !scopes.iter().any(|s| s == scope) {
            scopes.push(scope.to_owned());
        }
    }
    scopes
}

fn get<'a>(pairs: &'a [(String, String)], name: &str) -> Option<&'a str> {
    pairs.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str())
}

fn header<'a>(request: &'a HttpRequest, name: &str) -> Option<&'a str> {
    request.headers.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
}

impl Mock {
    fn new(knobs: Knobs) -> Mock {
        Mock { knobs: Arc::new(Mutex::new(knobs)), world: Arc::new(Mutex::new(World::default())) }
    }

    fn knobs(&self) -> Knobs {
        self.knobs.lock().unwrap().clone()
    }

    fn paths(&self) -> Vec<String> {
        self.world
            .lock()
            .unwrap()
            .requests
            .iter()
            .map(|r| {
                let url = Url::parse(&r.url).unwrap();
                format!("{} {}{}", r.method.as_str(), url.origin(), url.path)
            })
            .collect()
    }

    fn count(&self, path: &str) -> usize {
        self.paths().iter().filter(|p| p.ends_with(path)).count()
    }

    fn issue(&self, world: &mut World, scopes: Vec<String>, issuer: &str) -> Value {
        let knobs = self.knobs();
        let scopes: Vec<String> = scopes.into_iter().filter(|s| !knobs.withheld_scopes.contains(s)).collect();
        world.issued += 1;
        let access = format!("access-{}", world.issued);
        world.tokens.insert(access.clone(), scopes.clone());
        world.issuers.insert(access.clone(), issuer.to_owned());
        let mut answer = json!({"access_token": access, "token_type": "Bearer", "expires_in": knobs.expires_in});
        if knobs.refresh_tokens {
            let refresh = format!("refresh-{}", world.issued);
            world.refresh.insert(refresh.clone(), scopes);
            answer["refresh_token"] = json!(refresh);
        }
        answer
    }

    fn handle(&self, request: &HttpRequest) -> HttpResponse {
        let knobs = self.knobs();
        let url = Url::parse(&request.url).unwrap();
        let path = url.path.as_str();
        let origin = url.origin();
        let mut world = self.world.lock().unwrap();
        match (request.method, origin.as_str(), path) {
            (Method::Post, "https://mcp.test", "/mcp") => {
                let bearer = header(request, "authorization").and_then(|v| v.strip_prefix("Bearer "));
                let scopes = bearer
                    .filter(|t| world.issuers.get(*t).is_none_or(|issuer| *issuer == knobs.current_as))
                    .and_then(|t| world.tokens.get(t).cloned());
                let Some(scopes) = scopes else {
                    let mut challenge = String::from("Bearer error=\"invalid_token\"");
                    if let Some(scope) = &knobs.challenge_scope {
                        challenge.push_str(&format!(", scope=\"{scope}\""));
                    }
                    if knobs.challenge_names_prm {
                        challenge.push_str(
                            ", resource_metadata=\"https://mcp.test/.well-known/oauth-protected-resource/mcp\"",
                        );
                    }
                    return reply(401, &[("www-authenticate", &challenge)], "");
                };
                if !knobs.required_scopes.iter().all(|s| scopes.contains(s)) {
                    let challenge = format!(
                        "Bearer error=\"insufficient_scope\", scope=\"{}\", resource_metadata=\"https://mcp.test/.well-known/oauth-protected-resource/mcp\"",
                        knobs.required_scopes.join(" ")
                    );
                    return reply(403, &[("www-authenticate", &challenge)], "");
                }
                let body: Value = serde_json::from_str(request.body.as_deref().unwrap_or("{}")).unwrap();
                match body.get("id") {
                    Some(id) => json_reply(200, json!({"jsonrpc": "2.0", "id": id, "result": {}})),
                    None => reply(202, &[], ""),
                }
            }
            (Method::Get, "https://mcp.test", "/mcp") => reply(405, &[], ""),
            (Method::Get, "https://mcp.test", p) if p.starts_with("/.well-known/oauth-protected-resource") => {
                if let Some(target) = &knobs.prm_redirect {
                    return reply(302, &[("location", target)], "");
                }
                if !knobs.serve_prm {
                    return reply(404, &[], "");
                }
                json_reply(
                    200,
                    json!({"resource": knobs.prm_resource, "authorization_servers": [knobs.current_as], "scopes_supported": ["mcp:basic", "mcp:write"]}),
                )
            }
            (Method::Get, "https://as.test" | "https://as2.test", "/.well-known/oauth-authorization-server") => {
                let mut metadata = json!({
                    "issuer": knobs.issuer.clone().unwrap_or_else(|| origin.clone()),
                    "authorization_endpoint": format!("{origin}/authorize"),
                    "token_endpoint": format!("{origin}/token"),
                    "code_challenge_methods_supported": ["S256"],
                    "token_endpoint_auth_methods_supported": knobs.auth_methods,
                    "grant_types_supported": knobs.grants,
                    "padding": "x".repeat(knobs.metadata_padding),
                });
                if knobs.registration {
                    metadata["registration_endpoint"] = json!(format!("{origin}/register"));
                }
                json_reply(200, metadata)
            }
            (Method::Post, "https://as.test" | "https://as2.test", "/register") => {
                let body: Value = serde_json::from_str(request.body.as_deref().unwrap_or("{}")).unwrap();
                let method = body["token_endpoint_auth_method"].as_str().unwrap_or("none").to_owned();
                let client_id = if origin == AS { "dyn-client".to_owned() } else { format!("client-of-{}", url.host) };
                let mut answer = json!({"client_id": client_id, "token_endpoint_auth_method": method});
                if method != "none" {
                    answer["client_secret"] = json!("dyn secret:&");
                }
                json_reply(201, answer)
            }
            (Method::Post, "https://as.test" | "https://as2.test", "/token") => {
                let pairs = form(&request.body);
                world.token_forms.push(pairs.clone());
                match get(&pairs, "grant_type") {
                    Some("authorization_code") => {
                        let code = get(&pairs, "code").unwrap_or_default();
                        let Some((challenge, scope, _)) = world.codes.remove(code) else {
                            return json_reply(400, json!({"error": "invalid_grant"}));
                        };
                        let verifier = get(&pairs, "code_verifier").unwrap_or_default();
                        if s256(verifier) != challenge {
                            return json_reply(400, json!({"error": "invalid_grant", "error_description": "PKCE"}));
                        }
                        let scopes = scope.map(|s| split_scope(&s)).unwrap_or_default();
                        let answer = self.issue(&mut world, scopes, &origin);
                        json_reply(200, answer)
                    }
                    Some("refresh_token") => {
                        let token = get(&pairs, "refresh_token").unwrap_or_default().to_owned();
                        match world.refresh.remove(&token) {
                            Some(scopes) => {
                                let answer = self.issue(&mut world, scopes, &origin);
                                json_reply(200, answer)
                            }
                            None => json_reply(400, json!({"error": "invalid_grant"})),
                        }
                    }
                    Some("client_credentials") => {
                        let answer = self.issue(&mut world, Vec::new(), &origin);
                        json_reply(200, answer)
                    }
                    _ => json_reply(400, json!({"error": "unsupported_grant_type"})),
                }
            }
            _ => reply(404, &[], ""),
        }
    }
}

impl HttpClient for Mock {
    fn fetch(&self, request: HttpRequest) -> BoxFuture<'static, Result<HttpResponse, HttpError>> {
        self.world.lock().unwrap().requests.push(request.clone());
        let response = self.handle(&request);
        Box::pin(async move { Ok(response) })
    }
}

/// Plays the browser: checks the request, records it, redirects back with a
/// code (or, when told, with a forged state or an error).
#[derive(Debug, Clone, Default)]
struct Browser {
    forge_state: bool,
    deny: bool,
}

#[derive(Clone)]
struct BrowserFor(Mock, Browser);

impl std::fmt::Debug for BrowserFor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("BrowserFor")
    }
}

impl Authorizer for BrowserFor {
    fn authorize<'a>(&'a self, request: &'a AuthorizationRequest) -> BoxFuture<'a, Result<String, AuthError>> {
        Box::pin(async move {
            let url = Url::parse(&request.url).unwrap();
            assert!(
                ["https://as.test/authorize", "https://as2.test/authorize"]
                    .contains(&(url.origin() + &url.path).as_str())
            );
            let pairs = url.query_pairs();
            assert_eq!(get(&pairs, "response_type"), Some("code"));
            assert_eq!(get(&pairs, "code_challenge_method"), Some("S256"));
            assert_eq!(get(&pairs, "redirect_uri"), Some(REDIRECT));
            assert_eq!(get(&pairs, "state"), Some(request.state.as_str()));
            let mut world = self.0.world.lock().unwrap();
            world.authorizations.push(pairs.clone());
            if self.1.deny {
                return Ok(format!("{REDIRECT}?error=access_denied&error_description=nope&state={}", request.state));
            }
            let code = format!("code-{}", world.authorizations.len());
            world.codes.insert(
                code.clone(),
                (
                    get(&pairs, "code_challenge").unwrap_or_default().to_owned(),
                    get(&pairs, "scope").map(str::to_owned),
                    get(&pairs, "resource").map(str::to_owned),
                ),
            );
            let state = if self.1.forge_state { "forged".to_owned() } else { request.state.clone() };
            Ok(format!("{REDIRECT}?code={code}&state={state}"))
        })
    }
}

fn config() -> AuthConfig {
    AuthConfig::new(REDIRECT)
}

fn provider(mock: &Mock, config: AuthConfig, browser: Browser) -> OAuthProvider<Mock> {
    OAuthProvider::with_http(mock.clone(), MCP, config).unwrap().with_authorizer(BrowserFor(mock.clone(), browser))
}

fn transport(mock: &Mock, provider: OAuthProvider<Mock>) -> StreamableHttpTransport<Mock> {
    let mut options = StreamableHttpOptions::new(MCP).with_auth(provider);
    options.open_server_stream = false;
    StreamableHttpTransport::with_http(mock.clone(), options)
}

async fn request(transport: &mut StreamableHttpTransport<Mock>, id: i64) -> Result<(), TransportError> {
    let sent = tokio::time::timeout(Duration::from_secs(10), transport.send(Message::request(id, "tools/list", None)))
        .await
        .expect("the request finished in time");
    sent?;
    let event = tokio::time::timeout(Duration::from_secs(5), futures::future::poll_fn(|cx| transport.poll_event(cx)))
        .await
        .expect("an event in time");
    match event {
        TransportEvent::Message(Message::Response(response)) => assert_eq!(response.id, Some(id.into())),
        other => panic!("unexpected {other:?}"),
    }
    Ok(())
}

fn auth_error(outcome: Result<(), TransportError>) -> AuthError {
    match outcome {
        Err(TransportError::Auth(error)) => error,
        other => panic!("expected an auth error, got {other:?}"),
    }
}

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
    let mock = Mock::new(Knobs { expires_in: 10, ..Knobs::default() });
    let mut transport = transport(&mock, provider(&mock, config(), Browser::default()));
    request(&mut transport, 1).await.unwrap();
    // access-1 expires within the refresh margin: the next request refreshes first.
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
async fn without_registration_or_cimd_the_error_says_what_to_configure() {
    let mock = Mock::new(Knobs { registration: false, ..Knobs::default() });
    let mut transport = transport(&mock, provider(&mock, config(), Browser::default()));
    let error = auth_error(request(&mut transport, 1).await);
    assert!(matches!(error, AuthError::ClientRegistrationNeeded { .. }), "{error}");
    let message = error.to_string();
    assert!(message.contains("client_id") && message.contains(REDIRECT), "{message}");
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
