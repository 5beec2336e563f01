//! The `mcpServers` files other MCP hosts keep, so a server can be named
//! (`mcp-edge @github tools`) instead of spelled out.
//!
//! Formats read: `{"mcpServers": {NAME: ENTRY}}` (Claude Desktop, Claude
//! Code's `.mcp.json` and `~/.claude.json`, Cursor) and VS Code's
//! `{"servers": {NAME: ENTRY}, "inputs": [...]}`. An ENTRY has `command`,
//! `args`, `env`, `cwd` (stdio) or `url`, `type`, `headers` (HTTP); other
//! fields are ignored. Files may hold `//` and `/* */` comments and trailing
//! commas (VS Code writes them). Strings may use `${env:NAME}`, `${NAME}`,
//! `${NAME:-default}`, `${userHome}`, `${workspaceFolder}` and VS Code's
//! `${input:ID}` (asked on the terminal, or taken from `MCP_EDGE_INPUT_<ID>`).

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};

use serde_json::Value;

/// Where a server is reached.
#[derive(Debug, Clone, PartialEq)]
pub enum Target {
    /// A process speaking MCP on stdin/stdout.
    Stdio { command: String, args: Vec<String>, env: Vec<(String, String)>, cwd: Option<PathBuf> },
    /// An http(s) URL; `transport` is `sse` when the file says so.
    Http { url: String, headers: Vec<(String, String)>, sse: bool },
}

/// One named server and the file it came from.
#[derive(Debug, Clone)]
pub struct Entry {
    pub name: String,
    pub file: PathBuf,
    /// The raw entry, variables unexpanded (expanded when it is used).
    raw: Value,
    /// The folder `${workspaceFolder}` stands for.
    workspace: PathBuf,
    /// VS Code `inputs` of that file, by id.
    inputs: BTreeMap<String, Value>,
}

/// A file that could not be used, named with the line where it went wrong.
#[derive(Debug)]
pub struct ConfigError(pub String);

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// The files looked at when no `--config` is given, in order (an earlier
/// file's server shadows a later one of the same name): the project's
/// (`.mcp.json`, `.cursor/mcp.json`, `.vscode/mcp.json` in the current
/// directory), then the user's (mcp-edge's own, Cursor, Claude Desktop,
/// Claude Code, VS Code).
pub fn search_list(cwd: &Path) -> Vec<PathBuf> {
    let mut files = vec![cwd.join(".mcp.json"), cwd.join(".cursor/mcp.json"), cwd.join(".vscode/mcp.json")];
    let home = home_dir();
    let config = std::env::var_os("XDG_CONFIG_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| home.as_ref().map(|h| h.join(".config")));
    if let Some(config) = &config {
        files.push(config.join("mcp-edge/mcp.json"));
    }
    if let Some(home) = &home {
        files.push(home.join(".cursor/mcp.json"));
    }
    if cfg!(target_os = "macos") {
        if let Some(home) = &home {
            files.push(home.join("Library/Application Support/Claude/claude_desktop_config.json"));
            files.push(home.join("Library/Application Support/Code/User/mcp.json"));
        }
    } else if cfg!(windows) {
        if let Some(appdata) = std::env::var_os("APPDATA").map(PathBuf::from) {
            files.push(appdata.join("Claude/claude_desktop_config.json"));
            files.push(appdata.join("Code/User/mcp.json"));
        }
    } else if let Some(config) = &config {
        files.push(config.join("Claude/claude_desktop_config.json"));
        files.push(config.join("Code/User/mcp.json"));
    }
    if let Some(home) = &home {
        files.push(home.join(".claude.json"));
    }
    files
}

fn home_dir() -> Option<PathBuf> {
    let var = if cfg!(windows) { "USERPROFILE" } else { "HOME" };
    std::env::var_os(var).filter(|v| !v.is_empty()).map(PathBuf::from)
}

/// Reads every file of `files` that exists (all of them must, when they were
/// named with `--config`), in order.
pub fn load(files: &[PathBuf], explicit: bool) -> Result<Vec<Entry>, ConfigError> {
    let mut entries = Vec::new();
    for file in files {
        let text = match std::fs::read_to_string(file) {
            Ok(text) => text,
            Err(error) if !explicit && error.kind() == std::io::ErrorKind::NotFound => continue,
            Err(error) => return Err(ConfigError(format!("cannot read {}: {error}", file.display()))),
        };
        entries.extend(parse(file, &text)?);
    }
    Ok(entries)
}

/// The servers of one file.
pub fn parse(file: &Path, text: &str) -> Result<Vec<Entry>, ConfigError> {
    let cleaned = strip_jsonc(text);
    let document: Value = serde_json::from_str(&cleaned).map_err(|error| {
        ConfigError(format!(
            "{}:{}:{}: not a valid JSON file: {}",
            file.display(),
            error.line(),
            error.column(),
            strip_position(&error.to_string())
        ))
    })?;
    let Some(object) = document.as_object() else {
        return Err(ConfigError(format!("{}: expected a JSON object at the top", file.display())));
    };
    // `.vscode/mcp.json` stands for the folder holding `.vscode`.
    let parent = file.parent().unwrap_or(Path::new("."));
    let workspace = match parent.file_name().and_then(|n| n.to_str()) {
        Some(".vscode") | Some(".cursor") => parent.parent().unwrap_or(parent),
        _ => parent,
    }
    .to_path_buf();
    let inputs: BTreeMap<String, Value> = object
        .get("inputs")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|input| Some((input.get("id")?.as_str()?.to_owned(), input.clone())))
        .collect();
    // Claude Code's ~/.claude.json also keeps servers per project folder,
    // which come before its user-wide ones.
    let project = std::env::current_dir()
        .ok()
        .and_then(|cwd| object.get("projects")?.get(cwd.to_str()?)?.get("mcpServers").cloned());
    let mut entries = Vec::new();
    for key in ["projects", "mcpServers", "servers"] {
        let servers = match (key, object.get(key)) {
            ("projects", _) => match &project {
                Some(servers) => servers,
                None => continue,
            },
            (_, Some(servers)) => servers,
            (_, None) => continue,
        };
        let Some(servers) = servers.as_object() else {
            return Err(ConfigError(format!(
                "{}:{}: `{key}` must be an object of servers by name",
                file.display(),
                line_of(text, &format!("\"{key}\""))
            )));
        };
        for (name, raw) in servers {
            if !raw.is_object() {
                return Err(ConfigError(format!(
                    "{}:{}: server `{name}` must be an object",
                    file.display(),
                    line_of(text, &format!("\"{name}\""))
                )));
            }
            entries.push(Entry {
                name: name.clone(),
                file: file.to_path_buf(),
                raw: raw.clone(),
                workspace: workspace.clone(),
                inputs: inputs.clone(),
            });
        }
    }
    Ok(entries)
}

