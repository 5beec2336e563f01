//! `resources/subscribe` for a stateless server: revision 2026-07-28 has no
//! such method, so the subscription is a `subscriptions/listen` for the one
//! resource, kept open in the background until `resources/unsubscribe`.
//!
//! A listen stream can break (an HTTP stream cut by a proxy, a server
//! restart); a subscription the application made once must not silently
//! stop, so a broken one is opened again with a capped, jittered backoff.
//! What changed meanwhile cannot be replayed: the cached reads of the
//! resource are dropped and listeners hear `SessionEvent::Resubscribed`.
//! The background work holds only a weak reference to the client, and the
//! client holds what aborts it, so dropping every client handle ends it.

use std::sync::{Arc, Weak};

use futures::future::{AbortHandle, Abortable};
use futures::{FutureExt, StreamExt};

use crate::client::listen::{MAX_REOPEN_FAILURES, Subscription, reopen_delay};
use crate::client::{Client, Error, Inner, SessionEvent};
use crate::protocol::stateless::ListenFilter;
use crate::protocol::{Notification, methods};
use crate::runtime::sleep;

impl Client {
    /// Keeps `subscription`, the listen of `uri` just opened, open until
    /// unsubscribed. Not async (the caller awaits the listen's opening), so
    /// that it is no state machine of its own.
    pub(crate) fn keep_resource_listen(&self, uri: String, subscription: Subscription) -> Result<(), Error> {
        let (stop, registration) = AbortHandle::new_pair();
        let weak = Arc::downgrade(&self.inner);
        let kept = Abortable::new(keep_listening(weak, uri.clone(), subscription), registration);
        crate::runtime::spawn(kept.map(drop))?;
        let stop = StopOnDrop(stop);
        // A second subscribe replaces the first (which stops as it drops here).
        let mut kept = self.kept_listens();
        match kept.iter_mut().find(|(kept_uri, _)| *kept_uri == uri) {
            Some(slot) => slot.1 = stop,
            None => kept.push((uri, stop)),
        }
        Ok(())
    }

    /// Ends the kept listen of `uri`, if any.
    pub(crate) fn end_resource_listen(&self, uri: &str) {
        let mut kept = self.kept_listens();
        if let Some(at) = kept.iter().position(|(kept_uri, _)| kept_uri == uri) {
            // Dropped: the listen stops.
            kept.swap_remove(at);
        }
    }

    fn kept_listens(&self) -> std::sync::MutexGuard<'_, Vec<(String, StopOnDrop)>> {
        // A plain list: a poisoned lock is still usable.
        self.inner.kept_listens.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

/// What the client keeps of a kept listen: dropped (on
/// `resources/unsubscribe`, a second subscribe of the resource, or with the
/// client), it aborts the background work, which drops the subscription,
/// and a dropped subscription ends its listen as `Subscription::close` does.
pub(crate) struct StopOnDrop(AbortHandle);

impl Drop for StopOnDrop {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// Reads the subscription until it is stopped (aborted, see [`StopOnDrop`]),
/// the server ends it, or it breaks: then opens it again.
async fn keep_listening(client: Weak<Inner>, uri: String, first: Subscription) {
    let mut subscription = first;
    loop {
        // Its notifications reach the client's listeners on their own way in.
        let broken = loop {
            match subscription.next().await {
                Some(Ok(_)) => {}
                Some(Err(error)) => break error,
                // Ended by the server, or the session closed.
                None => return,
            }
        };
        log::warn!("the subscription to {uri} broke ({broken}): opening it again");
        let mut failures = 0;
        subscription = loop {
            // The same backoff and cap as a `Client::listen` that reopens itself.
            sleep(reopen_delay(failures)).await;
            let Some(inner) = client.upgrade() else { return };
            let client = Client { inner };
            match client.listen_without_reopen(ListenFilter::resource(uri.clone())).await {
                Ok(reopened) => {
                    // Updates in the gap are lost: what was cached of it is stale.
                    let updated = Notification {
                        method: methods::RESOURCES_UPDATED.into(),
                        params: Some(crate::protocol::object! { "uri": uri.as_str() }),
                    };
                    client.stateless_state().cache.invalidate(&updated);
                    for listener in &client.inner.options.event_listeners {
                        listener(&SessionEvent::Resubscribed { uri: uri.clone() });
                    }
                    break reopened;
                }
                Err(error) if failures + 1 >= MAX_REOPEN_FAILURES => {
                    log::warn!("giving up on the subscription to {uri}: {error}");
                    return;
                }
                Err(error) => {
                    failures += 1;
                    log::debug!("reopening the subscription to {uri} failed ({error}); trying again");
                }
            }
        };
    }
}
