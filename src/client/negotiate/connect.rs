//! The entry points from a server to a connected [`Client`], side by side:
//! [`connect_url`] (the transport detected, Streamable HTTP else legacy
//! HTTP+SSE, or forced) and [`connect_stdio`] (a server process, started
//! again for the handshake if it exits when probed). Both then start the
//! era [`ClientOptions::era`] asks for ([`Client::start`]).
//!
//! The transport decisions are in [`super::detect`], the era's in
//! [`super::era`]; this module does the I/O.

use std::sync::Arc;
use std::time::Duration;

use futures::future::Either;

use super::detect::{self, Plan, TransportChoice, Verdict};
use crate::auth::AuthProvider;
use crate::client::deadline;
use crate::client::{Client, ClientOptions, Error, Snapshot};
use crate::http::{Budgeted, DefaultHttp, HttpClient, default_max_connections};
use crate::transport::Transport;
#[cfg(feature = "legacy-sse")]
use crate::transport::legacy::{LegacyError, LegacySseOptions, LegacySseTransport};
use crate::transport::streamable::{ReconnectPolicy, StreamableHttpOptions, StreamableHttpTransport};
#[cfg(not(target_arch = "wasm32"))]
use {
    super::era::{EraVerdict, remembered_era},
    crate::client::EraChoice,
    crate::transport::TransportError,
    crate::transport::stdio::{StdioOptions, StdioTransport},
};

/// How [`connect_url`] reaches the server.
#[derive(Debug, Clone)]
pub struct ConnectOptions {
    /// Which transport: detected (the default) or forced.
    pub transport: TransportChoice,
    /// Extra headers sent with every request (e.g. `Authorization`). In a
    /// browser, a header makes the legacy transport read its stream with
    /// `fetch` rather than `EventSource`.
    pub headers: Vec<(String, String)>,
    /// How broken streams are resumed or reopened.
    pub reconnect: ReconnectPolicy,
    /// How long the legacy transport may take to open its stream and name
    /// its endpoint; [`connect_url`] waits at most the handshake timeout
    /// ([`ClientOptions::handshake_timeout`], else the request timeout).
    pub connect_timeout: Duration,
    /// Authorization (e.g. [`crate::auth::OAuthProvider`]), used by whichever
    /// transport is chosen: credentials on every request, the flow on 401,
    /// step-up on 403 `insufficient_scope`. The time a person spends on an
    /// authorization page ([`AuthProvider::interaction_time`]) is not counted
    /// against any timeout.
    pub auth: Option<Arc<dyn AuthProvider>>,
    /// Streamable HTTP: whether the GET stream for messages the server
    /// sends unprompted may be opened (on by default). It is opened when
    /// something needs it: a notification listener, a subscription, or a
    /// handler for server requests (sampling, elicitation, roots), at the
    /// handshake if they were configured before it.
    pub open_server_stream: bool,
    /// The largest message (a JSON body, one SSE event) either transport
    /// accepts, in bytes: 16 MiB by default. A larger one fails its request
    /// with an error that names the limit.
    pub max_message_bytes: usize,
    /// Open that stream right after every handshake, needed or not (the
    /// behaviour before streams were opened lazily). Off by default: an
    /// unneeded stream costs a connection, and workerd allows six.
    pub eager_server_stream: bool,
    /// The most HTTP exchanges this client runs at once (POSTs with their
    /// reply streams, the GET stream); the rest wait their turn in order.
    /// [`default_max_connections`]: 6 in workerd (its limit per incoming
    /// request), none elsewhere. `None`: no limit.
    pub max_connections: Option<usize>,
}

impl Default for ConnectOptions {
    fn default() -> Self {
        ConnectOptions {
            transport: TransportChoice::Auto,
            headers: Vec::new(),
            reconnect: ReconnectPolicy::default(),
            connect_timeout: Duration::from_secs(30),
            auth: None,
            open_server_stream: true,
            max_message_bytes: crate::transport::sse::DEFAULT_MAX_BYTES,
            eager_server_stream: false,
            max_connections: default_max_connections(),
        }
    }
}

impl ConnectOptions {
    /// Detection, no extra headers.
    pub fn new() -> Self {
        ConnectOptions::default()
    }

    /// Forces a transport (or asks for detection again).
    pub fn with_transport(mut self, transport: TransportChoice) -> Self {
        self.transport = transport;
        self
    }

    /// Adds a header to every request.
    pub fn header(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.headers.push((name.into(), value.into()));
        self
    }

    /// Authorizes every request through `provider`.
    pub fn with_auth(mut self, provider: impl AuthProvider) -> Self {
        self.auth = Some(Arc::new(provider));
        self
    }

