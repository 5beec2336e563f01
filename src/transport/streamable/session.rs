//! The session: adopted from the `initialize` answer, forgotten on 404,
//! ended with DELETE.

use std::sync::Arc;

use super::super::TransportError;
use super::{SESSION_HEADER, Shared};
use crate::debug::Quoted;
use crate::http::{HttpClient, HttpRequest, HttpResponse, Method};

impl<H: HttpClient> Shared<H> {
    /// The server answered 404 to a request that carried `carried`. Forget
    /// that session, but only if it is still the current one: a late 404 from
    /// the old session must not erase the session a restart just opened.
    pub(super) fn session_lost(&self, carried: &str) -> TransportError {
        let mut state = self.state();
        if state.session_id.as_deref() == Some(carried) {
            state.session_id = None;
            state.session_expired = true;
        }
        TransportError::SessionExpired
    }

    pub(super) fn adopt_session(&self, response: &HttpResponse) -> Result<(), TransportError> {
        let mut state = self.state();
        match response.header(SESSION_HEADER) {
            Some(id) => {
                if id.is_empty() || !id.bytes().all(|b| (0x21..=0x7e).contains(&b)) {
                    return Err(TransportError::InvalidMessage(format!(
                        "the server's session id ({SESSION_HEADER}: {id}) is not visible ASCII",
                        id = Quoted(id)
                    )));
                }
                state.session_id = Some(id.to_owned());
                state.session_header_unreadable = false;
            }
            None => {
                state.session_id = None;
                state.session_header_unreadable = true;
            }
        }
        state.session_expired = false;
        // Event ids belong to the session that numbered them.
        state.stream_last_event_id = None;
        Ok(())
    }

    /// Whether a broken stream of `session` may still be resumed: not after
    /// close, and not once the session is gone or replaced (the engine then
    /// retries the request in the new session).
    pub(super) fn check_resumable(&self, session: Option<&str>) -> Result<(), TransportError> {
        let state = self.state();
        if state.closed {
            return Err(TransportError::Closed("the transport is closed".into()));
        }
        if session.is_some() && state.session_id.as_deref() != session {
            return Err(TransportError::SessionExpired);
        }
        Ok(())
    }

    pub(super) async fn delete_session(self: Arc<Self>) -> Result<(), TransportError> {
        if self.state().session_id.is_none() {
            return Ok(());
        }
        let request = self.request(Method::Delete, None, None, None);
        self.state().session_id = None;
        match self.fetch(request).await {
            // 405: the server does not let clients end sessions; that is fine.
            Ok(response)
                if (200..300).contains(&response.status) || response.status == 405 || response.status == 404 =>
            {
                Ok(())
            }
            Ok(response) => Err(TransportError::Http {
                status: response.status,
                message: "the server refused to end the session".into(),
            }),
            Err(error) => Err(error),
        }
    }
}

/// The session id a request carries, if any.
pub(super) fn session_of(request: &HttpRequest) -> Option<String> {
    request.headers.iter().find(|(name, _)| name == SESSION_HEADER).map(|(_, value)| value.clone())
}
