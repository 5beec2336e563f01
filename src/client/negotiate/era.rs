//! Which era a server speaks: the `server/discover` probe, its
//! classification, and [`Client::start`], which begins the conversation
//! the way [`crate::ClientOptions::era`] asks. The verdict is kept in the
//! negotiation's verdict cache ([`super::cache`]: a handshake verdict is
//! trusted for ten minutes, a stateless one until the server contradicts
//! it).

use std::sync::Arc;

use serde_json::Value;

use super::cache::{self, VerdictCache};
use crate::client::stateless::no_mutual_version;
use crate::client::{Client, EraChoice, Error, Negotiated};
use crate::protocol::version::{newest_stateless, speaks_handshake, supported_versions};
use crate::protocol::{Era, ProtocolVersion};
use crate::transport::{TransportError, TransportKind};

/// The newest stateless revision an error to `initialize` names as
/// supported (`-32022` or `-32602` with `data.supported`), if any.
fn stateless_versions_in(error: &Error) -> Option<ProtocolVersion> {
    let data = match error {
        Error::Rpc { error, .. } | Error::UnsupportedProtocolVersion { error, .. } => error.data.as_ref()?,
        _ => return None,
    };
    newest_stateless(&supported_versions(data.get("supported")))
}

/// What the probe found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EraVerdict {
    /// A stateless server, at this revision.
    Stateless(ProtocolVersion),
    /// A handshake server.
    Handshake,
}

impl cache::Verdict for EraVerdict {
    /// The handshake is the older era: a server may have been upgraded.
    fn expires(&self) -> bool {
        *self == EraVerdict::Handshake
    }
}

/// Era verdicts by server (URL, or stdio command line).
static VERDICTS: VerdictCache<EraVerdict> = VerdictCache::new();

/// The verdict remembered for a server, if any and still trusted.
pub fn remembered_era(key: &str) -> Option<EraVerdict> {
    VERDICTS.get(key)
}

pub(crate) fn remember_era(key: &str, verdict: EraVerdict) {
    VERDICTS.put(key, verdict);
}

/// Remembers a verdict reached at `at` (milliseconds since the epoch), e.g.
/// one read back from a snapshot or a cache file: it expires as if it had
/// been reached here then.
pub(crate) fn remember_era_at(key: &str, verdict: EraVerdict, at: f64) {
    VERDICTS.put_at(key, verdict, at.min(crate::runtime::now_millis()));
}

/// Every era verdict still trusted, with when it was reached.
pub(crate) fn trusted() -> Vec<(String, EraVerdict, f64)> {
    VERDICTS.trusted()
}

/// Forgets what a server spoke, so the next connection probes again.
pub fn forget_era(key: &str) {
    VERDICTS.forget(key);
}

/// How the probe ended.
#[derive(Debug)]
pub(crate) enum Probed {
    /// Stateless, with its `server/discover` result.
    Stateless(ProtocolVersion, Value),
    /// A handshake server; `alive` is false when the probe ended the
    /// connection (a stdio server that exits on a request before
    /// `initialize`): the handshake needs a new one.
    Handshake { alive: bool },
}

/// What one probe answer says (digest §2.2 step 4, §2.3 step 3).
enum Step {
    Done(Probed),
    Retry(ProtocolVersion),
    Fail(Error),
}

