//! # mcp-edge
//!
//! A Model Context Protocol client for browsers, edge workers and native
//! hosts. One runtime-agnostic session engine ([`client`]) drives any
//! [`transport::Transport`]; the [`protocol`] layer is pure data.
//!
//! Layers depend only downward: `protocol` ← `transport` ← `client` ← faces
//! (the Rust API here, the native CLI, the wasm-bindgen JS API).

#![warn(missing_debug_implementations)]

pub mod auth;
pub mod client;
pub mod http;
pub mod protocol;
pub mod runtime;
pub mod transport;
#[cfg(target_arch = "wasm32")]
pub mod web;

pub use client::negotiate::TransportChoice;
pub use client::{Client, ClientOptions, ConnectOptions, Error, RequestOptions, connect_url};
pub use protocol::{Message, ProtocolVersion};
