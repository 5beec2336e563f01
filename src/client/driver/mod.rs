//! The session loop: one future that owns the transport and the pending
//! requests, and multiplexes everything without spawning.
//!
//! Like async-lsp's main loop, it is a plain `Future` polled by whoever runs
//! it: `tokio::spawn` natively, `spawn_local` in a browser, or a test's own
//! executor. Handles ([`super::Client`]) talk to it through a channel, so the
//! loop has exclusive ownership of its state and needs no locks.
//!
//! Era-neutral: it carries both eras' requests (a stateless one with its
//! headers) and is told which era it is in. Here: commands, sends and
//! closing; what comes in from the server is in `inbound.rs`.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use crate::runtime::channel::{mpsc, oneshot};
use futures::StreamExt;
use futures::future::{AbortHandle, Abortable};
use serde_json::Value;

use super::error::Error;
use super::handlers::{Handlers, NotificationListener};
use crate::hash::ListMap;
use crate::protocol::stateless::ListenFilter;
use crate::protocol::{Message, Notification, ProtocolVersion, RawResult, Request, RequestId, Response, methods};
use crate::runtime::{BoxFuture, FutureSet, boxed};
use crate::transport::{Transport, TransportError, TransportEvent, TransportKind};

mod inbound;
mod replies;

use self::replies::{Made, Replies};

/// What a handle asks the loop to do.
pub(crate) enum Command {
    /// Send a request and route its answer (and progress) back.
    Request {
        request: Request,
        reply: oneshot::Sender<Result<RawResult, Error>>,
        /// `notifications/progress` for the request, read by the request's
        /// future: a channel of the type subscriptions use, not one of its own.
        progress: Option<mpsc::UnboundedSender<Notification>>,
        /// A stateless (2026-07-28) request: the request-metadata headers an
        /// HTTP transport must add (`None` in the handshake era).
        stateless: Option<Vec<(String, String)>>,
    },
    /// Send a notification; `sent` learns whether the transport delivered it.
    Notify { notification: Notification, sent: oneshot::Sender<Result<(), Error>> },
    /// Stop waiting for a request; tell the server unless it is `initialize`.
    Cancel { id: RequestId, reason: String },
    /// The handshake negotiated this version (before `initialized` is sent).
    Negotiated(ProtocolVersion),
    /// `notifications/initialized` was delivered; `ready` fires once the
    /// transport can receive unprompted server messages (dropped unsent if
    /// the loop ends first). The loop waits for that among its own work, so
    /// no future crosses the channel.
    Initialized { ready: oneshot::Sender<()> },
    /// The session was restored from a snapshot: no handshake, but what
    /// `Initialized` sets up (the server stream, if needed) without waiting;
    /// the session speaks this version.
    Restored(ProtocolVersion),
    /// Add a notification listener, under an id that removes it.
    Listen { id: u64, listener: NotificationListener },
    /// Remove the listener added under this id (if it is still there).
    Unlisten(u64),
    /// Route a subscription's notifications to `watch.sink`, from now on.
    Watch { key: RequestId, watch: Watch },
    /// Stop routing them (the subscription was closed or dropped).
    Unwatch { key: RequestId },
    /// The server speaks the stateless revision: it may send no requests,
    /// and nothing answers one.
    Stateless,
    /// Fail everything pending and close the transport.
    Close { done: oneshot::Sender<()> },
    /// Fail everything pending and stop, leaving the session open on the
    /// server (no DELETE): the transport is dropped, not closed.
    Detach { done: oneshot::Sender<()> },
}

struct Pending {
    method: String,
    stateless: bool,
    reply: oneshot::Sender<Result<RawResult, Error>>,
    progress: Option<mpsc::UnboundedSender<Notification>>,
    /// Ends the request's transport exchange (it may be a long-lived HTTP
    /// reply stream) when the request is cancelled. Kept here, not in a
    /// map of its own: a second map type is some 0.5 KB of gzip of wasm.
    exchange: Option<AbortHandle>,
}

