//! ES256 signing left out of this build (neither the `private-key-jwt` nor
//! the `dpop` feature): the same names as `jwt.rs`, so the OAuth flow
//! compiles unchanged, but no key can exist. Configuring a private key is a
//! configuration error naming the feature; DPoP is never asked for.

use serde_json::Value;

use super::error::AuthError;

/// The client assertion type of RFC 7523.
pub const CLIENT_ASSERTION_TYPE: &str = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer";

/// The error of a build that left the named feature out.
pub(crate) fn unavailable(feature: &str) -> AuthError {
    AuthError::Config(format!("this build of mcp-edge has no ES256 signing for it: enable the `{feature}` feature"))
}

/// A P-256 signing key: none can be made in this build.
#[derive(Clone, Debug)]
pub struct Es256Key {
    never: std::convert::Infallible,
}

impl Es256Key {
    /// Always an error naming the `private-key-jwt` feature.
    pub fn from_pem(_pem: &str, _key_id: Option<String>) -> Result<Es256Key, AuthError> {
        Err(unavailable("private-key-jwt"))
    }

    /// Always an error naming the `dpop` feature.
    pub fn generate() -> Result<Es256Key, AuthError> {
        Err(unavailable("dpop"))
    }

    /// Unreachable: no key exists.
    pub fn public_jwk(&self) -> Value {
        match self.never {}
    }

    /// Unreachable: no key exists.
    pub fn sign(&self, _header: Value, _claims: &Value) -> String {
        match self.never {}
    }
}

/// Unreachable: no key exists.
pub fn client_assertion(key: &Es256Key, _client_id: &str, _audience: &str, _now: u64) -> Result<String, AuthError> {
    match key.never {}
}

/// Unreachable: no key exists.
pub fn dpop_proof(
    key: &Es256Key,
    _method: &str,
    _url: &str,
    _now: u64,
    _nonce: Option<&str>,
    _access_token: Option<&str>,
) -> Result<String, AuthError> {
    match key.never {}
}
