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
//!
//! The flow is spread over one file per step, all of them methods on
//! [`OAuthProvider`]:
//! - `discovery`: protected resource metadata, then the
//!   authorization server's metadata (or the 2025-03-26 defaults);
//! - `registration`: which client identity to use,
//!   registering dynamically when there is none;
//! - `grants`: choosing and running a grant (client
//!   credentials, JWT bearer, ID-JAG), and
//!   `authorization_code`: the one with a person
//!   in it (PKCE, the authorizer, the redirect back);
//! - `tokens`: token requests with client authentication and
//!   DPoP, token responses, refresh;
//! - `recovery`: what the transport asks for each request
//!   (headers) and after a 401/403 (recovery, step-up);
//! - `fetch`: the bounded HTTP exchanges under all of them.
//!
//! This file holds the types, the provider's state and its public surface.

mod authorization_code;
mod discovery;
mod fetch;
mod grants;
mod recovery;
mod registration;
mod tokens;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use super::authorizer::Authorizer;
use super::config::AuthConfig;
use super::error::AuthError;
use super::jwt::Es256Key;
use super::metadata::{AuthorizationServerMetadata, ProtectedResourceMetadata};
use super::pkce;
use super::resource;
use super::store::{AuthRecord, MemoryTokenStore, TokenStore, Tokens};
use crate::http::url::Url;
use crate::http::{DefaultHttp, HttpClient, Method};
use crate::runtime::turns::Turns;
use crate::runtime::{BoxFuture, MaybeSend, MaybeSync, boxed};

use crate::debug::Quoted;
use tokens::authorization_value;

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
        crate::debug::debug_struct(f, "AuthChallenge")
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

    /// A 401 that no new token can cure, in words (e.g. a server that takes
    /// Bearer only refusing a DPoP-bound token): the request fails with it
    /// instead of the bare status. `None` (the default) lets the usual
    /// recovery run.
    fn refused(&self, challenge: &AuthChallenge) -> Option<AuthError> {
        let _ = challenge;
        None
    }

    /// The longest [`AuthProvider::challenged`] may take (a person signing
    /// in, plus the exchanges around it): an upper bound for callers that
    /// want one. Connecting does not add it to any timeout; it leaves out
    /// the time actually spent signing in ([`AuthProvider::interaction_time`]).
    /// Zero by default.
    fn interaction_timeout(&self) -> Duration {
        Duration::ZERO
    }

    /// How long, in all, this provider has waited for a person so far (an
    /// authorization page), a wait still under way included. Connecting and
    /// every request leave that time out of their deadline: the allowance
    /// for signing in is given only while someone actually signs in.
    fn interaction_time(&self) -> Duration {
        Duration::ZERO
    }
}

/// The time spent waiting for a person, summed over every authorization.
#[derive(Debug, Default)]
pub(crate) struct InteractionClock {
    /// Milliseconds of finished waits, and when the current one began.
    spent: Mutex<(f64, Option<f64>)>,
}

impl InteractionClock {
    fn spent(&self) -> std::sync::MutexGuard<'_, (f64, Option<f64>)> {
        self.spent.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Counts the time `wait` takes, from now (the caller awaits it at
    /// once). A combinator, not an `async fn`: no state machine of its own.
    pub(crate) fn count<'a, T>(
        &'a self,
        wait: impl std::future::Future<Output = T> + 'a,
    ) -> impl std::future::Future<Output = T> + 'a {
        use futures::FutureExt;
        self.spent().1 = Some(crate::runtime::now_millis());
        wait.map(move |outcome| {
            let mut spent = self.spent();
            if let Some(began) = spent.1.take() {
                spent.0 += (crate::runtime::now_millis() - began).max(0.0);
            }
            outcome
        })
    }

    /// Everything counted so far, the wait under way included.
    pub(crate) fn total(&self) -> Duration {
        let spent = self.spent();
        let running = spent.1.map(|began| (crate::runtime::now_millis() - began).max(0.0)).unwrap_or(0.0);
        crate::runtime::duration_from_millis(spent.0 + running)
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
    /// Why tokens are DPoP-bound: the MCP server asked (its challenge or
    /// metadata) or the configuration says so; `None`: Bearer.
    dpop_reason: Option<&'static str>,
    /// The key DPoP proofs are signed with, once the server wants them.
    dpop_key: Option<Es256Key>,
    /// The resource server's latest DPoP nonce.
    rs_nonce: Option<String>,
    /// The authorization server's latest DPoP nonce.
    as_nonce: Option<String>,
}

