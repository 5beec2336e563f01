//! The protocol layer: JSON-RPC messages and MCP types. Pure data, no I/O.

pub mod jsonrpc;
pub mod methods;
pub mod types;
pub mod version;

pub use jsonrpc::{DecodeError, ErrorObject, Message, Notification, Request, RequestId, Response, codes};
pub use version::{Era, ProtocolVersion, UnsupportedVersion};
