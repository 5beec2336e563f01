//! What both HTTP transports do with the work they run in the background
//! (stream readers): keep the futures here and poll them from
//! [`Transport::poll_event`](super::Transport::poll_event), so nothing is
//! spawned and dropping the transport (or [`Inbox::clear`]) aborts them.
//! They only push what they read into the inbound channel, which
//! `poll_event` hands to the engine.

use std::task::{Context, Poll};

use crate::runtime::channel::mpsc;
use futures::StreamExt;

use super::TransportEvent;
use crate::runtime::{BoxFuture, FutureSet};

/// The sending side, kept by the transport's shared state.
pub(crate) type Outbox = mpsc::UnboundedSender<TransportEvent>;

/// The inbound channel and the background futures that feed it.
pub(crate) struct Inbox {
    receiver: mpsc::UnboundedReceiver<TransportEvent>,
    background: FutureSet<BoxFuture<'static, ()>>,
}

impl Inbox {
    /// An empty inbox and the sender its background work pushes into.
    pub(crate) fn new() -> (Outbox, Inbox) {
        let (sender, receiver) = mpsc::unbounded();
        (sender, Inbox { receiver, background: FutureSet::default() })
    }

    /// Runs `work` in the background from now on (polled by [`Inbox::poll_event`]).
    pub(crate) fn run(&mut self, work: BoxFuture<'static, ()>) {
        self.background.push(work);
    }

    /// Drops every background future, which aborts their requests.
    pub(crate) fn clear(&mut self) {
        self.background = FutureSet::default();
    }

    /// Drives the background futures without taking an event.
    pub(crate) fn drive(&mut self, cx: &mut Context<'_>) {
        while let Poll::Ready(Some(())) = self.background.poll_next(cx) {}
    }

    /// Drives the background futures, then hands out the next event.
    pub(crate) fn poll_event(&mut self, cx: &mut Context<'_>) -> Poll<TransportEvent> {
        self.drive(cx);
        match self.receiver.poll_next_unpin(cx) {
            Poll::Ready(Some(event)) => Poll::Ready(event),
            // The transport's shared state holds a sender, so the channel
            // cannot end while the transport lives.
            Poll::Ready(None) | Poll::Pending => Poll::Pending,
        }
    }
}