    fn streamable(&self, url: &str) -> StreamableHttpOptions {
        let mut options = StreamableHttpOptions::new(url);
        options.headers = self.headers.clone();
        options.reconnect = self.reconnect.clone();
        options.auth = self.auth.clone();
        options.open_server_stream = self.open_server_stream;
        options.max_message_bytes = self.max_message_bytes;
        options.lazy_server_stream = !self.eager_server_stream;
        options
    }

    #[cfg(feature = "legacy-sse")]
    fn legacy(&self, url: &str) -> LegacySseOptions {
        let mut options = LegacySseOptions::new(url);
        options.headers = self.headers.clone();
        options.reconnect = self.reconnect.clone();
        options.connect_timeout = self.connect_timeout;
        options.auth = self.auth.clone();
        options.max_message_bytes = self.max_message_bytes;
        options
    }
}

/// Connects to the MCP server at an http(s) `url` and performs the
/// handshake, natively or in a browser or worker.
///
/// With [`TransportChoice::Auto`] (the default) the transport is detected
/// as the spec's backwards-compatibility section says: `initialize` is
/// POSTed with the Streamable HTTP headers; if the server answers a 4xx
/// (other than 401 or 403, returned as errors), the same URL is opened with
/// GET as a legacy HTTP+SSE stream and, if its first event is `endpoint`,
/// the session runs over that. What a URL speaks is remembered for the life
/// of the process, so connecting again does not probe again.
///
/// When neither transport answers, the error ([`Error::NotMcpServer`]) says
/// what was tried and what each attempt got. An `endpoint` on another origin
/// is refused with `LegacyError::ForeignEndpoint` (the legacy transport is
/// the `legacy-sse` feature).
///
/// ```no_run
/// # async fn run() -> Result<(), mcp_edge::Error> {
/// use mcp_edge::{ClientOptions, ConnectOptions, connect_url};
/// let client = connect_url("http://127.0.0.1:3001/sse", ConnectOptions::new(), ClientOptions::default()).await?;
/// println!("{}", client.transport_kind()); // "sse (legacy)"
/// # Ok(()) }
/// ```
pub async fn connect_url(url: &str, options: ConnectOptions, client: ClientOptions) -> Result<Client, Error> {
    connect_url_with_http(DefaultHttp::default(), url, options, client).await
}

/// [`connect_url`] through the given HTTP client (a proxy, a test double, a
/// worker's service binding). Both transports share it.
pub async fn connect_url_with_http<H: HttpClient + Clone>(
    http: H,
    url: &str,
    options: ConnectOptions,
    client: ClientOptions,
) -> Result<Client, Error> {
    let url = url.trim_ascii();
    let http = Budgeted::new(http, options.max_connections);
    let mut client = client;
    // One deadline for all of connecting; the time a person spends on an
    // authorization page (after a 401 led there) is not counted.
    let budget = client.handshake_timeout.unwrap_or(client.request_timeout);
    client.interaction = options.auth.clone();
    let mut options = options;
    options.connect_timeout = options.connect_timeout.min(budget);
    // With `EraChoice::Auto`, the era verdict is cached per endpoint.
    client.era_cache_key.get_or_insert_with(|| url.to_owned());
    let clock = options.auth.clone();
    let connecting = async {
        match detect::plan(options.transport, url) {
            Plan::Use { verdict, remembered } => {
                let connected = match verdict {
                    Verdict::StreamableHttp => streamable(http, url, &options, client).await,
                    Verdict::Sse => legacy(http, url, &options, client).await,
                };
                if remembered && connected.is_err() {
                    // The server may have changed: probe next time.
                    detect::forget(url);
                }
                connected
            }
            // Streamable HTTP first; HTTP+SSE if the POST was answered as
            // only a legacy server would (here, not in a function of its
            // own: one state machine less).
            Plan::Probe => {
                let status = match streamable(http.clone(), url, &options, client.clone()).await {
                    Ok(connected) => {
                        detect::remember(url, Verdict::StreamableHttp);
                        return Ok(connected);
                    }
                    Err(Error::Transport(error)) => match detect::legacy_signal(&error) {
                        Some(status) => status,
                        None => return Err(Error::Transport(error)),
                    },
                    Err(other) => return Err(other),
                };
                legacy_fallback(http, url, &options, client, status).await
            }
        }
    };
    let limit = deadline::wait(budget, clock);
    within(budget, url, std::pin::pin!(connecting), std::pin::pin!(limit)).await
}

