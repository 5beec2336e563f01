//! The ES256 key natively: p256.

use p256::ecdsa::signature::Signer;
use p256::ecdsa::{Signature, SigningKey};
use p256::pkcs8::DecodePrivateKey;
use serde_json::Value;

use super::super::error::AuthError;
use super::super::pkce::{base64url, random_bytes};
use super::{signing_input, unavailable};

/// A P-256 signing key.
#[derive(Clone)]
pub struct Es256Key {
    key: SigningKey,
    key_id: Option<String>,
}

impl std::fmt::Debug for Es256Key {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        crate::debug::debug_struct(f, "Es256Key").field("key_id", &self.key_id).finish_non_exhaustive()
    }
}

impl Es256Key {
    /// Reads a PKCS#8 (`BEGIN PRIVATE KEY`) or SEC1 (`BEGIN EC PRIVATE KEY`) PEM.
    pub fn from_pem(pem: &str, key_id: Option<String>) -> Result<Es256Key, AuthError> {
        // A configured key is only ever a `private_key_jwt` client key; a
        // build with DPoP alone says so instead of taking the key.
        if !cfg!(feature = "private-key-jwt") {
            return Err(unavailable("private-key-jwt"));
        }
        let pem = pem.trim();
        let key = match SigningKey::from_pkcs8_pem(pem) {
            Ok(key) => key,
            Err(pkcs8_error) => {
                use p256::elliptic_curve::SecretKey;
                let secret = SecretKey::<p256::NistP256>::from_sec1_pem(pem).map_err(|_| {
                    AuthError::Crypto(format!(
                        "the private key is not a P-256 key in PKCS#8 or SEC1 PEM form ({pkcs8_error})"
                    ))
                })?;
                SigningKey::from(secret)
            }
        };
        Ok(Es256Key { key, key_id })
    }

    /// A fresh key from the platform's CSPRNG (for DPoP).
    pub fn generate() -> Result<Es256Key, AuthError> {
        for _ in 0..8 {
            let bytes = random_bytes(32).map_err(AuthError::Crypto)?;
            if let Ok(key) = SigningKey::from_slice(&bytes) {
                return Ok(Es256Key { key, key_id: None });
            }
        }
        Err(AuthError::Crypto("could not generate a P-256 key".into()))
    }

    /// The public key as a JWK.
    pub fn public_jwk(&self) -> Value {
        let point = self.key.verifying_key().to_encoded_point(false);
        let coordinate = |c: Option<&p256::FieldBytes>| c.map(|c| base64url(c)).unwrap_or_default();
        crate::protocol::object! {"kty": "EC", "crv": "P-256", "x": coordinate(point.x()), "y": coordinate(point.y())}
    }

    /// The RFC 7638 thumbprint of the public key.
    #[cfg(test)]
    pub fn thumbprint(&self) -> String {
        super::jwk_thumbprint(&self.public_jwk())
    }

    /// Signs `header.claims` (compact JWS, ES256: the raw 64-byte `r || s`).
    pub fn sign(&self, header: Value, claims: &Value) -> String {
        let input = signing_input(header, claims, self.key_id.as_deref());
        let signature: Signature = self.key.sign(input.as_bytes());
        format!("{input}.{}", base64url(&signature.to_bytes()))
    }
}

#[cfg(test)]
mod tests {
    use p256::ecdsa::VerifyingKey;
    use p256::ecdsa::signature::Verifier;

    use super::super::super::pkce::sha256;
    use super::super::{client_assertion, dpop_proof};
    use super::*;

    // A throwaway P-256 key (PKCS#8), made for this test only.
    const PEM: &str = "-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgtu9VcHL7UyT27hC9
k1quSV+oPmNFwZCTxPDEENloEmKhRANCAAS5p6JZH97u7C2vQ/9ycBGRtRG7CuNJ
vi+4kmfASZFlyZfV1yoUASiG5HblS5pp7aUCkPf61vwwrEvikYOaBeE2
-----END PRIVATE KEY-----";

    fn decode(part: &str) -> Vec<u8> {
        use base64::Engine;
        base64::engine::general_purpose::URL_SAFE_NO_PAD.decode(part).unwrap()
    }

    #[test]
    fn client_assertions_verify_with_the_public_key() {
        let key = Es256Key::from_pem(PEM, None).unwrap();
        let jwt = client_assertion(&key, "client", "https://as.example", 1_700_000_000).unwrap();
        let parts: Vec<&str> = jwt.split('.').collect();
        assert_eq!(parts.len(), 3);
        let header: Value = serde_json::from_slice(&decode(parts[0])).unwrap();
        assert_eq!(header["alg"], "ES256");
        let claims: Value = serde_json::from_slice(&decode(parts[1])).unwrap();
        assert_eq!(claims["iss"], "client");
        assert_eq!(claims["sub"], "client");
        assert_eq!(claims["aud"], "https://as.example");
        assert_eq!(claims["exp"], 1_700_000_300u64);
        let signature = Signature::from_slice(&decode(parts[2])).unwrap();
        let verifying = VerifyingKey::from(&key.key);
        assert!(verifying.verify(format!("{}.{}", parts[0], parts[1]).as_bytes(), &signature).is_ok());
    }

    #[test]
    fn bad_keys_are_errors() {
        assert!(matches!(Es256Key::from_pem("not a key", None), Err(AuthError::Crypto(_))));
        assert!(Es256Key::from_pem("-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----", None).is_err());
    }

    #[test]
    fn dpop_proofs_carry_the_public_key_and_ath() {
        let key = Es256Key::generate().unwrap();
        let proof = dpop_proof(&key, "POST", "https://rs.example/mcp?x=1", 1, Some("n"), Some("tok")).unwrap();
        let parts: Vec<&str> = proof.split('.').collect();
        let header: Value = serde_json::from_slice(&decode(parts[0])).unwrap();
        assert_eq!(header["typ"], "dpop+jwt");
        assert_eq!(header["jwk"]["kty"], "EC");
        assert!(header["jwk"].get("d").is_none());
        let claims: Value = serde_json::from_slice(&decode(parts[1])).unwrap();
        assert_eq!(claims["htu"], "https://rs.example/mcp");
        assert_eq!(claims["nonce"], "n");
        assert_eq!(claims["ath"], base64url(&sha256(b"tok")));
        assert_eq!(key.thumbprint().len(), 43);
    }
}
