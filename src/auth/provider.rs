//! The OAuth flow, over the [`HttpClient`] seam so it runs on every target.
//!
//! On a 401 from the MCP server: discovery (protected resource metadata,
//! then authorization server metadata, or the 2025-03-26 fallbacks) → a
//! client identity (configured, stored, Client ID Metadata Document, or
//! dynamic registration) → a grant (authorization code with PKCE through
//! the [`Authorizer`], client credentials, a JWT bearer assertion, or an
//! enterprise ID-JAG) → tokens, kept in the [`TokenStore`]. Tokens are
//! refreshed before they expire and on 401; a 403 `insufficient_scope`
//! re-authorizes with the union of scopes, a bounded number of times.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde::Deserialize;
use serde_json::{Value, json};

use super::authorizer::{AuthorizationRequest, Authorizer, PendingAuthorization};
use super::challenge::{self, BearerChallenge};
use super::config::{AuthConfig, Grant};
use super::error::AuthError;
use super::jwt::{self, CLIENT_ASSERTION_TYPE, Es256Key};
use super::metadata::{self, AuthorizationServerMetadata, MAX_METADATA_BYTES, ProtectedResourceMetadata};
use super::pkce::{self, Pkce};
use super::store::{AuthRecord, ClientRegistration, MemoryTokenStore, TokenStore, Tokens, redacted};
use super::{resource, scope};
use crate::http::url::{self as urls, Url};
use crate::http::{DefaultHttp, HttpClient, HttpRequest, HttpResponse, Method};
use crate::runtime::{BoxFuture, MaybeSend, MaybeSync, boxed, now_secs};

const JWT_BEARER: &str = "urn:ietf:params:oauth:grant-type:jwt-bearer";
const TOKEN_EXCHANGE: &str = "urn:ietf:params:oauth:grant-type:token-exchange";
const ID_JAG: &str = "urn:ietf:params:oauth:token-type:id-jag";
const ID_TOKEN: &str = "urn:ietf:params:oauth:token-type:id_token";
const MAX_RESPONSE_BYTES: usize = 64 * 1024;
const MAX_REDIRECTS: usize = 5;

/// A challenge from the MCP server, as the transport saw it.
#[derive(Clone, Default)]
pub struct AuthChallenge {
    /// 401 or 403.
    pub status: u16,
    /// Every `WWW-Authenticate` value.
    pub www_authenticate: Vec<String>,
    /// The `DPoP-Nonce` header, if any.
    pub dpop_nonce: Option<String>,
    /// [`fingerprint`] of the `Authorization` value the refused request carried.
    pub rejected: Option<String>,
    /// The negotiated protocol version, if any (sent on 2025-03-26 discovery).
    pub protocol_version: Option<String>,
}

impl std::fmt::Debug for AuthChallenge {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AuthChallenge")
            .field("status", &self.status)
            .field("www_authenticate", &self.www_authenticate)
            .field("dpop_nonce", &self.dpop_nonce)
            .finish_non_exhaustive()
    }
}

/// What the provider did about a challenge; the transport retries the request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Recovery {
    /// New credentials (refreshed, authorized, stepped up).
    Credentials,
    /// Only a new DPoP nonce to put in the next proof.
    Nonce,
}

/// A short, non-reversible identifier of a credential, so "which token was
/// refused" can be compared without keeping or logging the token.
pub fn fingerprint(authorization: &str) -> String {
    pkce::base64url(&pkce::sha256(authorization.as_bytes()))[..16].to_owned()
}

/// What the Streamable HTTP transport asks of an authorization scheme.
pub trait AuthProvider: std::fmt::Debug + MaybeSend + MaybeSync + 'static {
    /// Headers for one request to the MCP server (`Authorization`, and
    /// `DPoP` for DPoP-bound tokens); none before the first authorization.
    /// May refresh a token about to expire.
    fn headers<'a>(&'a self, method: Method, url: &'a str) -> BoxFuture<'a, Result<Vec<(String, String)>, AuthError>>;

    /// The server answered 401, or 403 with `insufficient_scope`: get
    /// credentials that may work. An error ends the request.
    fn challenged<'a>(&'a self, challenge: &'a AuthChallenge) -> BoxFuture<'a, Result<Recovery, AuthError>>;

    /// The longest [`AuthProvider::challenged`] may take (a person signing
    /// in, plus the exchanges around it), so a request that meets a
    /// challenge can be given that much more time. Zero by default.
    fn interaction_timeout(&self) -> Duration {
        Duration::ZERO
    }
}

/// Where discovery led.
#[derive(Debug, Clone)]
pub struct Discovery {
    /// The RFC 8707 resource: the PRM `resource` verbatim, or (2025-03-26)
    /// the server's canonical URL.
    pub resource: String,
    /// The protected resource metadata, when the server has some.
    pub protected_resource: Option<ProtectedResourceMetadata>,
    /// The authorization server's metadata (synthesized from the 2025-03-26
    /// default endpoints when it has none).
    pub metadata: AuthorizationServerMetadata,
    /// 2025-03-26 rules: no protected resource metadata; the MCP server's
    /// origin is the authorization server.
    pub legacy: bool,
}

#[derive(Default)]
struct State {
    loaded: bool,
    record: AuthRecord,
    discovery: Option<Arc<Discovery>>,
    /// The scopes of the last authorization.
    requested: Option<Vec<String>>,
    /// Authorizations per scope set, for the step-up bound.
    attempts: Vec<(Vec<String>, u32)>,
    /// The key DPoP proofs are signed with, once the server wants them.
    dpop_key: Option<Es256Key>,
    /// The resource server's latest DPoP nonce.
    rs_nonce: Option<String>,
    /// The authorization server's latest DPoP nonce.
    as_nonce: Option<String>,
}

/// The OAuth 2.1 client for one MCP server. Give it to
/// [`crate::transport::streamable::StreamableHttpOptions::auth`].
pub struct OAuthProvider<H: HttpClient = DefaultHttp> {
    http: H,
    server_url: String,
    store_key: String,
    config: AuthConfig,
    key: Option<Es256Key>,
    authorizer: Option<Arc<dyn Authorizer>>,
    store: Arc<dyn TokenStore>,
    state: Mutex<State>,
    flow: futures::lock::Mutex<()>,
}

impl<H: HttpClient> std::fmt::Debug for OAuthProvider<H> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OAuthProvider")
            .field("server_url", &self.server_url)
            .field("config", &self.config)
            .field("authorizer", &self.authorizer)
            .field("store", &self.store)
            .finish_non_exhaustive()
    }
}

