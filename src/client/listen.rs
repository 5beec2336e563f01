//! Change notifications behind one call in both eras: [`Client::listen`].
//!
//! Revision 2026-07-28 has no session stream: a client asks for list
//! changes and resource updates with a long-lived `subscriptions/listen`
//! request, whose notifications carry `_meta.subscriptionId` (the
//! request's id) and begin with an acknowledgement naming what the server
//! granted. The handshake era delivers list changes on the session's own
//! stream and resource updates after `resources/subscribe`. A
//! [`Subscription`] hides the difference: it is a stream of the
//! notifications asked for, whichever way they come. Every notification
//! also still reaches the listeners of [`Client::on_notification`].

use std::future::poll_fn;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::task::{Context, Poll};
use std::time::Duration;

use crate::runtime::channel::{mpsc, oneshot};
use futures::{FutureExt, Stream, StreamExt};

use super::driver::{Command, Watch};
use super::{Client, Error};
use crate::protocol::RawResult;
use crate::protocol::methods::{SUBSCRIPTIONS_ACKNOWLEDGED as ACKNOWLEDGED, SUBSCRIPTIONS_LISTEN};
use crate::protocol::stateless::ListenFilter;
use crate::protocol::stateless::listen::granted_by;
use crate::protocol::{Era, Notification, RequestId};
use crate::runtime::{BoxFuture, boxed, sleep};
use crate::transport::TransportError;

/// How many notifications a subscription holds that its reader has not
/// taken. The JS API hands each to its callback as it comes; a Rust caller
/// may hold a [`Subscription`] and not poll it while the server keeps
/// sending, and past this the notifications are counted, not kept, and the
/// reader is told with [`RESYNC`].
const MAX_HELD: usize = 4_096;

/// The session loop's end of a subscription's queue ([`notices`]).
#[derive(Debug)]
pub(crate) struct NoticeSink {
    sender: mpsc::UnboundedSender<Notification>,
    backlog: Arc<Backlog>,
}

/// The subscription's end: a stream of what the sink sent.
#[derive(Debug)]
pub(crate) struct Notices {
    receiver: mpsc::UnboundedReceiver<Notification>,
    backlog: Arc<Backlog>,
}

#[derive(Debug, Default)]
struct Backlog {
    held: AtomicUsize,
    dropped: AtomicUsize,
}

/// A queue of at most [`MAX_HELD`] notifications not yet taken.
pub(crate) fn notices() -> (NoticeSink, Notices) {
    let (sender, receiver) = mpsc::unbounded();
    let backlog = Arc::new(Backlog::default());
    (NoticeSink { sender, backlog: backlog.clone() }, Notices { receiver, backlog })
}

impl NoticeSink {
    /// Queues `notification`, or counts it as dropped when the reader is
    /// [`MAX_HELD`] behind.
    pub(crate) fn send(&self, notification: &Notification) {
        if self.backlog.held.load(Ordering::Acquire) >= MAX_HELD {
            self.backlog.dropped.fetch_add(1, Ordering::AcqRel);
            return;
        }
        self.backlog.held.fetch_add(1, Ordering::AcqRel);
        if self.sender.unbounded_send(notification.clone()).is_err() {
            self.backlog.held.fetch_sub(1, Ordering::AcqRel);
        }
    }

    /// The subscription is gone.
    pub(crate) fn is_closed(&self) -> bool {
        self.sender.is_closed()
    }
}

impl Notices {
    /// How many notifications were dropped since the last call.
    fn take_dropped(&self) -> usize {
        self.backlog.dropped.swap(0, Ordering::AcqRel)
    }
}

impl Stream for Notices {
    type Item = Notification;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Notification>> {
        let next = self.receiver.poll_next_unpin(cx);
        if let Poll::Ready(Some(_)) = next {
            self.backlog.held.fetch_sub(1, Ordering::AcqRel);
        }
        next
    }
}

/// What an acknowledgement grants (`None`, with a warning, when unreadable:
/// the request is then taken as granted).
fn granted(acknowledgement: &Notification) -> Option<ListenFilter> {
    match granted_by(acknowledgement) {
        Some(Ok(granted)) => Some(granted),
        Some(Err(e)) => {
            log::warn!("unreadable subscription acknowledgement ({e}): assuming all");
            None
        }
        None => {
            log::warn!("a subscription acknowledgement without `notifications`: assuming all");
            None
        }
    }
}