/// serde_json's message without its own " at line L column C" tail.
fn strip_position(message: &str) -> &str {
    message.find(" at line ").map_or(message, |at| &message[..at])
}

/// The 1-based line of the first occurrence of `needle` (1 if absent).
fn line_of(text: &str, needle: &str) -> usize {
    text.find(needle).map_or(1, |at| text[..at].matches('\n').count() + 1)
}

/// JSON with comments and trailing commas made plain JSON, every line kept
/// where it was (comments become spaces) so error positions stay true.
fn strip_jsonc(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    let mut in_string = false;
    while i < bytes.len() {
        let b = bytes[i];
        if in_string {
            out.push(b);
            if b == b'\\' && i + 1 < bytes.len() {
                out.push(bytes[i + 1]);
                i += 2;
                continue;
            }
            if b == b'"' {
                in_string = false;
            }
            i += 1;
            continue;
        }
        match (b, bytes.get(i + 1)) {
            (b'"', _) => {
                in_string = true;
                out.push(b);
                i += 1;
            }
            (b'/', Some(b'/')) => {
                while i < bytes.len() && bytes[i] != b'\n' {
                    out.push(b' ');
                    i += 1;
                }
            }
            (b'/', Some(b'*')) => {
                out.extend_from_slice(b"  ");
                i += 2;
                while i < bytes.len() && !(bytes[i] == b'*' && bytes.get(i + 1) == Some(&b'/')) {
                    out.push(if bytes[i] == b'\n' { b'\n' } else { b' ' });
                    i += 1;
                }
                if i < bytes.len() {
                    out.extend_from_slice(b"  ");
                    i += 2;
                }
            }
            (b',', _) => {
                // A comma followed (past blanks and comments) by a closing bracket goes.
                let mut j = i + 1;
                loop {
                    while j < bytes.len() && bytes[j].is_ascii_whitespace() {
                        j += 1;
                    }
                    if bytes.get(j) == Some(&b'/') && bytes.get(j + 1) == Some(&b'/') {
                        while j < bytes.len() && bytes[j] != b'\n' {
                            j += 1;
                        }
                    } else if bytes.get(j) == Some(&b'/') && bytes.get(j + 1) == Some(&b'*') {
                        j += 2;
                        while j < bytes.len() && !(bytes[j] == b'*' && bytes.get(j + 1) == Some(&b'/')) {
                            j += 1;
                        }
                        j += 2;
                    } else {
                        break;
                    }
                }
                out.push(if matches!(bytes.get(j), Some(b'}') | Some(b']')) { b' ' } else { b',' });
                i += 1;
            }
            _ => {
                out.push(b);
                i += 1;
            }
        }
    }
    // Only ASCII was replaced, by ASCII: still UTF-8.
    String::from_utf8(out).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

impl Entry {
    /// `stdio` or `http` (or `sse`), for the listing.
    pub fn kind(&self) -> &'static str {
        match self.raw.get("type").and_then(Value::as_str) {
            Some("sse") => "sse",
            Some("http" | "streamable-http" | "streamableHttp" | "streamable_http") => "http",
            _ if self.raw.get("url").or_else(|| self.raw.get("serverUrl")).is_some() => "http",
            _ => "stdio",
        }
    }

    /// What the entry runs or reaches, unexpanded, for the listing.
    pub fn summary(&self) -> String {
        let field = |name: &str| self.raw.get(name).and_then(Value::as_str).unwrap_or_default().to_owned();
        if self.kind() == "stdio" {
            let args = self.raw.get("args").and_then(Value::as_array).into_iter().flatten();
            let mut words = vec![field("command")];
            words.extend(args.map(|a| a.as_str().map_or_else(|| a.to_string(), str::to_owned)));
            shlex::try_join(words.iter().map(String::as_str)).unwrap_or_else(|_| words.join(" "))
        } else {
            let url = field("url");
            if url.is_empty() { field("serverUrl") } else { url }
        }
    }

    /// Whether the file marks it disabled (Claude Code, Cline).
    pub fn disabled(&self) -> bool {
        self.raw.get("disabled").and_then(Value::as_bool) == Some(true)
    }

    /// The entry with its variables expanded.
    pub fn target(&self) -> Result<Target, ConfigError> {
        let err = |what: String| ConfigError(format!("{}: server `{}`: {what}", self.file.display(), self.name));
        let string = |field: &str| -> Result<Option<String>, ConfigError> {
            match self.raw.get(field) {
                None | Some(Value::Null) => Ok(None),
                Some(Value::String(text)) => self.expand(text).map(Some).map_err(&err),
                Some(_) => Err(err(format!("`{field}` must be a string"))),
            }
        };
        let map = |field: &str| -> Result<Vec<(String, String)>, ConfigError> {
            match self.raw.get(field) {
                None | Some(Value::Null) => Ok(Vec::new()),
                Some(Value::Object(object)) => object
                    .iter()
                    .map(|(key, value)| {
                        let text = match value {
                            Value::String(text) => self.expand(text).map_err(&err)?,
                            Value::Number(_) | Value::Bool(_) => value.to_string(),
                            _ => return Err(err(format!("`{field}.{key}` must be a string"))),
                        };
                        Ok((key.clone(), text))
                    })
                    .collect(),
                Some(_) => Err(err(format!("`{field}` must be an object"))),
            }
        };
        if self.kind() != "stdio" {
            let url = match string("url")? {
                Some(url) => url,
                None => string("serverUrl")?.ok_or_else(|| err("an http server needs a `url`".into()))?,
            };
            return Ok(Target::Http { url, headers: map("headers")?, sse: self.kind() == "sse" });
        }
        let command = string("command")?.ok_or_else(|| err("needs a `command` (stdio) or a `url` (http)".into()))?;
        let args = match self.raw.get("args") {
            None | Some(Value::Null) => Vec::new(),
            Some(Value::Array(args)) => args
                .iter()
                .map(|arg| match arg {
                    Value::String(text) => self.expand(text).map_err(&err),
                    Value::Number(_) | Value::Bool(_) => Ok(arg.to_string()),
                    _ => Err(err("`args` must be strings".into())),
                })
                .collect::<Result<_, _>>()?,
            Some(_) => Err(err("`args` must be an array of strings".into()))?,
        };
        let cwd = string("cwd")?.map(|dir| {
            let dir = PathBuf::from(dir);
            if dir.is_relative() { self.workspace.join(dir) } else { dir }
        });
        Ok(Target::Stdio { command, args, env: map("env")?, cwd })
    }

    /// Expands the variables of one string of this entry.
    fn expand(&self, text: &str) -> Result<String, String> {
        expand(text, &|name: &str| -> Result<Option<String>, String> {
            match name {
                "userHome" => Ok(home_dir().map(|h| h.to_string_lossy().into_owned())),
                "workspaceFolder" => Ok(Some(self.workspace.to_string_lossy().into_owned())),
                "pathSeparator" | "/" => Ok(Some(std::path::MAIN_SEPARATOR.to_string())),
                _ => match name.split_once(':') {
                    Some(("env", var)) => Ok(std::env::var(var).ok()),
                    Some(("input", id)) => self.input(id).map(Some),
                    Some((scheme, _)) => Err(format!("`${{{name}}}`: `{scheme}:` variables are not supported")),
                    None => Ok(std::env::var(name).ok()),
                },
            }
        })
    }

    /// A VS Code `${input:ID}`: `MCP_EDGE_INPUT_<ID>` if set, else asked on
    /// the terminal.
    fn input(&self, id: &str) -> Result<String, String> {
        let var = format!(
            "MCP_EDGE_INPUT_{}",
            id.chars()
                .map(|c| if c.is_ascii_alphanumeric() { c.to_ascii_uppercase() } else { '_' })
                .collect::<String>()
        );
        if let Ok(value) = std::env::var(&var) {
            return Ok(value);
        }
        use std::io::{BufRead, IsTerminal, Write};
        if !std::io::stdin().is_terminal() {
            return Err(format!("`${{input:{id}}}` needs a value: set {var} (stdin is not a terminal to ask on)"));
        }
        let input = self.inputs.get(id);
        let description = input.and_then(|i| i.get("description")).and_then(Value::as_str).unwrap_or(id).to_owned();
        let secret = input.and_then(|i| i.get("password")).and_then(Value::as_bool) == Some(true);
        let mut stderr = std::io::stderr().lock();
        let _ = write!(stderr, "{description} ({}): ", self.name);
        let _ = stderr.flush();
        let echo = if secret { EchoOff::new() } else { None };
        let mut line = String::new();
        let read = std::io::stdin().lock().read_line(&mut line);
        if echo.is_some() {
            drop(echo);
            let _ = writeln!(stderr);
        }
        read.map_err(|e| format!("cannot read `${{input:{id}}}`: {e}"))?;
        Ok(line.trim_end_matches(['\r', '\n']).to_owned())
    }
}

