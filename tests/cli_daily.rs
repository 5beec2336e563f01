//! The CLI's daily things against real servers: `-H` against a server that
//! wants an API key (tests/peers/header-server.mjs, on the TypeScript SDK),
//! `-e`/`--cwd` for stdio servers, configuration files naming servers
//! (server-everything, the Python SDK peer, rmcp's peer), results rendered
//! by content type with `--output`, and shell completions.
//!
//! Every run has its own HOME, XDG_CONFIG_HOME and working directory, so the
//! real user's configuration files are never read.
#![cfg(not(target_arch = "wasm32"))]

mod support;

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::thread;
use std::time::Duration;

use serde_json::Value;
use support::native::run_to_end;

const DEADLINE: Duration = Duration::from_secs(60);

fn peers() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/peers")
}

/// server-everything's script (installed by `cargo xtask setup`).
fn everything_script() -> PathBuf {
    let script = peers().join("node_modules/@modelcontextprotocol/server-everything/dist/index.js");
    assert!(script.is_file(), "{} is missing: run `cargo xtask setup`", script.display());
    script
}

fn everything() -> String {
    let script = everything_script().to_string_lossy().into_owned();
    format!("node {} stdio", shlex::try_quote(&script).expect("no NUL"))
}

fn python() -> Option<PathBuf> {
    let python = peers().join(".venv/bin/python");
    if python.is_file() {
        return Some(python);
    }
    assert!(std::env::var_os("CI").is_none(), "tests/peers/.venv is missing: run `cargo xtask setup`");
    eprintln!("skipped: tests/peers/.venv is missing (cargo xtask setup)");
    None
}

fn rmcp_peer() -> Option<PathBuf> {
    let binary = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/rmcp-peer/release/rmcp-peer");
    if binary.is_file() {
        return Some(binary);
    }
    assert!(std::env::var_os("CI").is_none(), "{} is missing: run `cargo xtask setup`", binary.display());
    eprintln!("skipped: {} is missing (cargo xtask setup)", binary.display());
    None
}

/// A fresh directory standing for HOME and the working directory.
struct Sandbox {
    dir: PathBuf,
}

impl Sandbox {
    fn new(tag: &str) -> Sandbox {
        let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos();
        let dir = std::env::temp_dir().join(format!("mcp-edge-cli-{tag}-{}-{nanos}", std::process::id()));
        std::fs::create_dir_all(dir.join("home")).unwrap();
        std::fs::create_dir_all(dir.join("project")).unwrap();
        Sandbox { dir }
    }

    fn home(&self) -> PathBuf {
        self.dir.join("home")
    }

    fn project(&self) -> PathBuf {
        self.dir.join("project")
    }

    fn write(&self, relative: &str, text: &str) -> PathBuf {
        let path = self.dir.join(relative);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, text).unwrap();
        path
    }

    /// Runs `mcp-edge ARGS` in the project folder with this HOME.
    fn run(&self, args: &[&str]) -> Run {
        self.run_with(args, &[])
    }

    fn run_with(&self, args: &[&str], env: &[(&str, &str)]) -> Run {
        let mut command = Command::new(env!("CARGO_BIN_EXE_mcp-edge"));
        command
            .args(args)
            .current_dir(self.project())
            .env("HOME", self.home())
            .env("XDG_CONFIG_HOME", self.home().join(".config"))
            .env("XDG_STATE_HOME", self.home().join(".local/state"))
            .env("TMPDIR", self.dir.join("tmp"))
            .env_remove("RUST_LOG")
            .env_remove("APPDATA");
        std::fs::create_dir_all(self.dir.join("tmp")).unwrap();
        for (key, value) in env {
            command.env(key, value);
        }
        run(command, args)
    }
}

