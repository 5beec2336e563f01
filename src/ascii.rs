//! Tests for ASCII bytes in text. `str`'s patterns of several `char`s
//! (`text.contains(['/', '?'])`) each bring a searcher of their own into
//! the wasm (some 0.3 KB of gzip for the handful this crate had:
//! docs/size.md, session 45); every pattern here is ASCII, so testing
//! bytes gives the same answers, and faster.

/// Where the first of `bytes` is in `text`.
pub(crate) fn find_any(text: &str, bytes: &[u8]) -> Option<usize> {
    text.bytes().position(|b| bytes.contains(&b))
}

/// Whether `text` has any of `bytes`.
pub(crate) fn has_any(text: &str, bytes: &[u8]) -> bool {
    find_any(text, bytes).is_some()
}

/// Whether `text` starts with one of `bytes`.
pub(crate) fn starts_with_any(text: &str, bytes: &[u8]) -> bool {
    text.bytes().next().is_some_and(|b| bytes.contains(&b))
}

/// `text` without the leading run of `bytes`.
pub(crate) fn trim_start_any<'a>(text: &'a str, bytes: &[u8]) -> &'a str {
    let skipped = text.bytes().take_while(|b| bytes.contains(b)).count();
    text.get(skipped..).unwrap_or_default()
}

/// `text` without the trailing run of `bytes`.
pub(crate) fn trim_end_any<'a>(text: &'a str, bytes: &[u8]) -> &'a str {
    let mut end = text.len();
    while end > 0 && bytes.contains(&text.as_bytes()[end - 1]) {
        end -= 1;
    }
    text.get(..end).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_byte_tests_answer_as_the_char_patterns_do() {
        for text in ["", "a", "a/b", "?x", "#", "é/ü", "--+1", "+", "ab%7E~", "/", "a//", "é/"] {
            assert_eq!(find_any(text, b"/?#"), text.find(['/', '?', '#']), "{text}");
            assert_eq!(has_any(text, b"%~"), text.contains(['%', '~']), "{text}");
            assert_eq!(starts_with_any(text, b"/#?"), text.starts_with(['/', '#', '?']), "{text}");
            assert_eq!(trim_start_any(text, b"-+"), text.trim_start_matches(['-', '+']), "{text}");
            assert_eq!(trim_end_any(text, b"/"), text.trim_end_matches('/'), "{text}");
        }
    }
}