impl OAuthProvider<DefaultHttp> {
    /// A provider for the MCP server at `server_url`, with this platform's
    /// HTTP client (natively one that does not follow redirects, so each
    /// discovery hop is checked), tokens in memory and no authorizer.
    pub fn new(server_url: &str, config: AuthConfig) -> Result<Self, AuthError> {
        #[cfg(not(target_arch = "wasm32"))]
        let http = DefaultHttp::without_redirects()
            .map_err(|e| AuthError::Config(format!("could not build an HTTP client: {e}")))?;
        #[cfg(target_arch = "wasm32")]
        let http = DefaultHttp::default();
        Self::with_http(http, server_url, config)
    }
}

impl<H: HttpClient> OAuthProvider<H> {
    /// A provider that talks to authorization servers through `http`. The
    /// client should not follow redirects itself; if it does (a browser's
    /// `fetch`), cross-origin redirects during discovery cannot be refused.
    pub fn with_http(http: H, server_url: &str, config: AuthConfig) -> Result<Self, AuthError> {
        let store_key = resource::canonical(server_url).map_err(AuthError::Config)?;
        let key = match &config.private_key_pem {
            Some(pem) => Some(Es256Key::from_pem(pem, config.key_id.clone())?),
            None => None,
        };
        if let Some(cimd) = &config.client_metadata_url {
            let url = Url::parse(cimd).map_err(|e| AuthError::Config(format!("client_metadata_url {cimd:?}: {e}")))?;
            if url.scheme != "https" || url.path.len() <= 1 {
                return Err(AuthError::Config(format!(
                    "client_metadata_url {cimd:?} must be an https URL with a path"
                )));
            }
        }
        Ok(OAuthProvider {
            http,
            server_url: server_url.to_owned(),
            store_key,
            config,
            key,
            authorizer: None,
            store: Arc::new(MemoryTokenStore::new()),
            state: Mutex::new(State::default()),
            flow: futures::lock::Mutex::new(()),
        })
    }

    /// Sends users through `authorizer` for the authorization code grant.
    pub fn with_authorizer(mut self, authorizer: impl Authorizer) -> Self {
        self.authorizer = Some(Arc::new(authorizer));
        self
    }

    /// Keeps tokens and registrations in `store`.
    pub fn with_store(mut self, store: Arc<dyn TokenStore>) -> Self {
        self.store = store;
        self
    }

    /// What discovery found, once it ran.
    pub fn discovery(&self) -> Option<Arc<Discovery>> {
        self.state().discovery.clone()
    }

    /// The current tokens, if any.
    pub fn tokens(&self) -> Option<Tokens> {
        self.state().record.tokens.clone()
    }

    /// Finishes an authorization code flow that an earlier page load started
    /// (a full-page redirect, see [`Authorizer::remember`]): checks the
    /// redirect the browser came back with (`state`, RFC 9207 `iss`, an
    /// `error`), exchanges the code with the PKCE verifier, and keeps the
    /// tokens in the store.
    pub async fn complete_authorization(
        &self,
        redirected: &str,
        pending: &PendingAuthorization,
    ) -> Result<(), AuthError> {
        let _flow = self.flow.lock().await;
        self.ensure_loaded().await?;
        if resource::canonical(&pending.server_url).ok().as_deref() != Some(self.store_key.as_str()) {
            return Err(AuthError::Config(format!(
                "the pending authorization is for {}, not for {}",
                pending.server_url, self.server_url
            )));
        }
        let code = check_authorization_response(redirected, &pending.redirect_uri, &pending.state, &pending.metadata)?;
        let discovery = Discovery {
            resource: pending.resource.clone(),
            protected_resource: None,
            metadata: pending.metadata.clone(),
            legacy: pending.legacy,
        };
        let form = vec![
            ("grant_type", "authorization_code".to_owned()),
            ("code", code),
            ("redirect_uri", pending.redirect_uri.clone()),
            ("code_verifier", pending.code_verifier.clone()),
            ("resource", pending.resource.clone()),
        ];
        let mut tokens = self.token_request(&discovery, Some(&pending.client), form).await?;
        if tokens.scope.is_none() {
            tokens.scope = pending.scope.clone();
        }
        log::info!(
            "got an access token {} for {} (after a redirect)",
            redacted(&tokens.access_token),
            pending.resource
        );
        {
            let mut state = self.state();
            state.record.tokens = Some(tokens);
            state.requested = pending.scope.as_ref().map(|s| s.split_whitespace().map(str::to_owned).collect());
            let issuer = &pending.metadata.issuer;
            if self.config.client_id.is_none() && !state.record.clients.iter().any(|c| &c.issuer == issuer) {
                state.record.clients.push(pending.client.clone());
            }
        }
        self.save().await
    }

    /// Forgets the tokens (sign-out); registrations are kept.
    pub async fn sign_out(&self) -> Result<(), AuthError> {
        let _flow = self.flow.lock().await;
        let record = {
            let mut state = self.state();
            state.record.tokens = None;
            state.record.clone()
        };
        self.store.save(&self.store_key, &record).await
    }

    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    async fn ensure_loaded(&self) -> Result<(), AuthError> {
        if self.state().loaded {
            return Ok(());
        }
        let record = self.store.load(&self.store_key).await?;
        let mut state = self.state();
        if !state.loaded {
            state.record = record.unwrap_or_default();
            state.loaded = true;
        }
        Ok(())
    }

    async fn save(&self) -> Result<(), AuthError> {
        let record = self.state().record.clone();
        self.store.save(&self.store_key, &record).await
    }

    fn current_fingerprint(&self) -> Option<String> {
        let state = self.state();
        state.record.tokens.as_ref().map(|t| fingerprint(&authorization_value(t)))
    }

    // ---- HTTP with bounds, redirect checks and size limits ----

    async fn bounded<T>(
        &self,
        what: impl FnOnce() -> String,
        future: impl Future<Output = Result<T, AuthError>> + MaybeSend,
    ) -> Result<T, AuthError> {
        bounded(self.config.http_timeout, what, future).await
    }

    async fn exchange(&self, request: HttpRequest) -> Result<HttpResponse, AuthError> {
        let url = request.url.clone();
        self.http.fetch(request).await.map_err(|e| AuthError::Unreachable { url, reason: e.to_string() })
    }