impl Drop for Sandbox {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

struct Run {
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

impl Run {
    fn error_line(&self) -> &str {
        let errors: Vec<&str> = self.stderr.lines().filter(|l| l.starts_with("mcp-edge: ")).collect();
        assert_eq!(errors.len(), 1, "expected one `mcp-edge:` line:\n{}", self.stderr);
        errors[0]
    }

    fn json(&self) -> Value {
        serde_json::from_str(&self.stdout).unwrap_or_else(|e| panic!("not JSON ({e}):\n{}", self.stdout))
    }
}

impl std::fmt::Debug for Run {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "exit {:?}\n--- stdout\n{}--- stderr\n{}", self.code, self.stdout, self.stderr)
    }
}

fn run(command: Command, args: &[&str]) -> Run {
    let done = run_to_end(command, DEADLINE, &format!("mcp-edge {args:?}"));
    Run { code: done.code, stdout: done.stdout, stderr: done.stderr }
}

/// tests/peers/header-server.mjs: its main URL base, its foreign port, and
/// its stderr lines (what the foreign origin saw).
struct HeaderServer {
    child: Child,
    base: String,
    foreign: std::sync::mpsc::Receiver<String>,
}

impl HeaderServer {
    fn start() -> HeaderServer {
        use std::io::BufRead;
        let mut child = Command::new("node")
            .arg(peers().join("header-server.mjs"))
            .env("KEY", "sesame")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("node starts");
        let mut stdout = std::io::BufReader::new(child.stdout.take().unwrap());
        let mut line = String::new();
        stdout.read_line(&mut line).expect("the header server says where it listens");
        let ports: Vec<&str> = line.trim().trim_start_matches("listening ").split(' ').collect();
        assert_eq!(ports.len(), 2, "{line}");
        let (send, foreign) = std::sync::mpsc::channel();
        let stderr = child.stderr.take().unwrap();
        thread::spawn(move || {
            for line in std::io::BufReader::new(stderr).lines().map_while(Result::ok) {
                let _ = send.send(line);
            }
        });
        HeaderServer { child, base: format!("http://127.0.0.1:{}", ports[0]), foreign }
    }
}

impl Drop for HeaderServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn headers_reach_a_server_that_wants_an_api_key() {
    let server = HeaderServer::start();
    let sandbox = Sandbox::new("headers");
    let url = format!("{}/mcp", server.base);

    // Without the key: refused, one line, exit 2.
    let run = sandbox.run(&["--no-auth-store", &url, "tools"]);
    assert_eq!(run.code, Some(2), "{run:?}");
    run.error_line();

    // X-API-Key with the value from the environment, expanded by mcp-edge.
    let run = sandbox.run_with(
        &["-H", "X-API-Key: $MY_KEY", "-H", "X-Extra: ${MY_KEY}-2", &url, "call", "whoami"],
        &[("MY_KEY", "sesame")],
    );
    assert_eq!(run.code, Some(0), "{run:?}");
    let seen: Value = serde_json::from_str(run.stdout.trim()).expect("whoami answers JSON");
    assert_eq!(seen["x-api-key"], "sesame", "{run:?}");
    assert_eq!(seen["x-extra"], "sesame-2", "{run:?}");

    // A wrong key is reported as the server's 401, without an OAuth attempt.
    let run = sandbox.run(&["-H", "X-API-Key: wrong", &url, "tools"]);
    assert_eq!(run.code, Some(2), "{run:?}");
    assert!(run.error_line().contains("401") && !run.error_line().contains("OAuth"), "{run:?}");

    // Authorization: Bearer (no OAuth flow is attempted with it).
    let run =
        sandbox.run_with(&["--header", "Authorization: Bearer ${env:TOKEN}", &url, "tools"], &[("TOKEN", "sesame")]);
    assert_eq!(run.code, Some(0), "{run:?}");
    assert!(run.stdout.lines().any(|l| l.starts_with("whoami ")), "{run:?}");

