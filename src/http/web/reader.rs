//! A `fetch` body read chunk by chunk (SSE streams, bodies of unknown or
//! large length), through the stream's own reader.
//!
//! Each `read()` is awaited with [`crate::runtime::settled`], whose callback
//! runs the waiting task at once: with `wasm-streams` (and its `JsFuture`
//! per read) every chunk cost a microtask more. Dropped before the end, the
//! reader cancels the stream, which ends the exchange.

use std::pin::Pin;
use std::task::{Context, Poll, ready};

use futures::{FutureExt, Stream};
use js_sys::{Promise, Uint8Array};
use wasm_bindgen::prelude::*;
use wasm_bindgen::{JsCast, JsValue};
use web_sys::ReadableStream;

use crate::runtime::{Settled, settled};

#[wasm_bindgen]
extern "C" {
    /// What `ReadableStream.getReader()` gives (a default reader).
    type DefaultReader;

    #[wasm_bindgen(method, catch, js_name = getReader)]
    fn get_reader(this: &Body) -> Result<DefaultReader, JsValue>;

    #[wasm_bindgen(method)]
    fn read(this: &DefaultReader) -> Promise;

    /// A `ReadableStream`, for `getReader` without web-sys's reader types.
    type Body;

}

/// The chunks of a body stream: each a `Uint8Array`.
pub(super) struct BodyChunks {
    /// `None` once the stream ended, failed or could not be locked.
    reader: Option<DefaultReader>,
    reading: Option<Settled>,
}

impl BodyChunks {
    /// Locks `body` to a reader of its own; a body that cannot be locked
    /// (read already) is an error at the first read.
    pub(super) fn new(body: ReadableStream) -> Result<Self, JsValue> {
        let reader = body.unchecked_ref::<Body>().get_reader()?;
        Ok(BodyChunks { reader: Some(reader), reading: None })
    }
}

impl Stream for BodyChunks {
    type Item = Result<Uint8Array, JsValue>;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = self.get_mut();
        let Some(reader) = &this.reader else { return Poll::Ready(None) };
        let reading = this.reading.get_or_insert_with(|| settled(&reader.read()));
        let outcome = ready!(reading.poll_unpin(cx));
        this.reading = None;
        match outcome {
            // `{done, value}`: the chunk's bytes, or none once done.
            Ok(result) => match super::bytes_of(&result, false) {
                Some(bytes) => Poll::Ready(Some(Ok(bytes))),
                None => {
                    this.reader = None;
                    Poll::Ready(None)
                }
            },
            // An errored stream is released with its error: nothing to cancel.
            Err(error) => {
                this.reader = None;
                Poll::Ready(Some(Err(error)))
            }
        }
    }
}

impl Drop for BodyChunks {
    fn drop(&mut self) {
        if let Some(reader) = self.reader.take() {
            super::abandon(&reader);
        }
    }
}
