//! PKCE (RFC 7636) with S256, and the random values the flow needs.

use sha2::{Digest, Sha256};

/// A verifier and its S256 challenge.
#[derive(Clone, PartialEq, Eq)]
pub struct Pkce {
    /// The secret, sent only to the token endpoint.
    pub verifier: String,
    /// `BASE64URL(SHA256(verifier))`, sent in the authorization request.
    pub challenge: String,
}

impl std::fmt::Debug for Pkce {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        crate::debug::debug_struct(f, "Pkce").field("challenge", &self.challenge).finish_non_exhaustive()
    }
}

impl Pkce {
    /// A fresh pair: 32 random bytes give a 43-character verifier.
    pub fn generate() -> Result<Pkce, String> {
        let verifier = random_string(32)?;
        let challenge = challenge_of(&verifier);
        Ok(Pkce { verifier, challenge })
    }
}

/// The S256 challenge of a verifier.
pub fn challenge_of(verifier: &str) -> String {
    base64url(&Sha256::digest(verifier.as_bytes()))
}

/// `bytes` bytes from the OS (or `crypto.getRandomValues`), base64url.
pub fn random_string(bytes: usize) -> Result<String, String> {
    Ok(base64url(&random_bytes(bytes)?))
}

/// Bytes from the platform's CSPRNG.
pub fn random_bytes(count: usize) -> Result<Vec<u8>, String> {
    let mut buffer = vec![0u8; count];
    getrandom::fill(&mut buffer).map_err(no_random)?;
    Ok(buffer)
}

/// Why there are no random bytes: the OS's error natively.
#[cfg(not(target_arch = "wasm32"))]
fn no_random(error: getrandom::Error) -> String {
    format!("no secure random numbers on this platform: {error}")
}

/// On wasm32 there is one source, and getrandom's descriptions of every
/// platform's failures, and their formatting, are 0.4 KB of the module
/// (0.25 KB gzip).
#[cfg(target_arch = "wasm32")]
fn no_random(_: getrandom::Error) -> String {
    "no secure random numbers: crypto.getRandomValues is missing or failed".to_owned()
}

/// base64url without padding.
pub fn base64url(bytes: &[u8]) -> String {
    crate::protocol::base64::url_safe(bytes)
}

/// SHA-256.
pub fn sha256(bytes: &[u8]) -> [u8; 32] {
    Sha256::digest(bytes).into()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc7636_appendix_b() {
        assert_eq!(
            challenge_of("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"),
            "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"
        );
    }

    #[test]
    fn verifiers_are_fresh_and_well_formed() {
        let a = Pkce::generate().unwrap();
        let b = Pkce::generate().unwrap();
        assert_ne!(a.verifier, b.verifier);
        assert_eq!(a.verifier.len(), 43);
        assert!(a.verifier.bytes().all(|c| c.is_ascii_alphanumeric() || c == b'-' || c == b'_'));
        assert_eq!(a.challenge, challenge_of(&a.verifier));
        assert!(!format!("{a:?}").contains(&a.verifier));
    }
}