    /// GETs a discovery document, following same-origin redirects only.
    async fn get_document(&self, url: &str, headers: &[(String, String)]) -> Result<(u16, Vec<u8>), AuthError> {
        let original = Url::parse(url).map_err(|e| AuthError::InvalidMetadata { url: url.to_owned(), reason: e })?;
        if !original.is_secure_or_loopback(self.config.allow_insecure_http) {
            return Err(AuthError::InsecureUrl { url: url.to_owned() });
        }
        let mut current = original.clone();
        for _ in 0..=MAX_REDIRECTS {
            let mut request_headers = vec![("Accept".to_owned(), "application/json".to_owned())];
            request_headers.extend(headers.iter().cloned());
            let request =
                HttpRequest { method: Method::Get, url: current.to_string(), headers: request_headers, body: None };
            let response = self.exchange(request).await?;
            let status = response.status;
            if (300..400).contains(&status)
                && let Some(location) = response.header("location")
            {
                let next = current.join(location).map_err(|e| AuthError::InvalidMetadata {
                    url: current.to_string(),
                    reason: format!("it redirects to something that is not a URL: {e}"),
                })?;
                if !next.same_origin(&original) {
                    return Err(AuthError::CrossOriginRedirect { from: url.to_owned(), to: next.to_string() });
                }
                current = next;
                continue;
            }
            if status != 200 {
                return Ok((status, Vec::new()));
            }
            let body = response
                .read_body(MAX_METADATA_BYTES)
                .await
                .map_err(|e| AuthError::InvalidMetadata { url: url.to_owned(), reason: e.to_string() })?;
            return Ok((status, body));
        }
        Err(AuthError::InvalidMetadata { url: url.to_owned(), reason: format!("more than {MAX_REDIRECTS} redirects") })
    }

    /// POSTs a body and reads the answer (at most 64 KiB).
    async fn post(&self, url: &str, headers: Vec<(String, String)>, body: String) -> Result<Answer, AuthError> {
        let request = HttpRequest { method: Method::Post, url: url.to_owned(), headers, body: Some(body) };
        let response = self.exchange(request).await?;
        let status = response.status;
        let dpop_nonce = response.header("dpop-nonce").map(str::to_owned);
        let body = response
            .read_body(MAX_RESPONSE_BYTES)
            .await
            .map_err(|e| AuthError::Unreachable { url: url.to_owned(), reason: e.to_string() })?;
        Ok(Answer { status, body, dpop_nonce })
    }

    // ---- discovery ----

    async fn discover(
        &self,
        resource_metadata: Option<&str>,
        protocol_version: Option<&str>,
    ) -> Result<Arc<Discovery>, AuthError> {
        let insecure = self.config.allow_insecure_http;
        let candidates = metadata::protected_resource_urls(&self.server_url, resource_metadata)
            .map_err(|e| AuthError::Config(format!("the server URL {}: {e}", self.server_url)))?;
        let mut protected_resource = None;
        for url in &candidates {
            let fetched = self.bounded(|| format!("fetching {url}"), self.get_document(url, &[])).await;
            match fetched {
                Ok((200, body)) => {
                    let parsed = metadata::parse_protected_resource(&body, url, &self.server_url, insecure)?;
                    log::debug!(
                        "protected resource metadata from {url}: authorization servers {:?}",
                        parsed.authorization_servers
                    );
                    protected_resource = Some(parsed);
                    break;
                }
                Ok((status, _)) => log::debug!("no protected resource metadata at {url} (HTTP {status})"),
                Err(error @ (AuthError::CrossOriginRedirect { .. } | AuthError::InvalidMetadata { .. })) => {
                    return Err(error);
                }
                Err(error) => log::debug!("no protected resource metadata at {url}: {error}"),
            }
        }
        let (issuer, legacy) = match &protected_resource {
            Some(prm) => (prm.authorization_servers[0].clone(), false),
            None => {
                let origin = Url::parse(&self.server_url).map_err(AuthError::Config)?.origin();
                log::info!(
                    "{} has no protected resource metadata: using the 2025-03-26 rules ({origin} is its own \
                     authorization server)",
                    self.server_url
                );
                (origin, true)
            }
        };
        let resource = match &protected_resource {
            Some(prm) => prm.resource.clone(),
            None => resource::canonical(&self.server_url).map_err(AuthError::Config)?,
        };
        let headers: Vec<(String, String)> = match (legacy, protocol_version) {
            (true, Some(version)) => vec![("MCP-Protocol-Version".to_owned(), version.to_owned())],
            _ => Vec::new(),
        };
        let mut tried = Vec::new();
        let mut found = None;
        let urls = metadata::authorization_server_urls(&issuer)
            .map_err(|e| AuthError::InvalidMetadata { url: issuer.clone(), reason: e })?;
        for url in &urls {
            match self.bounded(|| format!("fetching {url}"), self.get_document(url, &headers)).await {
                Ok((200, body)) => {
                    found = Some(metadata::parse_authorization_server(&body, url, &issuer, insecure)?);
                    break;
                }
                Ok((status, _)) => tried.push(format!("{url}: HTTP {status}")),
                Err(error @ (AuthError::CrossOriginRedirect { .. } | AuthError::InvalidMetadata { .. })) => {
                    return Err(error);
                }
                Err(error) => tried.push(format!("{url}: {error}")),
            }
        }
        let metadata = match found {
            Some(metadata) => metadata,
            None if legacy => {
                log::info!("{issuer} has no authorization server metadata: using the 2025-03-26 default endpoints");
                AuthorizationServerMetadata {
                    issuer: issuer.clone(),
                    authorization_endpoint: Some(format!("{issuer}/authorize")),
                    token_endpoint: Some(format!("{issuer}/token")),
                    registration_endpoint: Some(format!("{issuer}/register")),
                    grant_types_supported: Some(vec!["authorization_code".into(), "refresh_token".into()]),
                    token_endpoint_auth_methods_supported: Some(vec![
                        "none".into(),
                        "client_secret_basic".into(),
                        "client_secret_post".into(),
                    ]),
                    ..Default::default()
                }
            }
            None => return Err(AuthError::NoAuthorizationServerMetadata { issuer, tried }),
        };
        let discovery = Arc::new(Discovery { resource, protected_resource, metadata, legacy });
        self.state().discovery = Some(discovery.clone());
        Ok(discovery)
    }

    async fn discovery_or_discover(&self) -> Result<Arc<Discovery>, AuthError> {
        let known = self.state().discovery.clone();
        match known {
            Some(discovery) => Ok(discovery),
            None => self.discover(None, None).await,
        }
    }

    // ---- client identity ----

    fn secret_method(&self, metadata: &AuthorizationServerMetadata, has_secret: bool) -> String {
        if let Some(method) = &self.config.token_endpoint_auth_method {
            return method.clone();
        }
        if self.key.is_some() && metadata.supports_auth_method("private_key_jwt") {
            return "private_key_jwt".into();
        }
        if !has_secret {
            return if self.key.is_some() { "private_key_jwt".into() } else { "none".into() };
        }
        if metadata.supports_auth_method("client_secret_basic") {
            "client_secret_basic".into()
        } else if metadata.supports_auth_method("client_secret_post") {
            "client_secret_post".into()
        } else {
            "client_secret_basic".into()
        }
    }

    fn configured_client(&self, discovery: &Discovery) -> Option<ClientRegistration> {
        let client_id = self.config.client_id.clone()?;
        let method = self.secret_method(&discovery.metadata, self.config.client_secret.is_some());
        Some(ClientRegistration {
            issuer: discovery.metadata.issuer.clone(),
            client_id,
            client_secret: self.config.client_secret.clone(),
            token_endpoint_auth_method: Some(method),
            client_secret_expires_at: None,
        })
    }

