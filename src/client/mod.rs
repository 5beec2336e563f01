//! The session engine of the handshake era (2024-11-05 to 2025-11-25).
//!
//! [`Client`] is a cheap, cloneable handle; the [`Driver`] is the one loop
//! that owns the transport. Neither names a runtime: timers come from
//! [`crate::runtime`], and nothing here needs `Send` on wasm32.

mod api;
mod connect;
mod driver;
mod error;
pub mod handlers;
mod listen;
mod options;
mod request;
pub mod stateless;

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use futures::channel::{mpsc, oneshot};
use serde_json::{Value, json};

pub use connect::{ConnectOptions, connect_url, connect_url_with_http};
pub use driver::Driver;
pub use error::Error;
pub use handlers::{HandlerResult, NotificationListener, RequestContext, RequestHandler, apply_elicitation_defaults};
pub use listen::{ACKNOWLEDGED, ListenFilter, Subscription};
pub use options::{
    ClientOptions, DEFAULT_REQUEST_TIMEOUT, EventListener, ProgressCallback, RequestOptions, SessionEvent,
};
#[cfg(not(target_arch = "wasm32"))]
pub use stateless::connect_stdio;
pub use stateless::{CacheHint, CacheScope, Discovery, EraChoice, EraVerdict};

use crate::protocol::types::InitializeResult;
use crate::protocol::{Notification, ProtocolVersion, codes, methods};
use crate::runtime::{MaybeSend, MaybeSync};
use crate::transport::{Transport, TransportError, TransportKind};
use driver::{Command, SessionLoop};

/// The longest `initialize` waits for the server's stream to open.
const SERVER_STREAM_WAIT: std::time::Duration = std::time::Duration::from_secs(10);

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

struct Inner {
    commands: mpsc::UnboundedSender<Command>,
    next_id: AtomicI64,
    options: ClientOptions,
    transport_kind: TransportKind,
    state: Mutex<SessionState>,
    restart_lock: futures::lock::Mutex<()>,
    restarts: AtomicU64,
    stateless: Arc<Mutex<stateless::StatelessState>>,
    /// Resources subscribed in this session (handshake era), with how many
    /// subscriptions share each.
    subscribed: Mutex<BTreeMap<String, usize>>,
    /// Stateless era: the stop signals of the listens that stand for
    /// `resources/subscribe` (dropped with the client, which ends them).
    kept_listens: Mutex<std::collections::HashMap<String, oneshot::Sender<()>>>,
}

