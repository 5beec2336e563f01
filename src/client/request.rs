//! One request's life on the handle's side: id, progress token, timeouts,
//! and cancellation when the caller gives up or drops the future.

use std::future::poll_fn;
use std::sync::atomic::Ordering;
use std::task::Poll;
use std::time::Duration;

use crate::runtime::channel::{mpsc, oneshot};
use futures::{FutureExt, StreamExt};
use serde_json::{Map, Value};

use super::driver::Command;
use super::{Client, Error, RequestOptions, deadline};
use crate::protocol::types::Progress;
use crate::protocol::{RawResult, Request, RequestId};
use crate::runtime::{BoxFuture, boxed};

/// Sends `notifications/cancelled` if the request future is dropped before
/// its answer came: dropping is how Rust callers (and an `AbortSignal`
/// through the JS API) cancel.
struct CancelOnDrop<'a> {
    client: &'a Client,
    id: Option<RequestId>,
}

impl CancelOnDrop<'_> {
    fn disarm(&mut self) {
        self.id = None;
    }

    fn cancel(&mut self, reason: String) {
        if let Some(id) = self.id.take() {
            // A closed session has nothing to cancel.
            let _ = self.client.command(Command::Cancel { id, reason });
        }
    }
}

impl Drop for CancelOnDrop<'_> {
    fn drop(&mut self) {
        self.cancel("the request was abandoned by the caller".into());
    }
}

enum Waited {
    Answer(Result<RawResult, Error>),
    TimedOut(Duration),
}

impl Client {
    pub(crate) async fn send_request(
        &self,
        method: &str,
        params: Option<Value>,
        options: &mut RequestOptions,
    ) -> Result<RawResult, Error> {
        let id = RequestId::Int(self.inner.next_id.fetch_add(1, Ordering::Relaxed));
        let mut params = params;
        let (progress_tx, mut progress_rx) = match options.on_progress {
            Some(_) => {
                params = Some(with_progress_token(params, &id)?);
                let (tx, rx) = mpsc::unbounded();
                (Some(tx), Some(rx))
            }
            None => (None, None),
        };
        let (reply, answer) = oneshot::channel();
        let request = Request { id: id.clone(), method: method.to_owned(), params };
        let stateless = options.stateless_headers.take();
        self.command(Command::Request { request, reply, progress: progress_tx, stateless })?;
        let mut guard = CancelOnDrop { client: self, id: Some(id) };

        let timeout = options.timeout.unwrap_or(self.inner.options.request_timeout);
        let clock = self.inner.options.interaction.clone();
        let mut idle: BoxFuture<'static, ()> = boxed(deadline::wait(timeout, clock.clone()));
        let mut hard: Option<(BoxFuture<'static, ()>, Duration)> =
            options.max_total_timeout.map(|limit| (boxed(deadline::wait(limit, clock.clone())), limit));
        let mut answer = answer;
        let waited = poll_fn(|cx| {
            // Progress first: the driver queued every update that arrived
            // before the answer, and none may be lost to the caller.
            while let Some(rx) = progress_rx.as_mut() {
                match rx.poll_next_unpin(cx) {
                    // The loop routed it by its params' `progressToken`: it has params.
                    Poll::Ready(Some(notification)) => match notification.params.map(Progress::from_params) {
                        Some(Ok(progress)) => {
                            if let Some(callback) = options.on_progress.as_mut() {
                                callback(&progress);
                            }
                            if options.reset_timeout_on_progress {
                                idle = boxed(deadline::wait(timeout, clock.clone()));
                            }
                        }
                        // Neither reported nor counted as progress.
                        Some(Err(e)) => log::warn!("ignoring malformed progress notification: {e}"),
                        None => {}
                    },
                    Poll::Ready(None) => progress_rx = None,
                    Poll::Pending => break,
                }
            }
            if let Poll::Ready(outcome) = answer.poll_unpin(cx) {
                return Poll::Ready(Waited::Answer(outcome.unwrap_or_else(|_| Err(Error::session_ended()))));
            }
            if idle.poll_unpin(cx).is_ready() {
                return Poll::Ready(Waited::TimedOut(timeout));
            }
            if let Some((limit, after)) = hard.as_mut()
                && limit.poll_unpin(cx).is_ready()
            {
                return Poll::Ready(Waited::TimedOut(*after));
            }
            Poll::Pending
        })
        .await;

        match waited {
            Waited::Answer(outcome) => {
                guard.disarm();
                outcome
            }
            Waited::TimedOut(after) => {
                // The driver skips the cancellation notice for `initialize`.
                guard.cancel(format!("timed out after {} ms", crate::runtime::whole_millis(after)));
                Err(Error::Timeout { method: method.to_owned(), after })
            }
        }
    }
}

/// A result's text as a JSON value (it was checked to be JSON, so only a
/// nesting deeper than the parser allows fails here).
pub(crate) fn to_value(method: &str, result: &RawResult) -> Result<Value, Error> {
    result.value().map_err(|e| Error::InvalidResult { method: method.to_owned(), reason: e.to_string() })
}

/// Puts `_meta.progressToken` (the request id) into the params object.
fn with_progress_token(params: Option<Value>, id: &RequestId) -> Result<Value, Error> {
    let object = with_meta(params, |meta| {
        meta.insert("progressToken".into(), id.to_value());
    })?;
    Ok(Value::Object(object))
}

/// The params object (none becomes `{}`) after `fill` wrote into its
/// `_meta` object (made when absent); params or `_meta` that are not
/// objects are the caller's mistake.
pub(crate) fn with_meta(
    params: Option<Value>,
    fill: impl FnOnce(&mut Map<String, Value>),
) -> Result<Map<String, Value>, Error> {
    let mut object = match params {
        None => Map::new(),
        Some(Value::Object(object)) => object,
        Some(_) => return Err(Error::InvalidArgument("request params must be a JSON object".into())),
    };
    let meta = object.entry("_meta").or_insert_with(|| Value::Object(Map::new()));
    let Value::Object(meta) = meta else {
        return Err(Error::InvalidArgument("`_meta` in request params must be a JSON object".into()));
    };
    fill(meta);
    Ok(object)
}
