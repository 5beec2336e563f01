//! `server/discover`: what a stateless server says about itself.

use serde_json::Value;

use super::cache::CacheHint;
use super::meta;
use crate::protocol::ProtocolVersion;
use crate::protocol::types::InitializeResult;
use crate::protocol::version::supported_versions;

/// What `server/discover` said.
#[derive(Debug, Clone, PartialEq)]
pub struct DiscoverResult {
    /// The revisions the server speaks.
    pub supported_versions: Vec<String>,
    /// The raw result.
    pub result: Value,
    /// Its caching hints.
    pub cache: Option<CacheHint>,
}

impl DiscoverResult {
    /// Reads a result leniently; the raw result is kept.
    pub fn of(result: Value) -> Self {
        DiscoverResult {
            supported_versions: supported_versions(result.get("supportedVersions")),
            cache: CacheHint::of(&result),
            result,
        }
    }

    /// The result in the shape of the handshake's `initialize` result, at
    /// `version`: capabilities, server info (from `_meta`, else a top-level
    /// `serverInfo`) and instructions.
    pub fn initialize_result(&self, version: ProtocolVersion) -> Result<InitializeResult, String> {
        let result = &self.result;
        let mut initialize = crate::protocol::object! {
            "protocolVersion": version.as_str(),
            "capabilities": result.get("capabilities").cloned().unwrap_or_else(|| crate::protocol::object! {}),
        };
        let server_info =
            result.get("_meta").and_then(|m| m.get(meta::SERVER_INFO)).or_else(|| result.get("serverInfo")).cloned();
        if let Some(info) = server_info {
            initialize["serverInfo"] = info;
        }
        if let Some(instructions) = result.get("instructions").cloned() {
            initialize["instructions"] = instructions;
        }
        crate::protocol::fields::from_value(initialize, "an object")
    }
}
