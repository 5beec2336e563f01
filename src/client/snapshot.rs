//! A connected client as plain data, and a client made from it again:
//! [`Client::snapshot`] and [`Client::restore`].
//!
//! What an edge worker needs: a fresh isolate that calls one tool should not
//! pay `initialize`, `notifications/initialized`, a GET stream and a DELETE
//! for it. The snapshot holds what the handshake (or `server/discover`)
//! settled, the session id and where the server stream stopped; a client
//! restored from it sends its first request straight away. A server that
//! forgot the session meanwhile answers 404 and the engine starts a new one
//! as it always does. Credentials are never in it: they stay in the auth
//! provider's token store.

use std::collections::HashMap;
use std::sync::Arc;

use serde::Serialize;
use serde_json::Value;

use super::negotiate::era::{EraVerdict, remember_era_at};
use super::{Client, Driver, Error, Negotiated};
use crate::debug::Quoted;
use crate::protocol::fields::{Fields, deserialize_by_fields, objects_in};
use crate::protocol::stateless::{CacheHint, DiscoverResult, ParamHeader};
use crate::protocol::types::InitializeResult;
use crate::protocol::{Era, ProtocolVersion};
use crate::transport::{Transport, TransportSession};

/// The shape of [`Snapshot`] this build writes; [`Client::restore`]
/// refuses any other.
pub const SNAPSHOT_VERSION: u32 = 1;

/// Which era a snapshot was taken in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum SnapshotEra {
    /// `initialize` and a session (2024-11-05 to 2025-11-25).
    Handshake,
    /// Revision 2026-07-28: no session, a `server/discover` result.
    Stateless,
}

crate::protocol::objects::read_by_name!(SnapshotEra {
    Handshake = "handshake",
    Stateless = "stateless",
});

/// A client's state as plain, serializable data (JSON in JS, where it is
/// the object `McpClient.snapshot()` returns). Versioned by
/// [`Snapshot::version`]; never holds a credential.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(into = "Wire")]
pub struct Snapshot {
    /// [`SNAPSHOT_VERSION`] when written.
    pub version: u32,
    /// The era of the session.
    pub era: SnapshotEra,
    /// The revision the two sides settled on.
    pub protocol_version: String,
    /// The transport's short name (`streamable-http`, ...).
    pub transport: String,
    /// The session id and the server stream's last event id.
    pub session: TransportSession,
    /// What the server said of itself: `initialize`'s answer, or the same
    /// shape made from `server/discover` (server info, capabilities,
    /// instructions).
    pub server: InitializeResult,
    /// The raw `server/discover` result (stateless era).
    pub discover: Option<Value>,
    /// When that result was received (milliseconds since the epoch): with
    /// its `ttlMs`, whether a restored client may trust it.
    pub discovered_at: Option<f64>,
    /// The key the era verdict is cached under (the URL), so that a
    /// restored client puts the verdict back in its process's cache.
    pub verdict_key: Option<String>,
    /// When the snapshot was taken (milliseconds since the epoch); the era
    /// verdict it carries is as old as this.
    pub taken_at: f64,
    /// Stateless era: the `x-mcp-header` annotations of the tools listed so
    /// far (tool name to the arguments mirrored into `Mcp-Param-*`
    /// headers), so that a restored client's first `tools/call` carries
    /// them without listing again. Empty tools are left out.
    pub tool_headers: HashMap<String, Vec<ParamHeader>>,
}

/// [`Snapshot`] as JSON: the transport's session members inline. A
/// `#[serde(flatten)]` field would do the same, but it reads through
/// serde's buffering of every member (its `Content` machinery, which
/// nothing else in the crate needs: 1.5 KB of the wasm's gzip). Read
/// straight into a [`Snapshot`] ([`Snapshot::from_fields`]).
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Wire {
    version: u32,
    era: SnapshotEra,
    protocol_version: String,
    transport: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    session_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    last_event_id: Option<String>,
    server: InitializeResult,
    #[serde(skip_serializing_if = "Option::is_none")]
    discover: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    discovered_at: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    verdict_key: Option<String>,
    taken_at: f64,
    #[serde(skip_serializing_if = "HashMap::is_empty")]
    tool_headers: HashMap<String, Vec<ParamHeader>>,
}