    /// The client identity, in MCP's priority order; registers if needed.
    async fn client_for(&self, discovery: &Discovery, register: bool) -> Result<ClientRegistration, AuthError> {
        if let Some(client) = self.configured_client(discovery) {
            return Ok(client);
        }
        let issuer = &discovery.metadata.issuer;
        let now = now_secs();
        let stored = self.state().record.clients.iter().find(|c| &c.issuer == issuer).cloned();
        if let Some(client) = stored {
            let expired = matches!(client.client_secret_expires_at, Some(at) if at != 0 && at <= now);
            if !expired {
                return Ok(client);
            }
        }
        if let Some(cimd) = &self.config.client_metadata_url
            && discovery.metadata.client_id_metadata_document_supported == Some(true)
        {
            let method = if self.key.is_some() && discovery.metadata.supports_auth_method("private_key_jwt") {
                "private_key_jwt"
            } else {
                "none"
            };
            return Ok(ClientRegistration {
                issuer: issuer.clone(),
                client_id: cimd.clone(),
                client_secret: None,
                token_endpoint_auth_method: Some(method.into()),
                client_secret_expires_at: None,
            });
        }
        match &discovery.metadata.registration_endpoint {
            Some(endpoint) if register => self.register(discovery, endpoint).await,
            _ => Err(AuthError::ClientRegistrationNeeded {
                issuer: issuer.clone(),
                redirect_uri: self.config.redirect_uri.clone(),
                cimd: match &self.config.client_metadata_url {
                    Some(url) => format!(" (the configured client metadata document {url} is not accepted there)"),
                    None => String::new(),
                },
            }),
        }
    }

    /// RFC 7591 dynamic client registration.
    async fn register(&self, discovery: &Discovery, endpoint: &str) -> Result<ClientRegistration, AuthError> {
        let metadata = &discovery.metadata;
        let method = if metadata.supports_auth_method("none") {
            "none"
        } else if metadata.supports_auth_method("client_secret_basic") {
            "client_secret_basic"
        } else if metadata.supports_auth_method("client_secret_post") {
            "client_secret_post"
        } else {
            "none"
        };
        let redirect = Url::parse(&self.config.redirect_uri)
            .map_err(|e| AuthError::Config(format!("redirect_uri {:?}: {e}", self.config.redirect_uri)))?;
        let application_type = if redirect.scheme == "https" && !redirect.is_loopback() { "web" } else { "native" };
        let mut body = json!({
            "client_name": self.config.client_name,
            "redirect_uris": [self.config.redirect_uri],
            "grant_types": ["authorization_code", "refresh_token"],
            "response_types": ["code"],
            "token_endpoint_auth_method": method,
            "application_type": application_type,
        });
        if let Some(scopes) = &self.config.scopes {
            body["scope"] = json!(scope::join(scopes));
        }
        let headers = vec![
            ("Content-Type".to_owned(), "application/json".to_owned()),
            ("Accept".to_owned(), "application/json".to_owned()),
        ];
        let answer = self
            .bounded(|| format!("registering at {endpoint}"), self.post(endpoint, headers, body.to_string()))
            .await?;
        if !(200..300).contains(&answer.status) {
            let error = OAuthErrorBody::parse(&answer.body);
            return Err(AuthError::Registration {
                endpoint: endpoint.to_owned(),
                status: answer.status,
                error: error.error,
                description: error.error_description,
            });
        }
        #[derive(Deserialize)]
        struct Registered {
            client_id: String,
            #[serde(default)]
            client_secret: Option<String>,
            #[serde(default)]
            token_endpoint_auth_method: Option<String>,
            #[serde(default)]
            client_secret_expires_at: Option<u64>,
        }
        let registered: Registered = serde_json::from_slice(&answer.body).map_err(|e| AuthError::Registration {
            endpoint: endpoint.to_owned(),
            status: answer.status,
            error: None,
            description: Some(format!("the answer is not a client registration: {e}")),
        })?;
        if registered.client_id.is_empty() {
            return Err(AuthError::Registration {
                endpoint: endpoint.to_owned(),
                status: answer.status,
                error: None,
                description: Some("the answer has an empty client_id".into()),
            });
        }
        let method =
            registered.token_endpoint_auth_method.unwrap_or_else(|| match (&registered.client_secret, method) {
                (Some(_), "none") => "client_secret_basic".into(),
                (_, method) => method.into(),
            });
        let client = ClientRegistration {
            issuer: metadata.issuer.clone(),
            client_id: registered.client_id,
            client_secret: registered.client_secret,
            token_endpoint_auth_method: Some(method),
            client_secret_expires_at: registered.client_secret_expires_at,
        };
        log::info!("registered with {} as client {}", metadata.issuer, client.client_id);
        {
            let mut state = self.state();
            state.record.clients.retain(|c| c.issuer != client.issuer);
            state.record.clients.push(client.clone());
        }
        self.save().await?;
        Ok(client)
    }

    // ---- token requests ----

    fn dpop_key(&self, metadata: &AuthorizationServerMetadata) -> Result<Option<Es256Key>, AuthError> {
        let wants =
            metadata.dpop_signing_alg_values_supported.as_ref().is_some_and(|algs| algs.iter().any(|a| a == "ES256"));
        if !wants {
            return Ok(None);
        }
        let mut state = self.state();
        if state.dpop_key.is_none() {
            state.dpop_key = Some(Es256Key::generate()?);
        }
        Ok(state.dpop_key.clone())
    }

    /// One token request with client authentication; retried once when the
    /// server asks for a DPoP nonce.
    async fn token_request(
        &self,
        discovery: &Discovery,
        client: Option<&ClientRegistration>,
        form: Vec<(&str, String)>,
    ) -> Result<Tokens, AuthError> {
        let metadata = &discovery.metadata;
        let endpoint = metadata.token_endpoint.clone().ok_or_else(|| AuthError::InvalidMetadata {
            url: metadata.issuer.clone(),
            reason: "it has no token_endpoint".into(),
        })?;
        let dpop = self.dpop_key(metadata)?;
        let mut nonce_retried = false;
        loop {
            let mut pairs: Vec<(String, String)> = form.iter().map(|(k, v)| ((*k).to_owned(), v.clone())).collect();
            let mut headers = vec![
                ("Content-Type".to_owned(), "application/x-www-form-urlencoded".to_owned()),
                ("Accept".to_owned(), "application/json".to_owned()),
            ];
            if let Some(client) = client {
                self.client_authentication(client, &metadata.issuer, &mut pairs, &mut headers)?;
            }
            if let Some(key) = &dpop {
                let nonce = self.state().as_nonce.clone();
                headers.push((
                    "DPoP".to_owned(),
                    jwt::dpop_proof(key, "POST", &endpoint, now_secs(), nonce.as_deref(), None)?,
                ));
            }
            let body = urls::encode_form(pairs.iter().map(|(k, v)| (k.as_str(), v.as_str())));
            let answer = self
                .bounded(|| format!("the token request to {endpoint}"), self.post(&endpoint, headers, body))
                .await?;
            if let Some(nonce) = &answer.dpop_nonce {
                self.state().as_nonce = Some(nonce.clone());
            }
            if (200..300).contains(&answer.status) {
                return parse_tokens(&answer.body, &endpoint, dpop.is_some());
            }
            let error = OAuthErrorBody::parse(&answer.body);
            if error.error.as_deref() == Some("use_dpop_nonce")
                && dpop.is_some()
                && !nonce_retried
                && answer.dpop_nonce.is_some()
            {
                nonce_retried = true;
                continue;
            }
            return Err(AuthError::TokenEndpoint {
                endpoint,
                status: answer.status,
                error: error.error,
                description: error.error_description,
            });
        }
    }