/// The terminal's echo turned off while a secret is typed (`"password":
/// true` inputs), back on when dropped.
struct EchoOff {
    #[cfg(unix)]
    saved: libc::termios,
}

impl EchoOff {
    #[cfg(unix)]
    fn new() -> Option<EchoOff> {
        // SAFETY: tcgetattr/tcsetattr read and write the termios given,
        // which lives on this stack frame; fd 0 is stdin (a terminal here).
        unsafe {
            let mut saved: libc::termios = std::mem::zeroed();
            if libc::tcgetattr(0, &mut saved) != 0 {
                return None;
            }
            let mut quiet = saved;
            quiet.c_lflag &= !libc::ECHO;
            (libc::tcsetattr(0, libc::TCSANOW, &quiet) == 0).then_some(EchoOff { saved })
        }
    }

    #[cfg(not(unix))]
    fn new() -> Option<EchoOff> {
        None
    }
}

impl Drop for EchoOff {
    fn drop(&mut self) {
        #[cfg(unix)]
        // SAFETY: restores the settings read in `new`.
        unsafe {
            libc::tcsetattr(0, libc::TCSANOW, &self.saved);
        }
    }
}

/// Expands `${NAME}`, `${NAME:-default}` and `$NAME` in `text`, looking
/// names up with `lookup` (`None`: not set, an error unless a default is
/// given). `$$` is a literal `$`.
pub fn expand(text: &str, lookup: &dyn Fn(&str) -> Result<Option<String>, String>) -> Result<String, String> {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find('$') {
        out.push_str(&rest[..at]);
        let after = &rest[at + 1..];
        if let Some(tail) = after.strip_prefix('$') {
            out.push('$');
            rest = tail;
        } else if let Some(inner) = after.strip_prefix('{') {
            let end = inner.find('}').ok_or_else(|| format!("`${{` without a closing `}}` in `{text}`"))?;
            let body = &inner[..end];
            let (name, default) = match body.split_once(":-") {
                Some((name, default)) if !name.contains(':') => (name, Some(default)),
                _ => (body, None),
            };
            match (lookup(name)?, default) {
                (Some(value), _) => out.push_str(&value),
                (None, Some(default)) => out.push_str(default),
                (None, None) => return Err(format!("`${{{name}}}` is not set")),
            }
            rest = &inner[end + 1..];
        } else {
            let len = after.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).unwrap_or(after.len());
            if len == 0 || after.starts_with(|c: char| c.is_ascii_digit()) {
                out.push('$');
                rest = after;
                continue;
            }
            let name = &after[..len];
            out.push_str(&lookup(name)?.ok_or_else(|| format!("`${name}` is not set"))?);
            rest = &after[len..];
        }
    }
    out.push_str(rest);
    Ok(out)
}