deserialize_by_fields!(Snapshot, "a snapshot (an object)");

impl Snapshot {
    /// The members [`Wire`] writes.
    fn from_fields(fields: &mut Fields) -> Result<Self, String> {
        // The one without an empty value, first: nothing read yet to drop.
        let Some(server) = fields.nested("server", InitializeResult::from_fields) else {
            return Err(fields.failure("server"));
        };
        let era = match fields.required_string("era").as_str() {
            "stateless" => SnapshotEra::Stateless,
            "handshake" => SnapshotEra::Handshake,
            other => {
                fields.fail(format!("`era` is {other}, not \"handshake\" or \"stateless\"", other = Quoted(other)));
                SnapshotEra::Handshake
            }
        };
        let tool_headers = |found, key: &str| objects_in(found, key, ParamHeader::from_fields);
        let value = Snapshot {
            version: fields.version("version"),
            era,
            protocol_version: fields.required_string("protocolVersion"),
            transport: fields.required_string("transport"),
            session: TransportSession {
                session_id: fields.string("sessionId"),
                last_event_id: fields.string("lastEventId"),
            },
            server,
            discover: fields.value("discover"),
            discovered_at: fields.number("discoveredAt"),
            verdict_key: fields.string("verdictKey"),
            taken_at: fields.required_number("takenAt"),
            tool_headers: fields.map_of("toolHeaders", tool_headers),
        };
        fields.done(value)
    }
}

impl From<Snapshot> for Wire {
    fn from(snapshot: Snapshot) -> Self {
        Wire {
            version: snapshot.version,
            era: snapshot.era,
            protocol_version: snapshot.protocol_version,
            transport: snapshot.transport,
            session_id: snapshot.session.session_id,
            last_event_id: snapshot.session.last_event_id,
            server: snapshot.server,
            discover: snapshot.discover,
            discovered_at: snapshot.discovered_at,
            verdict_key: snapshot.verdict_key,
            taken_at: snapshot.taken_at,
            tool_headers: snapshot.tool_headers,
        }
    }
}

impl Snapshot {
    /// As JSON, the same as its `Serialize` (through [`Wire`]) writes it
    /// (`protocol::build`): what `McpClient.snapshot` returns.
    #[cfg(any(all(target_arch = "wasm32", feature = "js", feature = "persist"), test))]
    pub(crate) fn to_value(&self) -> Value {
        let era = match self.era {
            SnapshotEra::Handshake => "handshake",
            SnapshotEra::Stateless => "stateless",
        };
        let tool_headers = (!self.tool_headers.is_empty()).then(|| {
            // Loops, not collects: each was an instance of its own.
            let mut by_tool = serde_json::Map::new();
            for (name, headers) in &self.tool_headers {
                let mut list = Vec::with_capacity(headers.len());
                for header in headers {
                    list.push(header.to_value());
                }
                by_tool.insert(name.clone(), Value::Array(list));
            }
            Value::Object(by_tool)
        });
        crate::protocol::build::Builder::new()
            .value("version", Some(Value::from(self.version)))
            .text("era", Some(era))
            .text("protocolVersion", Some(&self.protocol_version))
            .text("transport", Some(&self.transport))
            .text("sessionId", self.session.session_id.as_deref())
            .text("lastEventId", self.session.last_event_id.as_deref())
            .value("server", Some(self.server.to_value()))
            .value("discover", self.discover.clone())
            .value("discoveredAt", self.discovered_at.map(Value::from))
            .text("verdictKey", self.verdict_key.as_deref())
            .value("takenAt", Some(Value::from(self.taken_at)))
            .value("toolHeaders", tool_headers)
            .done()
    }

    /// Whether the `server/discover` result is still fresh at `now`
    /// (milliseconds since the epoch): within its `ttlMs` (absent means 0,
    /// R4.30). A restored client uses it either way (the era verdict lets
    /// it send at once, digest §2.3 step 1, and a stale result may be
    /// served until re-fetched, R4.33); an app that wants current
    /// capabilities calls [`Client::discover`] when this is false.
    pub fn discovery_fresh_at(&self, now: f64) -> bool {
        let (Some(result), Some(at)) = (&self.discover, self.discovered_at) else { return false };
        let ttl = CacheHint::of(result).map(|hint| hint.ttl).unwrap_or_default();
        now >= at && now - at < ttl.as_secs_f64() * 1000.0
    }

