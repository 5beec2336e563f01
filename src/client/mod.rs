//! The client: one runtime-agnostic engine for both protocol eras.
//!
//! This root is era-neutral: the [`Client`] handle (cheap, cloneable), its
//! options, errors and handlers, request plumbing (`request.rs`), the
//! typed calls (`api.rs`), subscriptions (`listen.rs`) and the session
//! loop ([`Driver`], the one future that owns the transport). The two
//! engines are siblings below it: [`handshake`] (`initialize`, session
//! restart, `resources/subscribe` bookkeeping; 2024-11-05 to 2025-11-25)
//! and [`stateless`] (revision 2026-07-28: per-request `_meta`, multi
//! round-trip requests, result cache, tasks). [`negotiate`] picks the
//! transport and the era and connects.
//!
//! `impl Client` is spread over files, one concern each: here the handle
//! and the era dispatch of [`Client::request`]; `request.rs` one request's
//! life; `api.rs` the typed calls; `listen.rs` subscriptions; the engines
//! their era's half; `negotiate/era.rs` [`Client::start`].
//!
//! Nothing here names a runtime: timers come from [`crate::runtime`], and
//! nothing needs `Send` on wasm32.

mod api;
mod deadline;
mod driver;
mod error;
pub(crate) mod handlers;
pub(crate) mod handshake;
mod listen;
pub(crate) mod negotiate;
mod options;
mod output;
mod request;
mod snapshot;
pub(crate) mod stateless;

use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use crate::runtime::channel::{mpsc, oneshot};
use serde_json::Value;

pub use crate::protocol::stateless::{CacheHint, CacheScope, DiscoverResult, ListenFilter, ParamHeader};
pub use driver::Driver;
pub use error::Error;
pub use handlers::{
    HandlerResult, NotificationFn, NotificationListener, RequestContext, RequestHandler, apply_elicitation_defaults,
};
#[cfg(all(target_arch = "wasm32", feature = "js"))]
pub(crate) use listen::unsubscribe_all;
pub use listen::{RESYNC, Subscription};
#[cfg(not(target_arch = "wasm32"))]
pub use negotiate::connect_stdio;
pub use negotiate::{
    ConnectOptions, EraVerdict, Reached, TransportChoice, VERDICT_MAX_AGE, VERDICTS_VERSION, Verdicts, connect_url,
    connect_url_with_http, export_verdicts, forget_era, forget_transport, import_verdicts, remembered_era,
    remembered_transport, restore_url, restore_url_with_http,
};
pub use options::{
    ClientOptions, DEFAULT_MAX_INPUT_ROUNDS, DEFAULT_REQUEST_TIMEOUT, EraChoice, EventFn, EventListener,
    ProgressCallback, ProgressFn, RequestOptions, SessionEvent,
};
pub use snapshot::{SNAPSHOT_VERSION, Snapshot, SnapshotEra};

use crate::protocol::types::InitializeResult;
use crate::protocol::{Era, Notification, ProtocolVersion, RawResult};
use crate::runtime::turns::Turns;
use crate::runtime::{MaybeSend, MaybeSync};
use crate::transport::{SessionView, Transport, TransportError, TransportKind};
use driver::{Command, SessionLoop};

/// What the handshake settled.
#[derive(Debug, Clone, PartialEq)]
pub struct Negotiated {
    /// The version both sides speak for this session.
    pub version: ProtocolVersion,
    /// The server's answer to `initialize`.
    pub result: InitializeResult,
}

struct SessionState {
    negotiated: Option<Arc<Negotiated>>,
    /// Bumped by every successful handshake, so concurrent requests that all
    /// find the session expired restart it once, not once each.
    generation: u64,
}

/// Names a listener added with [`Client::on_notification`], to remove it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ListenerId(u64);

struct Inner {
    commands: mpsc::UnboundedSender<Command>,
    next_id: AtomicI64,
    /// The last [`ListenerId`] handed out.
    last_listener: AtomicU64,
    options: ClientOptions,
    transport_kind: TransportKind,
    state: Mutex<SessionState>,
    restart_lock: Arc<Turns>,
    restarts: AtomicU64,
    stateless: Arc<Mutex<stateless::StatelessState>>,
    /// Resources subscribed in this session (handshake era), with how many
    /// subscriptions share each (a list: a `BTreeMap` costs kilobytes of
    /// wasm per type it holds).
    subscribed: Mutex<Vec<(String, usize)>>,
    /// Stateless era: what stops the listens that stand for
    /// `resources/subscribe` (dropped with the client, which ends them).
    kept_listens: Mutex<Vec<(String, stateless::StopOnDrop)>>,
    /// The transport's session, for [`Client::snapshot`].
    session_view: Option<Arc<dyn SessionView>>,
    /// The `outputSchema` of every tool listed so far, by name.
    output_schemas: Mutex<serde_json::Map<String, Value>>,
}

/// A connection to one MCP server. Clone it freely: clones share the session.
#[derive(Clone)]
pub struct Client {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for Client {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        crate::debug::debug_struct(f, "Client")
            .field("transport", &self.inner.transport_kind)
            .field("negotiated", &self.negotiated().map(|n| n.version))
            .finish()
    }
}