/// Expands environment variables (`$NAME`, `${NAME}`, `${env:NAME}`) in a
/// value given on the command line.
pub fn expand_env(text: &str) -> Result<String, String> {
    expand(text, &|name: &str| Ok(std::env::var(name.strip_prefix("env:").unwrap_or(name)).ok()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comments_and_trailing_commas_keep_lines() {
        let text = "{\n // c\n \"a\": [1, 2,], /* x\n y */ \"b\": \"//no\",\n}";
        let cleaned = strip_jsonc(text);
        assert_eq!(cleaned.lines().count(), text.lines().count());
        let value: Value = serde_json::from_str(&cleaned).unwrap();
        assert_eq!(value["b"], "//no");
        assert_eq!(value["a"][1], 2);
    }

    #[test]
    fn variables() {
        let lookup = |name: &str| -> Result<Option<String>, String> {
            Ok(match name {
                "A" | "env:A" => Some("1".into()),
                _ => None,
            })
        };
        assert_eq!(expand("x$A-${A}-${env:A}-$$-${B:-d}-$", &lookup).unwrap(), "x1-1-1-$-d-$");
        assert!(expand("${B}", &lookup).unwrap_err().contains("`${B}` is not set"));
        assert!(expand("$B", &lookup).is_err());
        assert_eq!(expand("cost $5", &lookup).unwrap(), "cost $5");
    }

    #[test]
    fn entries_of_both_formats() {
        let file = Path::new("/p/.vscode/mcp.json");
        let text = r#"{"inputs": [], "servers": {"s": {"type": "http", "url": "http://h/${workspaceFolder}"}},
            "mcpServers": {"c": {"command": "node", "args": ["a b", 3], "cwd": "sub", "extra": 1}}}"#;
        let entries = parse(file, text).unwrap();
        assert_eq!(entries.len(), 2);
        let c = entries.iter().find(|e| e.name == "c").unwrap();
        assert_eq!(c.summary(), "node 'a b' 3");
        match c.target().unwrap() {
            Target::Stdio { args, cwd, .. } => {
                assert_eq!(args, ["a b", "3"]);
                assert_eq!(cwd, Some(PathBuf::from("/p/sub")));
            }
            other => panic!("{other:?}"),
        }
        let s = entries.iter().find(|e| e.name == "s").unwrap();
        assert_eq!(s.target().unwrap(), Target::Http { url: "http://h//p".into(), headers: vec![], sse: false });
    }

    #[test]
    fn claude_code_project_servers_come_first() {
        let cwd = std::env::current_dir().unwrap().to_string_lossy().into_owned();
        let text = serde_json::json!({
            "mcpServers": {"user": {"command": "u"}},
            "projects": {cwd: {"mcpServers": {"local": {"command": "l"}}}, "/elsewhere": {"mcpServers": {"x": {}}}}
        })
        .to_string();
        let names: Vec<String> = parse(Path::new(".claude.json"), &text).unwrap().into_iter().map(|e| e.name).collect();
        assert_eq!(names, ["local", "user"]);
    }

    #[test]
    fn malformed_files_name_the_line() {
        let error = parse(Path::new("m.json"), "{\n\"mcpServers\": {\n\"a\": {\"command\" \"x\"}\n}}").unwrap_err();
        assert!(error.0.starts_with("m.json:3:"), "{error}");
        let error = parse(Path::new("m.json"), "{\n\"mcpServers\": []}").unwrap_err();
        assert!(error.0.starts_with("m.json:2:"), "{error}");
    }
}
