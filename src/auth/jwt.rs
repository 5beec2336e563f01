//! ES256 JSON Web Tokens, hand-built: `private_key_jwt` client assertions
//! (RFC 7523 §2.2) and DPoP proofs (RFC 9449).
//!
//! The claims are built here; the signing key is p256 natively and
//! WebCrypto (`crypto.subtle`) on wasm32, where every runtime we serve has
//! it and the elliptic-curve code would be a large share of the `.wasm`.
//! WebCrypto is asynchronous, so the OAuth flow signs through the `async`
//! functions at the end, which natively call the synchronous ones.

use serde_json::Value;

use super::error::AuthError;
use super::pkce::{base64url, random_string, sha256};
use crate::protocol::{json_text, object};

#[cfg(not(target_arch = "wasm32"))]
#[path = "jwt/native.rs"]
mod key;
#[cfg(target_arch = "wasm32")]
#[path = "jwt/web.rs"]
mod key;

pub use key::Es256Key;

/// The error of a build that left the named feature out.
pub(crate) fn unavailable(feature: &str) -> AuthError {
    AuthError::Config(format!("this build of mcp-edge has no ES256 signing for it: enable the `{feature}` feature"))
}

/// The client assertion type of RFC 7523.
pub const CLIENT_ASSERTION_TYPE: &str = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer";

/// The JWS header and the claims of a client assertion.
fn assertion_parts(client_id: &str, audience: &str, now: u64) -> Result<(Value, Value), AuthError> {
    let jti = random_string(16).map_err(AuthError::Crypto)?;
    let claims = object! {
        "iss": client_id,
        "sub": client_id,
        "aud": audience,
        "iat": now,
        "exp": now + 300,
        "jti": jti,
    };
    Ok((object! {"typ": "JWT"}, claims))
}

/// The JWS header (with the public key `jwk`) and the claims of a DPoP proof.
fn proof_parts(
    jwk: Value,
    method: &str,
    url: &str,
    now: u64,
    nonce: Option<&str>,
    access_token: Option<&str>,
) -> Result<(Value, Value), AuthError> {
    // `htu` is the URL without query and fragment.
    let htu = &url[..crate::ascii::find_any(url, b"?#").unwrap_or(url.len())];
    let mut claims = object! {
        "jti": random_string(16).map_err(AuthError::Crypto)?,
        "htm": method,
        "htu": htu,
        "iat": now,
    };
    if let Some(nonce) = nonce {
        claims["nonce"] = Value::from(nonce);
    }
    if let Some(token) = access_token {
        claims["ath"] = Value::from(base64url(&sha256(token.as_bytes())));
    }
    Ok((object! {"typ": "dpop+jwt", "jwk": jwk}, claims))
}

/// `header.claims`, base64url each, with `alg` (and the key's `kid`) set in the header.
fn signing_input(mut header: Value, claims: &Value, key_id: Option<&str>) -> String {
    header["alg"] = Value::from("ES256");
    if let (Some(kid), None) = (key_id, header.get("kid")) {
        header["kid"] = Value::from(kid);
    }
    format!("{}.{}", base64url(json_text(&header).as_bytes()), base64url(json_text(claims).as_bytes()))
}

/// The RFC 7638 thumbprint of a P-256 public JWK.
#[cfg(test)]
fn jwk_thumbprint(jwk: &Value) -> String {
    let canonical = format!(
        r#"{{"crv":"P-256","kty":"EC","x":"{}","y":"{}"}}"#,
        jwk["x"].as_str().unwrap_or_default(),
        jwk["y"].as_str().unwrap_or_default()
    );
    base64url(&sha256(canonical.as_bytes()))
}

/// A `private_key_jwt` client assertion: `iss` = `sub` = the client id,
/// `aud` = the authorization server's issuer, valid for five minutes.
#[cfg(not(target_arch = "wasm32"))]
pub fn client_assertion(key: &Es256Key, client_id: &str, audience: &str, now: u64) -> Result<String, AuthError> {
    let (header, claims) = assertion_parts(client_id, audience, now)?;
    Ok(key.sign(header, &claims))
}

/// A DPoP proof (RFC 9449 §4.2) for one request; `access_token` adds `ath`.
#[cfg(not(target_arch = "wasm32"))]
pub fn dpop_proof(
    key: &Es256Key,
    method: &str,
    url: &str,
    now: u64,
    nonce: Option<&str>,
    access_token: Option<&str>,
) -> Result<String, AuthError> {
    let (header, claims) = proof_parts(key.public_jwk(), method, url, now, nonce, access_token)?;
    Ok(key.sign(header, &claims))
}

/// A fresh key for DPoP, the way this platform makes one.
#[cfg(not(target_arch = "wasm32"))]
pub(crate) async fn new_dpop_key() -> Result<Es256Key, AuthError> {
    Es256Key::generate()
}

/// A fresh key for DPoP, by WebCrypto: its future itself, with no state
/// machine around it.
#[cfg(target_arch = "wasm32")]
pub(crate) fn new_dpop_key() -> impl Future<Output = Result<Es256Key, AuthError>> {
    Es256Key::generate()
}

/// [`client_assertion`], signed the way this platform signs.
#[cfg(not(target_arch = "wasm32"))]
pub(crate) async fn signed_client_assertion(
    key: &Es256Key,
    client_id: &str,
    audience: &str,
    now: u64,
) -> Result<String, AuthError> {
    client_assertion(key, client_id, audience, now)
}

/// [`client_assertion`], signed by WebCrypto: the signing future itself.
#[cfg(target_arch = "wasm32")]
pub(crate) fn signed_client_assertion<'a>(
    key: &'a Es256Key,
    client_id: &str,
    audience: &str,
    now: u64,
) -> impl Future<Output = Result<String, AuthError>> + 'a {
    key.sign(assertion_parts(client_id, audience, now))
}

/// [`dpop_proof`], signed the way this platform signs.
pub(crate) async fn signed_dpop_proof(
    key: &Es256Key,
    method: &str,
    url: &str,
    now: u64,
    nonce: Option<&str>,
    access_token: Option<&str>,
) -> Result<String, AuthError> {
    #[cfg(not(target_arch = "wasm32"))]
    return dpop_proof(key, method, url, now, nonce, access_token);
    #[cfg(target_arch = "wasm32")]
    {
        let jwk = key.public_jwk().await?;
        key.sign(proof_parts(jwk, method, url, now, nonce, access_token)).await
    }
}
