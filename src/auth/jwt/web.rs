//! The ES256 key on wasm32: WebCrypto (`crypto.subtle`), which browsers,
//! workers, Node, Deno and workerd all have, instead of compiling the
//! elliptic-curve arithmetic into the `.wasm`.
//!
//! The key is kept as PKCS#8 bytes (a PEM's, or what `generateKey`
//! exported) and imported for each use: a `CryptoKey` is a JS object, and
//! the OAuth state that holds the key is plain data.

#[cfg(test)]
use js_sys::{Array, Object, Reflect};
use js_sys::{Promise, Uint8Array};
use serde_json::Value;
use wasm_bindgen::prelude::*;

use super::super::error::AuthError;
use super::super::pkce::base64url;
use super::{signing_input, unavailable};

#[wasm_bindgen(module = "/src/web/auth/authorize.js")]
extern "C" {
    /// One ES256 step by WebCrypto (`authorize.js` says which `op` is
    /// which); rejects with the text of what failed.
    fn es256(op: u32, pkcs8: &[u8], input: &str) -> Promise;
}

/// The steps of [`es256`].
const GENERATE: u32 = 0;
const PUBLIC_POINT: u32 = 1;
const SIGN: u32 = 2;

/// Runs one ES256 step; its rejection becomes the error's text.
async fn run(op: u32, pkcs8: &[u8], input: &str) -> Result<JsValue, AuthError> {
    let settled = crate::runtime::settled(&es256(op, pkcs8, input)).await;
    settled.map_err(|text| AuthError::Crypto(text.as_string().unwrap_or_else(|| "WebCrypto failed".into())))
}

/// The DER of the OID of P-256 (prime256v1, 1.2.840.10045.3.1.7).
const P256_OID: &[u8] = &[0x06, 0x08, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x03, 0x01, 0x07];
/// The DER of the AlgorithmIdentifier of an EC key on P-256.
const EC_P256_ALGORITHM: &[u8] = &[
    0x30, 0x13, 0x06, 0x07, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x02, 0x01, 0x06, 0x08, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x03,
    0x01, 0x07,
];

/// A P-256 signing key.
#[derive(Clone)]
pub struct Es256Key {
    /// PKCS#8 `PrivateKeyInfo`, DER.
    pkcs8: Vec<u8>,
    key_id: Option<String>,
}

impl std::fmt::Debug for Es256Key {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        crate::debug::debug_struct(f, "Es256Key").field("key_id", &self.key_id).finish_non_exhaustive()
    }
}

impl Es256Key {
    /// Reads a PKCS#8 (`BEGIN PRIVATE KEY`) or SEC1 (`BEGIN EC PRIVATE KEY`)
    /// PEM. The form and the curve are checked here; WebCrypto reads the
    /// rest when the key is first used.
    pub fn from_pem(pem: &str, key_id: Option<String>) -> Result<Es256Key, AuthError> {
        if !cfg!(feature = "private-key-jwt") {
            return Err(unavailable("private-key-jwt"));
        }
        let not_p256 = || AuthError::Crypto("the private key is not a P-256 key in PKCS#8 or SEC1 PEM form".into());
        let (label, der) = pem_body(pem).ok_or_else(not_p256)?;
        if der.first() != Some(&0x30) {
            return Err(not_p256());
        }
        let pkcs8 = match label {
            "PRIVATE KEY" if contains(&der, P256_OID) => der,
            "EC PRIVATE KEY" => sec1_to_pkcs8(&der),
            _ => return Err(not_p256()),
        };
        Ok(Es256Key { pkcs8, key_id })
    }

    /// A fresh key (for DPoP), made by WebCrypto.
    pub async fn generate() -> Result<Es256Key, AuthError> {
        let exported = run(GENERATE, &[], "").await?;
        Ok(Es256Key { pkcs8: Uint8Array::new(&exported).to_vec(), key_id: None })
    }

    /// The public key as a JWK.
    pub async fn public_jwk(&self) -> Result<Value, AuthError> {
        let point = run(PUBLIC_POINT, &self.pkcs8, "").await?.as_string();
        match point.as_deref().and_then(|point| point.split_once('.')) {
            Some((x, y)) => Ok(crate::protocol::object! {"kty": "EC", "crv": "P-256", "x": x, "y": y}),
            None => Err(AuthError::Crypto("WebCrypto exported a P-256 key without its coordinates".into())),
        }
    }

    /// The RFC 7638 thumbprint of the public key.
    #[cfg(test)]
    pub async fn thumbprint(&self) -> Result<String, AuthError> {
        Ok(super::jwk_thumbprint(&self.public_jwk().await?))
    }

