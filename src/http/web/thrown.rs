//! The text of what JS threw or rejected with, for an error message: one
//! reader for the fetch seam, the legacy transport and the JS face.

use wasm_bindgen::JsValue;
use wasm_bindgen::prelude::*;

#[wasm_bindgen(module = "/src/http/web/fetch.js")]
extern "C" {
    /// `fetch.js` reads it: an `Error`'s message, a string, an object's
    /// string `message`, the value's JSON, or else `String(value)`. In JS:
    /// the same steps through the bindings were some 0.3 KB of the wasm's
    /// gzip (docs/size.md, session 45).
    #[wasm_bindgen(js_name = textOf)]
    fn text_of(value: &JsValue) -> String;
}

/// The text of a thrown or rejected value (see [`text_of`]).
pub(crate) fn message_of(value: &JsValue) -> String {
    text_of(value)
}
