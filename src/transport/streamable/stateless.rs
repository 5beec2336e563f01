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
//! answer, so the engine sees the server's error, not an HTTP status.

use super::super::TransportError;
use super::{LAST_EVENT_ID_HEADER, SESSION_HEADER, Shared, VERSION_HEADER};
use crate::http::{HttpClient, HttpRequest, HttpResponse};
use crate::protocol::jsonrpc::decode;
use crate::protocol::{Message, RequestId, Response};

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

    /// What a stateless request's POST got back.
    pub(super) async fn stateless_answer(
        &self,
        response: HttpResponse,
        awaited: Option<RequestId>,
    ) -> Result<(), TransportError> {
        let status = response.status;
        if !(200..300).contains(&status) {
            return self.stateless_failure(response, awaited.as_ref()).await;
        }
        if status == 202 {
            return Ok(());
        }
        // A stateless server sets no event ids, so its broken stream ends
        // the request; one that does is of the handshake era (this was a
        // probe) and its stream is resumed as that era does.
        self.read_reply(response, awaited, None).await
    }

    /// A non-2xx answer. A JSON-RPC error in the body answers the request
    /// (its id, or no id at all, as servers that fail before reading the
    /// body send it); anything else is an HTTP failure.
    async fn stateless_failure(
        &self,
        response: HttpResponse,
        awaited: Option<&RequestId>,
    ) -> Result<(), TransportError> {
        let status = response.status;
        let json = response.media_type().as_deref() == Some("application/json");
        if let (true, Some(id), 400..=499) = (json, awaited, status) {
            let body = response.read_body(64 * 1024).await.unwrap_or_default();
            let text = crate::transport::utf8_text(&body);
            let error = decode(&text).ok().and_then(|mut messages| messages.pop()).and_then(Result::ok);
            if let Some(Message::Response(Response { id: answered, outcome: Err(error) })) = error
                && answered.as_ref().is_none_or(|answered| answered == id)
            {
                self.deliver(Message::Response(Response { id: Some(id.clone()), outcome: Err(error) }));
                return Ok(());
            }
            let shown: String = text.chars().take(300).collect();
            return Err(TransportError::Http { status, message: format!("not a JSON-RPC error: {shown}") });
        }
        Err(self.http_failure(response, false).await)
    }
}