impl Pending {
    /// Ends the exchange, if it is still running.
    fn end_exchange(&self) {
        if let Some(exchange) = &self.exchange {
            exchange.abort();
        }
    }
}

/// Where one subscription's notifications go.
pub(crate) struct Watch {
    /// The handshake era: the kinds of notification to forward (its session
    /// stream carries every kind). `None` in the stateless era: exactly the
    /// notifications whose `_meta.subscriptionId` is the key.
    pub filter: Option<ListenFilter>,
    pub sink: crate::client::listen::NoticeSink,
}

/// Why a transport send was made, so its outcome reaches the right place.
enum SendPurpose {
    Request(RequestId),
    Notification(Option<oneshot::Sender<Result<(), Error>>>),
    Reply,
}

/// What a send or a server request's handler ended with. Sends and
/// handlers are one set of futures of one type: each future type is its
/// own `FuturesUnordered` code in the wasm module.
enum Done {
    Sent(SendPurpose, Result<(), TransportError>),
    /// The answer to send, if any (none for a request the server cancelled).
    Handled(Option<Message>),
}

/// The loop's state. Polled through [`Driver`].
pub(crate) struct SessionLoop<T: Transport> {
    transport: T,
    commands: mpsc::UnboundedReceiver<Command>,
    commands_done: bool,
    pending: ListMap<RequestId, Pending>,
    /// The sends in flight and the running handlers of server requests.
    work: FutureSet<BoxFuture<'static, Done>>,
    /// Answers to the server's requests, sent a bounded number at a time.
    replies: Replies,
    /// The server's requests our handlers are running, by id: a list, as
    /// there are at most `MAX_RUNNING_HANDLERS` (and a map type of its own
    /// is some 0.5 KB of gzip of wasm).
    handler_aborts: Vec<(RequestId, AbortHandle)>,
    handlers: Arc<Handlers>,
    /// Each with the id [`Command::Unlisten`] names it by (0: added with
    /// the options, never removed).
    listeners: Vec<(u64, NotificationListener)>,
    /// Subscriptions by key: a list, as a client holds a few (a map type
    /// of its own is some 2 KB of wasm).
    watches: Vec<(RequestId, Watch)>,
    /// Set once the transport is gone; later commands fail with it.
    closed: Option<TransportError>,
    closing: Option<BoxFuture<'static, Result<(), TransportError>>>,
    /// `Transport::close` was called; it is called once.
    transport_released: bool,
    close_waiters: Vec<oneshot::Sender<()>>,
    /// Stateless era: server requests are protocol violations, not answered.
    stateless: bool,
    /// The revision the handshake negotiated (or the restored session
    /// spoke): what the answers to server requests must be written in.
    version: Option<ProtocolVersion>,
    /// Something needs the server's unprompted messages (a listener, a
    /// subscription, a handler): the transport's server stream is opened
    /// with every session.
    stream_wanted: bool,
    /// A session is open whose server stream was not opened (nothing
    /// needed it yet): opened when something does.
    stream_deferred: bool,
}

impl<T: Transport> SessionLoop<T> {
    pub(crate) fn new(
        transport: T,
        commands: mpsc::UnboundedReceiver<Command>,
        handlers: Arc<Handlers>,
        listeners: Vec<(u64, NotificationListener)>,
        stream_wanted: bool,
    ) -> Self {
        SessionLoop {
            transport,
            commands,
            commands_done: false,
            pending: ListMap::default(),
            work: FutureSet::default(),
            replies: Replies::default(),
            handler_aborts: Vec::new(),
            handlers,
            listeners,
            watches: Vec::new(),
            closed: None,
            closing: None,
            transport_released: false,
            close_waiters: Vec::new(),
            stateless: false,
            version: None,
            stream_wanted,
            stream_deferred: false,
        }
    }