    fn negotiated_version(&self) -> Result<ProtocolVersion, Error> {
        let version: ProtocolVersion = self.protocol_version.parse().map_err(|_| {
            Error::InvalidArgument(format!(
                "the snapshot's protocol version {} is unknown",
                Quoted(&self.protocol_version)
            ))
        })?;
        let era = match version.era() {
            Era::Handshake => SnapshotEra::Handshake,
            Era::Stateless => SnapshotEra::Stateless,
        };
        if era != self.era {
            return Err(Error::InvalidArgument(format!(
                "the snapshot names era {:?} but revision {}",
                self.era, self.protocol_version
            )));
        }
        Ok(version)
    }
}

impl Client {
    /// The client's state as plain data, for [`Client::restore`] in another
    /// process, isolate or page load. `None` until the handshake (or
    /// `server/discover`) settled the session.
    ///
    /// Take it after the work whose state you want kept; keep the client
    /// unclosed if the session should live on (closing ends it on the
    /// server: HTTP DELETE). [`Client::detach`] stops this client without
    /// ending the session.
    pub fn snapshot(&self) -> Option<Snapshot> {
        let negotiated = self.negotiated()?;
        let session = self.inner.session_view.as_ref().map(|view| view.session()).unwrap_or_default();
        let (era, discover, discovered_at, tool_headers) = match negotiated.version.era() {
            Era::Handshake => (SnapshotEra::Handshake, None, None, HashMap::new()),
            Era::Stateless => {
                let state = self.stateless_state();
                let discover = state.discovery.as_ref().map(|d| d.result.clone());
                (SnapshotEra::Stateless, discover, state.discovered_at, state.tool_headers_to_keep())
            }
        };
        Some(Snapshot {
            version: SNAPSHOT_VERSION,
            era,
            protocol_version: negotiated.version.as_str().to_owned(),
            transport: self.transport_kind().as_str().to_owned(),
            session,
            server: negotiated.result.clone(),
            discover,
            discovered_at,
            verdict_key: self.inner.options.era_cache_key.clone(),
            taken_at: crate::runtime::now_millis(),
            tool_headers,
        })
    }

    /// A client and its driver that continue the session in `snapshot`
    /// over `transport` (a new transport to the same server), with no
    /// handshake and no `server/discover`: its first request goes straight
    /// out (see [`Snapshot::discovery_fresh_at`]). Poll the driver (spawn it), as with [`Client::new`];
    /// [`Client::restore_connect`] does both.
    ///
    /// The era verdict goes back into this process's cache (under the
    /// snapshot's key, with its age), so a later `connect_url` to the same
    /// server does not probe. The server stream (handshake era) is opened
    /// only once something needs it.
    pub fn restore<T: Transport>(
        mut transport: T,
        options: super::ClientOptions,
        snapshot: &Snapshot,
    ) -> Result<(Client, Driver), Error> {
        if snapshot.version != SNAPSHOT_VERSION {
            return Err(Error::InvalidArgument(format!(
                "snapshot version {} is not {SNAPSHOT_VERSION}, the one this build reads",
                snapshot.version
            )));
        }
        let version = snapshot.negotiated_version()?;
        if snapshot.transport != transport.kind().as_str() {
            return Err(Error::InvalidArgument(format!(
                "the snapshot is of a {} session, not {}",
                snapshot.transport,
                transport.kind()
            )));
        }
        let mut options = options;
        if options.era_cache_key.is_none() {
            options.era_cache_key = snapshot.verdict_key.clone();
        }
        if version.era() == Era::Handshake {
            transport.resume_session(snapshot.session.clone(), version);
        }
        let (client, driver) = Client::new(transport, options);
        let negotiated = Arc::new(Negotiated { version, result: snapshot.server.clone() });
        match version.era() {
            Era::Handshake => {
                client.command(super::driver::Command::Restored(version))?;
                if let Some(key) = &snapshot.verdict_key {
                    remember_era_at(key, EraVerdict::Handshake, snapshot.taken_at);
                }
            }
            Era::Stateless => {
                if let Some(result) = &snapshot.discover {
                    let mut state = client.stateless_state();
                    state.discovery = Some(DiscoverResult::of(result.clone()));
                    state.discovered_at = snapshot.discovered_at;
                }
                client.stateless_state().keep_tool_headers(&snapshot.tool_headers);
                client.command(super::driver::Command::Stateless)?;
                if let Some(key) = &snapshot.verdict_key {
                    remember_era_at(key, EraVerdict::Stateless(version), snapshot.taken_at);
                }
            }
        }
        {
            let mut state = client.state();
            state.negotiated = Some(negotiated);
            state.generation += 1;
        }
        Ok((client, driver))
    }

