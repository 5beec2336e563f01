//! The browser's `EventSource`, where the global object has one.

use crate::runtime::channel::mpsc;
use wasm_bindgen::JsCast;
use wasm_bindgen::JsValue;
use wasm_bindgen::closure::Closure;
use web_sys::{Event, EventSource, MessageEvent};

use super::super::sse::SseEvent;

/// Whether this global object (window, worker, Node, Deno) has an
/// `EventSource` constructor.
pub fn available() -> bool {
    js_sys::Reflect::get(&js_sys::global(), &JsValue::from_str("EventSource"))
        .map(|value| value.is_function())
        .unwrap_or(false)
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

type Listener<T> = Closure<dyn FnMut(T)>;

/// An open `EventSource`; closed (and its listeners released) on drop.
pub struct Source {
    source: EventSource,
    _open: Listener<Event>,
    _error: Listener<Event>,
    _message: Listener<MessageEvent>,
    _endpoint: Listener<MessageEvent>,
}

impl Source {
    pub fn open(url: &str) -> Result<(Source, mpsc::UnboundedReceiver<Item>), String> {
        let source = EventSource::new(url).map_err(|e| crate::http::message_of(&e))?;
        let (sender, items) = mpsc::unbounded();
        let on_open = {
            let sender = sender.clone();
            Closure::<dyn FnMut(Event)>::new(move |_: Event| {
                let _ = sender.unbounded_send(Item::Open);
            })
        };
        let on_error = {
            let sender = sender.clone();
            let source = source.clone();
            Closure::<dyn FnMut(Event)>::new(move |_: Event| {
                let closed = source.ready_state() == EventSource::CLOSED;
                let _ = sender.unbounded_send(Item::Error { closed });
            })
        };
        let listener = |kind: &'static str| {
            let sender = sender.clone();
            Closure::<dyn FnMut(MessageEvent)>::new(move |event: MessageEvent| {
                let data = event.data().as_string().unwrap_or_default();
                let id = event.last_event_id();
                let _ = sender.unbounded_send(Item::Event(SseEvent { event: kind.to_owned(), data, id }));
            })
        };
        let on_message = listener("message");
        let on_endpoint = listener("endpoint");
        source.set_onopen(Some(on_open.as_ref().unchecked_ref()));
        source.set_onerror(Some(on_error.as_ref().unchecked_ref()));
        source.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
        source
            .add_event_listener_with_callback("endpoint", on_endpoint.as_ref().unchecked_ref())
            .map_err(|e| crate::http::message_of(&e))?;
        let opened = Source { source, _open: on_open, _error: on_error, _message: on_message, _endpoint: on_endpoint };
        Ok((opened, items))
    }

    pub fn close(&self) {
        self.source.close();
    }
}

impl Drop for Source {
    fn drop(&mut self) {
        self.source.close();
        self.source.set_onopen(None);
        self.source.set_onerror(None);
        self.source.set_onmessage(None);
        let _ = self.source.remove_event_listener_with_callback("endpoint", self._endpoint.as_ref().unchecked_ref());
    }
}