    fn client_authentication(
        &self,
        client: &ClientRegistration,
        issuer: &str,
        pairs: &mut Vec<(String, String)>,
        headers: &mut Vec<(String, String)>,
    ) -> Result<(), AuthError> {
        let method = client.token_endpoint_auth_method.as_deref().unwrap_or("none");
        match (method, &client.client_secret) {
            ("client_secret_basic", Some(secret)) => {
                use base64::Engine;
                // RFC 6749 §2.3.1: form-encode each part before joining.
                let joined = format!("{}:{}", urls::form_component(&client.client_id), urls::form_component(secret));
                let encoded = base64::engine::general_purpose::STANDARD.encode(joined);
                headers.push(("Authorization".to_owned(), format!("Basic {encoded}")));
            }
            ("client_secret_post", Some(secret)) => {
                pairs.push(("client_id".into(), client.client_id.clone()));
                pairs.push(("client_secret".into(), secret.clone()));
            }
            ("private_key_jwt", _) => {
                let key = self
                    .key
                    .as_ref()
                    .ok_or_else(|| AuthError::Config("private_key_jwt needs a private key (private_key_pem)".into()))?;
                pairs.push(("client_id".into(), client.client_id.clone()));
                pairs.push(("client_assertion_type".into(), CLIENT_ASSERTION_TYPE.into()));
                pairs.push((
                    "client_assertion".into(),
                    jwt::client_assertion(key, &client.client_id, issuer, now_secs())?,
                ));
            }
            ("client_secret_basic" | "client_secret_post", None) => {
                return Err(AuthError::Config(format!(
                    "the client {} authenticates with {method}, but no client_secret is configured",
                    client.client_id
                )));
            }
            _ => pairs.push(("client_id".into(), client.client_id.clone())),
        }
        Ok(())
    }

    // ---- grants ----

    fn choose_grant(&self, discovery: &Discovery) -> Grant {
        if let Some(grant) = &self.config.grant {
            return grant.clone();
        }
        let metadata = &discovery.metadata;
        let has_credentials =
            self.config.client_id.is_some() && (self.config.client_secret.is_some() || self.key.is_some());
        if !metadata.supports_grant("authorization_code")
            && metadata.supports_grant("client_credentials")
            && has_credentials
        {
            Grant::ClientCredentials
        } else {
            Grant::AuthorizationCode
        }
    }

    /// A full authorization with `scopes`.
    async fn authorize(&self, discovery: &Discovery, scopes: Option<Vec<String>>) -> Result<(), AuthError> {
        let scope_param = scopes.as_deref().filter(|s| !s.is_empty()).map(scope::join);
        let resource = discovery.resource.clone();
        let grant = self.choose_grant(discovery);
        log::info!("authorizing with {} for {resource} ({grant:?}, scopes {scopes:?})", discovery.metadata.issuer);
        let mut tokens = match &grant {
            Grant::AuthorizationCode => self.authorization_code(discovery, scope_param.clone()).await?,
            Grant::ClientCredentials => {
                let client = self.configured_client(discovery).ok_or_else(|| {
                    AuthError::Config("the client credentials grant needs a configured client_id".into())
                })?;
                let mut form = vec![("grant_type", "client_credentials".to_owned()), ("resource", resource.clone())];
                if let Some(scope) = &scope_param {
                    form.push(("scope", scope.clone()));
                }
                self.token_request(discovery, Some(&client), form).await?
            }
            Grant::JwtBearer { assertion } => {
                let client = self.configured_client(discovery);
                let mut form = vec![
                    ("grant_type", JWT_BEARER.to_owned()),
                    ("assertion", assertion.clone()),
                    ("resource", resource.clone()),
                ];
                if let Some(scope) = &scope_param {
                    form.push(("scope", scope.clone()));
                }
                self.token_request(discovery, client.as_ref(), form).await?
            }
            Grant::IdentityAssertion { .. } => self.identity_assertion(discovery, &grant, scope_param.clone()).await?,
        };
        if tokens.scope.is_none() {
            tokens.scope = scope_param;
        }
        log::info!("got an access token {} for {resource}", redacted(&tokens.access_token));
        {
            let mut state = self.state();
            state.record.tokens = Some(tokens);
            state.requested = scopes;
        }
        self.save().await
    }

    async fn authorization_code(&self, discovery: &Discovery, scope: Option<String>) -> Result<Tokens, AuthError> {
        let metadata = &discovery.metadata;
        metadata::check_pkce(metadata, discovery.legacy)?;
        let authorizer =
            self.authorizer.clone().ok_or_else(|| AuthError::NoAuthorizer { server: self.server_url.clone() })?;
        let endpoint = metadata.authorization_endpoint.clone().ok_or_else(|| AuthError::InvalidMetadata {
            url: metadata.issuer.clone(),
            reason: "it has no authorization_endpoint".into(),
        })?;
        let endpoint_url = metadata::check_endpoint(
            &endpoint,
            &metadata.issuer,
            "authorization_endpoint",
            self.config.allow_insecure_http,
        )?;
        let client = self.client_for(discovery, true).await?;
        let pkce = Pkce::generate().map_err(AuthError::Crypto)?;
        let state = pkce::random_string(24).map_err(AuthError::Crypto)?;
        let redirect_uri = self.config.redirect_uri.clone();
        let mut params: Vec<(&str, &str)> = vec![
            ("response_type", "code"),
            ("client_id", &client.client_id),
            ("redirect_uri", &redirect_uri),
            ("code_challenge", &pkce.challenge),
            ("code_challenge_method", "S256"),
            ("state", &state),
            ("resource", &discovery.resource),
        ];
        if let Some(scope) = &scope {
            params.push(("scope", scope));
        }
        let request = AuthorizationRequest {
            url: urls::with_query(&endpoint_url.to_string(), params),
            redirect_uri: redirect_uri.clone(),
            state: state.clone(),
        };
        let pending = PendingAuthorization {
            state: state.clone(),
            code_verifier: pkce.verifier.clone(),
            server_url: self.server_url.clone(),
            redirect_uri: redirect_uri.clone(),
            resource: discovery.resource.clone(),
            scope: scope.clone(),
            client: client.clone(),
            metadata: metadata.clone(),
            legacy: discovery.legacy,
            created_at: now_secs(),
        };
        authorizer.remember(&pending).await?;
        drop(pending);
        let timeout = self.config.authorization_timeout;
        let redirected =
            bounded(timeout, || "the authorization step".to_owned(), authorizer.authorize(&request)).await?;
        let code = check_authorization_response(&redirected, &redirect_uri, &state, metadata)?;
        let form = vec![
            ("grant_type", "authorization_code".to_owned()),
            ("code", code),
            ("redirect_uri", redirect_uri),
            ("code_verifier", pkce.verifier.clone()),
            ("resource", discovery.resource.clone()),
        ];
        let outcome = self.token_request(discovery, Some(&client), form).await;
        if let Err(AuthError::TokenEndpoint { error: Some(code), .. }) = &outcome
            && code == "invalid_client"
        {
            // A stored registration the server forgot: drop it so the next
            // attempt registers again.
            self.state().record.clients.retain(|c| c.client_id != client.client_id);
            self.save().await?;
        }
        outcome
    }

