//! # mcp-edge
//!
//! A Model Context Protocol client for browsers, edge workers and native
//! hosts. One runtime-agnostic session engine ([`Client`]) drives any
//! [`transport::Transport`]; the [`protocol`] layer is pure data.
//!
//! Layers depend only downward: `protocol` ← `http` ← `auth` ← `transport`
//! ← client ← faces (the Rust API here, the native CLI, the wasm-bindgen JS
//! API).
//!
//! ## The public surface
//!
//! Each public item has one path. The client layer is the crate root:
//! [`Client`], [`connect_url`] (and natively `connect_stdio`), their
//! options, [`Error`], handlers and subscriptions. Each lower layer is one
//! module whose root holds what a user needs of it: [`protocol`] (messages,
//! versions, [`protocol::codes`], [`protocol::methods`], and the MCP types in
//! [`protocol::types`]), [`http`] (the [`http::HttpClient`] seam),
//! [`auth`] (OAuth 2.1) and [`transport`] (the [`transport::Transport`]
//! trait and each transport with its options). Everything else (parsers,
//! engines, negotiation) is internal. The few runtime types that appear in
//! public signatures ([`BoxFuture`], [`MaybeSend`], ...) are at the root.
//!
//! ## Cargo features
//!
//! All are on by default, so `cargo build` gives the CLI and the whole
//! library; a library user who wants less starts from
//! `default-features = false` and adds back what it needs. With none, the
//! library still speaks stdio (native) and Streamable HTTP, with OAuth.
//!
//! - `cli` *(default)*: the `mcp-edge` command-line binary (native only; on
//!   wasm32 it is an empty `main`). Pulls in clap, indicatif and env_logger,
//!   which the library never uses.
//! - `legacy-sse` *(default)*: the legacy HTTP+SSE transport (protocol
//!   revision 2024-11-05) and the automatic fallback to it when a server
//!   refuses Streamable HTTP.
//! - `private-key-jwt` *(default)*: OAuth client authentication with a signed
//!   JWT (`private_key_jwt`, RFC 7523), ES256 through p256 natively and
//!   WebCrypto (`crypto.subtle`) on wasm32.
//! - `dpop` *(default)*: DPoP-bound access tokens (RFC 9449), an ES256 proof
//!   per request, through p256 natively and WebCrypto on wasm32.
//! - `machine-grants` *(default)*: the OAuth grants without a person:
//!   client credentials, JWT bearer (RFC 7523) and identity assertions
//!   (SEP-990, ID-JAG). Without it only the authorization code grant
//!   exists, and configuring another is a configuration error naming this
//!   feature. The `cli` feature turns it on.
//! - `tasks` *(default)*: the tasks extension of revision 2026-07-28
//!   (`io.modelcontextprotocol/tasks`): with `ClientOptions::with_tasks` a
//!   `tools/call` the server runs as a task is polled, given its input and
//!   cancelled to its end. Without it the client never declares the
//!   extension, and the options that would (`with_tasks`, `task_timeout`)
//!   are not there; the JS API refuses `tasks: true` naming this feature.
//!   The `cli` feature turns it on.
//! - `js` *(default)*: the JavaScript API for wasm32 (`mcp_edge::web`, what
//!   the npm package exposes). Pulls in the web-sys types only it uses.
//!   Without it a wasm32 build is the Rust API alone. No effect natively.
//! - `persist` *(default)*: the JS API's `McpClient.snapshot` and `restore`
//!   (a session continued in another page, worker or process) and
//!   `exportVerdicts`/`importVerdicts` (what the probes found, kept across
//!   reloads). Without it those methods throw a `TypeError` naming the
//!   feature. The Rust API ([`Client::snapshot`], [`restore_url`]) has them
//!   either way: a Rust program links only what it calls, while the JS face
//!   exports every method.
//!
//! The npm package ships two builds of the JS API: `mcp-edge` (the default
//! features) and `mcp-edge/lite` (`--no-default-features --features js`:
//! Streamable HTTP, both protocol eras and OAuth with PKCE, without legacy
//! SSE, ES256, the grants without a person, the tasks extension and the
//! `persist` methods; an
//! option or method that needs a left-out feature fails with an error
//! naming it). `cargo xtask size` weighs both.
//! - `talc` *(off)*: on wasm32, talc (through the workspace's
//!   `mcp-edge-alloc` crate, built for speed) is the global allocator
//!   instead of the standard library's dlmalloc: about 2 KB less gzip of
//!   wasm. For a module that owns its allocator: the npm package's builds
//!   turn it on; a crate that links this library into its own wasm module
//!   leaves it off and chooses its own. No effect natively.
//! - `fuzzing` *(off)*: exposes the parsers' entry points for the fuzz
//!   targets in `fuzz/` (a hidden module, not an API).

#![warn(missing_debug_implementations)]
#![warn(missing_docs)]
// Every type a user can get hold of can also be named: the curated re-exports
// below cover the whole public surface.
#![warn(unnameable_types)]

// The `talc` feature: linked for its global allocator.
#[cfg(all(feature = "talc", target_arch = "wasm32"))]
use mcp_edge_alloc as _;

mod ascii;
pub mod auth;
mod cause;
mod client;
mod debug;
mod hash;
pub mod http;
pub mod protocol;
mod runtime;
pub mod transport;
#[cfg(all(target_arch = "wasm32", feature = "js"))]
pub mod web;

/// The parsers' entry points for the fuzz targets in `fuzz/`; not an API.
#[cfg(any(feature = "fuzzing", test))]
#[doc(hidden)]
pub mod fuzzing;

pub use cause::Cause;
#[cfg(not(target_arch = "wasm32"))]
pub use client::connect_stdio;
pub use client::{
    CacheHint, CacheScope, Client, ClientOptions, ConnectOptions, DEFAULT_MAX_INPUT_ROUNDS, DEFAULT_REQUEST_TIMEOUT,
    DiscoverResult, Driver, EraChoice, EraVerdict, Error, EventFn, EventListener, HandlerResult, ListenFilter,
    ListenerId, Negotiated, NotificationFn, NotificationListener, ParamHeader, ProgressCallback, ProgressFn, RESYNC,
    Reached, RequestContext, RequestHandler, RequestOptions, SNAPSHOT_VERSION, SessionEvent, Snapshot, SnapshotEra,
    Subscription, TransportChoice, VERDICT_MAX_AGE, VERDICTS_VERSION, Verdicts, apply_elicitation_defaults,
    connect_url, connect_url_with_http, export_verdicts, forget_era, forget_transport, import_verdicts, remembered_era,
    remembered_transport, restore_url, restore_url_with_http,
};
pub use runtime::{BoxFuture, BoxStream, MaybeSend, MaybeSync, SpawnError};
