//! `subscriptions/listen` (revision 2026-07-28): a long-lived request whose
//! notifications carry its id, opened by [`Client::listen`] for a
//! stateless server.

use crate::runtime::channel::oneshot;
use serde_json::{Map, Value};

use crate::client::driver::Command;
use crate::client::listen::Subscription;
use crate::client::{Client, Error};
use crate::protocol::methods::SUBSCRIPTIONS_LISTEN;
use crate::protocol::stateless::ListenFilter;
use crate::protocol::{ProtocolVersion, Request};

impl Client {
    /// Sends the listen request and waits for its acknowledgement.
    pub(crate) async fn listen_stateless(
        &self,
        requested: ListenFilter,
        offered: ListenFilter,
        version: ProtocolVersion,
    ) -> Result<Subscription, Error> {
        let mut subscription = self.subscription(requested, offered.clone(), None);
        let mut params = Map::new();
        params.insert("notifications".into(), offered.to_value());
        let (params, headers) = self.stateless_message(SUBSCRIPTIONS_LISTEN, params, version)?;
        let (reply, answer) = oneshot::channel();
        let request = Request {
            id: subscription.key.clone(),
            method: SUBSCRIPTIONS_LISTEN.into(),
            params: Some(Value::Object(params)),
        };
        self.command(Command::Request { request, reply, progress: None, stateless: Some(headers) })?;
        subscription.answer = Some(answer);
        // Dropped on failure, which cancels the request.
        subscription.acknowledged(self.inner.options.request_timeout).await?;
        if subscription.granted != subscription.requested {
            log::debug!("subscription {} granted {:?} of {:?}", subscription.key, subscription.granted, offered);
        }
        Ok(subscription)
    }
}