    /// SEP-990: ID token → ID-JAG at the identity provider (RFC 8693) → access
    /// token at the authorization server (RFC 7523 jwt-bearer).
    async fn identity_assertion(
        &self,
        discovery: &Discovery,
        grant: &Grant,
        scope: Option<String>,
    ) -> Result<Tokens, AuthError> {
        let Grant::IdentityAssertion { idp_token_endpoint, id_token, idp_client_id, idp_client_secret } = grant else {
            return Err(AuthError::Config("not an identity assertion grant".into()));
        };
        metadata::check_endpoint(
            idp_token_endpoint,
            "the configuration",
            "idp_token_endpoint",
            self.config.allow_insecure_http,
        )?;
        let mut form = vec![
            ("grant_type", TOKEN_EXCHANGE.to_owned()),
            ("requested_token_type", ID_JAG.to_owned()),
            ("subject_token", id_token.clone()),
            ("subject_token_type", ID_TOKEN.to_owned()),
            ("audience", discovery.metadata.issuer.clone()),
            ("resource", discovery.resource.clone()),
            ("client_id", idp_client_id.clone()),
        ];
        if let Some(secret) = idp_client_secret {
            form.push(("client_secret", secret.clone()));
        }
        if let Some(scope) = &scope {
            form.push(("scope", scope.clone()));
        }
        let headers = vec![
            ("Content-Type".to_owned(), "application/x-www-form-urlencoded".to_owned()),
            ("Accept".to_owned(), "application/json".to_owned()),
        ];
        let body = urls::encode_form(form.iter().map(|(k, v)| (*k, v.as_str())));
        let answer = self
            .bounded(
                || format!("the token exchange at {idp_token_endpoint}"),
                self.post(idp_token_endpoint, headers, body),
            )
            .await?;
        if !(200..300).contains(&answer.status) {
            let error = OAuthErrorBody::parse(&answer.body);
            return Err(AuthError::TokenEndpoint {
                endpoint: idp_token_endpoint.clone(),
                status: answer.status,
                error: error.error,
                description: error.error_description,
            });
        }
        let jag: Value = serde_json::from_slice(&answer.body).map_err(|e| AuthError::InvalidTokenResponse {
            endpoint: idp_token_endpoint.clone(),
            reason: e.to_string(),
        })?;
        let assertion = jag.get("access_token").and_then(Value::as_str).filter(|t| !t.is_empty()).ok_or_else(|| {
            AuthError::InvalidTokenResponse {
                endpoint: idp_token_endpoint.clone(),
                reason: "no ID-JAG in access_token".into(),
            }
        })?;
        let client = self.configured_client(discovery);
        let mut form = vec![
            ("grant_type", JWT_BEARER.to_owned()),
            ("assertion", assertion.to_owned()),
            ("resource", discovery.resource.clone()),
        ];
        if let Some(scope) = &scope {
            form.push(("scope", scope.clone()));
        }
        self.token_request(discovery, client.as_ref(), form).await
    }

    /// Uses the refresh token; on success the new tokens replace the old.
    async fn refresh(&self) -> Result<(), AuthError> {
        let Some(old) = self.state().record.tokens.clone() else {
            return Err(AuthError::Config("no tokens to refresh".into()));
        };
        let Some(refresh_token) = old.refresh_token.clone() else {
            return Err(AuthError::Config("no refresh token".into()));
        };
        let discovery = self.discovery_or_discover().await?;
        let client = match self.config.grant {
            None | Some(Grant::AuthorizationCode) => Some(self.client_for(&discovery, false).await?),
            _ => self.configured_client(&discovery),
        };
        let form = vec![
            ("grant_type", "refresh_token".to_owned()),
            ("refresh_token", refresh_token.clone()),
            ("resource", discovery.resource.clone()),
        ];
        let mut tokens = self.token_request(&discovery, client.as_ref(), form).await?;
        if tokens.refresh_token.is_none() {
            tokens.refresh_token = Some(refresh_token);
        }
        if tokens.scope.is_none() {
            tokens.scope = old.scope;
        }
        log::info!("refreshed the access token: {}", redacted(&tokens.access_token));
        self.state().record.tokens = Some(tokens);
        self.save().await
    }

    async fn drop_tokens(&self) -> Result<(), AuthError> {
        self.state().record.tokens = None;
        self.save().await
    }

    // ---- the transport's two questions ----

    async fn headers_for(&self, method: Method, url: &str) -> Result<Vec<(String, String)>, AuthError> {
        self.ensure_loaded().await?;
        let margin = self.config.refresh_margin.as_secs();
        let expiring =
            |t: &Tokens| t.refresh_token.is_some() && t.expires_at.is_some_and(|at| at <= now_secs() + margin);
        if self.state().record.tokens.as_ref().is_some_and(expiring) {
            let _flow = self.flow.lock().await;
            // Another request may have refreshed while this one waited.
            if self.state().record.tokens.as_ref().is_some_and(expiring)
                && let Err(error) = self.refresh().await
            {
                log::warn!("refreshing the access token failed ({error}); the next 401 starts a new authorization");
                self.drop_tokens().await?;
            }
        }
        let (tokens, dpop_key, nonce) = {
            let state = self.state();
            (state.record.tokens.clone(), state.dpop_key.clone(), state.rs_nonce.clone())
        };
        let Some(tokens) = tokens else { return Ok(Vec::new()) };
        let mut headers = vec![("Authorization".to_owned(), authorization_value(&tokens))];
        if tokens.token_type.eq_ignore_ascii_case("dpop") {
            let key = dpop_key.ok_or_else(|| AuthError::Crypto("a DPoP-bound token without its key".into()))?;
            let proof =
                jwt::dpop_proof(&key, method.as_str(), url, now_secs(), nonce.as_deref(), Some(&tokens.access_token))?;
            headers.push(("DPoP".to_owned(), proof));
        }
        Ok(headers)
    }

