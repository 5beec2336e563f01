//! What the flow remembers per MCP server, and where it keeps it.
//!
//! The [`TokenStore`] seam lets each platform keep tokens where it should:
//! memory here; in the JS API `sessionStorage` (the default in a page),
//! `localStorage` or the app's own `{ load, save, clear }`; later the OS
//! keychain natively.

use std::sync::Mutex;

use serde::Serialize;

use super::error::AuthError;
use crate::protocol::build::{Builder, unless_empty};
use crate::protocol::fields::{Fields, deserialize_by_fields};
use crate::runtime::{BoxFuture, MaybeSend, MaybeSync, boxed};

/// Tokens from a token endpoint.
#[derive(Clone, PartialEq, Eq, Serialize)]
pub struct Tokens {
    /// The access token.
    pub access_token: String,
    /// `Bearer` (or `DPoP`).
    pub token_type: String,
    /// The refresh token, if one was issued (rotated on every refresh).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub refresh_token: Option<String>,
    /// When the access token expires, in seconds since the Unix epoch.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub expires_at: Option<u64>,
    /// When it was issued (seconds since the Unix epoch): with `expires_at`
    /// it gives the token's lifetime, which bounds the refresh margin.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub issued_at: Option<u64>,
    /// The scopes granted, space-separated, when the server said.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scope: Option<String>,
}

impl std::fmt::Debug for Tokens {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        crate::debug::debug_struct(f, "Tokens")
            .field("access_token", &redacted(&self.access_token))
            .field("token_type", &self.token_type)
            .field("refresh_token", &self.refresh_token.as_deref().map(redacted))
            .field("expires_at", &self.expires_at)
            .field("issued_at", &self.issued_at)
            .field("scope", &self.scope)
            .finish()
    }
}

deserialize_by_fields!(Tokens);

impl Tokens {
    fn from_fields(fields: &mut Fields) -> Result<Self, String> {
        let value = Tokens {
            access_token: fields.required_string("access_token"),
            token_type: fields.required_string("token_type"),
            refresh_token: fields.string("refresh_token"),
            expires_at: fields.unsigned("expires_at"),
            issued_at: fields.unsigned("issued_at"),
            scope: fields.string("scope"),
        };
        fields.done(value)
    }

    /// As JSON, the same as its `Serialize` writes it (`protocol::build`).
    // What the file and web stores write; a wasm32 build without the JS face has neither.
    #[cfg_attr(all(target_arch = "wasm32", not(feature = "js")), allow(dead_code))]
    pub(crate) fn to_value(&self) -> serde_json::Value {
        Builder::new()
            .text("access_token", Some(&self.access_token))
            .text("token_type", Some(&self.token_type))
            .text("refresh_token", self.refresh_token.as_deref())
            .unsigned("expires_at", self.expires_at)
            .unsigned("issued_at", self.issued_at)
            .text("scope", self.scope.as_deref())
            .done()
    }

    /// How long before expiry a refresh is due: `margin`, but at most half
    /// the token's lifetime, so a token that lives 60 s or less is not
    /// "expiring" from the moment it is issued (and its successor is not
    /// either: one expiry, one refresh).
    pub fn refresh_margin(&self, margin: u64) -> u64 {
        match (self.issued_at, self.expires_at) {
            (Some(issued), Some(expires)) => margin.min(expires.saturating_sub(issued) / 2),
            _ => margin,
        }
    }

    /// Whether the access token should be refreshed at `now`: it has a
    /// refresh token and expires within [`Tokens::refresh_margin`].
    pub fn refresh_due(&self, now: u64, margin: u64) -> bool {
        self.refresh_token.is_some()
            && self.expires_at.is_some_and(|at| now.saturating_add(self.refresh_margin(margin)) >= at)
    }
}

/// At most a short prefix of a secret, for logs.
pub fn redacted(secret: &str) -> String {
    let prefix: String = secret.chars().take(4).collect();
    format!("{prefix}… ({} chars)", secret.chars().count())
}