fn classify(outcome: Result<Value, Error>, version: ProtocolVersion, corrected: bool) -> Step {
    match outcome {
        Ok(result) => {
            let supported = supported_versions(result.get("supportedVersions"));
            match newest_stateless(&supported) {
                Some(mutual) if mutual == version => Step::Done(Probed::Stateless(version, result)),
                Some(mutual) if !corrected => Step::Retry(mutual),
                Some(_) => Step::Done(Probed::Stateless(version, result)),
                // Not a DiscoverResult (it must name its versions).
                None if supported.is_empty() => Step::Done(Probed::Handshake { alive: true }),
                None if speaks_handshake(&supported) => Step::Done(Probed::Handshake { alive: true }),
                None => Step::Fail(no_mutual_version(&supported)),
            }
        }
        // A recognized stateless error proves a stateless server: never fall back.
        Err(Error::UnsupportedProtocolVersion { supported, .. }) => match newest_stateless(&supported) {
            Some(mutual) if !corrected => Step::Retry(mutual),
            Some(_) => Step::Fail(no_mutual_version(&supported)),
            None if speaks_handshake(&supported) => Step::Done(Probed::Handshake { alive: true }),
            None => Step::Fail(no_mutual_version(&supported)),
        },
        Err(error @ (Error::HeaderMismatch { .. } | Error::MissingClientCapability { .. })) => Step::Fail(error),
        // Any other JSON-RPC error, or silence: a handshake server.
        Err(Error::Rpc { .. } | Error::Timeout { .. } | Error::InvalidResult { .. }) => {
            Step::Done(Probed::Handshake { alive: true })
        }
        Err(Error::Transport(error)) => match error {
            // Authorization, server errors and the network say nothing about the era.
            TransportError::Http { status: 401 | 403 | 408 | 429, .. } => Step::Fail(Error::Transport(error)),
            TransportError::Http { status: 400..=499, .. } | TransportError::InvalidMessage(_) => {
                Step::Done(Probed::Handshake { alive: true })
            }
            TransportError::Closed(_) => Step::Done(Probed::Handshake { alive: false }),
            #[cfg(not(target_arch = "wasm32"))]
            TransportError::ProcessExited { .. } => Step::Done(Probed::Handshake { alive: false }),
            // In a browser a failed fetch is an opaque TypeError, typically a
            // CORS preflight that refused the new `Mcp-Method` header: a
            // handshake-era signal (digest §2.3 step 3d, as the TS SDK does),
            // since `initialize` carries only headers old allowlists cover. If
            // the server is simply unreachable, `initialize` fails the same way.
            TransportError::Io(_) if cfg!(target_arch = "wasm32") => Step::Done(Probed::Handshake { alive: true }),
            other => Step::Fail(Error::Transport(other)),
        },
        Err(other) => Step::Fail(other),
    }
}

impl Client {
    /// Sends `server/discover` at the newest stateless revision and
    /// classifies the answer (one corrective retry after -32022).
    pub(crate) async fn probe_era(&self) -> Result<Probed, Error> {
        // Silence means a handshake server: wait no longer than the probe's
        // own limit, within the connect deadline. (Time spent signing in
        // after a 401 is not counted, see `client::deadline`.)
        let options = &self.inner.options;
        let timeout = Some(options.probe_timeout.min(options.handshake_timeout.unwrap_or(options.request_timeout)));
        let mut version = ProtocolVersion::LATEST_STATELESS;
        let mut corrected = false;
        let mut discover = self.discover_options(timeout);
        loop {
            let outcome = self.send_discover(version, &mut discover).await;
            match classify(outcome, version, corrected) {
                // Only a process can die of a probe; an HTTP reply stream that
                // ended without an answer leaves the server reachable.
                Step::Done(Probed::Handshake { alive: false }) if self.transport_kind() != TransportKind::Stdio => {
                    return Ok(Probed::Handshake { alive: true });
                }
                Step::Done(probed) => return Ok(probed),
                Step::Retry(mutual) => {
                    corrected = true;
                    version = mutual;
                }
                Step::Fail(error) => return Err(error),
            }
        }
    }