impl Client {
    /// A client and the driver that runs its session, not yet initialized.
    ///
    /// Poll the driver (spawn it on any executor), then call
    /// [`Client::initialize`]. [`Client::connect`] does both.
    // On wasm32 the handlers and the session hold JS values, which are not
    // `Send`; the same `Arc`s are `Send + Sync` natively, where they cross
    // threads. One type for both keeps the engine runtime-agnostic.
    #[cfg_attr(target_arch = "wasm32", allow(clippy::arc_with_non_send_sync))]
    pub fn new<T: Transport>(transport: T, options: ClientOptions) -> (Client, Driver) {
        let (commands, receiver) = mpsc::unbounded();
        let transport_kind = transport.kind();
        let session_view = transport.session_view();
        let handlers = Arc::new(options.handlers.clone());
        // What the server sends unprompted has somewhere to go: its stream
        // is opened with the session (else once something needs it).
        let stream_wanted = !options.notification_listeners.is_empty() || !options.handlers.is_empty();
        let (stateless, invalidator) = stateless::StatelessState::shared();
        // The cache's listener first; all of them under id 0 (never removed).
        let mut listeners = vec![(0, invalidator)];
        for listener in &options.notification_listeners {
            listeners.push((0, listener.clone()));
        }
        let driver = Driver::new(SessionLoop::new(transport, receiver, handlers, listeners, stream_wanted));
        let inner = Inner {
            commands,
            next_id: AtomicI64::new(0),
            last_listener: AtomicU64::new(0),
            options,
            transport_kind,
            state: Mutex::new(SessionState { negotiated: None, generation: 0 }),
            restart_lock: Turns::new(1),
            restarts: AtomicU64::new(0),
            stateless,
            subscribed: Mutex::new(Vec::new()),
            kept_listens: Mutex::new(Vec::new()),
            session_view,
            output_schemas: Mutex::new(serde_json::Map::new()),
        };
        (Client { inner: Arc::new(inner) }, driver)
    }

    /// Starts the session on the host's runtime and performs the handshake
    /// (or, as [`ClientOptions::era`] asks, probes the era or talks
    /// statelessly: see [`Client::start`]).
    pub async fn connect<T: Transport>(transport: T, options: ClientOptions) -> Result<Client, Error> {
        let (client, driver) = Client::new(transport, options);
        crate::runtime::spawn(driver)?;
        client.start().await?;
        Ok(client)
    }

    /// Which transport carries this session (its `Display` is the short
    /// name: `stdio`, `streamable-http`, ...).
    pub fn transport_kind(&self) -> TransportKind {
        self.inner.transport_kind
    }

    /// The options this client was made with.
    pub fn options(&self) -> &ClientOptions {
        &self.inner.options
    }

    /// What the handshake settled, once it has.
    pub fn negotiated(&self) -> Option<Arc<Negotiated>> {
        self.state().negotiated.clone()
    }

    /// How many times the session was restarted after the server forgot it.
    pub fn restarts(&self) -> u64 {
        self.inner.restarts.load(Ordering::Relaxed)
    }

    /// The era of the server, once known.
    pub fn era(&self) -> Option<Era> {
        self.negotiated().map(|n| n.version.era())
    }

    fn state(&self) -> std::sync::MutexGuard<'_, SessionState> {
        // The state is two plain fields; a panic elsewhere cannot leave it
        // half-written, so a poisoned lock is still usable.
        self.inner.state.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    fn command(&self, command: Command) -> Result<(), Error> {
        self.inner.commands.unbounded_send(command).map_err(|_| Error::session_ended())
    }

    /// Sends a notification and waits (at most the request timeout) until
    /// the transport delivered it.
    pub async fn notify(&self, method: &str, params: Option<Value>) -> Result<(), Error> {
        use futures::future::{Either, select};
        let (sent, delivered) = oneshot::channel();
        let notification = Notification { method: method.to_owned(), params };
        self.command(Command::Notify { notification, sent })?;
        let timeout = self.inner.options.request_timeout;
        match select(delivered, Box::pin(crate::runtime::sleep(timeout))).await {
            Either::Left((outcome, _)) => outcome.unwrap_or_else(|_| Err(Error::session_ended())),
            Either::Right(_) => Err(Error::Timeout { method: method.to_owned(), after: timeout }),
        }
    }

    /// Sends any request and returns its result as a JSON value.
    ///
    /// Checks the server's capabilities first (unless
    /// `strict_capabilities` is off). Each era's engine does the rest: in
    /// the handshake era, if the server forgot the session, a new one is
    /// started and the request retried once; in the stateless era (2026-07-28)
    /// a request may take several rounds (`input_required`) and a result
    /// may come from the cache.
    pub async fn request(&self, method: &str, params: Option<Value>, options: RequestOptions) -> Result<Value, Error> {
        let result = self.request_raw(method, params, options).await?;
        request::to_value(method, &result)
    }

