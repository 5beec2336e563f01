//! How a client is configured, and how one request is.

use std::fmt;
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;

use super::handlers::{self, Handlers, NotificationListener, RequestContext, RequestHandler};
use crate::protocol::types::{
    CreateMessageParams, CreateMessageResult, ElicitParams, ElicitResult, Implementation, JsonObject, Progress, Root,
};
use crate::protocol::{ErrorObject, Notification, ProtocolVersion, methods, object};
use crate::runtime::{MaybeSend, MaybeSync};

/// The default time a request may take: the official SDKs' 60 seconds.
pub const DEFAULT_REQUEST_TIMEOUT: Duration = Duration::from_secs(60);

/// The default cap on multi round-trip rounds (stateless era).
pub const DEFAULT_MAX_INPUT_ROUNDS: usize = 16;

/// How long a probe waits for an answer before taking silence for a
/// handshake server.
///
/// Servers answer a probe at once, whatever era they speak; only a
/// handshake server that ignores requests before `initialize` is silent, and
/// it costs this much on the first connection. A stateless server too slow
/// to answer in time is still found: `initialize` gets its -32022.
pub(crate) const PROBE_TIMEOUT: Duration = Duration::from_secs(5);

/// Which era to speak, set in [`ClientOptions::era`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum EraChoice {
    /// Only the `initialize` handshake (2024-11-05 to 2025-11-25): no probe.
    Handshake,
    /// The default: probe with `server/discover` first; a stateless server
    /// is spoken to statelessly, anything else with the handshake. The
    /// verdict is cached per server (URL, or stdio command line).
    #[default]
    Auto,
    /// Only the stateless revision (2026-07-28): no `initialize` ever.
    Stateless,
}

/// Something that happened to the session as a whole.
#[derive(Debug, Clone, PartialEq)]
pub enum SessionEvent {
    /// The server forgot our session (HTTP 404); a new one was started and
    /// the request that found out was retried.
    SessionRestarted,
    /// A stateless server's subscription to this resource broke and was
    /// opened again: updates in between are lost, so read it again.
    Resubscribed {
        /// The resource.
        uri: String,
    },
}

/// A function that hears session events (`Send + Sync` natively).
pub trait EventFn: Fn(&SessionEvent) + MaybeSend + MaybeSync {}
impl<F: Fn(&SessionEvent) + MaybeSend + MaybeSync> EventFn for F {}

/// A session event listener.
pub type EventListener = Arc<dyn EventFn>;

/// Configuration of a client, set before it connects (capabilities follow
/// from the handlers registered here and cannot change mid-session).
#[derive(Clone)]
pub struct ClientOptions {
    /// Who we are, sent in `initialize`.
    pub client_info: Implementation,
    /// The version offered in `initialize`; the server may answer with an
    /// older one we also speak.
    pub protocol_version: ProtocolVersion,
    /// Default per-request timeout.
    pub request_timeout: Duration,
    /// Refuse calls the server's capabilities do not cover (spec: MUST use
    /// only negotiated capabilities). On by default.
    pub strict_capabilities: bool,
    /// The most pages a `list_all_*` helper follows before it gives up.
    pub max_pages: usize,
    /// Extra `experimental` capabilities to declare.
    pub experimental: Option<JsonObject>,
    /// Whether URL-mode elicitation is supported by the elicitation handler.
    pub elicitation_url_mode: bool,
    /// How long connecting may take in all (era probe, transport probe,
    /// `initialize`, the legacy `endpoint` wait, OAuth exchanges); `None`:
    /// the request timeout. Time a person spends on an authorization page
    /// is not counted.
    pub handshake_timeout: Option<Duration>,
    /// Which protocol era to speak: whichever a `server/discover` probe
    /// finds (the default), only the handshake, or only the stateless
    /// revision 2026-07-28. A stateless `protocol_version` forces the
    /// stateless era.
    pub era: EraChoice,
    /// The most rounds a multi round-trip request (stateless era) may take
    /// before it fails with [`super::Error::TooManyRounds`].
    pub max_input_rounds: usize,
    /// How long the era probe waits before taking silence for a handshake
    /// server.
    pub probe_timeout: Duration,
    /// Declare the tasks extension (2026-07-28, `io.modelcontextprotocol/tasks`):
    /// a server may then run a `tools/call` as a task, which `call_tool`
    /// drives to its end (polling, input, cancellation). Default false.
    /// Feature `tasks`.
    #[cfg(feature = "tasks")]
    pub tasks: bool,
    /// How long a task may run before the call gives up and cancels it.
    /// Feature `tasks`.
    #[cfg(feature = "tasks")]
    pub task_timeout: std::time::Duration,
    /// Answer a repeated list or read from the results a stateless server
    /// said stay fresh (`ttlMs`) until they go stale or a change
    /// notification arrives (default true). It holds the 64 answers that
    /// stay fresh longest; [`crate::Client::clear_cache`] empties it.
    pub result_cache: bool,
    /// A 2026-07-28 [`crate::Client::listen`] whose stream breaks (an edge
    /// proxy cuts idle streams at about 100 s) is opened again by itself,
    /// with capped, jittered backoff, and yields a
    /// [`crate::client::RESYNC`] notification: changes in between are lost,
    /// so re-list. Default true; false ends the subscription with the error.
    pub reopen_listens: bool,
    /// Check every tool result's `structuredContent` against the
    /// `outputSchema` its tool was listed with (the spec's SHOULD), with an
    /// interpreting validator (a JSON Schema subset, no code generation, so
    /// it works in workerd); a mismatch fails the call with
    /// [`super::Error::InvalidStructuredContent`] naming the path. Default true.
    pub validate_structured_content: bool,
    /// The key the era verdict is cached under (the URL, the command line).
    pub(crate) era_cache_key: Option<String>,
    /// The authorization in use: request timeouts leave out the time it
    /// spends waiting for a person to sign in.
    pub(crate) interaction: Option<Arc<dyn crate::auth::AuthProvider>>,
    pub(crate) handlers: Handlers,
    pub(crate) roots_list_changed: bool,
    pub(crate) notification_listeners: Vec<NotificationListener>,
    pub(crate) event_listeners: Vec<EventListener>,
}