    async fn recover(&self, challenge: &AuthChallenge) -> Result<Recovery, AuthError> {
        let bearer = challenge::bearer(challenge.www_authenticate.iter().map(String::as_str));
        if bearer.as_ref().and_then(|b| b.error.as_deref()) == Some("use_dpop_nonce")
            && let Some(nonce) = &challenge.dpop_nonce
        {
            self.state().rs_nonce = Some(nonce.clone());
            return Ok(Recovery::Nonce);
        }
        let _flow = self.flow.lock().await;
        self.ensure_loaded().await?;
        let current = self.current_fingerprint();
        if current.is_some() && current != challenge.rejected {
            // Someone got new credentials while this request was out.
            return Ok(Recovery::Credentials);
        }
        let version = challenge.protocol_version.as_deref();
        match challenge.status {
            403 => self.step_up(bearer.unwrap_or_default(), version).await.map(|()| Recovery::Credentials),
            _ => {
                // Discovery runs again on every 401: the server may have
                // moved to another authorization server, whose tokens (and
                // client registration) the old one cannot provide.
                let previous = self.state().discovery.as_ref().map(|d| d.metadata.issuer.clone());
                let bearer = bearer.unwrap_or_default();
                let discovery = self.discover(bearer.resource_metadata.as_deref(), version).await?;
                let moved = previous.as_ref().is_some_and(|p| *p != discovery.metadata.issuer);
                if moved {
                    log::info!(
                        "{} now uses the authorization server {}: authorizing there",
                        self.server_url,
                        discovery.metadata.issuer
                    );
                }
                let has_refresh = self.state().record.tokens.as_ref().is_some_and(|t| t.refresh_token.is_some());
                if has_refresh && challenge.rejected.is_some() && !moved {
                    match self.refresh().await {
                        Ok(()) => return Ok(Recovery::Credentials),
                        Err(error) => log::info!("refresh after 401 failed ({error}); authorizing again"),
                    }
                }
                if challenge.rejected.is_some() || moved {
                    self.drop_tokens().await?;
                }
                let scopes = self.config.scopes.clone().or_else(|| {
                    scope::select(
                        bearer.scope.as_deref(),
                        discovery.protected_resource.as_ref().and_then(|p| p.scopes_supported.as_deref()),
                    )
                });
                self.count_attempt(&scopes).map_err(|_| AuthError::TokensRejected {
                    server: self.server_url.clone(),
                    attempts: self.config.max_step_up_attempts.max(1),
                })?;
                self.authorize(&discovery, scopes).await.map(|()| Recovery::Credentials)
            }
        }
    }

    async fn step_up(&self, bearer: BearerChallenge, version: Option<&str>) -> Result<(), AuthError> {
        let held = self.state().requested.clone();
        let base = held.or_else(|| self.config.scopes.clone());
        let scopes = scope::union(base.as_deref(), bearer.scope.as_deref());
        self.count_attempt(&scopes)?;
        let discovery = self.discover(bearer.resource_metadata.as_deref(), version).await?;
        log::info!("step-up: the server needs scopes {:?}; authorizing with {scopes:?}", bearer.scope);
        self.authorize(&discovery, scopes).await
    }

    /// Counts an authorization for this scope set; refuses past the bound.
    fn count_attempt(&self, scopes: &Option<Vec<String>>) -> Result<(), AuthError> {
        let mut key = scopes.clone().unwrap_or_default();
        key.sort();
        let limit = self.config.max_step_up_attempts.max(1);
        let mut state = self.state();
        let entry = match state.attempts.iter().position(|(k, _)| *k == key) {
            Some(index) => &mut state.attempts[index].1,
            None => {
                state.attempts.push((key.clone(), 0));
                let last = state.attempts.len() - 1;
                &mut state.attempts[last].1
            }
        };
        if *entry >= limit {
            return Err(AuthError::InsufficientScope { scopes: key, attempts: *entry });
        }
        *entry += 1;
        Ok(())
    }
}

impl<H: HttpClient> AuthProvider for OAuthProvider<H> {
    fn headers<'a>(&'a self, method: Method, url: &'a str) -> BoxFuture<'a, Result<Vec<(String, String)>, AuthError>> {
        boxed(self.headers_for(method, url))
    }

    fn challenged<'a>(&'a self, challenge: &'a AuthChallenge) -> BoxFuture<'a, Result<Recovery, AuthError>> {
        boxed(self.recover(challenge))
    }

    /// The authorization page's limit when there is an authorizer, plus
    /// discovery, registration and the token request.
    fn interaction_timeout(&self) -> Duration {
        let exchanges = self.config.http_timeout * 4;
        match self.authorizer {
            Some(_) => self.config.authorization_timeout + exchanges,
            None => exchanges,
        }
    }
}

struct Answer {
    status: u16,
    body: Vec<u8>,
    dpop_nonce: Option<String>,
}

#[derive(Default, Deserialize)]
struct OAuthErrorBody {
    #[serde(default)]
    error: Option<String>,
    #[serde(default)]
    error_description: Option<String>,
}

impl OAuthErrorBody {
    fn parse(body: &[u8]) -> OAuthErrorBody {
        let mut parsed: OAuthErrorBody = serde_json::from_slice(body).unwrap_or_default();
        // Never echo more than a line of whatever the server sent.
        parsed.error_description = parsed.error_description.map(|d| d.chars().take(300).collect());
        parsed.error = parsed.error.map(|e| e.chars().take(100).collect());
        parsed
    }
}

/// The `Authorization` header value for tokens.
fn authorization_value(tokens: &Tokens) -> String {
    if tokens.token_type.eq_ignore_ascii_case("dpop") {
        format!("DPoP {}", tokens.access_token)
    } else {
        format!("Bearer {}", tokens.access_token)
    }
}

fn parse_tokens(body: &[u8], endpoint: &str, dpop: bool) -> Result<Tokens, AuthError> {
    #[derive(Deserialize)]
    struct TokenResponse {
        access_token: String,
        token_type: String,
        #[serde(default)]
        expires_in: Option<Value>,
        #[serde(default)]
        refresh_token: Option<String>,
        #[serde(default)]
        scope: Option<String>,
    }
    let invalid = |reason: String| AuthError::InvalidTokenResponse { endpoint: endpoint.to_owned(), reason };
    let response: TokenResponse =
        serde_json::from_slice(body).map_err(|e| invalid(format!("not a token response: {e}")))?;
    if response.access_token.is_empty() {
        return Err(invalid("the access_token is empty".into()));
    }
    let token_type = if response.token_type.eq_ignore_ascii_case("bearer") {
        "Bearer"
    } else if response.token_type.eq_ignore_ascii_case("dpop") && dpop {
        "DPoP"
    } else {
        return Err(invalid(format!("the token_type {:?} is not Bearer", response.token_type)));
    };
    let expires_in = match response.expires_in {
        Some(Value::Number(n)) => n.as_u64(),
        Some(Value::String(s)) => s.parse::<u64>().ok(),
        _ => None,
    };
    Ok(Tokens {
        access_token: response.access_token,
        token_type: token_type.into(),
        refresh_token: response.refresh_token.filter(|t| !t.is_empty()),
        expires_at: expires_in.map(|secs| now_secs().saturating_add(secs)),
        scope: response.scope,
    })
}

