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
use crate::client::{Client, ListenFilter, Subscription};

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
        // Closing never rejects: how it ended is `closed`'s to tell.
        use futures::FutureExt;
        super::promise(crate::runtime::settled(&self.closed).map(|_| Ok(JsValue::UNDEFINED)))
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
        // The pump is the `closed` promise's own work: it settles as the
        // subscription ends (no task and channel beside it to report that).
        let closed = super::promise(pump(subscription, listener, stopped));
        Ok(McpSubscription { id, granted, stop: RefCell::new(Some(stop)), closed }.into())
    })
}

/// Delivers notifications until the subscription ends or is stopped; then
/// settles with how it ended (an error when it broke).
async fn pump(
    subscription: Subscription,
    listener: Function,
    stopped: oneshot::Receiver<()>,
) -> Result<JsValue, WebError> {
    let mut subscription = subscription;
    let mut stopped = stopped;
    loop {
        match select(subscription.next(), &mut stopped).await {
            Either::Left((Some(Ok(notification)), _)) => notify_listener(&listener, &notification),
            Either::Left((Some(Err(error)), _)) => return Err(error.into()),
            Either::Left((None, _)) => return Ok(JsValue::UNDEFINED),
            // Stopped, or the handle was garbage-collected without closing.
            Either::Right(_) => {
                if let Some((client, uris)) = subscription.end() {
                    crate::client::unsubscribe_all(client, uris).await;
                }
                return Ok(JsValue::UNDEFINED);
            }
        }
    }
}
