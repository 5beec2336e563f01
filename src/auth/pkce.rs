//! PKCE (RFC 7636) with S256, and the random values the flow needs.

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
    base64url(&sha256(verifier.as_bytes()))
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

/// SHA-256 of a whole message (FIPS 180-4): sha2's compression function
/// over the padded message. Every hash here is of one string held at
/// once, so the streaming `Digest` wrapper (its block buffer and its
/// generic layers, 0.7 KB of the wasm) is not needed.
pub fn sha256(bytes: &[u8]) -> [u8; 32] {
    /// The initial hash value (§5.3.3).
    const H0: [u32; 8] =
        [0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19];
    // §5.1.1: a 1 bit, zeros up to 56 bytes into a block, the length in bits.
    let mut padded = bytes.to_vec();
    padded.push(0x80);
    padded.resize(bytes.len() + 1 + (119 - bytes.len() % 64) % 64, 0);
    padded.extend_from_slice(&(bytes.len() as u64).wrapping_mul(8).to_be_bytes());
    let mut state = H0;
    // Whole blocks by construction: nothing is left over.
    for block in padded.as_chunks::<64>().0 {
        sha2::compress256(&mut state, &[(*block).into()]);
    }
    let mut digest = [0u8; 32];
    for (out, word) in digest.chunks_exact_mut(4).zip(state) {
        out.copy_from_slice(&word.to_be_bytes());
    }
    digest
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

    /// FIPS 180-4's examples and the lengths around each padding boundary,
    /// against sha2's own `Digest`.
    #[test]
    fn sha256_of_whole_messages() {
        use sha2::Digest as _;
        let hex = |d: [u8; 32]| d.iter().map(|b| format!("{b:02x}")).collect::<String>();
        assert_eq!(hex(sha256(b"abc")), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
        assert_eq!(hex(sha256(b"")), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
        for len in 0..300 {
            let message: Vec<u8> = (0..len).map(|i| (i * 7 + 3) as u8).collect();
            assert_eq!(sha256(&message), <[u8; 32]>::from(sha2::Sha256::digest(&message)), "length {len}");
        }
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
