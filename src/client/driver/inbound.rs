//! What comes in from the server: responses routed to their requests,
//! progress to its callback, notifications to the listeners and the
//! subscriptions that asked for them, server requests to the handlers.

use serde_json::Value;

use super::replies::Made;
use super::{Done, SessionLoop};
use crate::client::error::Error;
use crate::client::handlers::{Asked, RequestContext, check_answer};
use crate::protocol::methods::SUBSCRIPTIONS_ACKNOWLEDGED;
use crate::protocol::stateless::listen::subscription_id;
use crate::protocol::{ErrorObject, JsonText, Message, Notification, Request, RequestId, Response, codes, methods};
use crate::runtime::boxed;
use crate::transport::Transport;
use futures::future::{AbortHandle, Abortable};

/// How many of a server's requests the client's handlers work on at once.
/// Each runs an app's handler (often a person answering), and a server that
/// sends requests faster than they end would otherwise be held in memory
/// without end: a request beyond this is answered with an error at once.
/// A handler's answer still waiting for a send counts too.
const MAX_RUNNING_HANDLERS: usize = 128;

impl<T: Transport> SessionLoop<T> {
    pub(super) fn handle_message(&mut self, message: Message) {
        match message {
            Message::Response(response) => self.handle_response(response),
            Message::Notification(notification) => self.handle_notification(notification),
            Message::Request(request) => self.handle_request(request),
        }
    }

    fn handle_response(&mut self, response: Response) {
        let Some(id) = response.id else {
            // An error about a message too malformed to carry an id: no
            // request can be matched, so it is only reported.
            if let Err(error) = response.outcome {
                log::warn!("the server reported an error with no request id: {error}");
            }
            return;
        };
        let Some(pending) = self.pending.remove(&id) else {
            log::warn!("ignoring a response with unknown id {id} (late, cancelled or never sent)");
            return;
        };
        let outcome = response.outcome.map_err(|error| Error::Rpc { method: pending.method, error: Box::new(error) });
        let _ = pending.reply.send(outcome);
    }

    fn handle_notification(&mut self, notification: Notification) {
        match notification.method.as_str() {
            methods::PROGRESS => {
                // Routed by its token; the request's future reads the rest.
                let token = notification.params.as_ref().and_then(|params| params.get("progressToken"));
                let route = token
                    .and_then(RequestId::from_value)
                    .and_then(|id| self.pending.get(&id))
                    .and_then(|pending| pending.progress.as_ref());
                match (route, token) {
                    (Some(route), _) => {
                        let _ = route.unbounded_send(notification);
                    }
                    (None, Some(token)) => log::debug!("progress for an unknown token {}", JsonText(token)),
                    (None, None) => log::warn!("ignoring a progress notification without a progressToken"),
                }
            }
            methods::CANCELLED if self.stateless => self.cancelled_by_server(notification),
            methods::CANCELLED => {
                let id = notification.params.as_ref().and_then(|p| p.get("requestId")).and_then(RequestId::from_value);
                match id.and_then(|id| self.handler_done(&id)) {
                    Some(abort) => abort.abort(),
                    None => log::debug!("cancellation for a request that is not running"),
                }
            }
            _ => {
                // An acknowledgement concerns its subscription alone. Anything
                // else reaches the listeners first: the first of them drops
                // cached results it makes stale, before a subscriber can react.
                if notification.method != SUBSCRIPTIONS_ACKNOWLEDGED {
                    for (_, listener) in &self.listeners {
                        listener(&notification);
                    }
                }
                self.route_to_subscriptions(&notification);
            }
        }
    }

    /// Hands a notification to the subscriptions that asked for it.
    fn route_to_subscriptions(&mut self, notification: &Notification) {
        // A subscription whose handle is gone needs nothing more.
        self.unwatch(None);
        if self.watches.is_empty() {
            return;
        }
        match subscription_id(notification) {
            Some(id) => match self.watches.iter().find(|(key, _)| *key == id).map(|(_, watch)| watch) {
                Some(watch) if watch.filter.is_none() => {
                    watch.sink.send(notification);
                }
                _ => log::debug!("{} for subscription {id}, which is not open", notification.method),
            },
            None => {
                for (_, watch) in &self.watches {
                    if watch.filter.as_ref().is_some_and(|filter| filter.wants(notification)) {
                        watch.sink.send(notification);
                    }
                }
            }
        }
    }