/// How this client is known to an authorization server.
#[derive(Clone, PartialEq, Eq, Serialize)]
pub struct ClientRegistration {
    /// The issuer it is registered with.
    pub issuer: String,
    /// The client id.
    pub client_id: String,
    /// The secret of a confidential client.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub client_secret: Option<String>,
    /// `none`, `client_secret_basic`, `client_secret_post`, `private_key_jwt`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub token_endpoint_auth_method: Option<String>,
    /// When the secret expires (RFC 7591 `client_secret_expires_at`; 0 = never).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub client_secret_expires_at: Option<u64>,
    /// The redirect URIs it was registered with (empty: not known).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub redirect_uris: Vec<String>,
}

deserialize_by_fields!(ClientRegistration);

impl ClientRegistration {
    pub(crate) fn from_fields(fields: &mut Fields) -> Result<Self, String> {
        let value = ClientRegistration {
            issuer: fields.required_string("issuer"),
            client_id: fields.required_string("client_id"),
            client_secret: fields.string("client_secret"),
            token_endpoint_auth_method: fields.string("token_endpoint_auth_method"),
            client_secret_expires_at: fields.unsigned("client_secret_expires_at"),
            redirect_uris: fields.strings("redirect_uris").unwrap_or_default(),
        };
        fields.done(value)
    }

    /// As JSON, the same as its `Serialize` writes it (`protocol::build`).
    // What the file and web stores write; a wasm32 build without the JS face has neither.
    #[cfg_attr(all(target_arch = "wasm32", not(feature = "js")), allow(dead_code))]
    pub(crate) fn to_value(&self) -> serde_json::Value {
        Builder::new()
            .text("issuer", Some(&self.issuer))
            .text("client_id", Some(&self.client_id))
            .text("client_secret", self.client_secret.as_deref())
            .text("token_endpoint_auth_method", self.token_endpoint_auth_method.as_deref())
            .unsigned("client_secret_expires_at", self.client_secret_expires_at)
            .texts("redirect_uris", unless_empty(&self.redirect_uris))
            .done()
    }
}

impl std::fmt::Debug for ClientRegistration {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        crate::debug::debug_struct(f, "ClientRegistration")
            .field("issuer", &self.issuer)
            .field("client_id", &self.client_id)
            .field("client_secret", &self.client_secret.as_ref().map(|_| "<redacted>"))
            .field("token_endpoint_auth_method", &self.token_endpoint_auth_method)
            .field("redirect_uris", &self.redirect_uris)
            .finish()
    }
}

/// Everything kept for one MCP server.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct AuthRecord {
    /// The current tokens.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tokens: Option<Tokens>,
    /// Dynamic registrations, one per authorization server.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub clients: Vec<ClientRegistration>,
}

deserialize_by_fields!(AuthRecord);

impl AuthRecord {
    fn from_fields(fields: &mut Fields) -> Result<Self, String> {
        let value = AuthRecord {
            tokens: fields.nested("tokens", Tokens::from_fields),
            clients: fields.objects("clients", ClientRegistration::from_fields),
        };
        fields.done(value)
    }

    /// As JSON, the same as its `Serialize` writes it (`protocol::build`).
    // What the file and web stores write; a wasm32 build without the JS face has neither.
    #[cfg_attr(all(target_arch = "wasm32", not(feature = "js")), allow(dead_code))]
    pub(crate) fn to_value(&self) -> serde_json::Value {
        let clients = unless_empty(&self.clients)
            .map(|clients| serde_json::Value::Array(clients.iter().map(ClientRegistration::to_value).collect()));
        Builder::new().value("tokens", self.tokens.as_ref().map(Tokens::to_value)).value("clients", clients).done()
    }
}