/// The OAuth 2.1 client for one MCP server. Give it to a transport's
/// `auth` option (`StreamableHttpOptions::auth`, `LegacySseOptions::auth`).
pub struct OAuthProvider<H: HttpClient = DefaultHttp> {
    http: H,
    server_url: String,
    store_key: String,
    config: AuthConfig,
    key: Option<Es256Key>,
    authorizer: Option<Arc<dyn Authorizer>>,
    store: Arc<dyn TokenStore>,
    state: Mutex<State>,
    /// One flow (sign-in, refresh, recovery, sign-out) at a time.
    flow: Arc<Turns>,
    /// Time spent on authorization pages (see [`AuthProvider::interaction_time`]).
    interaction: InteractionClock,
}

impl<H: HttpClient> std::fmt::Debug for OAuthProvider<H> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        crate::debug::debug_struct(f, "OAuthProvider")
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
    /// client should not follow redirects itself, unless it refuses those to
    /// other origins and says so ([`HttpClient::follows_redirects`], as the
    /// web's `fetch` client does): discovery refuses cross-origin redirects.
    pub fn with_http(http: H, server_url: &str, config: AuthConfig) -> Result<Self, AuthError> {
        let store_key = resource::canonical(server_url).map_err(AuthError::Config)?;
        let key = match &config.private_key_pem {
            Some(pem) => Some(Es256Key::from_pem(pem, config.key_id.clone())?),
            None => None,
        };
        if let Some(cimd) = &config.client_metadata_url {
            let url = Url::parse(cimd)
                .map_err(|e| AuthError::Config(format!("client_metadata_url {cimd}: {e}", cimd = Quoted(cimd))))?;
            if url.scheme != "https" || url.path.len() <= 1 {
                return Err(AuthError::Config(format!(
                    "client_metadata_url {cimd} must be an https URL with a path",
                    cimd = Quoted(cimd)
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
            flow: Turns::new(1),
            interaction: InteractionClock::default(),
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

    /// Forgets the tokens (sign-out); registrations are kept.
    pub async fn sign_out(&self) -> Result<(), AuthError> {
        let _flow = self.flow.clone().acquire().await;
        // Read first: saving a record never loaded would drop the stored
        // registrations with the tokens.
        self.ensure_loaded().await?;
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

    /// Takes what the store holds now (another process or tab may have
    /// refreshed): called with the store's lock held.
    async fn reload(&self) -> Result<(), AuthError> {
        let Some(record) = self.store.load(&self.store_key).await? else { return Ok(()) };
        let mut state = self.state();
        if state.record != record {
            log::debug!("the token store changed since it was read: using what another process stored");
            state.record = record;
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
}

impl<H: HttpClient> AuthProvider for OAuthProvider<H> {
    fn headers<'a>(&'a self, method: Method, url: &'a str) -> BoxFuture<'a, Result<Vec<(String, String)>, AuthError>> {
        boxed(self.headers_for(method, url))
    }

    fn challenged<'a>(&'a self, challenge: &'a AuthChallenge) -> BoxFuture<'a, Result<Recovery, AuthError>> {
        boxed(self.recover(challenge))
    }

    fn refused(&self, challenge: &AuthChallenge) -> Option<AuthError> {
        self.dpop_refusal(challenge)
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

    fn interaction_time(&self) -> Duration {
        self.interaction.total()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fingerprints_do_not_contain_the_token() {
        let print = fingerprint("Bearer secret-token-value");
        assert_eq!(print.len(), 16);
        assert!(!print.contains("secret"));
        assert_ne!(print, fingerprint("Bearer other"));
    }
}