    // A variable that is not set is a usage error before anything is sent.
    let run = sandbox.run(&["-H", "X-API-Key: $NOT_SET_ANYWHERE", &url, "tools"]);
    assert_eq!(run.code, Some(2), "{run:?}");
    assert!(run.error_line().contains("NOT_SET_ANYWHERE"), "{run:?}");
    let run = sandbox.run(&["-H", "no colon", &url, "tools"]);
    assert_eq!(run.code, Some(2), "{run:?}");
    assert!(run.error_line().contains("Name: value"), "{run:?}");
}

#[test]
fn headers_never_follow_a_redirect_to_another_origin() {
    let server = HeaderServer::start();
    let sandbox = Sandbox::new("redirect");
    // Same origin: followed.
    let run = sandbox.run(&["-H", "X-API-Key: sesame", &format!("{}/nearby", server.base), "call", "whoami"]);
    assert_eq!(run.code, Some(0), "{run:?}");
    // Another origin: refused, and the key never reaches it.
    let run = sandbox.run(&[
        "-H",
        "X-API-Key: sesame",
        "--transport",
        "streamable-http",
        &format!("{}/elsewhere", server.base),
        "tools",
    ]);
    assert_eq!(run.code, Some(2), "{run:?}");
    assert!(run.error_line().contains("another origin"), "{run:?}");
    thread::sleep(Duration::from_millis(200));
    let seen: Vec<String> = server.foreign.try_iter().collect();
    assert!(seen.iter().all(|l| !l.contains("sesame")), "the key reached another origin: {seen:?}");
}

#[test]
fn env_and_cwd_reach_a_stdio_server() {
    let sandbox = Sandbox::new("env");
    // server-everything's get-env tool shows its environment.
    let run = sandbox.run_with(
        &["-e", "GREETING=hello $WHO", "--env", "PLAIN=1", &everything(), "call", "get-env"],
        &[("WHO", "world")],
    );
    assert_eq!(run.code, Some(0), "{run:?}");
    assert!(run.stdout.contains("\"GREETING\": \"hello world\""), "{run:?}");
    assert!(run.stdout.contains("\"PLAIN\": \"1\""), "{run:?}");

    // --cwd: a relative script path only resolves in the server's folder.
    let dir = everything_script().parent().unwrap().to_string_lossy().into_owned();
    let run = sandbox.run(&["--cwd", &dir, "node index.js stdio", "ping"]);
    assert_eq!(run.code, Some(0), "{run:?}");

    // -e is for stdio servers, -H for URLs.
    let run = sandbox.run(&["-e", "A=1", "http://127.0.0.1:9/mcp", "tools"]);
    assert_eq!(run.code, Some(2), "{run:?}");
    assert!(run.error_line().contains("stdio"), "{run:?}");
    let run = sandbox.run(&["-H", "A: 1", &everything(), "tools"]);
    assert_eq!(run.code, Some(2), "{run:?}");
}