/// The notification a subscription yields when it missed some: a
/// 2026-07-28 listen stream broke and was opened again (what changed in
/// between cannot be replayed: that revision has none), or the subscription
/// was not read while 4,096 notifications waited and later ones were
/// dropped. Re-list what you show. Its params say why: `{"reason": "..."}`.
pub const RESYNC: &str = "notifications/mcp-edge/resync";

/// How many times in a row reopening a broken listen may fail before the
/// subscription ends with the error.
pub(crate) const MAX_REOPEN_FAILURES: u32 = 8;

/// The wait before reopening attempt `failures` (0-based): 250 ms doubling
/// to at most 30 s, with jitter (50-100 %), so clients cut at once by a
/// proxy do not all come back at once.
pub(crate) fn reopen_delay(failures: u32) -> Duration {
    let base = f64::from(250u32 << failures.min(7));
    Duration::from_millis((base.min(30_000.0) * (0.5 + crate::runtime::random_unit() / 2.0)) as u64)
}

/// A 2026-07-28 subscription that reopens itself when its stream breaks.
struct Reopen {
    client: Client,
    failures: u32,
    pending: Option<BoxFuture<'static, Result<Subscription, Error>>>,
    /// Why the stream broke, for the resync notification.
    reason: String,
}

/// An open subscription: a stream of the notifications it asked for.
///
/// The stream ends when the server ends the subscription or the session
/// closes; an unexpected end (the connection broke) is yielded as one
/// error first. Dropping it or calling [`Subscription::close`] ends it on
/// the server too (2026-07-28: the listen stream is closed, or on stdio
/// cancelled; handshake era: the resources are unsubscribed).
pub struct Subscription {
    pub(crate) key: RequestId,
    pub(crate) requested: ListenFilter,
    pub(crate) granted: ListenFilter,
    commands: mpsc::UnboundedSender<Command>,
    /// The notification that came before the acknowledgement (a lenient
    /// read of servers that send none): the wait for it ends at the first.
    early: Option<Notification>,
    events: Notices,
    /// 2026-07-28: the answer to the listen request, which ends it.
    pub(crate) answer: Option<oneshot::Receiver<Result<RawResult, Error>>>,
    /// How it ended, held back until every notification before it is out.
    ending: Option<Option<Error>>,
    /// The handshake era: the resources subscribed for it, and the client
    /// that unsubscribes them.
    pub(crate) subscribed: Option<(Client, Vec<String>)>,
    /// 2026-07-28 with [`crate::ClientOptions::reopen_listens`]: reopens a
    /// broken listen and yields [`RESYNC`].
    reopen: Option<Reopen>,
    ended: bool,
}

impl std::fmt::Debug for Subscription {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        crate::debug::debug_struct(f, "Subscription").field("id", &self.key).field("granted", &self.granted).finish()
    }
}

impl Subscription {
    /// The subscription's id: in 2026-07-28 the `subscriptions/listen`
    /// request id that its notifications carry as `subscriptionId`.
    pub fn id(&self) -> &RequestId {
        &self.key
    }

    /// What was asked for.
    pub fn requested(&self) -> &ListenFilter {
        &self.requested
    }

    /// What the server said it will deliver (its acknowledgement; in the
    /// handshake era, what its capabilities cover).
    pub fn granted(&self) -> &ListenFilter {
        &self.granted
    }

    /// Ends the subscription. In the handshake era it waits until each
    /// resource is unsubscribed (at most the request timeout each); in
    /// 2026-07-28 the listen is ended at once (its HTTP stream closed, or on
    /// stdio `notifications/cancelled` queued).
    pub async fn close(self) {
        if let Some((client, uris)) = self.end() {
            unsubscribe_all(client, uris).await;
        }
    }

    /// Ends it as `close` does, but hands the handshake era's unsubscribing
    /// (the client and the resources) to the caller to await: the JS face
    /// awaits it in its own future, with no state machine of `close`'s.
    pub(crate) fn end(mut self) -> Option<(Client, Vec<String>)> {
        self.ended = true;
        let _ = self.commands.unbounded_send(Command::Unwatch { key: self.key.clone() });
        let subscribed = self.subscribed.take();
        if subscribed.is_none() {
            self.cancel_listen();
        }
        subscribed
    }