/// Checks the redirect the authorizer came back with and returns the code.
pub fn check_authorization_response(
    redirected: &str,
    redirect_uri: &str,
    state: &str,
    metadata: &AuthorizationServerMetadata,
) -> Result<String, AuthError> {
    let url = Url::parse(redirected).map_err(|e| AuthError::InvalidAuthorizationResponse(format!("not a URL: {e}")))?;
    let expected = Url::parse(redirect_uri).map_err(|e| AuthError::Config(format!("redirect_uri: {e}")))?;
    if !url.same_origin(&expected) || url.path != expected.path {
        return Err(AuthError::InvalidAuthorizationResponse(format!(
            "it went to {}{}, not to the redirect URI",
            url.origin(),
            url.path
        )));
    }
    let pairs = url.query_pairs();
    let get = |name: &str| pairs.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone());
    if get("state").as_deref() != Some(state) {
        return Err(AuthError::StateMismatch);
    }
    // RFC 9207: an advertised `iss` must be there; any `iss` must match exactly.
    match (get("iss"), metadata.authorization_response_iss_parameter_supported == Some(true)) {
        (Some(iss), _) if iss != metadata.issuer => {
            return Err(AuthError::IssuerParameterMismatch { expected: metadata.issuer.clone(), found: Some(iss) });
        }
        (None, true) => {
            return Err(AuthError::IssuerParameterMismatch { expected: metadata.issuer.clone(), found: None });
        }
        _ => {}
    }
    if let Some(error) = get("error") {
        return Err(AuthError::AuthorizationDenied {
            error: error.chars().take(100).collect(),
            description: get("error_description").map(|d| d.chars().take(300).collect()),
        });
    }
    get("code")
        .filter(|c| !c.is_empty())
        .ok_or_else(|| AuthError::InvalidAuthorizationResponse("it carries neither a code nor an error".into()))
}

async fn bounded<T>(
    limit: Duration,
    what: impl FnOnce() -> String,
    future: impl Future<Output = Result<T, AuthError>> + MaybeSend,
) -> Result<T, AuthError> {
    use futures::future::{Either, select};
    match select(Box::pin(future), Box::pin(crate::runtime::sleep(limit))).await {
        Either::Left((outcome, _)) => outcome,
        Either::Right(_) => Err(AuthError::Timeout { what: what(), seconds: limit.as_secs() }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn metadata(iss_supported: Option<bool>) -> AuthorizationServerMetadata {
        AuthorizationServerMetadata {
            issuer: "http://localhost:6".into(),
            authorization_response_iss_parameter_supported: iss_supported,
            ..Default::default()
        }
    }

    const CB: &str = "http://localhost:3000/callback";

    #[test]
    fn authorization_responses() {
        let m = metadata(None);
        assert_eq!(check_authorization_response(&format!("{CB}?code=abc&state=s1"), CB, "s1", &m).unwrap(), "abc");
        assert_eq!(
            check_authorization_response(&format!("{CB}?code=abc"), CB, "s1", &m),
            Err(AuthError::StateMismatch)
        );
        assert_eq!(
            check_authorization_response(&format!("{CB}?code=abc&state=s2"), CB, "s1", &m),
            Err(AuthError::StateMismatch)
        );
        assert!(matches!(
            check_authorization_response(
                &format!("{CB}?error=access_denied&error_description=no&state=s1"),
                CB,
                "s1",
                &m
            ),
            Err(AuthError::AuthorizationDenied { .. })
        ));
        assert!(matches!(
            check_authorization_response("https://evil.example/callback?code=abc&state=s1", CB, "s1", &m),
            Err(AuthError::InvalidAuthorizationResponse(_))
        ));
        assert!(matches!(
            check_authorization_response(&format!("{CB}?state=s1"), CB, "s1", &m),
            Err(AuthError::InvalidAuthorizationResponse(_))
        ));
    }

    #[test]
    fn rfc9207_issuer_parameter() {
        let advertised = metadata(Some(true));
        let ok = format!("{CB}?code=c&state=s&iss=http%3A%2F%2Flocalhost%3A6");
        assert!(check_authorization_response(&ok, CB, "s", &advertised).is_ok());
        let missing = format!("{CB}?code=c&state=s");
        assert!(matches!(
            check_authorization_response(&missing, CB, "s", &advertised),
            Err(AuthError::IssuerParameterMismatch { found: None, .. })
        ));
        let normalized = format!("{CB}?code=c&state=s&iss=http%3A%2F%2Flocalhost%3A6%2F");
        assert!(check_authorization_response(&normalized, CB, "s", &advertised).is_err());
        let unexpected = format!("{CB}?code=c&state=s&iss=https%3A%2F%2Fevil.example.com");
        assert!(check_authorization_response(&unexpected, CB, "s", &metadata(None)).is_err());
        assert!(check_authorization_response(&missing, CB, "s", &metadata(None)).is_ok());
    }

    #[test]
    fn token_responses() {
        let tokens =
            parse_tokens(br#"{"access_token":"t","token_type":"bearer","expires_in":60}"#, "e", false).unwrap();
        assert_eq!(tokens.token_type, "Bearer");
        assert!(tokens.expires_at.is_some());
        assert!(parse_tokens(br#"{"access_token":"t","token_type":"mac"}"#, "e", false).is_err());
        assert!(parse_tokens(br#"{"access_token":"","token_type":"Bearer"}"#, "e", false).is_err());
        assert!(parse_tokens(br#"{"token_type":"Bearer"}"#, "e", false).is_err());
        assert!(parse_tokens(b"<html>", "e", false).is_err());
        assert!(parse_tokens(br#"{"access_token":"t","token_type":"DPoP"}"#, "e", false).is_err());
        assert!(parse_tokens(br#"{"access_token":"t","token_type":"DPoP"}"#, "e", true).is_ok());
    }

    #[test]
    fn fingerprints_do_not_contain_the_token() {
        let print = fingerprint("Bearer secret-token-value");
        assert_eq!(print.len(), 16);
        assert!(!print.contains("secret"));
        assert_ne!(print, fingerprint("Bearer other"));
    }
}