#[test]
fn configured_servers_are_found_named_and_listed() {
    let sandbox = Sandbox::new("config");
    let script = everything_script().to_string_lossy().into_owned();
    // A project .mcp.json (Claude Code), with ${VAR:-default}, env and an unknown field.
    sandbox.write(
        "project/.mcp.json",
        &serde_json::json!({
            "mcpServers": {
                "everything": {
                    "command": "node",
                    "args": [script, "stdio"],
                    "env": { "FROM_CONFIG": "${CONFIG_VALUE:-fallback}" },
                    "alwaysAllow": ["echo"]
                }
            }
        })
        .to_string(),
    );
    // Claude Desktop's file in the (sandboxed) user's config folder.
    let mut desktop = serde_json::json!({ "mcpServers": {} });
    if let Some(python) = python() {
        desktop["mcpServers"]["python"] = serde_json::json!({
            "command": python,
            "args": ["era_python_sdk_server.py"],
            "cwd": peers(),
        });
    }
    desktop["mcpServers"]["everything"] = serde_json::json!({ "command": "false" });
    sandbox.write("home/.config/Claude/claude_desktop_config.json", &desktop.to_string());
    // VS Code's .vscode/mcp.json: `servers`, `inputs`, comments, trailing commas.
    if let Some(rmcp) = rmcp_peer() {
        let rmcp = rmcp.to_string_lossy().replace('\\', "\\\\");
        sandbox.write(
            "project/.vscode/mcp.json",
            &format!(
                "{{\n  // the rmcp peer\n  \"inputs\": [{{\"type\": \"promptString\", \"id\": \"mode\", \"description\": \"Mode\"}}],\n  \"servers\": {{\n    \"rmcp\": {{\"type\": \"stdio\", \"command\": \"{rmcp}\", \"args\": [\"${{input:mode}}\"],}},\n  }},\n}}\n"
            ),
        );
    }

    let run = sandbox.run_with(&["@everything", "call", "get-env"], &[("CONFIG_VALUE", "from-env")]);
    assert_eq!(run.code, Some(0), "{run:?}");
    assert!(run.stdout.contains("\"FROM_CONFIG\": \"from-env\""), "{run:?}");
    let run = sandbox.run(&["@everything", "call", "get-env"]);
    assert!(run.stdout.contains("\"FROM_CONFIG\": \"fallback\""), "{run:?}");

    if python().is_some() {
        let run = sandbox.run(&["@python", "call", "add", r#"{"a": 2, "b": 3}"#]);
        assert_eq!(run.code, Some(0), "{run:?}");
        assert_eq!(run.stdout.trim(), "5", "{run:?}");
    }
    if rmcp_peer().is_some() {
        // ${input:mode} comes from MCP_EDGE_INPUT_MODE (stdin is no terminal here).
        let run = sandbox.run_with(&["@rmcp", "tools"], &[("MCP_EDGE_INPUT_MODE", "stdio")]);
        assert_eq!(run.code, Some(0), "{run:?}");
        assert!(run.stdout.lines().next().unwrap_or_default().starts_with("NAME"), "{run:?}");
        let run = sandbox.run(&["@rmcp", "tools"]);
        assert_eq!(run.code, Some(2), "{run:?}");
        assert!(run.error_line().contains("MCP_EDGE_INPUT_MODE"), "{run:?}");
    }

    // `servers` lists what was found and where; the Desktop `everything` is shadowed.
    let run = sandbox.run(&["servers"]);
    assert_eq!(run.code, Some(0), "{run:?}");
    assert!(run.stdout.contains(".mcp.json"), "{run:?}");
    assert!(run.stdout.contains("claude_desktop_config.json"), "{run:?}");
    assert!(run.stdout.lines().any(|l| l.starts_with("everything (shadowed)")), "{run:?}");
    let run = sandbox.run(&["--json", "servers"]);
    let servers = run.json()["servers"].as_array().cloned().unwrap_or_default();
    assert!(servers.iter().any(|s| s["name"] == "everything" && s["type"] == "stdio"), "{run:?}");

    // --config replaces the search list.
    let other = sandbox.write(
        "elsewhere/mcp.json",
        &serde_json::json!({ "mcpServers": { "only": { "command": "node", "args": [script, "stdio"] } } }).to_string(),
    );
    let other = other.to_string_lossy().into_owned();
    let run = sandbox.run(&["--config", &other, "@only", "call", "echo", r#"{"message": "cfg"}"#]);
    assert_eq!(run.stdout.trim(), "Echo: cfg", "{run:?}");
    let run = sandbox.run(&["--config", &other, "@everything", "tools"]);
    assert_eq!(run.code, Some(2), "{run:?}");
    assert!(run.error_line().contains("no server `everything`"), "{run:?}");
    assert!(run.error_line().contains("only"), "{run:?}");
}

#[test]
fn a_malformed_config_file_is_one_error_naming_file_and_line() {
    let sandbox = Sandbox::new("malformed");
    sandbox.write("project/.mcp.json", "{\n  \"mcpServers\": {\n    \"a\": {\"command\": \"x\",,}\n  }\n}\n");
    let run = sandbox.run(&["@a", "tools"]);
    assert_eq!(run.code, Some(2), "{run:?}");
    let line = run.error_line();
    assert!(line.contains(".mcp.json:3:"), "{run:?}");
    let run = sandbox.run(&["servers"]);
    assert_eq!(run.code, Some(2), "{run:?}");
    assert!(run.error_line().contains(".mcp.json:3:"), "{run:?}");
}

#[test]
fn results_are_rendered_by_content_type() {
    let sandbox = Sandbox::new("output");
    // Lists are a table with a header.
    let run = sandbox.run(&[&everything(), "tools"]);
    let lines: Vec<&str> = run.stdout.lines().collect();
    assert!(lines[0].starts_with("NAME") && lines[0].contains("DESCRIPTION"), "{run:?}");
    assert!(lines.iter().any(|l| l.starts_with("echo ") && l.contains("message*")), "{run:?}");

    // An image is saved; its path is printed.
    let run = sandbox.run(&[&everything(), "call", "get-tiny-image"]);
    assert_eq!(run.code, Some(0), "{run:?}");
    let line = run.stdout.lines().find(|l| l.starts_with("[image image/png, ")).expect("an image line");
    let path = line.rsplit("] ").next().unwrap();
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n");

    // --output puts it where asked; `-` sends the raw bytes to stdout.
    let out = sandbox.dir.join("tiny.png");
    let run = sandbox.run(&[&everything(), "call", "get-tiny-image", "--output", &out.to_string_lossy()]);
    assert_eq!(run.code, Some(0), "{run:?}");
    assert_eq!(&std::fs::read(&out).unwrap()[..4], b"\x89PNG");
    assert!(run.stdout.contains(&out.to_string_lossy().into_owned()), "{run:?}");
    let run = sandbox.run(&[&everything(), "call", "get-tiny-image", "-o", "-"]);
    assert!(run.stdout.starts_with("\u{FFFD}PNG"), "{run:?}");
    assert!(run.stderr.contains("[image image/png"), "{run:?}");

    // Resource links are links.
    let run = sandbox.run(&[&everything(), "call", "get-resource-links", r#"{"count": 2}"#]);
    assert_eq!(run.code, Some(0), "{run:?}");
    assert!(run.stdout.lines().any(|l| l.starts_with("[link] demo://resource/")), "{run:?}");
}

#[test]
fn completions_are_generated_for_each_shell() {
    let sandbox = Sandbox::new("completions");
    for shell in ["bash", "zsh", "fish"] {
        let run = sandbox.run(&["completions", shell]);
        assert_eq!(run.code, Some(0), "{shell}: {run:?}");
        assert!(run.stdout.contains("mcp-edge"), "{shell}: {run:?}");
        assert!(run.stdout.contains("header"), "{shell}: {run:?}");
    }
    // bash really completes with it.
    let script = sandbox.run(&["completions", "bash"]).stdout;
    let file = sandbox.write("completion.bash", &script);
    let probe = format!(
        "source {}; COMP_WORDS=(mcp-edge --hea); COMP_CWORD=1; COMP_LINE='mcp-edge --hea'; COMP_POINT=14; \
         _mcp__edge mcp-edge --hea mcp-edge; printf '%s\\n' \"${{COMPREPLY[@]}}\"",
        file.display()
    );
    let out = Command::new("bash").arg("-c").arg(probe).output().expect("bash runs");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.lines().any(|l| l == "--header"), "{text}\n{}", String::from_utf8_lossy(&out.stderr));
    let run = sandbox.run(&["completions", "tcsh"]);
    assert_eq!(run.code, Some(2), "{run:?}");
}
