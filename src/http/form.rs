//! `application/x-www-form-urlencoded`, as the WHATWG URL standard defines
//! it: OAuth's token request bodies, the authorization request's query, the
//! callback's query, and the Basic credentials of RFC 6749 §2.3.1.
//!
//! Written here rather than taken from `form_urlencoded`: that crate and
//! `percent_encoding` under it (with its 768-byte table of escapes) were some
//! 3 KB of the lite wasm for these few strings (docs/size.md, session 29).
//! The tests hold this module to that crate's output, byte for byte.

/// The bytes a form leaves as they are; a space becomes `+`, the rest `%XX`.
fn unescaped(byte: u8) -> bool {
    matches!(byte, b'*' | b'-' | b'.' | b'_' | b'0'..=b'9' | b'A'..=b'Z' | b'a'..=b'z')
}

/// One name or value, form-encoded: the encoding of RFC 6749 §2.3.1 for
/// each part of HTTP Basic client credentials too (`+` for a space,
/// everything but the unreserved escaped).
pub fn form_component(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    push_component(&mut out, value);
    out
}

/// [`form_component`] of `value`, appended to `out`.
fn push_component(out: &mut String, value: &str) {
    const HEX: &[u8; 16] = b"0123456789ABCDEF";
    for &byte in value.as_bytes() {
        if unescaped(byte) {
            out.push(char::from(byte));
        } else if byte == b' ' {
            out.push('+');
        } else {
            out.push('%');
            out.push(char::from(HEX[usize::from(byte >> 4)]));
            out.push(char::from(HEX[usize::from(byte & 0x0f)]));
        }
    }
}

/// Appends `name=value` to a form, after a `&` if it has pairs already:
/// how every form of the crate is written, pair by pair, so that one
/// function does it (no iterator-generic copy per caller in the wasm).
pub fn push_pair(form: &mut String, name: &str, value: &str) {
    if !form.is_empty() {
        form.push('&');
    }
    push_component(form, name);
    form.push('=');
    push_component(form, value);
}

/// Pairs as a form: `name=value`, joined by `&`.
pub fn encode_form(pairs: &[(&str, &str)]) -> String {
    let mut out = String::new();
    for (name, value) in pairs {
        push_pair(&mut out, name, value);
    }
    out
}

/// A form's pairs: `&` separates them (empty ones skipped), the first `=`
/// splits a name from its value, `+` is a space and `%XX` a byte (a `%`
/// without two hex digits after it stays as it is), and bytes that are not
/// UTF-8 become U+FFFD.
pub fn parse_form(text: &str) -> Vec<(String, String)> {
    let mut pairs = Vec::new();
    for pair in text.split('&') {
        if !pair.is_empty() {
            let (name, value) = pair.split_once('=').unwrap_or((pair, ""));
            pairs.push((decode(name), decode(value)));
        }
    }
    pairs
}

fn decode(text: &str) -> String {
    let hex = |byte: Option<&u8>| byte.and_then(|&b| char::from(b).to_digit(16));
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut at = 0;
    while at < bytes.len() {
        let byte = match (bytes[at], hex(bytes.get(at + 1)), hex(bytes.get(at + 2))) {
            (b'+', _, _) => b' ',
            (b'%', Some(high), Some(low)) => {
                at += 2;
                (high * 16 + low) as u8
            }
            (other, _, _) => other,
        };
        out.push(byte);
        at += 1;
    }
    String::from_utf8(out).unwrap_or_else(|e| crate::protocol::utf8_lossy(e.as_bytes()).into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Texts that reach every branch: each byte value (as UTF-8), escapes
    /// valid and not, `+`, separators, and escapes of bytes that are not
    /// UTF-8.
    fn samples() -> Vec<String> {
        let mut samples: Vec<String> = [
            "",
            "&",
            "&&a=1&&",
            "a",
            "a=",
            "=b",
            "a=b=c",
            "a+b=c+d",
            "%2B=%2b&%20=%",
            "%",
            "%4",
            "%4g",
            "%%41",
            "%C3%A9t%C3%A9",
            "%FF%FEx",
            "%C3",
            "caf\u{e9}=\u{1f600}",
            "code=abc&state=x%3Dy&iss=https%3A%2F%2Fas.example",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        samples.push((0..=0x7f_u8).map(char::from).collect());
        samples.push(('\u{80}'..='\u{7ff}').collect());
        samples.push((0..=255).map(|b| format!("%{b:02X}")).collect());
        samples
    }

    #[test]
    fn encodes_as_the_form_urlencoded_crate_does() {
        for text in samples() {
            let expected: String = form_urlencoded::byte_serialize(text.as_bytes()).collect();
            assert_eq!(form_component(&text), expected, "{text:?}");
            let pairs = [("name", text.as_str()), (text.as_str(), "")];
            let expected = form_urlencoded::Serializer::new(String::new()).extend_pairs(pairs).finish();
            assert_eq!(encode_form(&pairs), expected, "{text:?}");
        }
        assert_eq!(encode_form(&[]), "");
    }

    #[test]
    fn decodes_as_the_form_urlencoded_crate_does() {
        for text in samples() {
            let expected: Vec<(String, String)> =
                form_urlencoded::parse(text.as_bytes()).map(|(k, v)| (k.into_owned(), v.into_owned())).collect();
            assert_eq!(parse_form(&text), expected, "{text:?}");
        }
    }

    #[test]
    fn what_is_encoded_decodes_back() {
        for text in samples() {
            let form = encode_form(&[("k", text.as_str())]);
            assert_eq!(parse_form(&form), vec![("k".to_string(), text.clone())]);
        }
    }
}