impl fmt::Debug for ClientOptions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        crate::debug::debug_struct(f, "ClientOptions")
            .field("client_info", &self.client_info)
            .field("protocol_version", &self.protocol_version)
            .field("request_timeout", &self.request_timeout)
            .field("strict_capabilities", &self.strict_capabilities)
            .field("handlers", &self.handlers.keys().collect::<Vec<_>>())
            .finish_non_exhaustive()
    }
}

impl Default for ClientOptions {
    fn default() -> Self {
        ClientOptions {
            client_info: Implementation::new("mcp-edge", env!("CARGO_PKG_VERSION")),
            protocol_version: ProtocolVersion::LATEST,
            request_timeout: DEFAULT_REQUEST_TIMEOUT,
            strict_capabilities: true,
            max_pages: 1000,
            experimental: None,
            elicitation_url_mode: false,
            handshake_timeout: None,
            era: EraChoice::Auto,
            max_input_rounds: DEFAULT_MAX_INPUT_ROUNDS,
            probe_timeout: PROBE_TIMEOUT,
            result_cache: true,
            reopen_listens: true,
            validate_structured_content: true,
            #[cfg(feature = "tasks")]
            tasks: false,
            #[cfg(feature = "tasks")]
            task_timeout: std::time::Duration::from_secs(10 * 60),
            era_cache_key: None,
            interaction: None,
            handlers: Handlers::default(),
            roots_list_changed: false,
            notification_listeners: Vec::new(),
            event_listeners: Vec::new(),
        }
    }
}

impl ClientOptions {
    /// Defaults, with this client name and version.
    pub fn new(name: impl Into<String>, version: impl Into<String>) -> Self {
        ClientOptions { client_info: Implementation::new(name, version), ..Default::default() }
    }

