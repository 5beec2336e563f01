//! A `fetch` the host installs for mcp-edge alone, in place of the global
//! one: the Node entries install one over `node:http` (the package's
//! `node-http.js`, which says why and when it steps aside for the global
//! `fetch`). It is found under `Symbol.for("mcp-edge.fetch")` on the
//! global object when a client is made; without one the global `fetch` is
//! called, as everywhere else.

use js_sys::Function;
use wasm_bindgen::JsCast;

/// The symbol the host's `fetch` is installed under.
const INSTALLED: &str = "mcp-edge.fetch";

/// The installed `fetch`, if there is one.
pub(super) fn installed() -> Option<Function> {
    let key = js_sys::Symbol::for_(INSTALLED);
    js_sys::Reflect::get(&js_sys::global(), &key).ok()?.dyn_into::<Function>().ok()
}
