//! `mcp-edge SERVER shell` driven as a person would, inside tmux: keys go
//! in with `send-keys`, the screen comes back with `capture-pane`.
//!
//! Each test has its own tmux server (`-L`), HOME and history file; the
//! tmux server is killed when the test ends, pass or fail.
#![cfg(not(target_arch = "wasm32"))]

use std::path::{Path, PathBuf};
use std::process::Command;
use std::thread;
use std::time::{Duration, Instant};

fn peers() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/peers")
}

fn everything() -> String {
    let script = peers().join("node_modules/@modelcontextprotocol/server-everything/dist/index.js");
    assert!(script.is_file(), "{} is missing: run `cargo xtask setup`", script.display());
    format!("node {} stdio", shlex::try_quote(&script.to_string_lossy()).expect("no NUL"))
}

fn tmux_available() -> bool {
    let found = Command::new("tmux").arg("-V").output().is_ok_and(|o| o.status.success());
    if !found {
        assert!(std::env::var_os("CI").is_none(), "tmux is missing: run `cargo xtask setup`");
        eprintln!("skipped: tmux is missing (apt-get install tmux)");
    }
    found
}

/// A shell session in a detached tmux pane.
struct Pane {
    socket: String,
    home: PathBuf,
}

impl Pane {
    /// Starts `mcp-edge ARGS... shell` in a 160x50 pane.
    fn start(tag: &str, args: &[&str]) -> Pane {
        let mut args = args.to_vec();
        args.push("shell");
        Pane::run(tag, &peers(), &args)
    }

    /// Runs `mcp-edge ARGS...` in `dir`; the pane stays open after it ends.
    fn run(tag: &str, dir: &Path, args: &[&str]) -> Pane {
        let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos();
        let socket = format!("mcp-edge-{tag}-{}-{nanos}", std::process::id());
        let home = std::env::temp_dir().join(&socket);
        std::fs::create_dir_all(&home).unwrap();
        let mut words = vec![env!("CARGO_BIN_EXE_mcp-edge").to_owned()];
        words.extend(args.iter().map(|a| a.to_string()));
        let command = shlex::try_join(words.iter().map(String::as_str)).unwrap();
        let pane = Pane { socket, home };
        let status = Command::new("tmux")
            .args(["-L", &pane.socket, "-f", "/dev/null", "new-session", "-d", "-x", "160", "-y", "50"])
            .args(["-e", &format!("HOME={}", pane.home.display())])
            .args(["-e", &format!("XDG_STATE_HOME={}", pane.home.join("state").display())])
            .args(["-e", &format!("TMPDIR={}", pane.home.display())])
            .args(["-e", "RUST_LOG=off"])
            .arg(format!("cd {} && {command}; sleep 600", shlex::try_quote(&dir.to_string_lossy()).unwrap()))
            .status()
            .expect("tmux starts");
        assert!(status.success(), "tmux new-session failed");
        pane
    }

