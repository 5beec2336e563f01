//! What the flow remembers per MCP server, and where it keeps it.
//!
//! The [`TokenStore`] seam lets each platform keep tokens where it should:
//! memory here; in the JS API `sessionStorage` (the default in a page),
//! `localStorage` or the app's own `{ load, save, clear }`; later the OS
//! keychain natively.

use std::collections::HashMap;
use std::sync::Mutex;

use serde::{Deserialize, Serialize};

use super::error::AuthError;
use crate::runtime::{BoxFuture, MaybeSend, MaybeSync, boxed};

/// Tokens from a token endpoint.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Tokens {
    /// The access token.
    pub access_token: String,
    /// `Bearer` (or `DPoP`).
    pub token_type: String,
    /// The refresh token, if one was issued (rotated on every refresh).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refresh_token: Option<String>,
    /// When the access token expires, in seconds since the Unix epoch.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expires_at: Option<u64>,
    /// The scopes granted, space-separated, when the server said.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scope: Option<String>,
}

impl std::fmt::Debug for Tokens {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tokens")
            .field("access_token", &redacted(&self.access_token))
            .field("token_type", &self.token_type)
            .field("refresh_token", &self.refresh_token.as_deref().map(redacted))
            .field("expires_at", &self.expires_at)
            .field("scope", &self.scope)
            .finish()
    }
}

/// At most a short prefix of a secret, for logs.
pub fn redacted(secret: &str) -> String {
    let prefix: String = secret.chars().take(4).collect();
    format!("{prefix}… ({} chars)", secret.chars().count())
}

/// How this client is known to an authorization server.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClientRegistration {
    /// The issuer it is registered with.
    pub issuer: String,
    /// The client id.
    pub client_id: String,
    /// The secret of a confidential client.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_secret: Option<String>,
    /// `none`, `client_secret_basic`, `client_secret_post`, `private_key_jwt`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token_endpoint_auth_method: Option<String>,
    /// When the secret expires (RFC 7591 `client_secret_expires_at`; 0 = never).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_secret_expires_at: Option<u64>,
}

impl std::fmt::Debug for ClientRegistration {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClientRegistration")
            .field("issuer", &self.issuer)
            .field("client_id", &self.client_id)
            .field("client_secret", &self.client_secret.as_ref().map(|_| "<redacted>"))
            .field("token_endpoint_auth_method", &self.token_endpoint_auth_method)
            .finish()
    }
}

/// Everything kept for one MCP server.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct AuthRecord {
    /// The current tokens.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tokens: Option<Tokens>,
    /// Dynamic registrations, one per authorization server.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub clients: Vec<ClientRegistration>,
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
}

/// Keeps records in memory for the life of the process (or page).
#[derive(Default)]
pub struct MemoryTokenStore {
    records: Mutex<HashMap<String, AuthRecord>>,
}

impl std::fmt::Debug for MemoryTokenStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let servers: Vec<String> = self.lock().keys().cloned().collect();
        f.debug_struct("MemoryTokenStore").field("servers", &servers).finish()
    }
}

impl MemoryTokenStore {
    /// An empty store.
    pub fn new() -> Self {
        MemoryTokenStore::default()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, AuthRecord>> {
        self.records.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

impl TokenStore for MemoryTokenStore {
    fn load<'a>(&'a self, server: &'a str) -> BoxFuture<'a, Result<Option<AuthRecord>, AuthError>> {
        let record = self.lock().get(server).cloned();
        boxed(async move { Ok(record) })
    }

    fn save<'a>(&'a self, server: &'a str, record: &'a AuthRecord) -> BoxFuture<'a, Result<(), AuthError>> {
        self.lock().insert(server.to_owned(), record.clone());
        boxed(async { Ok(()) })
    }

    fn clear<'a>(&'a self, server: &'a str) -> BoxFuture<'a, Result<(), AuthError>> {
        self.lock().remove(server);
        boxed(async { Ok(()) })
    }
}
