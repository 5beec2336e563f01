//! The verdict cache as plain data, so a runtime that outlives the process
//! can keep it: the CLI in its cache directory, a page in storage it
//! chooses, a worker through a snapshot. [`export`] takes what is still
//! trusted; [`import`] puts it back with the time each verdict was reached,
//! so the expiry rule of [`super::cache`] holds across processes as within
//! one (a handshake or legacy verdict for ten minutes from when it was
//! reached, a stateless or Streamable HTTP one until contradicted).

use std::collections::HashMap;

use serde::Serialize;

use super::detect::{self, Verdict};
use super::era::{self, EraVerdict};
use crate::protocol::ProtocolVersion;
use crate::protocol::fields::{Fields, deserialize_by_fields, object_in};

/// The shape [`export`] writes; [`import`] ignores any other.
pub const VERDICTS_VERSION: u32 = 1;

/// One verdict and when it was reached (milliseconds since the epoch).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Reached {
    /// `handshake` or a stateless revision (`2026-07-28`) for an era;
    /// `streamable-http` or `sse` for a transport.
    pub verdict: String,
    /// When it was reached.
    pub at: f64,
}

/// Every trusted verdict of this process. The maps are `HashMap`s, whose
/// JSON lists the keys in no set order: a `BTreeMap` kept them sorted for
/// some 9 KB of code per map type in the wasm (with the snapshot's tool
/// headers, 5.2 KB of gzip; docs/size.md).
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
pub struct Verdicts {
    /// [`VERDICTS_VERSION`].
    pub version: u32,
    /// Era verdicts by server (URL, or stdio launch line).
    pub era: HashMap<String, Reached>,
    /// Transport verdicts by URL.
    pub transport: HashMap<String, Reached>,
}

deserialize_by_fields!(Reached);

impl Reached {
    #[cfg(any(all(target_arch = "wasm32", feature = "js", feature = "persist"), test))]
    fn to_value(&self) -> serde_json::Value {
        crate::protocol::object! { "verdict": self.verdict.as_str(), "at": self.at }
    }

    fn from_fields(fields: &mut Fields) -> Result<Self, String> {
        let value = Reached { verdict: fields.required_string("verdict"), at: fields.required_number("at") };
        fields.done(value)
    }
}

deserialize_by_fields!(Verdicts);

impl Verdicts {
    /// As JSON, the same as its `Serialize` writes it (`protocol::build`):
    /// what `McpClient.exportVerdicts` returns.
    #[cfg(any(all(target_arch = "wasm32", feature = "js", feature = "persist"), test))]
    pub(crate) fn to_value(&self) -> serde_json::Value {
        let by_key = |verdicts: &HashMap<String, Reached>| {
            let mut object = serde_json::Map::new();
            for (key, reached) in verdicts {
                object.insert(key.clone(), reached.to_value());
            }
            serde_json::Value::Object(object)
        };
        crate::protocol::object! { "version": self.version, "era": by_key(&self.era), "transport": by_key(&self.transport) }
    }

    fn from_fields(fields: &mut Fields) -> Result<Self, String> {
        let reached = |found, key: &str| object_in(found, key, Reached::from_fields);
        let value = Verdicts {
            version: fields.version("version"),
            era: fields.map_of("era", reached),
            transport: fields.map_of("transport", reached),
        };
        fields.done(value)
    }
}

/// What this process knows now. Times are whole milliseconds: JSON keeps
/// them exactly (a fraction may come back one bit off).
pub fn export() -> Verdicts {
    // Loops, not collects into maps: each was an instance of its own.
    let mut era = HashMap::new();
    for (key, verdict, at) in era::trusted() {
        let verdict = match verdict {
            EraVerdict::Handshake => "handshake",
            EraVerdict::Stateless(version) => version.as_str(),
        };
        era.insert(key, Reached { verdict: verdict.to_owned(), at: at.floor() });
    }
    let mut transport = HashMap::new();
    for (key, verdict, at) in detect::trusted() {
        let verdict = match verdict {
            Verdict::StreamableHttp => "streamable-http",
            Verdict::Sse => "sse",
        };
        transport.insert(key, Reached { verdict: verdict.to_owned(), at: at.floor() });
    }
    Verdicts { version: VERDICTS_VERSION, era, transport }
}

/// Adds verdicts kept earlier (an entry this process already has is kept;
/// unreadable or expired entries are skipped).
pub fn import(verdicts: &Verdicts) {
    if verdicts.version != VERDICTS_VERSION {
        return;
    }
    for (key, Reached { verdict, at }) in &verdicts.era {
        let verdict = match verdict.as_str() {
            "handshake" => EraVerdict::Handshake,
            other => match other.parse::<ProtocolVersion>() {
                Ok(version) if version.era() == crate::protocol::Era::Stateless => EraVerdict::Stateless(version),
                _ => continue,
            },
        };
        if era::remembered_era(key).is_none() {
            era::remember_era_at(key, verdict, *at);
        }
    }
    for (url, Reached { verdict, at }) in &verdicts.transport {
        let verdict = match verdict.as_str() {
            "streamable-http" => Verdict::StreamableHttp,
            "sse" => Verdict::Sse,
            _ => continue,
        };
        if detect::remembered(url).is_none() {
            detect::remember_at(url, verdict, *at);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn verdicts_survive_a_round_trip_and_keep_their_age() {
        let long_ago = crate::runtime::now_millis() - super::super::VERDICT_MAX_AGE.as_secs_f64() * 1000.0 - 1000.0;
        let mut kept = Verdicts { version: VERDICTS_VERSION, ..Verdicts::default() };
        kept.era
            .insert("persist:new".into(), Reached { verdict: "handshake".into(), at: crate::runtime::now_millis() });
        kept.era.insert("persist:old".into(), Reached { verdict: "handshake".into(), at: long_ago });
        kept.era.insert("persist:stateless".into(), Reached { verdict: "2026-07-28".into(), at: long_ago });
        kept.era.insert("persist:odd".into(), Reached { verdict: "1999-01-01".into(), at: long_ago });
        kept.transport.insert("persist:sse".into(), Reached { verdict: "sse".into(), at: long_ago });
        import(&kept);
        assert_eq!(era::remembered_era("persist:new"), Some(EraVerdict::Handshake));
        assert_eq!(era::remembered_era("persist:old"), None, "an old handshake verdict expired");
        assert_eq!(era::remembered_era("persist:stateless"), Some(EraVerdict::Stateless(ProtocolVersion::V2026_07_28)));
        assert_eq!(era::remembered_era("persist:odd"), None);
        assert_eq!(detect::remembered("persist:sse"), None, "an old legacy verdict expired");
        let exported = export();
        assert_eq!(exported.era["persist:new"].verdict, "handshake");
        assert_eq!(exported.era["persist:stateless"].at, long_ago.floor());
        assert_eq!(exported.to_value(), serde_json::to_value(&exported).expect("serializes"));
        let json = serde_json::to_string(&exported).expect("serializes");
        assert_eq!(serde_json::from_str::<Verdicts>(&json).expect("reads"), exported);
    }
}