    /// Sets the default per-request timeout.
    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.request_timeout = timeout;
        self
    }

    /// Sets the version offered in `initialize`; a stateless version
    /// ([`ProtocolVersion::V2026_07_28`]) forces the stateless era.
    pub fn with_protocol_version(mut self, version: ProtocolVersion) -> Self {
        self.protocol_version = version;
        self
    }

    /// Chooses the protocol era (see [`EraChoice`]).
    pub fn with_era(mut self, era: EraChoice) -> Self {
        self.era = era;
        self
    }

    /// Declares the tasks extension (see [`ClientOptions::tasks`]).
    #[cfg(feature = "tasks")]
    pub fn with_tasks(mut self, tasks: bool) -> Self {
        self.tasks = tasks;
        self
    }

    /// How long a task may run before the call cancels it.
    #[cfg(feature = "tasks")]
    pub fn with_task_timeout(mut self, limit: Duration) -> Self {
        self.task_timeout = limit;
        self
    }

    /// The key the era verdict is cached under (by default the server's
    /// URL, or the stdio command line with its environment and directory).
    pub fn with_era_cache_key(mut self, key: impl Into<String>) -> Self {
        self.era_cache_key = Some(key.into());
        self
    }

    /// Answers `sampling/createMessage` (declares the `sampling` capability).
    pub fn on_sampling<F, Fut>(mut self, handler: F) -> Self
    where
        F: Fn(CreateMessageParams, RequestContext) -> Fut + MaybeSend + MaybeSync + 'static,
        Fut: Future<Output = Result<CreateMessageResult, ErrorObject>> + MaybeSend + 'static,
    {
        self.handlers.insert(methods::SAMPLING_CREATE_MESSAGE.into(), handlers::typed(handler));
        self
    }

    /// Answers `elicitation/create` (declares `elicitation`). With
    /// `fill_defaults`, an accepted form gets the schema's default for every
    /// field the handler left out.
    pub fn on_elicitation<F, Fut>(mut self, handler: F, fill_defaults: bool) -> Self
    where
        F: Fn(ElicitParams, RequestContext) -> Fut + MaybeSend + MaybeSync + 'static,
        Fut: Future<Output = Result<ElicitResult, ErrorObject>> + MaybeSend + 'static,
    {
        self.handlers.insert(methods::ELICITATION_CREATE.into(), handlers::elicitation(handler, fill_defaults));
        self
    }

    /// Answers `roots/list` with a handler (declares `roots{listChanged}`).
    pub fn on_roots<F, Fut>(mut self, handler: F) -> Self
    where
        F: Fn(RequestContext) -> Fut + MaybeSend + MaybeSync + 'static,
        Fut: Future<Output = Result<Vec<Root>, ErrorObject>> + MaybeSend + 'static,
    {
        let handler = Arc::new(handler);
        let wrapped = move |_params: Option<Value>, context: RequestContext| {
            let handler = handler.clone();
            async move { handler(context).await.map(|roots| handlers::roots_answer(&roots)) }
        };
        self.handlers.insert(methods::ROOTS_LIST.into(), Arc::new(wrapped));
        self.roots_list_changed = true;
        self
    }

    /// Answers `roots/list` with a fixed list (declares `roots`).
    pub fn with_roots(mut self, roots: Vec<Root>) -> Self {
        self.handlers.insert(methods::ROOTS_LIST.into(), handlers::fixed_roots(roots));
        self
    }

    /// Answers any other server-to-client request method.
    pub fn on_request(mut self, method: impl Into<String>, handler: impl RequestHandler) -> Self {
        self.handlers.insert(method.into(), Arc::new(handler));
        self
    }

    /// Calls `listener` for every server notification (progress excepted: it
    /// goes to the request it belongs to).
    pub fn on_notification(mut self, listener: impl Fn(&Notification) + MaybeSend + MaybeSync + 'static) -> Self {
        self.notification_listeners.push(Arc::new(listener));
        self
    }

    /// Calls `listener` for session events (a restarted session).
    pub fn on_event(mut self, listener: impl Fn(&SessionEvent) + MaybeSend + MaybeSync + 'static) -> Self {
        self.event_listeners.push(Arc::new(listener));
        self
    }

    /// The `capabilities` object of `initialize`: exactly what the
    /// registered handlers implement, in the shape of the offered revision.
    pub fn capabilities(&self) -> Value {
        let mut capabilities = JsonObject::new();
        if self.handlers.contains_key(methods::ROOTS_LIST) {
            capabilities.insert("roots".into(), object! { "listChanged": self.roots_list_changed });
        }
        if self.handlers.contains_key(methods::SAMPLING_CREATE_MESSAGE) {
            capabilities.insert("sampling".into(), object! {});
        }
        if self.handlers.contains_key(methods::ELICITATION_CREATE)
            && self.protocol_version >= ProtocolVersion::V2025_06_18
        {
            // `{}` means form mode only, for 2025-06-18 servers and newer alike.
            let elicitation = if self.elicitation_url_mode && self.protocol_version >= ProtocolVersion::V2025_11_25 {
                object! { "form": object! {}, "url": object! {} }
            } else {
                object! {}
            };
            capabilities.insert("elicitation".into(), elicitation);
        }
        if let Some(experimental) = &self.experimental {
            capabilities.insert("experimental".into(), Value::Object(experimental.clone()));
        }
        Value::Object(capabilities)
    }
}

/// A function that hears progress (`Send` natively).
pub trait ProgressFn: FnMut(&Progress) + MaybeSend {}
impl<F: FnMut(&Progress) + MaybeSend> ProgressFn for F {}

/// A progress callback.
pub type ProgressCallback = Box<dyn ProgressFn>;

/// Options for one request.
#[derive(Default)]
pub struct RequestOptions {
    /// Overrides the client's default timeout.
    pub timeout: Option<Duration>,
    /// Restart the timeout whenever progress arrives (needs `on_progress`).
    pub reset_timeout_on_progress: bool,
    /// A hard limit that progress cannot extend.
    pub max_total_timeout: Option<Duration>,
    /// Receives `notifications/progress` for this request; setting it makes
    /// the request carry a `progressToken`.
    pub on_progress: Option<ProgressCallback>,
    /// Set by the stateless engine for one round: the request-metadata
    /// headers (`None` sends the request the handshake era's way).
    pub(crate) stateless_headers: Option<Vec<(String, String)>>,
}

impl fmt::Debug for RequestOptions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        crate::debug::debug_struct(f, "RequestOptions")
            .field("timeout", &self.timeout)
            .field("reset_timeout_on_progress", &self.reset_timeout_on_progress)
            .field("max_total_timeout", &self.max_total_timeout)
            .field("on_progress", &self.on_progress.is_some())
            .finish()
    }
}

impl RequestOptions {
    /// With this timeout.
    pub fn timeout(timeout: Duration) -> Self {
        RequestOptions { timeout: Some(timeout), ..Default::default() }
    }

    /// With a progress callback.
    pub fn with_progress(mut self, callback: impl FnMut(&Progress) + MaybeSend + 'static) -> Self {
        self.on_progress = Some(Box::new(callback));
        self
    }

    /// Restarts the timeout on progress, never beyond `max_total`.
    pub fn reset_on_progress(mut self, max_total: Option<Duration>) -> Self {
        self.reset_timeout_on_progress = true;
        self.max_total_timeout = max_total;
        self
    }
}
