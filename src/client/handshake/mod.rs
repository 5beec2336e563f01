//! The engine of the handshake era (2024-11-05 to 2025-11-25): the
//! `initialize` handshake and its version negotiation, the session a
//! server may forget (restarted once, its resource subscriptions made
//! again), and `resources/subscribe` shared by several subscriptions.
//!
//! [`Client::request`] hands a request here once the handshake settled a
//! handshake-era version.

use std::sync::Arc;
use std::sync::atomic::Ordering;

use crate::runtime::channel::oneshot;
use serde_json::Value;

use super::driver::Command;
use super::{Client, Error, Negotiated, RequestOptions, SessionEvent};
use crate::protocol::types::InitializeResult;
use crate::protocol::version::{newest_spoken, supported_versions};
use crate::protocol::{Era, ProtocolVersion, RawResult, codes, methods, object};

/// The longest `initialize` waits for the server's stream to open.
const SERVER_STREAM_WAIT: std::time::Duration = std::time::Duration::from_secs(10);

impl Client {
    /// Runs the `initialize` handshake: offers the configured version,
    /// accepts any version this client speaks, sends
    /// `notifications/initialized`.
    ///
    /// If the server refuses the offered version with -32602 and lists
    /// versions it supports, the newest one both sides speak is offered once
    /// more. An answer with a version this client does not speak closes the
    /// connection (the spec's "disconnect").
    pub async fn initialize(&self) -> Result<Arc<Negotiated>, Error> {
        let offered = match self.inner.options.protocol_version {
            // A stateless revision has no handshake: offer the newest one that has.
            version if version.era() == Era::Stateless => ProtocolVersion::LATEST,
            version => version,
        };
        // One `.await` of the send: a refused offer is retried once, with
        // an older version the server names (always older, so never again).
        let mut version = offered;
        let result = loop {
            let options = &self.inner.options;
            let params = object! {
                "protocolVersion": version.as_str(),
                "capabilities": options.capabilities(),
                "clientInfo": options.client_info.to_value(),
            };
            let mut request = RequestOptions { timeout: options.handshake_timeout, ..RequestOptions::default() };
            let sent = self.send_request(methods::INITIALIZE, Some(params), &mut request).await;
            match sent.and_then(|result| super::request::to_value(methods::INITIALIZE, &result)) {
                Err(Error::Rpc { error, .. }) if error.code == codes::INVALID_PARAMS && version == offered => {
                    // `offered` is a handshake revision, and so is every
                    // revision older than it.
                    let supported = supported_versions(error.data.as_ref().and_then(|d| d.get("supported")));
                    let fallback = newest_spoken(&supported, Era::Handshake, Some(offered));
                    match fallback {
                        Some(older) => version = older,
                        None => return Err(Error::Rpc { method: methods::INITIALIZE.into(), error }),
                    }
                }
                other => break other?,
            }
        };
        // `capabilities` is required (the schema's InitializeResult): a server
        // that leaves it out is broken, not one that offers nothing.
        if !result.get("capabilities").is_some_and(Value::is_object) {
            return Err(Error::InvalidResult {
                method: methods::INITIALIZE.into(),
                reason: "the result has no `capabilities` object, which the protocol requires".into(),
            });
        }
        let result: InitializeResult = crate::protocol::fields::from_value(result, "an object")
            .map_err(|reason| Error::InvalidResult { method: methods::INITIALIZE.into(), reason })?;
        let version = match result.protocol_version.parse::<ProtocolVersion>() {
            Ok(version) if version.era() == Era::Handshake => version,
            _ => {
                let _ = self.closing().await;
                return Err(Error::UnsupportedVersion {
                    offered: offered.to_string(),
                    answered: result.protocol_version,
                });
            }
        };
        self.command(Command::Negotiated(version))?;
        self.notify(methods::INITIALIZED, None).await?;
        let (ready, opened) = oneshot::channel();
        self.command(Command::Initialized { ready })?;
        // A server may send a request (roots, sampling) on its stream right
        // after the handshake: wait, boundedly, until that stream is open.
        let limit = self.inner.options.request_timeout.min(SERVER_STREAM_WAIT);
        let _ = futures::future::select(opened, Box::pin(crate::runtime::sleep(limit))).await;
        let negotiated = Arc::new(Negotiated { version, result });
        let mut state = self.state();
        state.negotiated = Some(negotiated.clone());
        state.generation += 1;
        Ok(negotiated)
    }

    /// A handshake-era request's first step: several subscriptions
    /// (`listen`, `subscribe_resource`) may share a resource, and the server
    /// hears of the first and of the last only. `Some` answer when this
    /// request need not go out; else the resource it names, if any, for
    /// [`Client::count_subscription`] once it is answered.
    pub(crate) fn shared_subscription(
        &self,
        method: &str,
        params: Option<&Value>,
    ) -> Result<RawResult, Option<String>> {
        let uri = params.and_then(|p| p.get("uri")).and_then(Value::as_str).map(str::to_owned);
        if let Some(uri) = &uri {
            let mut subscribed = self.subscribed();
            let count = subscribed.iter_mut().find(|(subscribed, _)| subscribed == uri).map(|(_, count)| count);
            match (method, count) {
                (methods::RESOURCES_SUBSCRIBE, Some(count)) => {
                    *count += 1;
                    return Ok(RawResult::from(object! {}));
                }
                (methods::RESOURCES_UNSUBSCRIBE, Some(count)) if *count > 1 => {
                    *count -= 1;
                    return Ok(RawResult::from(object! {}));
                }
                (methods::RESOURCES_UNSUBSCRIBE, _) => {
                    subscribed.retain(|(subscribed, _)| subscribed != uri);
                }
                _ => {}
            }
        }
        Err(uri)
    }

    /// Counts a resource subscription the server accepted: what a new
    /// session must subscribe to again.
    pub(crate) fn count_subscription(&self, uri: String) {
        let mut subscribed = self.subscribed();
        match subscribed.iter_mut().find(|(subscribed, _)| *subscribed == uri) {
            Some((_, count)) => *count += 1,
            None => subscribed.push((uri, 1)),
        }
    }

    pub(crate) fn subscribed(&self) -> std::sync::MutexGuard<'_, Vec<(String, usize)>> {
        // A plain set: a poisoned lock is still usable.
        self.inner.subscribed.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Starts a new session after the server forgot ours. Concurrent callers
    /// that saw the same generation expire share one restart.
    pub(crate) async fn restart_session(&self, expired_generation: u64) -> Result<(), Error> {
        let _one_at_a_time = self.inner.restart_lock.clone().acquire().await;
        if self.state().generation != expired_generation {
            return Ok(());
        }
        self.state().negotiated = None;
        self.initialize().await?;
        // The server forgot the session's resource subscriptions with it.
        let mut uris = Vec::new();
        for (uri, _) in self.subscribed().iter() {
            uris.push(uri.clone());
        }
        for uri in uris {
            let params = Some(object! { "uri": uri.as_str() });
            let mut options = RequestOptions::default();
            if let Err(error) = self.send_request(methods::RESOURCES_SUBSCRIBE, params, &mut options).await {
                log::warn!("subscribing to {uri} again in the new session: {error}");
            }
        }
        self.inner.restarts.fetch_add(1, Ordering::Relaxed);
        for listener in &self.inner.options.event_listeners {
            listener(&SessionEvent::SessionRestarted);
        }
        Ok(())
    }
}