    /// Like [`request`](Self::request), but the result stays the text the
    /// server sent, for code that hands it on (the JS face gives it to
    /// `JSON.parse`) or reads only some of its fields.
    pub async fn request_raw(
        &self,
        method: &str,
        params: Option<Value>,
        options: RequestOptions,
    ) -> Result<RawResult, Error> {
        let generation = {
            let state = self.state();
            let Some(negotiated) = &state.negotiated else {
                return Err(Error::NotInitialized);
            };
            let stateless = negotiated.version.era() == Era::Stateless;
            // The stateless engine checks after it has sorted out the
            // methods its revision does not have.
            if self.inner.options.strict_capabilities && !stateless {
                api::check_capability(negotiated, method)?;
            }
            (state.generation, stateless.then_some(negotiated.version))
        };
        let tool = match (method, &params) {
            (crate::protocol::methods::TOOLS_CALL, Some(params)) => {
                params.get("name").and_then(Value::as_str).map(str::to_owned)
            }
            _ => None,
        };
        let first_list_page = method == crate::protocol::methods::TOOLS_LIST
            && params.as_ref().and_then(|params| params.get("cursor")).is_none();
        let result = match generation {
            // Boxed by `stateless_request`: the stateless engine's future
            // (rounds, tasks) is far larger than the handshake era's, and
            // every request in flight would otherwise carry room for it.
            (_, Some(version)) => self.stateless_request(method, params, options, version).await.map(RawResult::from),
            // A handshake-era request (here, not in a function of its own:
            // one state machine less in every request): shared resource
            // subscriptions counted, a forgotten session restarted and the
            // request retried once.
            (generation, None) => match self.shared_subscription(method, params.as_ref()) {
                Ok(answered) => Ok(answered),
                Err(uri) => {
                    let mut options = options;
                    // Kept for the one retry a forgotten session gets, as
                    // text: a call in flight then holds a few dozen bytes
                    // rather than a second `Value` tree of its params (about
                    // 300 bytes of wasm memory for a small `tools/call`).
                    let mut kept = params.as_ref().map(crate::protocol::json_text);
                    let mut params = params;
                    let mut retried = false;
                    // One call site for both sends (a loop, not a second
                    // `.await`): each is a state of this future with its own
                    // moves and drops.
                    let outcome = loop {
                        match self.send_request(method, params, &mut options).await {
                            Err(Error::Transport(TransportError::SessionExpired)) if !retried => {
                                retried = true;
                                // Boxed: a new handshake is rare, and inline its
                                // future would make every request in flight
                                // that much larger.
                                Box::pin(self.restart_session(generation)).await?;
                                // Text this crate wrote parses back; should it
                                // not (nesting deeper than the parser allows),
                                // the retry is not made.
                                params = match kept.take().map(|text| crate::protocol::json::parse(&text)).transpose() {
                                    Ok(params) => params,
                                    Err(_) => break Err(Error::Transport(TransportError::SessionExpired)),
                                };
                            }
                            other => break other,
                        }
                    };
                    if let (crate::protocol::methods::RESOURCES_SUBSCRIBE, Some(uri), Ok(_)) = (method, uri, &outcome) {
                        self.count_subscription(uri);
                    }
                    outcome
                }
            },
        }?;
        if self.inner.options.validate_structured_content {
            let call = match (tool.as_deref(), first_list_page) {
                (Some(tool), _) => output::Call::Tool(tool),
                (None, true) => output::Call::FirstPage,
                (None, false) => output::Call::Other,
            };
            output::check(&self.inner.output_schemas, method, call, &result)?;
        }
        Ok(result)
    }

    /// Adds a notification listener to a running session; the id removes it
    /// ([`Client::remove_notification_listener`]).
    pub fn on_notification(&self, listener: impl Fn(&Notification) + MaybeSend + MaybeSync + 'static) -> ListenerId {
        let id = self.inner.last_listener.fetch_add(1, Ordering::Relaxed) + 1;
        // A closed session has no notifications to deliver; nothing to report.
        let _ = self.command(Command::Listen { id, listener: Arc::new(listener) });
        ListenerId(id)
    }

    /// Removes a listener added with [`Client::on_notification`]: it hears
    /// nothing the session receives from now on (a listener removed twice,
    /// or after the session ended, is no error).
    pub fn remove_notification_listener(&self, id: ListenerId) {
        let _ = self.command(Command::Unlisten(id.0));
    }

    /// Ends the session: pending requests fail, the transport closes
    /// gracefully (stdio: stdin, SIGTERM, SIGKILL; HTTP: DELETE).
    pub async fn close(&self) {
        let _ = self.closing().await;
    }

    /// Asks the session to end ([`Client::close`]); the receiver resolves
    /// once it has (at once if it had already ended: the refused command
    /// drops its sender). A plain receiver, not an async fn, so that the
    /// crate's own callers and the JS face await no state machine of it.
    pub(crate) fn closing(&self) -> oneshot::Receiver<()> {
        let (done, closed) = oneshot::channel();
        let _ = self.command(Command::Close { done });
        closed
    }
}