    /// Signs `header.claims` (compact JWS, ES256: WebCrypto's ECDSA
    /// signature is already the raw 64-byte `r || s`). Takes the parts as
    /// they were made, error and all, so that its callers hand on its
    /// future rather than wrap it in one of their own.
    pub async fn sign(&self, parts: Result<(Value, Value), AuthError>) -> Result<String, AuthError> {
        let (header, claims) = parts?;
        let input = signing_input(header, &claims, self.key_id.as_deref());
        let signature = run(SIGN, &self.pkcs8, &input).await?;
        Ok(format!("{input}.{}", base64url(&Uint8Array::new(&signature).to_vec())))
    }
}

/// The label and the decoded body of the first PEM block.
fn pem_body(pem: &str) -> Option<(&str, Vec<u8>)> {
    let rest = pem.trim_ascii().strip_prefix("-----BEGIN ")?;
    let (label, rest) = split_once(rest, "-----")?;
    let (body, _) = split_once(rest, &format!("-----END {label}-----"))?;
    let body: String = body.chars().filter(|c| !c.is_ascii_whitespace()).collect();
    Some((label, crate::protocol::base64::decode_standard(&body)?))
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}

/// `str::split_once` for a needle that starts with an ASCII byte (so where
/// it is found is a char boundary), by comparing windows: `core`'s two-way
/// searcher, some 2 KB of wasm, stays out of the module (as in
/// `protocol::raw::mentions`).
fn split_once<'t>(text: &'t str, needle: &str) -> Option<(&'t str, &'t str)> {
    let at = text.as_bytes().windows(needle.len()).position(|w| w == needle.as_bytes())?;
    Some((&text[..at], &text[at + needle.len()..]))
}

/// A SEC1 `ECPrivateKey` wrapped as the PKCS#8 `PrivateKeyInfo` WebCrypto
/// imports: `SEQUENCE { INTEGER 0, AlgorithmIdentifier, OCTET STRING sec1 }`.
fn sec1_to_pkcs8(sec1: &[u8]) -> Vec<u8> {
    let mut content = vec![0x02, 0x01, 0x00];
    content.extend_from_slice(EC_P256_ALGORITHM);
    content.push(0x04);
    der_length(&mut content, sec1.len());
    content.extend_from_slice(sec1);
    let mut out = vec![0x30];
    der_length(&mut out, content.len());
    out.extend_from_slice(&content);
    out
}

fn der_length(out: &mut Vec<u8>, length: usize) {
    match length {
        0..0x80 => out.push(length as u8),
        0x80..0x100 => out.extend_from_slice(&[0x81, length as u8]),
        _ => out.extend_from_slice(&[0x82, (length >> 8) as u8, length as u8]),
    }
}

/// `globalThis.crypto.subtle`, for the tests' verification.
#[cfg(test)]
fn subtle() -> Result<JsValue, AuthError> {
    let crypto = Reflect::get(&js_sys::global(), &"crypto".into()).ok().filter(JsValue::is_object);
    crypto.and_then(|c| Reflect::get(&c, &"subtle".into()).ok()).filter(JsValue::is_object).ok_or_else(|| {
        AuthError::Crypto("this JavaScript runtime has no crypto.subtle (WebCrypto), which ES256 signing needs".into())
    })
}

/// `{name: "ECDSA", namedCurve: "P-256"}`.
#[cfg(test)]
fn ec_p256() -> Object {
    object(&[("name", "ECDSA".into()), ("namedCurve", "P-256".into())])
}

#[cfg(test)]
fn object(entries: &[(&str, JsValue)]) -> Object {
    let object = Object::new();
    for (key, value) in entries {
        // Setting a property on a fresh plain object cannot fail.
        let _ = Reflect::set(&object, &(*key).into(), value);
    }
    object
}

#[cfg(test)]
mod tests {
    use wasm_bindgen_test::{wasm_bindgen_test, wasm_bindgen_test_configure};

    use super::super::{signed_client_assertion, signed_dpop_proof};
    use super::*;
    use crate::auth::pkce::{challenge_of, sha256};
    use wasm_bindgen_futures::JsFuture;

    wasm_bindgen_test_configure!(run_in_browser);

    // The throwaway P-256 key of the native tests (PKCS#8), and its public
    // point as `openssl ec -pubout` prints it.
    const PEM: &str = "-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgtu9VcHL7UyT27hC9
k1quSV+oPmNFwZCTxPDEENloEmKhRANCAAS5p6JZH97u7C2vQ/9ycBGRtRG7CuNJ
vi+4kmfASZFlyZfV1yoUASiG5HblS5pp7aUCkPf61vwwrEvikYOaBeE2
-----END PRIVATE KEY-----";
    const X: &str = "uaeiWR_e7uwtr0P_cnARkbURuwrjSb4vuJJnwEmRZck";
    const Y: &str = "l9XXKhQBKIbkduVLmmntpQKQ9_rW_DCsS-KRg5oF4TY";

