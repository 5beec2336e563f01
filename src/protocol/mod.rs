//! The protocol layer: JSON-RPC messages and MCP types of both eras (the
//! handshake revisions in [`types`]; revision 2026-07-28's vocabulary is
//! internal, and what of it a user meets, such as
//! [`ListenFilter`](crate::ListenFilter), is at the crate root). Method
//! names are in [`methods`], error codes in [`codes`]. Pure data, no I/O.

pub(crate) mod jsonrpc;
pub mod methods;
pub(crate) mod objects;
pub(crate) mod raw;
pub(crate) mod schema;
pub(crate) mod stateless;
pub mod types;
pub(crate) mod version;

pub use jsonrpc::{
    DecodeError, ErrorObject, Message, Notification, Request, RequestId, Response, codes, decode, decode_one,
};
pub use raw::RawResult;
pub use schema::SchemaError;
pub use version::{Era, ProtocolVersion, UnsupportedVersion};
