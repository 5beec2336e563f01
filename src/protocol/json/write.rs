//! The way back: a `Value` as compact JSON text, as serde_json writes it.

use std::fmt;

use serde_json::Value;

use super::plain_run;

/// `value` appended to `out` as compact JSON, byte for byte as serde_json
/// writes it: strings escaped as it escapes them, numbers as `Number`
/// shows them (integers as such, floats in their shortest form).
pub(crate) fn write(value: &Value, out: &mut String) {
    match value {
        Value::Null => out.push_str("null"),
        Value::Bool(true) => out.push_str("true"),
        Value::Bool(false) => out.push_str("false"),
        Value::Number(number) => {
            use fmt::Write as _;
            // Writing to a `String` cannot fail.
            let _ = write!(out, "{}", Shown(number));
        }
        Value::String(text) => write_string(text, out),
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write(item, out);
            }
            out.push(']');
        }
        Value::Object(members) => {
            out.push('{');
            for (i, (name, member)) in members.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_string(name, out);
                out.push(':');
                write(member, out);
            }
            out.push('}');
        }
    }
}

/// A number as JSON text: an integer as such, a float in its shortest
/// form. serde_json's `Number` formatting natively; on wasm32 the host's
/// (`String(float)`), which keeps serde_json's float writer
/// (zmij, some 2 KB of the wasm) out of the module. The host writes the
/// same shortest digits with other exponent rules (`1e+21`, `100000000000000000000`
/// for `1e20`); the marks of a float are kept as serde_json writes them: a
/// fraction or an exponent always (`1.0`, not `1`), and the sign of zero.
pub(crate) struct Shown<'a>(pub(crate) &'a serde_json::Number);

impl fmt::Display for Shown<'_> {
    #[cfg(not(target_arch = "wasm32"))]
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self.0, f)
    }

    #[cfg(target_arch = "wasm32")]
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let number = self.0;
        if let Some(whole) = number.as_u64() {
            return fmt::Display::fmt(&whole, f);
        }
        if let Some(whole) = number.as_i64() {
            return fmt::Display::fmt(&whole, f);
        }
        // A `Number` holds only finite floats.
        let float = number.as_f64().unwrap_or_default();
        let text = host_text(float);
        if float == 0.0 && float.is_sign_negative() {
            f.write_str("-")?;
        }
        f.write_str(&text)?;
        if !crate::ascii::has_any(&text, b".e") {
            f.write_str(".0")?;
        }
        Ok(())
    }
}

#[cfg(target_arch = "wasm32")]
#[wasm_bindgen::prelude::wasm_bindgen]
extern "C" {
    /// `String(float)`: the shortest text that reads back as `float`.
    #[wasm_bindgen(js_name = String)]
    fn host_text(float: f64) -> String;
}

/// `text` appended to `out` as a JSON string: `"` and `\` escaped, and the
/// control characters (`\n` and the like where JSON has a short form,
/// `\u00XX` otherwise); everything else as it is.
pub(crate) fn write_string(text: &str, out: &mut String) {
    out.push('"');
    let mut rest = text;
    loop {
        let plain = plain_run(rest.as_bytes());
        out.push_str(rest.get(..plain).unwrap_or_default());
        let Some(byte) = rest.as_bytes().get(plain).copied() else { break };
        match byte {
            b'"' => out.push_str("\\\""),
            b'\\' => out.push_str("\\\\"),
            b'\n' => out.push_str("\\n"),
            b'\r' => out.push_str("\\r"),
            b'\t' => out.push_str("\\t"),
            0x08 => out.push_str("\\b"),
            0x0c => out.push_str("\\f"),
            _ => {
                const HEX: &[u8; 16] = b"0123456789abcdef";
                out.push_str("\\u00");
                out.push(char::from(HEX[usize::from(byte >> 4)]));
                out.push(char::from(HEX[usize::from(byte & 0xf)]));
            }
        }
        // The byte written was ASCII: the rest starts at a character.
        rest = rest.get(plain + 1..).unwrap_or_default();
    }
    out.push('"');
}
