//! Protocol revisions and the era each belongs to.

use std::fmt;
use std::str::FromStr;

/// A protocol revision this client can speak.
///
/// Ordered by date, so `v >= ProtocolVersion::V2025_06_18` asks "does this
/// revision have what 2025-06-18 introduced?".
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ProtocolVersion {
    /// The first published revision; HTTP+SSE transport, no batching rules.
    V2024_11_05,
    /// Streamable HTTP, OAuth 2.1, batching, audio, completions.
    V2025_03_26,
    /// Elicitation, structured tool output, resource links; no batching.
    V2025_06_18,
    /// Tasks, URL elicitation, sampling with tools, icons.
    V2025_11_25,
    /// The stateless revision: no handshake, no sessions, per-request
    /// `_meta`, multi round-trip requests.
    V2026_07_28,
}

/// How a session is set up: with the `initialize` handshake (2024-11-05 to
/// 2025-11-25), or statelessly with per-request metadata (2026-07-28 on).
///
/// The engine switches on this at run time, so a stateless engine can stand
/// beside the handshake one without every layer assuming either.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Era {
    /// `initialize`, `notifications/initialized`, sessions.
    Handshake,
    /// Revision 2026-07-28: no handshake, no sessions.
    Stateless,
}

impl ProtocolVersion {
    /// Every handshake revision spoken, oldest first (see
    /// [`ProtocolVersion::STATELESS`] for the others).
    pub const ALL: [ProtocolVersion; 4] = [
        ProtocolVersion::V2024_11_05,
        ProtocolVersion::V2025_03_26,
        ProtocolVersion::V2025_06_18,
        ProtocolVersion::V2025_11_25,
    ];

    /// The revision offered in `initialize`.
    pub const LATEST: ProtocolVersion = ProtocolVersion::V2025_11_25;

    /// Every stateless revision spoken (per-request metadata, no
    /// `initialize`), oldest first.
    pub const STATELESS: [ProtocolVersion; 1] = [ProtocolVersion::V2026_07_28];

    /// The newest stateless revision: the one a probe offers.
    pub const LATEST_STATELESS: ProtocolVersion = ProtocolVersion::V2026_07_28;

    /// The `YYYY-MM-DD` string on the wire.
    pub fn as_str(self) -> &'static str {
        match self {
            ProtocolVersion::V2024_11_05 => "2024-11-05",
            ProtocolVersion::V2025_03_26 => "2025-03-26",
            ProtocolVersion::V2025_06_18 => "2025-06-18",
            ProtocolVersion::V2025_11_25 => "2025-11-25",
            ProtocolVersion::V2026_07_28 => "2026-07-28",
        }
    }

    /// The era this revision belongs to.
    pub fn era(self) -> Era {
        match self {
            ProtocolVersion::V2026_07_28 => Era::Stateless,
            _ => Era::Handshake,
        }
    }

    /// Whether a peer may send JSON-RPC batches under this revision
    /// (only 2025-03-26 allowed them; we accept them always, but never send).
    pub fn allows_batches(self) -> bool {
        self == ProtocolVersion::V2025_03_26
    }
}

impl fmt::Display for ProtocolVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A version string this client does not speak.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "unsupported protocol version {} (this client speaks 2024-11-05, 2025-03-26, 2025-06-18, 2025-11-25 and 2026-07-28)",
    crate::debug::Quoted(.0)
)]
pub struct UnsupportedVersion(pub String);

impl FromStr for ProtocolVersion {
    type Err = UnsupportedVersion;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        // Plain loops over the two lists: the iterator chain was code of
        // its own in the wasm.
        for version in ProtocolVersion::ALL {
            if version.as_str() == s {
                return Ok(version);
            }
        }
        for version in ProtocolVersion::STATELESS {
            if version.as_str() == s {
                return Ok(version);
            }
        }
        Err(UnsupportedVersion(s.to_owned()))
    }
}

impl serde::Serialize for ProtocolVersion {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

/// The version strings of a `supported` list as a server sends it
/// (`supportedVersions` of `server/discover`, `data.supported` of a -32022
/// or of an `initialize` -32602), read leniently: anything but an array
/// reads as empty, and entries that are not strings are skipped. Every
/// such list is read here, and only here.
pub fn supported_versions(list: Option<&serde_json::Value>) -> Vec<String> {
    let mut versions = Vec::new();
    for entry in list.and_then(serde_json::Value::as_array).map_or(&[][..], Vec::as_slice) {
        if let Some(version) = entry.as_str() {
            versions.push(version.to_owned());
        }
    }
    versions
}

/// The newest stateless revision this client speaks in a list the server sent.
pub fn newest_stateless(supported: &[String]) -> Option<ProtocolVersion> {
    newest_spoken(supported, Era::Stateless, None)
}

/// Whether a list the server sent names a handshake revision this client speaks.
pub fn speaks_handshake(supported: &[String]) -> bool {
    newest_spoken(supported, Era::Handshake, None).is_some()
}

/// The newest revision of `era` this client speaks in a list the server
/// sent, older than `below` if given. One loop for every such question, not
/// an iterator chain per question (each its own code in the wasm).
pub(crate) fn newest_spoken(supported: &[String], era: Era, below: Option<ProtocolVersion>) -> Option<ProtocolVersion> {
    let mut newest: Option<ProtocolVersion> = None;
    for text in supported {
        if let Ok(version) = text.parse::<ProtocolVersion>()
            && version.era() == era
            && below.is_none_or(|below| version < below)
            && newest.is_none_or(|newest| version > newest)
        {
            newest = Some(version);
        }
    }
    newest
}
