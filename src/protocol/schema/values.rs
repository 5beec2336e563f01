//! Comparing JSON values as JSON Schema does (`enum`, `const`,
//! `uniqueItems`), and quoting them in messages.

use std::fmt;

use serde_json::Value;

use super::QUOTED;
use crate::protocol::JsonText;

/// `value` as JSON, cut after about [`QUOTED`] bytes: a message quotes the
/// start of a large value, and writing the rest of it would be wasted work.
pub(crate) fn quoted(value: &Value) -> String {
    struct Bounded(String);
    impl fmt::Write for Bounded {
        fn write_str(&mut self, text: &str) -> fmt::Result {
            if self.0.len() + text.len() > QUOTED {
                // Back to a character's start (0 always is one): `text`
                // is longer than `room` here.
                let mut room = QUOTED.saturating_sub(self.0.len());
                while !text.is_char_boundary(room) {
                    room -= 1;
                }
                self.0.push_str(&text[..room]);
                return Err(fmt::Error);
            }
            self.0.push_str(text);
            Ok(())
        }
    }
    let mut out = Bounded(String::new());
    if fmt::write(&mut out, format_args!("{}", JsonText(value))).is_err() {
        out.0.push_str("...");
    }
    out.0
}

/// JSON equality with numbers compared by value (1 and 1.0 are equal).
pub(crate) fn equal(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        (Value::Array(x), Value::Array(y)) => x.len() == y.len() && x.iter().zip(y).all(|(x, y)| equal(x, y)),
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| equal(v, w)))
        }
        _ => a == b,
    }
}

/// Two items of `items` that are equal as JSON Schema compares them, if
/// any: each item is written in a canonical form (numbers by value, object
/// members by name) and the forms are sorted, so that thousands of items
/// take a sort, not a comparison of every pair.
pub(crate) fn equal_pair(items: &[Value]) -> Option<(usize, usize)> {
    fn canonical(value: &Value, out: &mut String) {
        use fmt::Write;
        match value {
            // JSON has no NaN or infinity: every number reads as a finite f64;
            // -0 and 0 are equal (the fuzzer's first find), so one form. The
            // form is the f64's bits, not `{}` of it: equal values have equal
            // bits, and float formatting (some 11 KB of wasm) stays out.
            Value::Number(n) => {
                let n = n.as_f64().unwrap_or_default();
                let _ = write!(out, "{}", if n == 0.0 { 0 } else { n.to_bits() });
            }
            Value::Array(items) => {
                out.push('[');
                for item in items {
                    canonical(item, out);
                    out.push(',');
                }
                out.push(']');
            }
            Value::Object(members) => {
                // Sorted by their forms, which begin with the member's name.
                let mut forms = Vec::with_capacity(members.len());
                for (i, (name, member)) in members.iter().enumerate() {
                    forms.push((form(Some(name), member), i));
                }
                forms.sort_unstable();
                out.push('{');
                for (form, _) in forms {
                    out.push_str(&form);
                    out.push(',');
                }
                out.push('}');
            }
            // null, booleans and strings as JSON writes them.
            other => crate::protocol::json::write(other, out),
        }
    }
    /// A value's form, after its name's for an object's member. One
    /// function, where a generic one over iterators was a copy per caller.
    fn form(name: Option<&str>, value: &Value) -> String {
        let mut form = String::new();
        if let Some(name) = name {
            crate::protocol::json::write_string(name, &mut form);
            form.push(':');
        }
        canonical(value, &mut form);
        form
    }
    let mut forms = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        forms.push((form(None, item), i));
    }
    forms.sort_unstable();
    forms.windows(2).find(|pair| pair[0].0 == pair[1].0).map(|pair| (pair[0].1, pair[1].1))
}