    /// [`Client::restore`], with the driver spawned on the host's runtime.
    pub async fn restore_connect<T: Transport>(
        transport: T,
        options: super::ClientOptions,
        snapshot: &Snapshot,
    ) -> Result<Client, Error> {
        Client::restore_spawned(transport, options, snapshot)
    }

    /// What [`Client::restore_connect`] does, which waits for nothing: for
    /// callers that need no future around it.
    pub(crate) fn restore_spawned<T: Transport>(
        transport: T,
        options: super::ClientOptions,
        snapshot: &Snapshot,
    ) -> Result<Client, Error> {
        let (client, driver) = Client::restore(transport, options, snapshot)?;
        crate::runtime::spawn(driver)?;
        Ok(client)
    }

    /// Stops this client without ending the session on the server (no
    /// DELETE): for a worker that keeps a [`Client::snapshot`] and lets a
    /// later invocation continue. Pending requests fail.
    pub async fn detach(&self) {
        let _ = self.detaching().await;
    }

    /// Asks the session to stop ([`Client::detach`]), as
    /// [`Client::closing`] asks it to end.
    pub(crate) fn detaching(&self) -> crate::runtime::channel::oneshot::Receiver<()> {
        let (done, closed) = crate::runtime::channel::oneshot::channel();
        let _ = self.command(super::driver::Command::Detach { done });
        closed
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A value that is not a snapshot is refused in the user's words, not
    /// by the name of the private type it is read through.
    #[test]
    fn a_snapshot_is_written_as_serialize_writes_it() {
        let server: InitializeResult = crate::protocol::fields::from_value(
            serde_json::json!({
                "protocolVersion": "2025-11-25",
                "capabilities": { "tools": { "listChanged": true } },
                "serverInfo": { "name": "s", "version": "1" },
                "instructions": "be kind",
            }),
            "an object",
        )
        .expect("reads");
        let mut snapshot = Snapshot {
            version: SNAPSHOT_VERSION,
            era: SnapshotEra::Handshake,
            protocol_version: "2025-11-25".into(),
            transport: "streamable-http".into(),
            session: TransportSession { session_id: Some("abc".into()), last_event_id: None },
            server,
            discover: None,
            discovered_at: None,
            verdict_key: None,
            taken_at: 1.5,
            tool_headers: HashMap::new(),
        };
        let serialized = |snapshot: &Snapshot| serde_json::to_value(snapshot).expect("serializes");
        assert_eq!(snapshot.to_value(), serialized(&snapshot));
        snapshot.era = SnapshotEra::Stateless;
        snapshot.session = TransportSession::default();
        snapshot.server.instructions = None;
        snapshot.discover = Some(serde_json::json!({ "ttlMs": 5 }));
        snapshot.discovered_at = Some(2.0);
        snapshot.verdict_key = Some("key".into());
        let header = ParamHeader { path: vec!["region".into()], name: "Region".into() };
        snapshot.tool_headers.insert("get".into(), vec![header]);
        assert_eq!(snapshot.to_value(), serialized(&snapshot));
    }

    #[test]
    fn a_value_that_is_not_a_snapshot_is_refused_as_such() {
        for text in ["null", "\"x\"", "[]", "3"] {
            let error = crate::protocol::objects::from_str::<Snapshot>(text).unwrap_err().to_string();
            assert!(error.contains("expected a snapshot (an object)"), "{text}: {error}");
            assert!(!error.contains("Wire"), "{text}: {error}");
        }
    }
}
