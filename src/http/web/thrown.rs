//! The text of what JS threw or rejected with, for an error message: one
//! reader for the fetch seam, the legacy transport and the JS face.

use js_sys::Reflect;
use wasm_bindgen::prelude::*;
use wasm_bindgen::{JsCast, JsValue};

#[wasm_bindgen]
extern "C" {
    /// The global `String(value)`: JS's own text of a value. `catch`: an
    /// object whose `toString` throws, or that has none, throws here too.
    #[wasm_bindgen(js_name = String, catch)]
    fn string_of(value: &JsValue) -> Result<String, JsValue>;
}

/// An `Error`'s message, a string, an object's string `message`, the
/// value's JSON, or else `String(value)`. Not `{:?}` of the `JsValue`:
/// that is wasm-bindgen's `debugString`, 2 KB of glue for what no message
/// needs (docs/size.md, session 29).
pub(crate) fn message_of(value: &JsValue) -> String {
    if let Some(error) = value.dyn_ref::<js_sys::Error>() {
        return String::from(error.message());
    }
    if let Some(text) = value.as_string() {
        return text;
    }
    if value.is_object()
        && let Some(message) = Reflect::get(value, &JsValue::from_str("message")).ok().and_then(|m| m.as_string())
    {
        return message;
    }
    js_sys::JSON::stringify(value)
        .ok()
        .and_then(|text| JsValue::from(text).as_string())
        .or_else(|| string_of(value).ok())
        .unwrap_or_else(|| "a value that cannot be printed".to_owned())
}
