//! Base64 encoding (RFC 4648): the standard alphabet with padding (HTTP
//! Basic credentials, `Mcp-Param-*` header values) and base64url without
//! padding (PKCE, JWTs). Encoding only; the one decoder the crate needs
//! (a PEM key, feature `private-key-jwt`) is the `base64` crate's.
//!
//! Written here rather than taken from the `base64` crate: its generic
//! engine was 1.8 KB of the lite wasm for these two uses, this is a
//! fraction of it (docs/size.md, session 29).

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
            assert_eq!(URL_SAFE_NO_PAD.decode(url_safe(part)).expect("url-safe"), part);
        }
    }
}