    fn cancel_listen(&self) {
        let reason = "the client closed the subscription".to_owned();
        let _ = self.commands.unbounded_send(Command::Cancel { id: self.key.clone(), reason });
    }

    /// Waits for the acknowledgement; a server that sends none is read as
    /// granting the request. The `poll_fn` itself, not an `async fn`
    /// around it: one state machine less.
    pub(crate) fn acknowledged(&mut self, timeout: Duration) -> impl Future<Output = Result<(), Error>> + '_ {
        let mut limit: BoxFuture<'static, ()> = boxed(sleep(timeout));
        poll_fn(move |cx| {
            match self.events.poll_next_unpin(cx) {
                Poll::Ready(Some(notification)) if notification.method == ACKNOWLEDGED => {
                    if let Some(granted) = granted(&notification) {
                        self.granted = granted;
                    }
                    return Poll::Ready(Ok(()));
                }
                Poll::Ready(Some(notification)) => {
                    log::warn!("{} came before the subscription's acknowledgement", notification.method);
                    self.early = Some(notification);
                    return Poll::Ready(Ok(()));
                }
                Poll::Ready(None) => {
                    return Poll::Ready(Err(Error::session_ended()));
                }
                Poll::Pending => {}
            }
            if let Some(answer) = self.answer.as_mut()
                && let Poll::Ready(outcome) = answer.poll_unpin(cx)
            {
                self.answer = None;
                let error = match outcome {
                    Ok(Err(error)) => error.typed(),
                    Ok(Ok(_)) => Error::InvalidResult {
                        method: SUBSCRIPTIONS_LISTEN.into(),
                        reason: "the server ended the subscription before acknowledging it".into(),
                    },
                    Err(_) => Error::session_ended(),
                };
                return Poll::Ready(Err(error));
            }
            if limit.poll_unpin(cx).is_ready() {
                return Poll::Ready(Err(Error::Timeout { method: SUBSCRIPTIONS_LISTEN.into(), after: timeout }));
            }
            Poll::Pending
        })
    }
}

/// The session was closed on purpose: nothing to reopen.
fn is_closed_by_us(error: &TransportError) -> bool {
    use crate::protocol::raw::mentions;
    matches!(error, TransportError::Closed(reason) if mentions(reason, "client closed", 0) || mentions(reason, "detached", 0))
}

impl Reopen {
    fn start(&mut self, filter: &ListenFilter) {
        let client = self.client.clone();
        let filter = filter.clone();
        let delay = reopen_delay(self.failures);
        self.pending = Some(boxed(async move {
            sleep(delay).await;
            client.listen_without_reopen(filter).await
        }));
    }
}

impl Subscription {
    /// Drives a reopening: on success the new listen takes this one's place
    /// and [`RESYNC`] is yielded; on failure it is tried again (capped), then
    /// the subscription ends with the error.
    fn poll_reopen(&mut self, cx: &mut Context<'_>) -> Poll<Option<Result<Notification, Error>>> {
        let Some(reopen) = self.reopen.as_mut() else { return Poll::Ready(None) };
        let Some(pending) = reopen.pending.as_mut() else { return Poll::Ready(None) };
        let outcome = match pending.as_mut().poll(cx) {
            Poll::Pending => return Poll::Pending,
            Poll::Ready(outcome) => outcome,
        };
        reopen.pending = None;
        match outcome {
            Ok(mut fresh) => {
                reopen.failures = 0;
                let reason = std::mem::take(&mut reopen.reason);
                let _ = self.commands.unbounded_send(Command::Unwatch { key: self.key.clone() });
                // The new listen's routes and answer become this one's; it
                // must not cancel them when dropped.
                fresh.ended = true;
                self.key = fresh.key.clone();
                self.granted = fresh.granted.clone();
                std::mem::swap(&mut self.events, &mut fresh.events);
                self.answer = fresh.answer.take();
                // This one's own early notification, if it had one, was
                // yielded before the stream broke: only the new one's counts.
                self.early = fresh.early.take();
                self.ending = None;
                let params = crate::protocol::object! { "reason": reason };
                Poll::Ready(Some(Ok(Notification { method: RESYNC.into(), params: Some(params) })))
            }
            Err(error) if reopen.failures + 1 >= MAX_REOPEN_FAILURES => {
                log::warn!("giving up on subscription {}: {error}", self.key);
                self.reopen = None;
                self.ended = true;
                let _ = self.commands.unbounded_send(Command::Unwatch { key: self.key.clone() });
                Poll::Ready(Some(Err(error)))
            }
            Err(error) => {
                reopen.failures += 1;
                log::debug!("reopening subscription {} failed ({error}); trying again", self.key);
                reopen.start(&self.requested);
                self.poll_reopen(cx)
            }
        }
    }
}