/// Where tokens and client registrations live, keyed by MCP server URL.
/// Implementations must keep them where other code and other origins
/// cannot read them (OAuth 2.1 §7.1).
pub trait TokenStore: std::fmt::Debug + MaybeSend + MaybeSync + 'static {
    /// The record for a server, if any.
    fn load<'a>(&'a self, server: &'a str) -> BoxFuture<'a, Result<Option<AuthRecord>, AuthError>>;
    /// Replaces the record for a server.
    fn save<'a>(&'a self, server: &'a str, record: &'a AuthRecord) -> BoxFuture<'a, Result<(), AuthError>>;
    /// Forgets a server (sign-out).
    fn clear<'a>(&'a self, server: &'a str) -> BoxFuture<'a, Result<(), AuthError>>;

    /// Whether records outlive this session (a file, `localStorage`, the
    /// app's own storage): then a refresh token is worth asking for, and the
    /// flow adds `offline_access` where the authorization server lists it.
    fn persistent(&self) -> bool {
        false
    }

    /// Holds other processes (or tabs) sharing this store off `server`'s
    /// record until the returned guard is dropped. The flow takes it around
    /// read - refresh - write, and reads the record again once it has it, so
    /// a refresh token rotated by someone else is never presented twice (an
    /// authorization server that detects reuse revokes the whole grant).
    /// The default holds nothing: a store only this process uses.
    fn lock<'a>(&'a self, server: &'a str) -> BoxFuture<'a, Result<StoreLock, AuthError>> {
        let _ = server;
        boxed(async { Ok(StoreLock::none()) })
    }
}

/// What [`TokenStore::lock`] holds; dropping it lets the others in.
pub struct StoreLock {
    _held: Option<Box<dyn Held>>,
}

/// Anything a [`StoreLock`] can hold (a locked file, a Web Lock's release).
trait Held: MaybeSend {}
impl<T: MaybeSend> Held for T {}

impl StoreLock {
    /// A guard that holds nothing.
    pub fn none() -> Self {
        StoreLock { _held: None }
    }

    /// A guard that releases the lock when `held` is dropped.
    pub fn holding(held: impl MaybeSend + 'static) -> Self {
        StoreLock { _held: Some(Box::new(held)) }
    }
}

impl std::fmt::Debug for StoreLock {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        crate::debug::debug_struct(f, "StoreLock").field("held", &self._held.is_some()).finish()
    }
}

/// Keeps records in memory for the life of the process (or page).
#[derive(Default)]
pub struct MemoryTokenStore {
    /// By server: a list, as a client signs in to a few (a map type of its
    /// own is some 2 KB of wasm).
    records: Mutex<Vec<(String, AuthRecord)>>,
}

impl std::fmt::Debug for MemoryTokenStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        crate::debug::debug_struct(f, "MemoryTokenStore").field("servers", &ServerNames(self)).finish()
    }
}

/// The servers a `MemoryTokenStore` holds records for, read when printed.
struct ServerNames<'a>(&'a MemoryTokenStore);

impl std::fmt::Debug for ServerNames<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.0.lock().iter().map(|(server, _)| server)).finish()
    }
}

impl MemoryTokenStore {
    /// An empty store.
    pub fn new() -> Self {
        MemoryTokenStore::default()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<(String, AuthRecord)>> {
        self.records.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

impl TokenStore for MemoryTokenStore {
    fn load<'a>(&'a self, server: &'a str) -> BoxFuture<'a, Result<Option<AuthRecord>, AuthError>> {
        let record = self.lock().iter().find(|(held, _)| held == server).map(|(_, record)| record.clone());
        boxed(async move { Ok(record) })
    }

    fn save<'a>(&'a self, server: &'a str, record: &'a AuthRecord) -> BoxFuture<'a, Result<(), AuthError>> {
        let mut records = self.lock();
        match records.iter_mut().find(|(held, _)| held == server) {
            Some((_, kept)) => *kept = record.clone(),
            None => records.push((server.to_owned(), record.clone())),
        }
        boxed(async { Ok(()) })
    }

    fn clear<'a>(&'a self, server: &'a str) -> BoxFuture<'a, Result<(), AuthError>> {
        self.lock().retain(|(held, _)| held != server);
        boxed(async { Ok(()) })
    }
}

#[cfg(test)]
mod tests {
    use serde_json::Value;

    use super::*;
    use crate::auth::PendingAuthorization;
    use crate::auth::metadata::AuthorizationServerMetadata;

    fn serialized(value: &impl Serialize) -> Value {
        serde_json::to_value(value).expect("serializes")
    }

