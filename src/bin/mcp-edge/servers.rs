//! Which server SERVER names: a URL, a command line, or @NAME from the
//! configuration files, with -H, -e and --cwd applied; and `mcp-edge
//! servers`, which lists the configured ones.

use std::path::PathBuf;

use serde_json::{Value, json};

use crate::commands::emit;
use crate::native::Failure;
use crate::{config, connect, output};

/// The configuration files to read: those given with --config, else the
/// usual places that exist.
fn config_entries(configs: &[PathBuf]) -> Result<(Vec<config::Entry>, Vec<PathBuf>), Failure> {
    let (files, explicit) = if configs.is_empty() {
        let cwd = std::env::current_dir().unwrap_or_else(|_| ".".into());
        (config::search_list(&cwd), false)
    } else {
        (configs.to_vec(), true)
    };
    let entries = config::load(&files, explicit).map_err(|e| Failure::Usage(e.to_string()))?;
    Ok((entries, files))
}

/// `mcp-edge servers`: each configured server, where it was found, and
/// whether an earlier file's server of the same name shadows it.
pub fn list(configs: &[PathBuf], json: bool) -> Result<(), Failure> {
    let (entries, searched) = config_entries(configs)?;
    let mut seen = std::collections::HashSet::new();
    let listed: Vec<(&config::Entry, bool)> =
        entries.iter().map(|entry| (entry, !seen.insert(entry.name.clone()))).collect();
    if json {
        let servers: Vec<Value> = listed
            .iter()
            .map(|(entry, shadowed)| {
                json!({
                    "name": entry.name,
                    "type": entry.kind(),
                    "target": entry.summary(),
                    "file": entry.file.display().to_string(),
                    "shadowed": shadowed,
                    "disabled": entry.disabled(),
                })
            })
            .collect();
        let searched: Vec<String> = searched.iter().map(|f| f.display().to_string()).collect();
        return emit(|out| output::json(out, &json!({ "servers": servers, "searched": searched })));
    }
    let rows = listed
        .iter()
        .map(|(entry, shadowed)| {
            let mut name = entry.name.clone();
            if *shadowed {
                name.push_str(" (shadowed)");
            } else if entry.disabled() {
                name.push_str(" (disabled)");
            }
            vec![name, entry.kind().to_owned(), entry.summary(), entry.file.display().to_string()]
        })
        .collect();
    emit(|out| {
        output::servers(out, rows)?;
        if entries.is_empty() {
            writeln!(out, "looked in:")?;
            for file in &searched {
                writeln!(out, "  {}", file.display())?;
            }
        }
        Ok(())
    })
}

/// The server SERVER names, with -H, -e and --cwd applied.
pub fn resolve(
    server: &str,
    headers: &[String],
    env: &[String],
    cwd: Option<PathBuf>,
    configs: &[PathBuf],
) -> Result<config::Target, Failure> {
    let mut target = match server.strip_prefix('@') {
        Some(name) => {
            let (entries, searched) = config_entries(configs)?;
            let entry = entries.iter().find(|e| e.name == name).ok_or_else(|| {
                let known: Vec<&str> = entries.iter().map(|e| e.name.as_str()).collect();
                let files = if configs.is_empty() {
                    "the usual places (`mcp-edge servers` lists them)".to_owned()
                } else {
                    searched.iter().map(|f| f.display().to_string()).collect::<Vec<_>>().join(", ")
                };
                if known.is_empty() {
                    Failure::Usage(format!("no server `{name}`: no servers are configured in {files}"))
                } else {
                    Failure::Usage(format!("no server `{name}` in {files}; known: {}", known.join(", ")))
                }
            })?;
            entry.target().map_err(|e| Failure::Usage(e.to_string()))?
        }
        None => connect::target_of(server)?,
    };
    let headers = headers.iter().map(String::as_str).map(parse_header).collect::<Result<Vec<_>, _>>()?;
    let env = env.iter().map(String::as_str).map(parse_env).collect::<Result<Vec<_>, _>>()?;
    match &mut target {
        config::Target::Http { headers: mine, .. } => {
            if !env.is_empty() || cwd.is_some() {
                return Err(Failure::Usage("-e/--env and --cwd apply to stdio servers, not URLs".into()));
            }
            for (name, value) in headers {
                mine.retain(|(n, _)| !n.eq_ignore_ascii_case(&name));
                mine.push((name, value));
            }
        }
        config::Target::Stdio { env: mine, cwd: dir, .. } => {
            if !headers.is_empty() {
                return Err(Failure::Usage("-H/--header applies to http(s) servers, not command lines".into()));
            }
            for (key, value) in env {
                mine.retain(|(k, _)| *k != key);
                mine.push((key, value));
            }
            if cwd.is_some() {
                *dir = cwd;
            }
        }
    }
    Ok(target)
}

/// `Name: value`, the value's variables expanded.
fn parse_header(text: &str) -> Result<(String, String), Failure> {
    let usage = |why: &str| Failure::Usage(format!("-H `{text}`: {why}"));
    let (name, value) = text.split_once(':').ok_or_else(|| usage("expected `Name: value`"))?;
    let name = name.trim();
    let token = |c: char| c.is_ascii_alphanumeric() || "!#$%&'*+-.^_`|~".contains(c);
    if name.is_empty() || !name.chars().all(token) {
        return Err(usage("the header name must be a token such as `X-API-Key`"));
    }
    let value = config::expand_env(value.trim()).map_err(|why| usage(&why))?;
    if value.chars().any(|c| c == '\r' || c == '\n' || c == '\0') {
        return Err(usage("the value must not hold line breaks"));
    }
    Ok((name.to_owned(), value))
}

/// `KEY=VALUE`, the value's variables expanded.
fn parse_env(text: &str) -> Result<(String, String), Failure> {
    let usage = |why: &str| Failure::Usage(format!("-e `{text}`: {why}"));
    let (key, value) = text.split_once('=').ok_or_else(|| usage("expected `KEY=VALUE`"))?;
    if key.is_empty() || key.contains('\0') {
        return Err(usage("the name is empty"));
    }
    let value = config::expand_env(value).map_err(|why| usage(&why))?;
    Ok((key.to_owned(), value))
}