impl Stream for Subscription {
    type Item = Result<Notification, Error>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = &mut *self;
        if let Some(notification) = this.early.take() {
            return Poll::Ready(Some(Ok(notification)));
        }
        if this.ended {
            return Poll::Ready(None);
        }
        if this.reopen.as_ref().is_some_and(|reopen| reopen.pending.is_some()) {
            return this.poll_reopen(cx);
        }
        loop {
            let drained = match this.events.poll_next_unpin(cx) {
                // A late acknowledgement (after a notification): what it
                // grants, not a notification of its own.
                Poll::Ready(Some(notification)) if notification.method == ACKNOWLEDGED => {
                    this.granted = granted(&notification).unwrap_or_else(|| this.granted.clone());
                    continue;
                }
                Poll::Ready(Some(notification)) => return Poll::Ready(Some(Ok(notification))),
                Poll::Ready(None) => true,
                Poll::Pending => false,
            };
            // Everything held is out: the reader hears what it missed.
            let dropped = this.events.take_dropped();
            if dropped > 0 {
                let reason = format!(
                    "{dropped} notifications were dropped: the subscription was not read while {MAX_HELD} waited"
                );
                let params = crate::protocol::object! { "reason": reason };
                return Poll::Ready(Some(Ok(Notification { method: RESYNC.into(), params: Some(params) })));
            }
            if let Some(ending) = this.ending.take() {
                // Every notification sent before the answer is out.
                this.ended = true;
                let _ = this.commands.unbounded_send(Command::Unwatch { key: this.key.clone() });
                return Poll::Ready(ending.map(Err));
            }
            let outcome = match this.answer.as_mut().map(|answer| answer.poll_unpin(cx)) {
                Some(Poll::Ready(outcome)) => outcome,
                // The handshake era ends with the session (the route is gone);
                // so does a listen whose answer cannot come any more.
                None | Some(Poll::Pending) if drained => {
                    this.ended = true;
                    return Poll::Ready(None);
                }
                None | Some(Poll::Pending) => return Poll::Pending,
            };
            this.answer = None;
            this.ending = Some(match outcome {
                // `{resultType: "complete"}`: the server ended it gracefully,
                // and so did a server `notifications/cancelled`.
                Ok(Ok(_)) | Ok(Err(Error::Cancelled { .. })) => None,
                // The stream broke (a proxy cut it, the server restarted):
                // reopen it rather than end, if asked to.
                Ok(Err(Error::Transport(error))) if this.reopen.is_some() && !is_closed_by_us(&error) => {
                    if let Some(reopen) = this.reopen.as_mut() {
                        reopen.reason = error.to_string();
                        log::warn!("subscription {} broke ({error}): opening it again", this.key);
                        reopen.start(&this.requested);
                    }
                    return this.poll_reopen(cx);
                }
                Ok(Err(error)) => Some(error.typed()),
                Err(_) => None,
            });
            // Loop: drain what the driver queued before the answer.
        }
    }
}

impl Drop for Subscription {
    fn drop(&mut self) {
        if self.ended {
            return;
        }
        let _ = self.commands.unbounded_send(Command::Unwatch { key: self.key.clone() });
        match self.subscribed.take() {
            Some((client, uris)) if !uris.is_empty() => {
                if let Err(error) = crate::runtime::spawn(unsubscribe_all(client, uris)) {
                    log::warn!("could not unsubscribe a dropped subscription's resources: {error}");
                }
            }
            Some(_) => {}
            None => self.cancel_listen(),
        }
    }
}