    /// Starts the conversation the way [`crate::ClientOptions::era`] asks:
    /// the handshake, the stateless `server/discover`, or a probe that picks
    /// one. With `Auto`, a probe that ended the connection fails with
    /// [`Error::Transport`] ([`TransportError::Closed`]): whoever made the
    /// transport may make another and connect it with the handshake
    /// (`connect_stdio` does, natively).
    pub async fn start(&self) -> Result<Arc<Negotiated>, Error> {
        let options = &self.inner.options;
        let key = options.era_cache_key.clone();
        let forced = options.protocol_version.era() == Era::Stateless;
        let remembered = key.as_deref().and_then(remembered_era);
        let mut next = match options.era {
            _ if forced => Begin::Era(EraVerdict::Stateless(options.protocol_version), Then::Return),
            EraChoice::Stateless => Begin::Era(EraVerdict::Stateless(ProtocolVersion::LATEST_STATELESS), Then::Return),
            EraChoice::Handshake => Begin::Era(EraVerdict::Handshake, Then::Return),
            // The legacy HTTP+SSE transport is of the handshake era only.
            EraChoice::Auto if self.transport_kind() == TransportKind::LegacySse => {
                Begin::Era(EraVerdict::Handshake, Then::Return)
            }
            EraChoice::Auto => match remembered {
                Some(verdict) => Begin::Era(verdict, Then::ProbeIfContradicted),
                None => Begin::Probe,
            },
        };
        // One loop, so that each way of beginning is awaited in one place
        // (each `.await` is a state of this future of its own).
        loop {
            let (verdict, then) = match next {
                Begin::Era(verdict, then) => (verdict, then),
                Begin::Probe => match self.probe_era().await? {
                    Probed::Stateless(version, result) => {
                        if let Some(key) = &key {
                            remember_era(key, EraVerdict::Stateless(version));
                        }
                        return self.adopt_discovery(version, result);
                    }
                    Probed::Handshake { alive: false } => {
                        // The next connection goes straight to the handshake.
                        if let Some(key) = &key {
                            remember_era(key, EraVerdict::Handshake);
                        }
                        return Err(Error::Transport(TransportError::Closed(
                            "the server closed the connection when probed with server/discover; \
                             it speaks the handshake era and needs a new connection"
                                .into(),
                        )));
                    }
                    // Remembered once the handshake proves it (a probe that
                    // failed in a browser may have met an unreachable
                    // server, not a handshake-era one).
                    Probed::Handshake { alive: true } => (EraVerdict::Handshake, Then::Remember { fallback: true }),
                },
            };
            let started = match verdict {
                EraVerdict::Handshake => self.initialize().await,
                EraVerdict::Stateless(version) => self.begin_stateless(version).await,
            };
            match (then, started) {
                (Then::Return, started) => return started,
                (Then::ProbeIfContradicted | Then::Remember { .. }, Ok(negotiated)) => {
                    if let (Then::Remember { .. }, Some(key)) = (then, &key) {
                        let verdict = match negotiated.version.era() {
                            Era::Stateless => EraVerdict::Stateless(negotiated.version),
                            Era::Handshake => EraVerdict::Handshake,
                        };
                        remember_era(key, verdict);
                    }
                    return Ok(negotiated);
                }
                // The server answered, but not as the verdict says (it was
                // upgraded or downgraded, R2.10): probe it now. (`initialize`
                // closes the connection on a version it does not speak, so
                // that answer cannot be probed again here.)
                (
                    Then::ProbeIfContradicted,
                    Err(Error::Rpc { .. } | Error::UnsupportedProtocolVersion { .. } | Error::InvalidResult { .. }),
                ) => {
                    if let Some(key) = &key {
                        log::debug!("the remembered era of {key} no longer holds: probing again");
                        forget_era(key);
                    }
                    next = Begin::Probe;
                }
                (Then::ProbeIfContradicted, Err(error)) => {
                    if let Some(key) = &key {
                        forget_era(key);
                    }
                    return Err(error);
                }
                // A stateless server that was too slow for the probe names
                // its revisions in its answer to `initialize` (R2.10).
                (Then::Remember { fallback: true }, Err(error)) => match stateless_versions_in(&error) {
                    Some(version) => {
                        next = Begin::Era(EraVerdict::Stateless(version), Then::Remember { fallback: false })
                    }
                    None => return Err(error),
                },
                (Then::Remember { fallback: false }, Err(error)) => return Err(error),
            }
        }
    }
}

/// How [`Client::start`] begins next.
#[derive(Clone, Copy)]
enum Begin {
    /// In this era, then as `Then` says.
    Era(EraVerdict, Then),
    /// With the `server/discover` probe.
    Probe,
}