    /// The session is open: the transport hears so, and the server stream
    /// is opened if something needs it (else deferred until something
    /// does). What the server sends unprompted can arrive once both
    /// futures (the second, if any) resolved.
    fn session_opened(&mut self) -> (BoxFuture<'static, ()>, Option<BoxFuture<'static, ()>>) {
        let initialized = self.transport.on_initialized();
        self.stream_deferred = !self.stream_wanted;
        let opened = self.stream_wanted.then(|| self.transport.open_server_stream());
        (initialized, opened)
    }

    /// Removes the listener added under `id` (ids are unique, 0 aside,
    /// which is never removed).
    fn unlisten(&mut self, id: u64) {
        if let Some(at) = self.listeners.iter().position(|(listening, _)| *listening == id) {
            self.listeners.remove(at);
        }
    }

    /// Drops the watch of `key`, if any, and every watch whose subscription
    /// is gone: one `retain` for the three places watches leave.
    fn unwatch(&mut self, key: Option<&RequestId>) {
        self.watches.retain(|(held, watch)| key != Some(held) && !watch.sink.is_closed());
    }

    /// Something needs the server stream from now on.
    fn want_stream(&mut self) {
        self.stream_wanted = true;
        if std::mem::take(&mut self.stream_deferred) {
            // Nobody waits for it: what it brings goes to the listeners.
            drop(self.transport.open_server_stream());
        }
    }

    fn send(&mut self, message: Message, purpose: SendPurpose) {
        self.send_with(message, purpose, None);
    }

    /// Sends an answer to a server request, or holds it until fewer are in
    /// flight (see [`replies`]).
    fn reply(&mut self, answer: Message, made: Made) {
        if let Some(now) = self.replies.admit(answer, made) {
            self.send(now, SendPurpose::Reply);
        }
    }

    fn send_with(&mut self, message: Message, purpose: SendPurpose, stateless: Option<Vec<(String, String)>>) {
        let sending = match stateless {
            Some(headers) => self.transport.send_stateless(message, headers),
            None => self.transport.send(message),
        };
        // A request's send may be a long-lived exchange (an HTTP reply
        // stream); cancelling the request must end it too. Every send is
        // abortable, so all are one future type (a dropped handle aborts
        // nothing): only a request's handle is kept.
        let (abort, registration) = AbortHandle::new_pair();
        if let SendPurpose::Request(id) = &purpose
            && let Some(pending) = self.pending.get_mut(id)
        {
            pending.exchange = Some(abort);
        }
        let sending = Abortable::new(sending, registration);
        self.work.push(boxed(async move {
            // An aborted exchange was cancelled on purpose: nothing to report.
            Done::Sent(purpose, sending.await.unwrap_or(Ok(())))
        }));
    }