/// `connecting`, or [`Error::Timeout`] once `limit` (`budget`, not
/// counting time spent signing in) has passed. Combinators over the
/// caller's pinned futures, not an `async fn`: no state machine around
/// them.
fn within<'a, C, L>(
    budget: Duration,
    what: &'a str,
    connecting: std::pin::Pin<&'a mut C>,
    limit: std::pin::Pin<&'a mut L>,
) -> impl Future<Output = Result<Client, Error>> + 'a
where
    C: Future<Output = Result<Client, Error>>,
    L: Future<Output = ()>,
{
    use futures::FutureExt;
    let deadline = move || Error::Timeout { method: format!("connecting to {what}"), after: budget };
    futures::future::select(connecting, limit).map(move |raced| match raced {
        // A step's own wait is capped by the same budget, so it can run out
        // a moment before `limit` does: the caller still sees one deadline.
        Either::Left((Err(Error::Timeout { .. }), _)) => Err(deadline()),
        Either::Left((connected, _)) => connected,
        Either::Right(_) => Err(deadline()),
    })
}

/// Continues the session of a [`Snapshot`] (see [`Client::snapshot`]) with
/// the Streamable HTTP server at `url`, with no handshake and no probe: the
/// first request goes straight out. The transport choice in `options` is
/// ignored (a snapshot names its own); other transports are refused.
pub async fn restore_url(
    url: &str,
    snapshot: &Snapshot,
    options: ConnectOptions,
    client: ClientOptions,
) -> Result<Client, Error> {
    restore_url_with_http(DefaultHttp::default(), url, snapshot, options, client).await
}

/// [`restore_url`] through the given HTTP client.
pub async fn restore_url_with_http<H: HttpClient>(
    http: H,
    url: &str,
    snapshot: &Snapshot,
    options: ConnectOptions,
    client: ClientOptions,
) -> Result<Client, Error> {
    restore_url_now(http, url, snapshot, options, client)
}

/// [`restore_url_with_http`]'s work, which waits for nothing: the JS face
/// calls it directly, with no state machine around it.
pub(crate) fn restore_url_now<H: HttpClient>(
    http: H,
    url: &str,
    snapshot: &Snapshot,
    options: ConnectOptions,
    client: ClientOptions,
) -> Result<Client, Error> {
    let url = url.trim_ascii();
    let mut client = client;
    client.era_cache_key.get_or_insert_with(|| url.to_owned());
    let http = Budgeted::new(http, options.max_connections);
    let transport = StreamableHttpTransport::with_http(http, options.streamable(url));
    // What the snapshot says the URL speaks holds for transport detection too.
    detect::remember(url, Verdict::StreamableHttp);
    Client::restore_spawned(session_transport(transport), client, snapshot)
}

/// After a POST answered as only a legacy server would: try HTTP+SSE.
#[cfg(feature = "legacy-sse")]
fn legacy_fallback<H: HttpClient>(
    http: H,
    url: &str,
    options: &ConnectOptions,
    client: ClientOptions,
    status: u16,
) -> impl Future<Output = Result<Client, Error>> {
    log::debug!("POST {url} answered {status}: trying the legacy HTTP+SSE transport");
    legacy_session(http, url, options, client, Some(status))
}

/// A session over the legacy transport, forced (`probed` is `None`) or
/// tried after a POST answered `probed` as only a legacy server would: one
/// state machine for both.
#[cfg(feature = "legacy-sse")]
async fn legacy_session<H: HttpClient>(
    http: H,
    url: &str,
    options: &ConnectOptions,
    client: ClientOptions,
    probed: Option<u16>,
) -> Result<Client, Error> {
    let transport = match (LegacySseTransport::connect(http, options.legacy(url)).await, probed) {
        (Ok(transport), _) => transport,
        // A legacy server that names a bad endpoint is still a legacy server
        // (say what is wrong with it), and a refusal is authorization's
        // business: not detection verdicts. Nor is anything when forced.
        (
            Err(
                error @ (LegacyError::ForeignEndpoint { .. }
                | LegacyError::InvalidEndpoint { .. }
                | LegacyError::NotAnEventStream { status: 401 | 403, .. }
                | LegacyError::Auth(_)),
            ),
            _,
        )
        | (Err(error), None) => return Err(Error::Transport(error.into())),
        (Err(error), Some(status)) => {
            return Err(Error::NotMcpServer {
                url: url.to_owned(),
                attempts: vec![detect::post_attempt(url, status), error.attempt()],
            });
        }
    };
    let connected = handshake(session_transport(transport), client).await?;
    if probed.is_some() {
        detect::remember(url, Verdict::Sse);
    }
    Ok(connected)
}

/// A session over Streamable HTTP: `handshake`'s future itself, not an
/// `async fn` around it (one state machine less in each of its two callers).
fn streamable<H: HttpClient>(
    http: H,
    url: &str,
    options: &ConnectOptions,
    client: ClientOptions,
) -> impl Future<Output = Result<Client, Error>> {
    handshake(session_transport(StreamableHttpTransport::with_http(http, options.streamable(url))), client)
}