/// A connection to one MCP server. Clone it freely: clones share the session.
#[derive(Clone)]
pub struct Client {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for Client {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Client")
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
    pub fn new<T: Transport>(transport: T, options: ClientOptions) -> (Client, Driver) {
        let (commands, receiver) = mpsc::unbounded();
        let transport_kind = transport.kind();
        let handlers = Arc::new(options.handlers.clone());
        let mut listeners = options.notification_listeners.clone();
        let stateless = Arc::new(Mutex::new(stateless::StatelessState::default()));
        // First of all: change notifications make cached results stale.
        let invalidated = Arc::clone(&stateless);
        listeners.insert(
            0,
            Arc::new(move |notification: &Notification| {
                let mut state = invalidated.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
                state.cache.invalidate(notification);
            }),
        );
        let driver = Driver::new(SessionLoop::new(transport, receiver, handlers, listeners));
        let inner = Inner {
            commands,
            next_id: AtomicI64::new(0),
            options,
            transport_kind,
            state: Mutex::new(SessionState { negotiated: None, generation: 0 }),
            restart_lock: futures::lock::Mutex::new(()),
            restarts: AtomicU64::new(0),
            stateless,
            subscribed: Mutex::new(BTreeMap::new()),
            kept_listens: Mutex::new(std::collections::HashMap::new()),
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

    fn state(&self) -> std::sync::MutexGuard<'_, SessionState> {
        // The state is two plain fields; a panic elsewhere cannot leave it
        // half-written, so a poisoned lock is still usable.
        self.inner.state.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    fn command(&self, command: Command) -> Result<(), Error> {
        self.inner
            .commands
            .unbounded_send(command)
            .map_err(|_| Error::Transport(TransportError::Closed("the session has ended".into())))
    }

    /// Runs the `initialize` handshake: offers the configured version,
    /// accepts any version this client speaks, sends
    /// `notifications/initialized`.
    ///
    /// If the server refuses the offered version with -32602 and lists
    /// versions it supports, the newest one both sides speak is offered once
    /// more. An answer with a version this client does not speak closes the
    /// connection (the spec's "disconnect").
    pub async fn initialize(&self) -> Result<Arc<Negotiated>, Error> {
        let offered = match self.inner.options.protocol_version {
            // A stateless revision has no handshake: offer the newest one that has.
            version if version.era() == crate::protocol::Era::Stateless => ProtocolVersion::LATEST,
            version => version,
        };
        let result = match self.send_initialize(offered).await {
            Err(Error::Rpc { error, .. }) if error.code == codes::INVALID_PARAMS => {
                let fallback = error
                    .data
                    .as_ref()
                    .and_then(|d| d.get("supported"))
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                    .filter_map(|v| v.as_str()?.parse::<ProtocolVersion>().ok())
                    .filter(|v| *v < offered)
                    .max();
                match fallback {
                    Some(version) => self.send_initialize(version).await?,
                    None => return Err(Error::Rpc { method: methods::INITIALIZE.into(), error }),
                }
            }
            other => other?,
        };
        let result: InitializeResult = serde_json::from_value(result)
            .map_err(|e| Error::InvalidResult { method: methods::INITIALIZE.into(), reason: e.to_string() })?;
        let version = match result.protocol_version.parse::<ProtocolVersion>() {
            Ok(version) if version.era() == crate::protocol::Era::Handshake => version,
            _ => {
                self.close().await;
                return Err(Error::UnsupportedVersion {
                    offered: offered.to_string(),
                    answered: result.protocol_version,
                });
            }
        };
        self.command(Command::Negotiated(version))?;
        self.notify(methods::INITIALIZED, None).await?;
        let (ready, opened) = oneshot::channel();
        self.command(Command::Initialized { ready })?;
        // A server may send a request (roots, sampling) on its stream right
        // after the handshake: wait, boundedly, until that stream is open.
        if let Ok(opened) = opened.await {
            let limit = self.inner.options.request_timeout.min(SERVER_STREAM_WAIT);
            let _ = futures::future::select(opened, Box::pin(crate::runtime::sleep(limit))).await;
        }
        let negotiated = Arc::new(Negotiated { version, result });
        let mut state = self.state();
        state.negotiated = Some(negotiated.clone());
        state.generation += 1;
        Ok(negotiated)
    }

    async fn send_initialize(&self, version: ProtocolVersion) -> Result<Value, Error> {
        let options = &self.inner.options;
        let params = json!({
            "protocolVersion": version.as_str(),
            "capabilities": options.capabilities(),
            "clientInfo": options.client_info,
        });
        let mut request = RequestOptions { timeout: options.handshake_timeout, ..RequestOptions::default() };
        self.send_request(methods::INITIALIZE, Some(params), &mut request).await
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
            Either::Left((outcome, _)) => outcome
                .unwrap_or_else(|_| Err(Error::Transport(TransportError::Closed("the session has ended".into())))),
            Either::Right(_) => Err(Error::Timeout { method: method.to_owned(), after: timeout }),
        }
    }

    /// Sends any request and returns its raw result.
    ///
    /// Checks the server's capabilities first (unless
    /// `strict_capabilities` is off). If the server forgot the session, a new
    /// one is started and the request retried once.
    pub async fn request(&self, method: &str, params: Option<Value>, options: RequestOptions) -> Result<Value, Error> {
        let generation = {
            let state = self.state();
            let Some(negotiated) = &state.negotiated else {
                return Err(Error::NotInitialized);
            };
            let stateless = negotiated.version.era() == crate::protocol::Era::Stateless;
            // The stateless engine checks after it has sorted out the
            // methods its revision does not have.
            if self.inner.options.strict_capabilities && !stateless {
                api::check_capability(negotiated, method)?;
            }
            (state.generation, stateless.then_some(negotiated.version))
        };
        let generation = match generation {
            (_, Some(version)) => return self.stateless_request(method, params, options, version).await,
            (generation, None) => generation,
        };
        let mut options = options;
        let uri = params.as_ref().and_then(|p| p.get("uri")).and_then(Value::as_str).map(str::to_owned);
        // Several subscriptions (`listen`, `subscribe_resource`) may share a
        // resource: the server hears of the first and of the last only.
        if let Some(uri) = &uri {
            let mut subscribed = self.subscribed();
            match (method, subscribed.get_mut(uri)) {
                (methods::RESOURCES_SUBSCRIBE, Some(count)) => {
                    *count += 1;
                    return Ok(json!({}));
                }
                (methods::RESOURCES_UNSUBSCRIBE, Some(count)) if *count > 1 => {
                    *count -= 1;
                    return Ok(json!({}));
                }
                (methods::RESOURCES_UNSUBSCRIBE, _) => {
                    subscribed.remove(uri);
                }
                _ => {}
            }
        }
        let outcome = match self.send_request(method, params.clone(), &mut options).await {
            Err(Error::Transport(TransportError::SessionExpired)) => {
                self.restart_session(generation).await?;
                self.send_request(method, params, &mut options).await
            }
            other => other,
        };
        // What a new session must subscribe to again.
        if let (methods::RESOURCES_SUBSCRIBE, Some(uri), Ok(_)) = (method, uri, &outcome) {
            *self.subscribed().entry(uri).or_insert(0) += 1;
        }
        outcome
    }

    fn subscribed(&self) -> std::sync::MutexGuard<'_, BTreeMap<String, usize>> {
        // A plain set: a poisoned lock is still usable.
        self.inner.subscribed.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Starts a new session after the server forgot ours. Concurrent callers
    /// that saw the same generation expire share one restart.
    async fn restart_session(&self, expired_generation: u64) -> Result<(), Error> {
        let _one_at_a_time = self.inner.restart_lock.lock().await;
        if self.state().generation != expired_generation {
            return Ok(());
        }
        self.state().negotiated = None;
        self.initialize().await?;
        // The server forgot the session's resource subscriptions with it.
        let uris: Vec<String> = self.subscribed().keys().cloned().collect();
        for uri in uris {
            let params = Some(json!({ "uri": uri }));
            let mut options = RequestOptions::default();
            if let Err(error) = self.send_request(methods::RESOURCES_SUBSCRIBE, params, &mut options).await {
                log::warn!("subscribing to {uri} again in the new session: {error}");
            }
        }
        self.inner.restarts.fetch_add(1, Ordering::Relaxed);
        for listener in &self.inner.options.event_listeners {
            listener(&SessionEvent::SessionRestarted);
        }
        Ok(())
    }

    /// Adds a notification listener to a running session.
    pub fn on_notification(&self, listener: impl Fn(&Notification) + MaybeSend + MaybeSync + 'static) {
        // A closed session has no notifications to deliver; nothing to report.
        let _ = self.command(Command::Listen(Arc::new(listener)));
    }

    /// Ends the session: pending requests fail, the transport closes
    /// gracefully (stdio: stdin, SIGTERM, SIGKILL; HTTP: DELETE).
    pub async fn close(&self) {
        let (done, closed) = oneshot::channel();
        if self.command(Command::Close { done }).is_ok() {
            let _ = closed.await;
        }
    }
}