    fn handle_command(&mut self, command: Command) {
        if let Some(reason) = self.closed.clone() {
            return self.refuse(command, reason);
        }
        match command {
            Command::Request { request, reply, progress, stateless } => {
                let id = request.id.clone();
                let method = request.method.clone();
                let pending = Pending { method, stateless: stateless.is_some(), reply, progress, exchange: None };
                self.pending.insert(id.clone(), pending);
                self.send_with(Message::Request(request), SendPurpose::Request(id), stateless);
            }
            Command::Notify { notification, sent } => {
                self.send(Message::Notification(notification), SendPurpose::Notification(Some(sent)));
            }
            Command::Cancel { id, reason } => {
                // Removing the entry is what makes a late answer harmless:
                // it then has an unknown id and is dropped with a log line.
                let Some(pending) = self.pending.remove(&id) else { return };
                pending.end_exchange();
                // Stateless HTTP: ending the exchange is the cancellation, and
                // no client notification is defined.
                if pending.method != methods::INITIALIZE
                    && !(pending.stateless && self.transport.kind() == TransportKind::StreamableHttp)
                {
                    let params = crate::protocol::object! { "requestId": id.to_value(), "reason": reason };
                    self.send(Message::notification(methods::CANCELLED, Some(params)), SendPurpose::Notification(None));
                }
            }
            Command::Negotiated(version) => {
                self.version = Some(version);
                self.transport.set_protocol_version(version);
            }
            Command::Initialized { ready } => {
                let (initialized, opened) = self.session_opened();
                self.work.push(boxed(async move {
                    initialized.await;
                    if let Some(opened) = opened {
                        opened.await;
                    }
                    let _ = ready.send(());
                    Done::Handled(None)
                }));
            }
            Command::Restored(version) => {
                self.version = Some(version);
                drop(self.session_opened());
            }
            Command::Listen { id, listener } => {
                self.listeners.push((id, listener));
                self.want_stream();
            }
            Command::Unlisten(id) => self.unlisten(id),
            Command::Watch { key, watch } => {
                // A handshake-era subscription reads the session's stream.
                if watch.filter.is_some() {
                    self.want_stream();
                }
                self.unwatch(Some(&key));
                self.watches.push((key, watch));
            }
            Command::Unwatch { key } => self.unwatch(Some(&key)),
            Command::Stateless => self.stateless = true,
            Command::Detach { done } => {
                self.shut_down(TransportError::Closed("the client was detached from its session".into()));
                self.transport_released = true;
                // The loop ends (dropping the transport and its streams) once
                // nothing is being closed.
                self.commands_done = true;
                let _ = done.send(());
            }
            Command::Close { done } => {
                self.close_waiters.push(done);
                if self.closing.is_none() {
                    // Closing the client on purpose ends its subscriptions
                    // gracefully, as if the server had: no error for them.
                    for (key, watch) in &self.watches {
                        if watch.filter.is_none()
                            && let Some(pending) = self.pending.remove(key)
                        {
                            pending.end_exchange();
                            let _ = pending.reply.send(Ok(RawResult::from(Value::Null)));
                        }
                    }
                    self.shut_down(TransportError::Closed("the client closed the session".into()));
                    self.closing = Some(self.transport.close());
                    self.transport_released = true;
                }
            }
        }
    }

    /// Answers a command after the transport is gone.
    fn refuse(&mut self, command: Command, reason: TransportError) {
        match command {
            Command::Request { reply, .. } => {
                let _ = reply.send(Err(Error::Transport(reason)));
            }
            Command::Notify { sent, .. } => {
                let _ = sent.send(Err(Error::Transport(reason)));
            }
            Command::Detach { done } => {
                self.transport_released = true;
                self.commands_done = true;
                let _ = done.send(());
            }
            Command::Close { done } => {
                self.close_waiters.push(done);
                // The connection failed on its own, but the transport may still
                // hold something to release (an HTTP session to DELETE).
                if self.closing.is_none() && !self.transport_released {
                    self.closing = Some(self.transport.close());
                }
                self.transport_released = true;
                if self.closing.is_none() {
                    for waiter in self.close_waiters.drain(..) {
                        let _ = waiter.send(());
                    }
                }
            }
            Command::Listen { id, listener } => self.listeners.push((id, listener)),
            Command::Unlisten(id) => self.unlisten(id),
            // Dropping the sink ends the subscription's stream at once.
            Command::Watch { .. } => {}
            Command::Cancel { .. }
            | Command::Unwatch { .. }
            | Command::Negotiated(_)
            | Command::Initialized { .. }
            | Command::Restored(_)
            | Command::Stateless => {}
        }
    }

    /// Fails every pending request and stops every running handler.
    fn shut_down(&mut self, reason: TransportError) {
        for (_, pending) in self.pending.drain() {
            pending.end_exchange();
            let _ = pending.reply.send(Err(Error::Transport(reason.clone())));
        }
        for (_, abort) in self.handler_aborts.drain(..) {
            abort.abort();
        }
        // No more notifications can come: every subscription's stream ends.
        self.watches.clear();
        self.replies.clear();
        self.closed = Some(reason);
    }

