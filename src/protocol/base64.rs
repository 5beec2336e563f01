//! Base64 encoding (RFC 4648): the standard alphabet with padding (HTTP
//! Basic credentials, `Mcp-Param-*` header values) and base64url without
//! padding (PKCE, JWTs); and the decoder of the standard alphabet a PEM
//! key needs in the browser (its DER goes to WebCrypto; natively p256
//! reads the PEM itself).
//!
//! Written here rather than taken from the `base64` crate: its generic
//! engine was 1.8 KB of the lite wasm for the two encodings (docs/size.md,
//! session 29), and its decoder 3.3 KB of the full one (session 32); these
//! are a fraction of either.

const STANDARD: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const URL_SAFE: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/// `bytes` in the standard alphabet, padded with `=`.
pub(crate) fn standard(bytes: &[u8]) -> String {
    encode(bytes, STANDARD, true)
}

/// `bytes` in the URL-safe alphabet, unpadded (base64url).
pub(crate) fn url_safe(bytes: &[u8]) -> String {
    encode(bytes, URL_SAFE, false)
}

fn encode(bytes: &[u8], alphabet: &[u8; 64], pad: bool) -> String {
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        // The chunk's bytes as the top of a 24-bit group, missing ones 0.
        let group = chunk.iter().enumerate().fold(0u32, |group, (i, &b)| group | (u32::from(b) << (16 - 8 * i)));
        // A chunk of n bytes gives n + 1 characters, the rest is padding.
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(char::from(alphabet[((group >> (18 - 6 * i)) & 0x3f) as usize]));
            } else if pad {
                out.push('=');
            }
        }
    }
    out
}

/// The bytes of `text` in the standard alphabet with its padding (as a
/// PEM body holds them); `None` for anything else: a character outside the
/// alphabet, padding out of place, a length that is no multiple of four,
/// or bits set after the last byte (so each byte string has one spelling,
/// as the `base64` crate decodes).
#[cfg(any(all(target_arch = "wasm32", any(feature = "private-key-jwt", feature = "dpop")), test))]
pub(crate) fn decode_standard(text: &str) -> Option<Vec<u8>> {
    let text = text.as_bytes();
    if !text.len().is_multiple_of(4) {
        return None;
    }
    let padding = text.iter().rev().take(2).take_while(|&&c| c == b'=').count();
    let digits = &text[..text.len() - padding];
    let mut out = Vec::with_capacity(text.len() / 4 * 3);
    let mut group = 0u32;
    for (i, &c) in digits.iter().enumerate() {
        let value = STANDARD.iter().position(|&a| a == c)? as u32;
        group = group << 6 | value;
        if i % 4 == 3 {
            out.extend_from_slice(&group.to_be_bytes()[1..]);
            group = 0;
        }
    }
    // A last group of 2 or 3 characters gives 1 or 2 bytes; what is left of
    // its bits must be 0.
    match digits.len() % 4 {
        0 => {}
        2 if group & 0xf == 0 => out.push((group >> 4) as u8),
        3 if group & 0x3 == 0 => out.extend_from_slice(&((group >> 2) as u16).to_be_bytes()),
        _ => return None,
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_rfc_4648_vectors() {
        let vectors = [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg=="),
            ("fooba", "Zm9vYmE="),
            ("foobar", "Zm9vYmFy"),
        ];
        for (input, expected) in vectors {
            assert_eq!(standard(input.as_bytes()), expected, "{input:?}");
            assert_eq!(url_safe(input.as_bytes()), expected.trim_end_matches('='), "{input:?}");
        }
    }

    #[test]
    fn decoding_refuses_what_is_not_canonical_base64() {
        assert_eq!(decode_standard("Zm9vYmFy").as_deref(), Some(&b"foobar"[..]));
        assert_eq!(decode_standard(""), Some(Vec::new()));
        for bad in ["Zm9", "Zm9v=", "Zg=", "Z===", "Zm-v", "Zm9v\n", "Zh==", "Zm9=", "=Zm9", "Zg==Zg=="] {
            assert_eq!(decode_standard(bad), None, "{bad}");
        }
    }

    #[test]
    fn the_alphabets_differ_in_their_last_two_characters() {
        assert_eq!(standard(&[0xfb, 0xff, 0xbf]), "+/+/");
        assert_eq!(url_safe(&[0xfb, 0xff, 0xbf]), "-_-_");
    }

    #[test]
    fn every_byte_value_round_trips_through_the_base64_crate() {
        use ::base64::Engine;
        use ::base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
        let bytes: Vec<u8> = (0..=255u8).chain((0..=255u8).rev()).collect();
        for length in 0..bytes.len() {
            let part = &bytes[..length];
            assert_eq!(STANDARD.decode(standard(part)).expect("standard"), part);
            assert_eq!(decode_standard(&standard(part)).as_deref(), Some(part));
            assert_eq!(URL_SAFE_NO_PAD.decode(url_safe(part)).expect("url-safe"), part);
        }
    }
}
