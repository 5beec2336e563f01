//! The browser's `EventSource`, where the global object has one: opened and
//! listened to by `fetch.js`, which reports what it sees to one callback.
//! Through the bindings the same took a closure per kind of event and some
//! 0.3 KB more of the wasm's gzip (docs/size.md, session 45).

use js_sys::Function;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::prelude::wasm_bindgen;
use wasm_bindgen::{JsCast, JsValue};

use super::super::sse::SseEvent;
use crate::runtime::channel::mpsc;

#[wasm_bindgen(module = "/src/http/web/fetch.js")]
extern "C" {
    #[wasm_bindgen(js_name = hasEventSource)]
    fn has_event_source() -> bool;
    /// Opens it; `report(kind, data, id)` hears each event (`fetch.js` says
    /// which `kind` is which). Returns the function that closes it.
    #[wasm_bindgen(js_name = openEventSource, catch)]
    fn open_event_source(url: &str, report: &Function) -> Result<Function, JsValue>;
}

/// Whether this global object (window, worker, Node, Deno) has an
/// `EventSource` constructor.
pub fn available() -> bool {
    has_event_source()
}

/// What the `EventSource` reports.
pub enum Item {
    /// A connection opened.
    Open,
    /// An `endpoint` or `message` event.
    Event(SseEvent),
    /// A connection failed or dropped; `closed`: the browser gave up
    /// (otherwise it reconnects by itself).
    Error { closed: bool },
}

/// An open `EventSource`; closed (and its listeners released) on drop.
pub struct Source {
    close: Function,
    _report: Closure<dyn FnMut(u32, String, String)>,
}

impl Source {
    pub fn open(url: &str) -> Result<(Source, mpsc::UnboundedReceiver<Item>), String> {
        let (sender, items) = mpsc::unbounded();
        let report = Closure::<dyn FnMut(u32, String, String)>::new(move |kind: u32, data: String, id: String| {
            let item = match kind {
                0 => Item::Open,
                1 | 2 => Item::Error { closed: kind == 2 },
                3 => Item::Event(SseEvent { event: "message".to_owned(), data, id }),
                _ => Item::Event(SseEvent { event: "endpoint".to_owned(), data, id }),
            };
            let _ = sender.unbounded_send(item);
        });
        let close = open_event_source(url, report.as_ref().unchecked_ref()).map_err(|e| crate::http::message_of(&e))?;
        Ok((Source { close, _report: report }, items))
    }

    pub fn close(&self) {
        // Closing twice (here, then on drop) is harmless.
        let _ = self.close.call0(&JsValue::UNDEFINED);
    }
}

impl Drop for Source {
    fn drop(&mut self) {
        self.close();
    }
}