    fn tmux(&self, args: &[&str]) -> String {
        let out = Command::new("tmux").args(["-L", &self.socket]).args(args).output().expect("tmux runs");
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// The screen's text.
    fn screen(&self) -> String {
        self.tmux(&["capture-pane", "-p", "-J", "-S", "-200"])
    }

    /// Types `text` a key at a time, as a person would: not at once after a
    /// prompt appears (the editor asks the terminal where the cursor is as it
    /// draws a prompt, and what is typed before the answer is dropped), and
    /// not as a burst (drawn late).
    fn type_text(&self, text: &str) {
        thread::sleep(Duration::from_millis(1000));
        for c in text.chars() {
            self.tmux(&["send-keys", "-l", &c.to_string()]);
            thread::sleep(Duration::from_millis(15));
        }
    }

    fn key(&self, key: &str) {
        self.tmux(&["send-keys", key]);
        thread::sleep(Duration::from_millis(100));
    }

    /// Types a line and presses Enter.
    fn line(&self, text: &str) {
        self.type_text(text);
        self.key("Enter");
    }

    /// Waits until the screen satisfies `wanted`; returns it.
    fn wait(&self, what: &str, wanted: impl Fn(&str) -> bool) -> String {
        let started = Instant::now();
        loop {
            let screen = self.screen();
            if wanted(&screen) {
                return screen;
            }
            if started.elapsed() > Duration::from_secs(30) {
                panic!("waited 30 s for {what}; the screen:\n{screen}");
            }
            thread::sleep(Duration::from_millis(100));
        }
    }

    fn wait_for(&self, text: &str) -> String {
        self.wait(text, |screen| screen.contains(text))
    }

    /// The last line of the screen that is not blank.
    fn last_line(&self) -> String {
        self.screen().lines().rev().find(|l| !l.trim().is_empty()).unwrap_or_default().to_owned()
    }
}

impl Drop for Pane {
    fn drop(&mut self) {
        self.tmux(&["kill-server"]);
        let _ = std::fs::remove_dir_all(&self.home);
    }
}

#[test]
fn shell_completes_calls_and_keeps_history() {
    if !tmux_available() {
        return;
    }
    let pane = Pane::start("basics", &[&everything()]);
    pane.wait_for("mcp> ");
    pane.wait_for("connected to mcp-servers/everything");

    // Tab completes the command, the tool name and the argument name.
    pane.type_text("ca");
    pane.key("Tab");
    pane.type_text("ec");
    pane.key("Tab");
    pane.key("Tab");
    pane.wait("the completed line", |s| s.contains(r#"mcp> call echo {"message": "#));
    pane.line(r#""hi"}"#);
    pane.wait_for("Echo: hi");

    // Lists are tables; an error is a line and the shell goes on.
    pane.line("tools");
    pane.wait("the tools table", |s| s.lines().any(|l| l.starts_with("NAME ")));
    pane.line("read nope://nothing");
    pane.wait_for("error: ");
    pane.line("frobnicate");
    pane.wait_for("unknown command `frobnicate`");

    // History: Up brings back the last call.
    pane.type_text("call get-sum {\"a\": 2, \"b\": 3}");
    pane.key("Enter");
    pane.wait_for("The sum of 2 and 3 is 5.");
    pane.key("C-u");
    pane.key("Up");
    pane.key("Up");
    pane.key("Up");
    pane.key("Up");
    pane.wait("history recall", |_| pane.last_line().contains("mcp> tools"));
    pane.key("C-u");

    // Leaving saves the history.
    pane.line("exit");
    let history = pane.home.join("state/mcp-edge/history");
    let started = Instant::now();
    while !history.is_file() && started.elapsed() < Duration::from_secs(10) {
        thread::sleep(Duration::from_millis(100));
    }
    let saved = std::fs::read_to_string(&history).unwrap_or_default();
    assert!(saved.contains("call get-sum"), "history: {saved}");
}

#[test]
fn shell_answers_the_servers_questions_and_prints_its_notifications() {
    if !tmux_available() {
        return;
    }
    let pane = Pane::start("questions", &[&everything()]);
    pane.wait_for("mcp> ");

    // Sampling: the conversation is shown, the typed reply is the answer.
    pane.line(r#"call trigger-sampling-request {"prompt": "Name a colour", "maxTokens": 10}"#);
    pane.wait_for("your reply");
    assert!(pane.screen().contains("[user] "), "{}", pane.screen());
    pane.line("teal, from a human");
    pane.wait_for("\"text\": \"teal, from a human\"");

    // Elicitation: a form for the schema; Enter keeps defaults, answers are typed.
    pane.line("call trigger-elicitation-request");
    pane.wait_for("? the server asks: ");
    let mut answered = 0;
    loop {
        let screen = pane.wait("a field or the result", |s| {
            s.lines()
                .rev()
                .find(|l| !l.trim().is_empty())
                .is_some_and(|l| l.ends_with("]: ") || l.ends_with("]:") || l.trim() == "mcp>")
        });
        let last = screen.lines().rev().find(|l| !l.trim().is_empty()).unwrap_or_default().to_owned();
        if last.trim() == "mcp>" {
            break;
        }
        let answer = if last.trim_start().starts_with("name*") || last.trim_start().starts_with("name ") {
            "Ada Lovelace"
        } else if last.contains("[boolean") && !last.contains("default") {
            "yes"
        } else if last.contains("email") && !last.contains("default") {
            "ada@example.com"
        } else if last.contains("some of") && !last.contains("default") {
            "Piano"
        } else {
            ""
        };
        // Each field's line stays on screen: the next one adds a line.
        let fields = |s: &str| s.lines().filter(|l| l.contains("]:")).count();
        let before = fields(&pane.screen());
        pane.line(answer);
        pane.wait("the next field", |s| fields(s) > before || s.trim_end().ends_with("mcp>"));
        answered += 1;
        assert!(answered < 30, "the form does not end:\n{}", pane.screen());
    }
    let screen = pane.screen();
    assert!(screen.contains("Ada Lovelace"), "{screen}");
    assert!(screen.contains("accept"), "{screen}");

    // Notifications (server log messages) are printed above the prompt.
    pane.line(r#"call toggle-simulated-logging"#);
    pane.wait("a log line above the prompt", |s| {
        let lines: Vec<&str> = s.lines().filter(|l| !l.trim().is_empty()).collect();
        lines.iter().any(|l| {
            l.starts_with("[")
                && (l.contains("info]")
                    || l.contains("error]")
                    || l.contains("debug]")
                    || l.contains("notice]")
                    || l.contains("warning]")
                    || l.contains("critical]")
                    || l.contains("alert]")
                    || l.contains("emergency]"))
        }) && lines.last().is_some_and(|l| l.starts_with("mcp>"))
    });
    pane.line("exit");
}

/// The Python SDK's elicitation (a 2026-07-28 input round) answered at the
/// prompt, and rmcp's resource updates printed while idle after `watch`.
#[test]
fn shell_with_the_python_and_rmcp_peers() {
    if !tmux_available() {
        return;
    }
    let python = peers().join(".venv/bin/python");
    if python.is_file() {
        let command = format!("{} era_python_sdk_server.py", shlex::try_quote(&python.to_string_lossy()).unwrap());
        let pane = Pane::start("python", &[&command]);
        pane.wait_for("mcp> ");
        pane.type_text("call conf");
        pane.key("Tab");
        pane.key("Enter");
        pane.wait_for("? the server asks: Sure?");
        pane.wait_for("[boolean, default true]: ");
        pane.line("no");
        pane.wait("the tool's answer", |s| s.to_ascii_lowercase().contains("false"));
        pane.line("exit");
    } else {
        assert!(std::env::var_os("CI").is_none(), "tests/peers/.venv is missing");
    }

    let rmcp = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/rmcp-peer/release/rmcp-peer");
    if !rmcp.is_file() {
        assert!(std::env::var_os("CI").is_none(), "{} is missing", rmcp.display());
        return;
    }
    let mut peer = Command::new(&rmcp)
        .arg("http")
        .env("PORT", "0")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("rmcp-peer starts");
    let url = {
        use std::io::BufRead;
        let stdout = peer.stdout.take().unwrap();
        let mut lines = std::io::BufReader::new(stdout).lines();
        loop {
            let line = lines.next().expect("rmcp-peer says where it listens").unwrap();
            if let Some(url) = line.strip_prefix("listening ") {
                break url.trim().to_owned();
            }
        }
    };
    let pane = Pane::start("rmcp", &[&url]);
    pane.wait_for("mcp> ");
    pane.line("watch demo://counter");
    pane.wait_for("watching");
    thread::sleep(Duration::from_millis(500));
    let bump = Command::new(env!("CARGO_BIN_EXE_mcp-edge")).args([&url, "call", "bump"]).output().unwrap();
    assert!(bump.status.success(), "{bump:?}");
    pane.wait("the update above the prompt", |s| {
        let lines: Vec<&str> = s.lines().filter(|l| !l.trim().is_empty()).collect();
        lines.iter().any(|l| l.starts_with("~ updated demo://counter"))
            && lines.last().is_some_and(|l| l.starts_with("mcp>"))
    });
    pane.line("exit");
    let _ = peer.kill();
    let _ = peer.wait();
}

/// A VS Code `${input:ID}` marked `"password": true` is asked on the
/// terminal without echo.
#[test]
fn config_inputs_are_asked_on_the_terminal_without_echo() {
    if !tmux_available() {
        return;
    }
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos();
    let project = std::env::temp_dir().join(format!("mcp-edge-inputs-{}-{nanos}", std::process::id()));
    std::fs::create_dir_all(project.join(".vscode")).unwrap();
    let script = peers().join("node_modules/@modelcontextprotocol/server-everything/dist/index.js");
    let config = serde_json::json!({
        "inputs": [{ "type": "promptString", "id": "key", "description": "The API key", "password": true }],
        "servers": { "e": { "command": "node", "args": [script, "stdio"], "env": { "SECRET_KEY": "${input:key}" } } }
    });
    std::fs::write(project.join(".vscode/mcp.json"), config.to_string()).unwrap();
    let pane = Pane::run("inputs", &project, &["@e", "call", "get-env"]);
    pane.wait_for("The API key (e): ");
    pane.line("hunter2");
    pane.wait_for("\"SECRET_KEY\": \"hunter2\"");
    let screen = pane.screen();
    let prompt_line = screen.lines().find(|l| l.contains("The API key (e):")).unwrap_or_default();
    assert!(!prompt_line.contains("hunter2"), "the secret was echoed:\n{screen}");
    let _ = std::fs::remove_dir_all(project);
}
