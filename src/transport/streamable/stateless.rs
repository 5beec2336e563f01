//! Streamable HTTP in the stateless revision (2026-07-28): the same
//! connection, with the era's header policy.
//!
//! Every request is its own POST carrying the request-metadata headers the
//! engine computed (`MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name`,
//! `Mcp-Param-*`); nothing of a session goes out or is adopted (no
//! `Mcp-Session-Id`, no GET stream, no DELETE). Stateless servers give no
//! SSE event ids, so a reply stream that breaks before its answer loses the
//! request (the caller may send it again with a new id); only a server of
//! the handshake era answering a probe sets ids, and its stream is resumed
//! as that era says. A 4xx whose body is a
//! JSON-RPC error (-32022, -32021, -32020, -32602, -32601) is the request's
//! answer, so the engine sees the server's error, not an HTTP status
//! (`Shared::post` reads the answers of both eras).

use super::{LAST_EVENT_ID_HEADER, SESSION_HEADER, Shared, VERSION_HEADER};
use crate::http::{HttpClient, HttpRequest};

impl<H: HttpClient> Shared<H> {
    /// A stateless request's headers: the era's policy applied to the
    /// connection's (`Shared::post` sends it).
    pub(super) fn stateless_headers(&self, request: &mut HttpRequest, headers: &[(String, String)]) {
        // The era's policy: no session and no resumption headers, and the
        // version header the engine chose (it equals `_meta`'s).
        request.headers.retain(|(name, _)| {
            let handshake_only =
                name.eq_ignore_ascii_case(SESSION_HEADER) || name.eq_ignore_ascii_case(LAST_EVENT_ID_HEADER);
            let version_chosen = name.eq_ignore_ascii_case(VERSION_HEADER)
                && headers.iter().any(|(n, _)| n.eq_ignore_ascii_case(VERSION_HEADER));
            !(handshake_only || version_chosen)
        });
        // The protocol's headers go before the user's extra ones.
        let position = request.headers.len() - self.options.headers.len().min(request.headers.len());
        for (offset, header) in headers.iter().enumerate() {
            request.headers.insert(position + offset, header.clone());
        }
    }
}