/// What the outcome of beginning in an era means.
#[derive(Clone, Copy)]
enum Then {
    /// It is the outcome of `start`.
    Return,
    /// The remembered verdict: a server that answers otherwise is probed.
    ProbeIfContradicted,
    /// The probe's verdict: kept once it is proven; `fallback`: a handshake
    /// refused by naming stateless revisions begins at the newest of them.
    Remember { fallback: bool },
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use serde_json::json;

    use super::*;
    use crate::protocol::ErrorObject;

    fn rpc(code: i64, data: Value) -> Error {
        let mut error = ErrorObject::new(code, "x");
        error.data = Some(data);
        Error::Rpc { method: "server/discover".into(), error: Box::new(error) }.typed()
    }

    #[test]
    fn probe_answers_are_classified() {
        let v = ProtocolVersion::V2026_07_28;
        let ok = json!({"supportedVersions": ["2026-07-28"], "capabilities": {}});
        assert!(matches!(classify(Ok(ok), v, false), Step::Done(Probed::Stateless(..))));
        let legacy_only = json!({"supportedVersions": ["2025-11-25"]});
        assert!(matches!(classify(Ok(legacy_only), v, false), Step::Done(Probed::Handshake { alive: true })));
        let retry = rpc(-32022, json!({"supported": ["2026-07-28"], "requested": "2026-07-28"}));
        assert!(matches!(classify(Err(retry), v, false), Step::Retry(_)));
        let again = rpc(-32022, json!({"supported": ["2026-07-28"]}));
        assert!(matches!(classify(Err(again), v, true), Step::Fail(_)));
        let old = rpc(-32022, json!({"supported": ["2025-06-18"]}));
        assert!(matches!(classify(Err(old), v, false), Step::Done(Probed::Handshake { .. })));
        for code in [-32601, -32602, -32600, -32000, -32001] {
            assert!(matches!(classify(Err(rpc(code, json!(null))), v, false), Step::Done(Probed::Handshake { .. })));
        }
        assert!(matches!(classify(Err(rpc(-32020, json!(null))), v, false), Step::Fail(Error::HeaderMismatch { .. })));
        let timeout = Error::Timeout { method: "server/discover".into(), after: Duration::from_secs(1) };
        assert!(matches!(classify(Err(timeout), v, false), Step::Done(Probed::Handshake { alive: true })));
        #[cfg(not(target_arch = "wasm32"))]
        {
            let exited = Error::Transport(TransportError::ProcessExited { status: "1".into(), stderr_tail: vec![] });
            assert!(matches!(classify(Err(exited), v, false), Step::Done(Probed::Handshake { alive: false })));
        }
        let unauthorized = Error::Transport(TransportError::Http { status: 401, message: String::new() });
        assert!(matches!(classify(Err(unauthorized), v, false), Step::Fail(_)));
        let not_found = Error::Transport(TransportError::Http { status: 404, message: String::new() });
        assert!(matches!(classify(Err(not_found), v, false), Step::Done(Probed::Handshake { alive: true })));
        let down = Error::Transport(TransportError::Http { status: 503, message: String::new() });
        assert!(matches!(classify(Err(down), v, false), Step::Fail(_)));
        for status in [408, 429] {
            let busy = Error::Transport(TransportError::Http { status, message: String::new() });
            assert!(matches!(classify(Err(busy), v, false), Step::Fail(_)), "{status} is transient, not an era");
        }
    }

    #[test]
    fn an_old_handshake_verdict_is_forgotten_and_a_stateless_one_kept() {
        let old = crate::runtime::now_millis() - cache::VERDICT_MAX_AGE.as_secs_f64() * 1000.0 - 1000.0;
        let stateless = EraVerdict::Stateless(ProtocolVersion::V2026_07_28);
        VERDICTS.put_at("test:old-handshake", EraVerdict::Handshake, old);
        VERDICTS.put_at("test:old-stateless", stateless, old);
        remember_era("test:new-handshake", EraVerdict::Handshake);
        assert_eq!(remembered_era("test:old-handshake"), None);
        assert_eq!(remembered_era("test:old-stateless"), Some(stateless));
        assert_eq!(remembered_era("test:new-handshake"), Some(EraVerdict::Handshake));
    }
}
