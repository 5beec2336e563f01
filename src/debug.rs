//! Formatting with less of `core` than `{:?}` takes: strings quoted for
//! error messages ([`Quoted`]), and the `Debug` of the types whose impl is
//! written by hand (to leave secrets out or to show what a field means),
//! through [`debug_struct`].
//!
//! Built with `--cfg mcp_edge_shallow_debug`, as the npm package's nightly
//! build is (beside `-Zfmt-debug=shallow`, which does the same to derived
//! impls), [`debug_struct`] prints the type's name and nothing else. No
//! field's `Debug` is then reachable from the module, so it drops the
//! impls, `core`'s struct builder and its padding adapter: -1.5 KB gzip of
//! the lite wasm (docs/size.md, session 32). A JS caller never sees a Rust
//! value's `Debug`; every other build prints the fields.

use std::fmt;

/// `f.debug_struct(name)`, or its shallow stand-in (see the module).
#[cfg(not(mcp_edge_shallow_debug))]
pub(crate) fn debug_struct<'a, 'b: 'a>(f: &'a mut fmt::Formatter<'b>, name: &str) -> fmt::DebugStruct<'a, 'b> {
    f.debug_struct(name)
}

/// `f.debug_struct(name)`, or its shallow stand-in (see the module).
#[cfg(mcp_edge_shallow_debug)]
pub(crate) fn debug_struct<'a, 'b: 'a>(f: &'a mut fmt::Formatter<'b>, name: &'a str) -> Shallow<'a, 'b> {
    Shallow { f, name }
}

/// Writes only the name; takes fields the way `fmt::DebugStruct` does.
#[cfg(mcp_edge_shallow_debug)]
pub(crate) struct Shallow<'a, 'b: 'a> {
    f: &'a mut fmt::Formatter<'b>,
    name: &'a str,
}

#[cfg(mcp_edge_shallow_debug)]
impl Shallow<'_, '_> {
    pub(crate) fn field(&mut self, _name: &str, _value: &dyn fmt::Debug) -> &mut Self {
        self
    }

    pub(crate) fn finish(&mut self) -> fmt::Result {
        self.f.write_str(self.name)
    }

    pub(crate) fn finish_non_exhaustive(&mut self) -> fmt::Result {
        self.f.write_str(self.name)
    }
}

/// `parts` with `separator` between them: what `parts.join(separator)`
/// gives, in one small loop rather than `<[String]>::join`'s copy loops
/// specialised per separator length (docs/size.md, session 46).
pub(crate) fn joined(parts: &[String], separator: &str) -> String {
    let mut text = String::new();
    for (at, part) in parts.iter().enumerate() {
        if at > 0 {
            text.push_str(separator);
        }
        text.push_str(part);
    }
    text
}

/// `text` in double quotes, as `{:?}` shows a string, for error messages:
/// `"`, `\` and control characters escaped the way `str`'s `Debug` escapes
/// them; other characters as they are (`Debug` also escapes the unicode it
/// deems unprintable). `str`'s `Debug` brings core's tables of printable
/// characters and grapheme extenders into the wasm, about 4 KB; the crate
/// quotes with this instead (docs/size.md, session 32).
pub(crate) struct Quoted<'a>(pub(crate) &'a str);

impl fmt::Display for Quoted<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use fmt::Write as _;
        f.write_char('"')?;
        let mut rest = self.0;
        // Bytes, not chars: every byte escaped is ASCII.
        while let Some(at) = rest.bytes().position(|b| b < b' ' || b == b'"' || b == b'\\' || b == 0x7f) {
            f.write_str(&rest[..at])?;
            match rest.as_bytes()[at] {
                b'\n' => f.write_str("\\n")?,
                b'\r' => f.write_str("\\r")?,
                b'\t' => f.write_str("\\t")?,
                b'\0' => f.write_str("\\0")?,
                b'"' => f.write_str("\\\"")?,
                b'\\' => f.write_str("\\\\")?,
                // `\u{..}` in lowercase hex, as `{:x}` writes it, without
                // the hex formatter, which nothing else in the wasm needs.
                other => {
                    const HEX: &[u8; 16] = b"0123456789abcdef";
                    f.write_str("\\u{")?;
                    if other >= 0x10 {
                        f.write_char(char::from(HEX[usize::from(other >> 4)]))?;
                    }
                    f.write_char(char::from(HEX[usize::from(other & 0xf)]))?;
                    f.write_char('}')?;
                }
            }
            rest = &rest[at + 1..];
        }
        f.write_str(rest)?;
        f.write_char('"')
    }
}

#[cfg(test)]
mod tests {
    use super::Quoted;

    #[test]
    fn quoted_is_how_debug_shows_a_string() {
        for text in [
            "",
            "plain",
            "a \"quoted\" word",
            "back\\slash",
            "tab\tline\nreturn\r",
            "nul\0 esc\u{1b} del\u{7f}",
            "é ✓ 漢字 🦀",
            "'single'",
        ] {
            assert_eq!(Quoted(text).to_string(), format!("{text:?}"));
        }
    }
}