pub(crate) async fn unsubscribe_all(client: Client, uris: Vec<String>) {
    for uri in uris {
        // `request_raw` itself: the result is not read.
        let params = Some(crate::protocol::object! { "uri": uri.as_str() });
        let unsubscribed = client.request_raw(
            crate::protocol::methods::RESOURCES_UNSUBSCRIBE,
            params,
            super::RequestOptions::default(),
        );
        if let Err(error) = unsubscribed.await {
            log::warn!("unsubscribing {uri}: {error}");
        }
    }
}

impl Client {
    /// Subscribes to change notifications: list changes and resource
    /// updates, as `filter` asks.
    ///
    /// Only what the server's capabilities offer is asked for (unless
    /// `strict_capabilities` is off); asking for nothing it offers is an
    /// error. With a stateless server (2026-07-28) this is a
    /// `subscriptions/listen` request, and it resolves once the server
    /// acknowledged it (within the request timeout); in the handshake era
    /// the resources are subscribed with `resources/subscribe` and list
    /// changes come on the session's stream. Open several at once freely;
    /// to change a filter, open a new one and close the old.
    pub async fn listen(&self, filter: ListenFilter) -> Result<Subscription, Error> {
        let subscription = self.listen_without_reopen(filter).await?;
        Ok(self.reopening(subscription))
    }

    /// `subscription`, opened again when its stream breaks if the options
    /// say so. The JS face calls it after `listen_without_reopen` itself:
    /// `listen`'s own state machine is then not in the wasm.
    pub(crate) fn reopening(&self, subscription: Subscription) -> Subscription {
        let mut subscription = subscription;
        if self.inner.options.reopen_listens && subscription.subscribed.is_none() {
            subscription.reopen =
                Some(Reopen { client: self.clone(), failures: 0, pending: None, reason: String::new() });
        }
        subscription
    }

    /// [`Client::listen`], ending for good when the stream breaks.
    pub(crate) async fn listen_without_reopen(&self, filter: ListenFilter) -> Result<Subscription, Error> {
        let negotiated = self.negotiated().ok_or(Error::NotInitialized)?;
        if filter.is_empty() {
            return Err(Error::InvalidArgument("the subscription asks for no notifications".into()));
        }
        let offered = if self.inner.options.strict_capabilities {
            filter.offered_by(&negotiated.result.capabilities)
        } else {
            filter.clone()
        };
        if offered.is_empty() {
            return Err(Error::CapabilityMissing {
                capability: "listChanged or resources.subscribe for what was asked".into(),
                method: SUBSCRIPTIONS_LISTEN.into(),
            });
        }
        match negotiated.version.era() {
            Era::Stateless => self.listen_stateless(filter, offered, negotiated.version).await,
            // The handshake era: list changes come on the session's own
            // stream; the resources asked for are subscribed with
            // `resources/subscribe` (here, not in a function of its own: one
            // state machine less).
            Era::Handshake => {
                let uris = offered.resource_subscriptions.clone();
                let mut subscription = self.subscription(filter, offered.clone(), Some(offered));
                subscription.subscribed = Some((self.clone(), Vec::new()));
                for uri in uris {
                    // On failure the subscription is dropped, unsubscribing
                    // the rest. `request_raw` itself: its result is not read,
                    // so neither `subscribe_resource` nor `request` wraps it.
                    let params = Some(crate::protocol::object! { "uri": uri.as_str() });
                    let method = crate::protocol::methods::RESOURCES_SUBSCRIBE;
                    self.request_raw(method, params, super::RequestOptions::default()).await?;
                    if let Some((_, done)) = subscription.subscribed.as_mut() {
                        done.push(uri);
                    }
                }
                Ok(subscription)
            }
        }
    }

    /// A subscription routed from now on, not yet asked of the server.
    pub(crate) fn subscription(
        &self,
        requested: ListenFilter,
        granted: ListenFilter,
        filter: Option<ListenFilter>,
    ) -> Subscription {
        let key = RequestId::Int(self.inner.next_id.fetch_add(1, Ordering::Relaxed));
        let (sink, events) = notices();
        // Registered before anything is sent, so nothing can come unrouted.
        let _ = self.command(Command::Watch { key: key.clone(), watch: Watch { filter, sink } });
        Subscription {
            key,
            requested,
            granted,
            commands: self.inner.commands.clone(),
            early: None,
            events,
            answer: None,
            ending: None,
            subscribed: None,
            reopen: None,
            ended: false,
        }
    }
}