    fn decode(part: &str) -> Vec<u8> {
        use base64::Engine as _;
        base64::engine::general_purpose::URL_SAFE_NO_PAD.decode(part).unwrap()
    }

    /// `crypto.subtle.verify` of a compact ES256 JWS with the public `jwk`.
    async fn verifies(jwk: &Value, jws: &str) -> bool {
        let (input, signature) = jws.rsplit_once('.').unwrap();
        let subtle = subtle().unwrap();
        let call = |name: &str, args: &[JsValue]| {
            let f: js_sys::Function = Reflect::get(&subtle, &name.into()).unwrap().unchecked_into();
            let promise: Promise = f.apply(&subtle, &args.iter().collect::<Array>()).unwrap().unchecked_into();
            JsFuture::from(promise)
        };
        let jwk = js_sys::JSON::parse(&jwk.to_string()).unwrap();
        let key = call(
            "importKey",
            &["jwk".into(), jwk, ec_p256().into(), false.into(), Array::of1(&"verify".into()).into()],
        )
        .await
        .unwrap();
        let algorithm = object(&[("name", "ECDSA".into()), ("hash", "SHA-256".into())]);
        let verified = call(
            "verify",
            &[
                algorithm.into(),
                key,
                Uint8Array::from(decode(signature).as_slice()).into(),
                Uint8Array::from(input.as_bytes()).into(),
            ],
        )
        .await
        .unwrap();
        verified.as_bool() == Some(true)
    }

    #[wasm_bindgen_test]
    async fn pkcs8_and_sec1_keys_sign_client_assertions_that_verify() {
        let key = Es256Key::from_pem(PEM, Some("k1".into())).unwrap();
        let jwk = key.public_jwk().await.unwrap();
        assert_eq!((jwk["x"].as_str(), jwk["y"].as_str()), (Some(X), Some(Y)));
        let jwt = signed_client_assertion(&key, "client", "https://as.example", 1_700_000_000).await.unwrap();
        let parts: Vec<&str> = jwt.split('.').collect();
        let header: Value = serde_json::from_slice(&decode(parts[0])).unwrap();
        assert_eq!((header["alg"].as_str(), header["kid"].as_str()), (Some("ES256"), Some("k1")));
        let claims: Value = serde_json::from_slice(&decode(parts[1])).unwrap();
        assert_eq!(claims["aud"], "https://as.example");
        assert_eq!(decode(parts[2]).len(), 64);
        assert!(verifies(&jwk, &jwt).await);
        let mut tampered = jwt.clone();
        tampered.insert(parts[0].len() + 2, 'A');
        assert!(!verifies(&jwk, &tampered).await);

        // The same key as SEC1: the ECPrivateKey inside the PKCS#8 above
        // (after the 3-byte SEQUENCE head, the version, the algorithm and
        // the OCTET STRING head: 29 bytes).
        let (_, der) = pem_body(PEM).unwrap();
        let sec1 = format!(
            "-----BEGIN EC PRIVATE KEY-----\n{}\n-----END EC PRIVATE KEY-----",
            crate::protocol::base64::standard(&der[29..])
        );
        let again = Es256Key::from_pem(&sec1, None).unwrap();
        assert_eq!(again.public_jwk().await.unwrap(), jwk);
        let jwt = signed_client_assertion(&again, "client", "https://as.example", 1).await.unwrap();
        assert!(verifies(&jwk, &jwt).await);
        assert_eq!(key.thumbprint().await.unwrap().len(), 43);
    }

    #[wasm_bindgen_test]
    async fn generated_keys_sign_dpop_proofs_that_verify_with_their_header_key() {
        let key = Es256Key::generate().await.unwrap();
        let proof =
            signed_dpop_proof(&key, "POST", "https://rs.example/mcp?x=1", 1, Some("n"), Some("tok")).await.unwrap();
        let parts: Vec<&str> = proof.split('.').collect();
        let header: Value = serde_json::from_slice(&decode(parts[0])).unwrap();
        assert_eq!(header["typ"], "dpop+jwt");
        assert!(header["jwk"].get("d").is_none());
        let claims: Value = serde_json::from_slice(&decode(parts[1])).unwrap();
        assert_eq!(claims["htu"], "https://rs.example/mcp");
        assert_eq!(claims["ath"], base64url(&sha256(b"tok")));
        assert!(verifies(&header["jwk"], &proof).await);
    }

    #[wasm_bindgen_test]
    fn bad_keys_are_errors() {
        assert!(matches!(Es256Key::from_pem("not a key", None), Err(AuthError::Crypto(_))));
        assert!(Es256Key::from_pem("-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----", None).is_err());
    }

    #[wasm_bindgen_test]
    fn pkce_s256_matches_rfc7636_appendix_b() {
        assert_eq!(
            challenge_of("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"),
            "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"
        );
    }
}
