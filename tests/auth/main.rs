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
    /// What the mock says of itself as an HTTP client: that it follows
    /// redirects itself (it never does; it hands them back).
    follows_redirects: bool,
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
            follows_redirects: false,
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
    fn follows_redirects(&self) -> bool {
        self.knobs().follows_redirects
    }

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

mod flows;
mod refusals;