    /// Forgets a server request our handler no longer runs; its abort
    /// handle, if it was running.
    pub(super) fn handler_done(&mut self, id: &RequestId) -> Option<AbortHandle> {
        let place = self.handler_aborts.iter().position(|(running, _)| running == id)?;
        Some(self.handler_aborts.swap_remove(place).1)
    }

    /// 2026-07-28: a server sends `notifications/cancelled` only to end one
    /// of our requests (a `subscriptions/listen`); the id is ours.
    fn cancelled_by_server(&mut self, notification: Notification) {
        let params = notification.params.unwrap_or(Value::Null);
        let Some(id) = params.get("requestId").and_then(RequestId::from_value) else {
            return log::warn!("ignoring a cancellation without a valid requestId");
        };
        let Some(pending) = self.pending.remove(&id) else {
            return log::debug!("the server cancelled request {id}, which is not pending");
        };
        pending.end_exchange();
        let reason = params.get("reason").and_then(Value::as_str).unwrap_or("no reason given");
        let reason = Some(format!("the server ended it: {reason}"));
        let _ = pending.reply.send(Err(Error::Cancelled { method: pending.method, reason }));
    }

    fn handle_request(&mut self, request: Request) {
        let Request { id, method, params } = request;
        if self.stateless {
            // 2026-07-28: servers send no requests and clients send no responses.
            log::warn!("protocol violation: a stateless server sent a {method} request (id {id}); not answered");
            return;
        }
        if method == methods::PING {
            return self.reply(Message::result(id, crate::protocol::object! {}), Made::AtOnce);
        }
        let Some(handler) = self.handlers.get(&method).cloned() else {
            let error = ErrorObject::new(codes::METHOD_NOT_FOUND, format!("method not found: {method}"));
            return self.reply(Message::error(Some(id), error), Made::AtOnce);
        };
        if self.handler_aborts.iter().any(|(running, _)| *running == id) {
            let error = ErrorObject::new(
                codes::INVALID_REQUEST,
                format!("request id {id} is already in use by a request the client is handling"),
            );
            return self.reply(Message::error(Some(id), error), Made::AtOnce);
        }
        // A handler's answer waiting for a send still counts: it is kept
        // whatever comes, so this limit is what bounds those too.
        if self.handler_aborts.len() + self.replies.held_by_handlers() >= MAX_RUNNING_HANDLERS {
            let error = ErrorObject::new(
                codes::INTERNAL_ERROR,
                format!(
                    "the client is handling {MAX_RUNNING_HANDLERS} requests of this server already: {method} was not started"
                ),
            );
            return self.reply(Message::error(Some(id), error), Made::AtOnce);
        }
        let progress_token = params.as_ref().and_then(|p| p.get("_meta")).and_then(|m| m.get("progressToken")).cloned();
        // What the answer is checked as: sampling and elicitation answers
        // come from the app's handlers, and a wrong one is not sent.
        let asked = Asked::of(&method);
        let version = self.version;
        let context = RequestContext { id: id.clone(), method, progress_token };
        let (abort, registration) = AbortHandle::new_pair();
        let work = Abortable::new(handler.handle(params, context), registration);
        self.handler_aborts.push((id.clone(), abort));
        self.work.push(boxed(async move {
            Done::Handled(match work.await {
                Ok(Ok(result)) => match check_answer(asked, &result, version) {
                    Ok(()) => Some(Message::result(id, result)),
                    Err(error) => Some(Message::error(Some(id), error)),
                },
                Ok(Err(error)) => Some(Message::error(Some(id), error)),
                // Cancelled by the server: it expects no answer.
                Err(_aborted) => None,
            })
        }));
    }
}