    fn tokens(issued_at: Option<u64>, expires_at: Option<u64>) -> Tokens {
        Tokens {
            access_token: "a".into(),
            token_type: "Bearer".into(),
            refresh_token: Some("r".into()),
            expires_at,
            issued_at,
            scope: None,
        }
    }

    #[test]
    fn the_refresh_margin_scales_with_the_lifetime() {
        // An hour-long token: the configured 60 s.
        assert_eq!(tokens(Some(1000), Some(4600)).refresh_margin(60), 60);
        // A 30 s token: half of it, so it is fresh when issued.
        let short = tokens(Some(1000), Some(1030));
        assert_eq!(short.refresh_margin(60), 15);
        assert!(!short.refresh_due(1000, 60));
        assert!(!short.refresh_due(1014, 60));
        assert!(short.refresh_due(1015, 60));
        // A token from an older store (no issued_at): the configured margin.
        assert!(tokens(None, Some(1030)).refresh_due(1000, 60));
        // No expiry or no refresh token: never due.
        assert!(!tokens(Some(1000), None).refresh_due(5000, 60));
        let mut without = short.clone();
        without.refresh_token = None;
        assert!(!without.refresh_due(2000, 60));
    }

    #[test]
    fn auth_records_are_written_as_serialize_writes_them() {
        let tokens = Tokens {
            access_token: "at".into(),
            token_type: "Bearer".into(),
            refresh_token: Some("rt".into()),
            expires_at: Some(2),
            issued_at: Some(1),
            scope: Some("a b".into()),
        };
        let bare = Tokens { refresh_token: None, expires_at: None, issued_at: None, scope: None, ..tokens.clone() };
        for tokens in [&tokens, &bare] {
            assert_eq!(tokens.to_value(), serialized(tokens));
        }

        let client = ClientRegistration {
            issuer: "https://as.example".into(),
            client_id: "id".into(),
            client_secret: Some("secret".into()),
            token_endpoint_auth_method: Some("client_secret_basic".into()),
            client_secret_expires_at: Some(0),
            redirect_uris: vec!["http://127.0.0.1/cb".into()],
        };
        let public = ClientRegistration {
            client_secret: None,
            token_endpoint_auth_method: None,
            client_secret_expires_at: None,
            redirect_uris: Vec::new(),
            ..client.clone()
        };
        for client in [&client, &public] {
            assert_eq!(client.to_value(), serialized(client));
        }

        for record in
            [AuthRecord::default(), AuthRecord { tokens: Some(tokens), clients: vec![client.clone(), public] }]
        {
            assert_eq!(record.to_value(), serialized(&record));
        }

        let bare = AuthorizationServerMetadata { issuer: "https://as.example".into(), ..Default::default() };
        let full = AuthorizationServerMetadata {
            authorization_endpoint: Some("https://as.example/authorize".into()),
            token_endpoint: Some("https://as.example/token".into()),
            registration_endpoint: Some("https://as.example/register".into()),
            scopes_supported: Some(vec!["a".into()]),
            response_types_supported: Some(vec!["code".into()]),
            grant_types_supported: Some(Vec::new()),
            token_endpoint_auth_methods_supported: Some(vec!["none".into()]),
            token_endpoint_auth_signing_alg_values_supported: Some(vec!["ES256".into()]),
            code_challenge_methods_supported: Some(vec!["S256".into()]),
            client_id_metadata_document_supported: Some(true),
            authorization_response_iss_parameter_supported: Some(false),
            dpop_signing_alg_values_supported: Some(vec!["ES256".into()]),
            ..bare.clone()
        };
        for metadata in [&bare, &full] {
            assert_eq!(metadata.to_value(), serialized(metadata));
        }

        let mut pending = PendingAuthorization {
            state: "s".into(),
            code_verifier: "v".into(),
            server_url: "https://mcp.example/mcp".into(),
            redirect_uri: "http://127.0.0.1/cb".into(),
            resource: "https://mcp.example/mcp".into(),
            scope: None,
            client,
            metadata: full,
            legacy: false,
            created_at: 7,
        };
        assert_eq!(pending.to_value(), serialized(&pending));
        pending.scope = Some("a".into());
        pending.legacy = true;
        assert_eq!(pending.to_value(), serialized(&pending));
    }
}
