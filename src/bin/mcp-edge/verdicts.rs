//! What servers were found to speak, kept between runs in
//! `$XDG_CACHE_HOME/mcp-edge/verdicts.json` (~/.cache/...), so the second
//! run against a handshake-only server pays no `server/discover` probe and a
//! legacy one no Streamable HTTP attempt. The library's expiry rules hold:
//! each verdict keeps the time it was reached.

use std::path::PathBuf;

use mcp_edge::{Verdicts, export_verdicts, import_verdicts};

fn file() -> Option<PathBuf> {
    let cache = std::env::var_os("XDG_CACHE_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").filter(|v| !v.is_empty()).map(|h| PathBuf::from(h).join(".cache")))?;
    Some(cache.join("mcp-edge/verdicts.json"))
}

/// Reads the kept verdicts into this process's cache (a missing or
/// unreadable file is no verdict: the server is probed).
pub fn load() {
    let Some(file) = file() else { return };
    let Ok(text) = std::fs::read_to_string(&file) else { return };
    match serde_json::from_str::<Verdicts>(&text) {
        Ok(verdicts) => import_verdicts(&verdicts),
        Err(error) => log::debug!("ignoring {}: {error}", file.display()),
    }
}

/// Writes this process's verdicts back (through a temporary file, so a
/// concurrent run never reads half a file). Failing to write costs a probe
/// next time, nothing more.
pub fn save() {
    let Some(file) = file() else { return };
    let Some(dir) = file.parent() else { return };
    let Ok(json) = serde_json::to_string_pretty(&export_verdicts()) else { return };
    let temporary = dir.join(format!(".verdicts.{}.json", std::process::id()));
    let written = std::fs::create_dir_all(dir)
        .and_then(|()| std::fs::write(&temporary, json))
        .and_then(|()| std::fs::rename(&temporary, &file));
    if let Err(error) = written {
        log::debug!("could not keep the verdicts in {}: {error}", file.display());
        let _ = std::fs::remove_file(&temporary);
    }
}
