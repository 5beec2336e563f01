//! The protocol layer: JSON-RPC messages and MCP types of both eras (the
//! handshake revisions in [`types`], revision 2026-07-28 in
//! [`stateless`]). Pure data, no I/O.

pub mod jsonrpc;
pub mod methods;
pub mod schema;
pub mod stateless;
pub mod types;
pub mod version;

pub use jsonrpc::{DecodeError, ErrorObject, Message, Notification, Request, RequestId, Response, codes};
pub use version::{Era, ProtocolVersion, UnsupportedVersion};
