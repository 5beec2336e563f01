//! The TypeScript shapes of the JS API, written by hand after the MCP
//! schema (2025-11-25, older revisions' fields included) and named as in
//! the official TypeScript SDK. wasm-bindgen copies this into the `.d.ts`;
//! the `McpClient` signatures refer to it through `unchecked_*_type`.
//!
//! Two sections, each a file a reader can hold: `results.rs` (JSON,
//! versions and eras, snapshots and verdicts, errors, content, tools,
//! resources, prompts and the results that carry them) and `session.rs`
//! (progress, roots, notifications, sampling, elicitation, handler context,
//! connect/auth/request options). wasm-bindgen joins them into one `.d.ts`.

mod results;
mod session;
