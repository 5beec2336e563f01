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
            let _ = write!(out, "{number}");
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
