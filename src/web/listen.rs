//! `McpClient.listen`: a subscription to change notifications, in either
//! era, delivered to a JS callback until it is closed.

use std::cell::RefCell;

use crate::runtime::channel::oneshot;
use futures::StreamExt;
use futures::future::{Either, select};
use js_sys::{Function, Promise};
use serde_json::Value;
use wasm_bindgen::prelude::*;

use super::convert::{WebError, object_from_js, to_js};
use super::handlers::notify_listener;
use crate::client::{Client, Error, ListenFilter, Subscription};

/// An open subscription, made by `McpClient.listen`.
#[wasm_bindgen(js_name = McpSubscription)]
#[derive(Debug)]
pub struct McpSubscription {
    id: Value,
    granted: Value,
    stop: RefCell<Option<oneshot::Sender<()>>>,
    closed: Promise,
}

#[wasm_bindgen(js_class = McpSubscription)]
impl McpSubscription {
    /// The subscription's id (2026-07-28: the `subscriptions/listen` request id).
    #[wasm_bindgen(getter, unchecked_return_type = "RequestId")]
    pub fn id(&self) -> JsValue {
        to_js(&self.id).unwrap_or(JsValue::UNDEFINED)
    }

    /// What the server will deliver: its acknowledgement (handshake era:
    /// what its capabilities cover).
    #[wasm_bindgen(getter, unchecked_return_type = "SubscriptionFilter")]
    pub fn granted(&self) -> JsValue {
        to_js(&self.granted).unwrap_or(JsValue::UNDEFINED)
    }

    /// Settles when the subscription ends: resolves when it was closed or
    /// the server ended it, rejects with an `McpError` when the connection broke.
    #[wasm_bindgen(getter, unchecked_return_type = "Promise<void>")]
    pub fn closed(&self) -> Promise {
        self.closed.clone()
    }

    /// Ends the subscription; resolves once the server was told.
    #[wasm_bindgen(unchecked_return_type = "Promise<void>")]
    pub fn close(&self) -> Promise {
        if let Some(stop) = self.stop.borrow_mut().take() {
            let _ = stop.send(());
        }
        let closed = self.closed.clone();
        // Closing never rejects: how it ended is `closed`'s to tell.
        super::promise(async move {
            let _ = crate::runtime::settled(&closed).await;
            Ok(JsValue::UNDEFINED)
        })
    }
}

/// Reads a `SubscriptionFilter` from JS.
fn filter_from_js(value: &JsValue) -> Result<ListenFilter, WebError> {
    let object = object_from_js(value, "filter")?.unwrap_or_default();
    crate::protocol::fields::from_value(Value::Object(object), "a SubscriptionFilter")
        .map_err(|e| WebError::Type(format!("filter is not a SubscriptionFilter: {e}")))
}

/// Opens the subscription and starts handing its notifications to `listener`.
pub(crate) fn listen(client: Client, filter: &JsValue, listener: Function) -> Promise {
    let filter = filter_from_js(filter);
    super::promise(async move {
        let subscription = client.listen_without_reopen(filter?).await.map_err(WebError::from)?;
        let subscription = client.reopening(subscription);
        let id = subscription.id().to_value();
        let granted = subscription.granted().to_value();
        let (stop, stopped) = oneshot::channel();
        let (ended, end) = oneshot::channel();
        // Spawning cannot fail on wasm32 (`runtime::spawn` queues the task).
        let _ = crate::runtime::spawn(pump(subscription, listener, stopped, ended));
        let closed = super::promise(async move {
            match end.await {
                Ok(Err(error)) => Err(WebError::from(error)),
                Ok(Ok(())) | Err(_) => Ok(JsValue::UNDEFINED),
            }
        });
        Ok(McpSubscription { id, granted, stop: RefCell::new(Some(stop)), closed }.into())
    })
}

/// Delivers notifications until the subscription ends or is stopped; then
/// says how it ended (an error when it broke; a `Result`, not an `Option`:
/// the channel type of a notification's delivery report, one oneshot type
/// fewer in the wasm).
async fn pump(
    subscription: Subscription,
    listener: Function,
    stopped: oneshot::Receiver<()>,
    ended: oneshot::Sender<Result<(), Error>>,
) {
    let mut subscription = subscription;
    let mut stopped = stopped;
    let outcome = loop {
        match select(subscription.next(), &mut stopped).await {
            Either::Left((Some(Ok(notification)), _)) => notify_listener(&listener, &notification),
            Either::Left((Some(Err(error)), _)) => break Err(error),
            Either::Left((None, _)) => break Ok(()),
            // Stopped, or the handle was garbage-collected without closing.
            Either::Right(_) => {
                if let Some((client, uris)) = subscription.end() {
                    crate::client::unsubscribe_all(client, uris).await;
                }
                break Ok(());
            }
        }
    };
    let _ = ended.send(outcome);
}