/// A build without the `legacy-sse` feature cannot try HTTP+SSE: the POST's
/// answer is all there is to report.
/// Not an `async fn`: a ready answer is no state machine to await.
#[cfg(not(feature = "legacy-sse"))]
fn legacy_fallback<H: HttpClient>(
    _http: H,
    url: &str,
    _options: &ConnectOptions,
    _client: ClientOptions,
    status: u16,
) -> std::future::Ready<Result<Client, Error>> {
    std::future::ready(Err(Error::NotMcpServer {
        url: url.to_owned(),
        attempts: vec![detect::post_attempt(url, status), NO_LEGACY.to_owned()],
    }))
}

#[cfg(not(feature = "legacy-sse"))]
const NO_LEGACY: &str = "the legacy HTTP+SSE transport is not in this build (enable the `legacy-sse` feature)";

#[cfg(not(feature = "legacy-sse"))]
fn legacy<H: HttpClient>(
    _http: H,
    _url: &str,
    _options: &ConnectOptions,
    _client: ClientOptions,
) -> std::future::Ready<Result<Client, Error>> {
    std::future::ready(Err(Error::InvalidArgument(NO_LEGACY.to_owned())))
}

#[cfg(feature = "legacy-sse")]
fn legacy<H: HttpClient>(
    http: H,
    url: &str,
    options: &ConnectOptions,
    client: ClientOptions,
) -> impl Future<Output = Result<Client, Error>> {
    legacy_session(http, url, options, client, None)
}

/// The transport a session the engine opens runs over. Where the build has
/// more than one kind of transport (stdio natively, the legacy one with the
/// `legacy-sse` feature), a `Box<dyn Transport>`: the session loop is then
/// compiled once for all of them, where a copy per transport type was about
/// 1 KB of gzip in the full wasm. Where it has one (the lite wasm), the transport
/// itself, which the loop then calls directly: boxing it there cost 0.3 KB.
#[cfg(any(feature = "legacy-sse", not(target_arch = "wasm32")))]
fn session_transport(transport: impl Transport) -> Box<dyn Transport> {
    Box::new(transport)
}

#[cfg(all(target_arch = "wasm32", not(feature = "legacy-sse")))]
fn session_transport<T: Transport>(transport: T) -> T {
    transport
}

/// Starts the session on the host's runtime and performs the handshake;
/// closes the transport if the handshake fails. Its callers hand it what
/// [`session_transport`] made, so it too is compiled once.
async fn handshake(transport: impl Transport, options: ClientOptions) -> Result<Client, Error> {
    let (client, driver) = Client::new(transport, options);
    crate::runtime::spawn(driver)?;
    // The handshake, or the era `ClientOptions::era` asks for.
    match client.start().await {
        Ok(_) => Ok(client),
        Err(error) => {
            let _ = client.closing().await;
            Err(error)
        }
    }
}

/// The era cache key of a launch configuration.
#[cfg(not(target_arch = "wasm32"))]
fn launch_key(options: &StdioOptions) -> String {
    format!("stdio:{:?} {:?} env={:?} cwd={:?}", options.program, options.args, options.env, options.cwd)
}

#[cfg(not(target_arch = "wasm32"))]
async fn attempt(options: &StdioOptions, client: ClientOptions) -> Result<Client, Error> {
    handshake(session_transport(StdioTransport::spawn(options.clone())?), client).await
}

/// Starts the server and talks to it in the era [`ClientOptions::era`]
/// asks for. With [`EraChoice::Auto`] it probes with `server/discover`
/// (digest of 2026-07-28 §2.2): a stateless server is used statelessly; any
/// other answer, silence, or a server that exits on the probe means the
/// handshake, on a freshly started process if the probe ended the first
/// one. The verdict is cached per command line, arguments, environment and
/// directory, for [`VERDICT_MAX_AGE`](super::VERDICT_MAX_AGE) when it says
/// "handshake" (a server may be upgraded), for the process otherwise.
#[cfg(not(target_arch = "wasm32"))]
pub async fn connect_stdio(options: StdioOptions, client: ClientOptions) -> Result<Client, Error> {
    let mut client = client;
    let key = launch_key(&options);
    client.era_cache_key.get_or_insert_with(|| key.clone());
    let auto = client.era == EraChoice::Auto;
    let budget = client.handshake_timeout.unwrap_or(client.request_timeout);
    let program = options.program.clone();
    let connecting = async {
        match attempt(&options, client.clone()).await {
            Err(Error::Transport(TransportError::Closed(_) | TransportError::ProcessExited { .. }))
                if auto && remembered_era(&key) == Some(EraVerdict::Handshake) =>
            {
                log::debug!("{} exited when probed: starting it again for the handshake", options.program);
                attempt(&options, client).await
            }
            other => other,
        }
    };
    let limit = deadline::wait(budget, None);
    within(budget, &program, std::pin::pin!(connecting), std::pin::pin!(limit)).await
}