    fn handle_send_outcome(&mut self, purpose: SendPurpose, outcome: Result<(), TransportError>) {
        match (purpose, outcome) {
            (SendPurpose::Request(_), Ok(())) | (SendPurpose::Notification(None), Ok(())) => {}
            (SendPurpose::Request(id), Err(error)) => {
                if let Some(pending) = self.pending.remove(&id) {
                    let _ = pending.reply.send(Err(Error::Transport(error)));
                }
            }
            (SendPurpose::Notification(Some(sent)), outcome) => {
                let _ = sent.send(outcome.map_err(Error::Transport));
            }
            (SendPurpose::Notification(None), Err(error)) => log::warn!("could not send a notification: {error}"),
            (SendPurpose::Reply, outcome) => {
                if let Err(error) = outcome {
                    log::warn!("could not answer a server request: {error}");
                }
                if let Some(next) = self.replies.sent()
                    && self.closed.is_none()
                {
                    self.send(next, SendPurpose::Reply);
                }
            }
        }
    }

    /// One turn of the loop: drain every source that is ready. Returns
    /// `Ready` when the session is over.
    fn poll_turn(&mut self, cx: &mut Context<'_>) -> Poll<()> {
        loop {
            let mut progressed = false;

            while !self.commands_done {
                match self.commands.poll_next_unpin(cx) {
                    Poll::Ready(Some(command)) => {
                        progressed = true;
                        self.handle_command(command);
                    }
                    Poll::Ready(None) => {
                        // Every handle is gone: nobody can use the session.
                        progressed = true;
                        self.commands_done = true;
                        if !self.transport_released {
                            if self.closed.is_none() {
                                self.shut_down(TransportError::Closed("every client handle was dropped".into()));
                            }
                            if self.closing.is_none() {
                                self.closing = Some(self.transport.close());
                            }
                            self.transport_released = true;
                        }
                    }
                    Poll::Pending => break,
                }
            }

            while self.closed.is_none() {
                match self.transport.poll_event(cx) {
                    Poll::Ready(TransportEvent::Message(message)) => {
                        progressed = true;
                        self.handle_message(message);
                    }
                    Poll::Ready(TransportEvent::Closed(reason)) => {
                        progressed = true;
                        log::debug!("transport closed: {reason}");
                        self.shut_down(reason);
                    }
                    Poll::Pending => break,
                }
            }

            while let Poll::Ready(Some(done)) = self.work.poll_next(cx) {
                progressed = true;
                match done {
                    Done::Sent(purpose, outcome) => self.handle_send_outcome(purpose, outcome),
                    Done::Handled(answer) => {
                        if let Some(Message::Response(Response { id: Some(id), .. })) = &answer {
                            self.handler_done(id);
                        }
                        if let Some(answer) = answer
                            && self.closed.is_none()
                        {
                            self.reply(answer, Made::ByHandler);
                        }
                    }
                }
            }

            if let Some(closing) = self.closing.as_mut()
                && let Poll::Ready(outcome) = closing.as_mut().poll(cx)
            {
                progressed = true;
                if let Err(error) = outcome {
                    log::warn!("closing the transport: {error}");
                }
                self.closing = None;
                for waiter in self.close_waiters.drain(..) {
                    let _ = waiter.send(());
                }
            }

            if self.commands_done && self.closing.is_none() {
                return Poll::Ready(());
            }
            if !progressed {
                return Poll::Pending;
            }
        }
    }
}

/// The future that runs a session. Spawn it, or poll it yourself.
///
/// [`super::Client::connect`] spawns it through the runtime seam;
/// [`super::Client::new`] hands it to you for hosts that bring their own
/// executor. It finishes once every [`super::Client`] handle is dropped.
#[must_use = "a session does nothing unless its driver is polled"]
pub struct Driver {
    inner: BoxFuture<'static, ()>,
}

impl Driver {
    pub(crate) fn new<T: Transport>(session: SessionLoop<T>) -> Self {
        let mut session = session;
        Driver { inner: boxed(futures::future::poll_fn(move |cx| session.poll_turn(cx))) }
    }
}

impl std::fmt::Debug for Driver {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Driver")
    }
}

impl Future for Driver {
    type Output = ();

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        self.inner.as_mut().poll(cx)
    }
}
