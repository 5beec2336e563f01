//! # mcp-edge
//!
//! A Model Context Protocol client for browsers, edge workers and native
//! hosts. One runtime-agnostic session engine ([`client`]) drives any
//! [`transport::Transport`]; the [`protocol`] layer is pure data.
//!
//! Layers depend only downward: `protocol` ← `transport` ← `client` ← faces
//! (the Rust API here, the native CLI, the wasm-bindgen JS API).
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
//!   JWT (`private_key_jwt`, RFC 7523), ES256 through p256.
//! - `dpop` *(default)*: DPoP-bound access tokens (RFC 9449), an ES256 proof
//!   per request, through p256.
//! - `js` *(default)*: the JavaScript API for wasm32 (`mcp_edge::web`, what
//!   the npm package exposes). Pulls in serde-wasm-bindgen and the web-sys
//!   types only it uses. Without it a wasm32 build is the Rust API alone.
//!   No effect natively.
//! - `fuzzing` *(off)*: exposes the parsers' entry points for the fuzz
//!   targets in `fuzz/` (a hidden module, not an API).

#![warn(missing_debug_implementations)]
#![warn(missing_docs)]

pub mod auth;
pub mod client;
pub mod http;
pub mod protocol;
pub mod runtime;
pub mod transport;
#[cfg(all(target_arch = "wasm32", feature = "js"))]
pub mod web;

/// The parsers' entry points for the fuzz targets in `fuzz/`; not an API.
#[cfg(any(feature = "fuzzing", test))]
#[doc(hidden)]
pub mod fuzzing;

pub use client::negotiate::TransportChoice;
pub use client::{Client, ClientOptions, ConnectOptions, Error, RequestOptions, connect_url};
pub use protocol::{Message, ProtocolVersion};
