//! The `mcp-edge` binary against the real server-everything, over stdio and
//! Streamable HTTP.
//!
//! The server comes from `tests/peers` (`cargo xtask setup` installs it with
//! `npm ci`; a missing one fails under CI, see tests/support/native.rs).
//! Every run is bounded: a hung binary is killed and fails its test.
#![cfg(not(target_arch = "wasm32"))]

mod support;

use std::io::Read;
use std::path::Path;
use std::process::{Command, Stdio};
use std::thread;
use std::time::{Duration, Instant};

use serde_json::Value;
use support::native::{Lines, Server, drain, everything_index, rmcp_peer, run_to_end};

/// Longest any one run may take.
const DEADLINE: Duration = Duration::from_secs(60);

/// The command line that starts server-everything over stdio.
fn server() -> Option<String> {
    let script = everything_index()?.to_string_lossy().into_owned();
    let quoted = shlex::try_quote(&script).expect("the path has no NUL byte");
    Some(format!("node {quoted} stdio"))
}

struct Run {
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

impl Run {
    fn stdout_lines(&self) -> Vec<&str> {
        self.stdout.lines().collect()
    }

    fn stderr_lines(&self) -> Vec<&str> {
        self.stderr.lines().collect()
    }

    /// The one `mcp-edge: ...` line of a failed run.
    fn error_line(&self) -> &str {
        let lines = self.stderr_lines();
        let errors: Vec<&&str> = lines.iter().filter(|l| l.starts_with("mcp-edge: ")).collect();
        assert_eq!(errors.len(), 1, "expected one `mcp-edge:` line on stderr:\n{}", self.stderr);
        errors[0]
    }

    fn json(&self) -> Value {
        serde_json::from_str(&self.stdout)
            .unwrap_or_else(|e| panic!("stdout is not one JSON document ({e}):\n{}", self.stdout))
    }
}

impl std::fmt::Debug for Run {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "exit {:?}\n--- stdout\n{}--- stderr\n{}", self.code, self.stdout, self.stderr)
    }
}

/// Runs `mcp-edge ARGS...` to the end, killing it after [`DEADLINE`].
fn mcp_edge(args: &[&str]) -> Run {
    let mut command = Command::new(env!("CARGO_BIN_EXE_mcp-edge"));
    command.args(args).env_remove("RUST_LOG");
    let done = run_to_end(command, DEADLINE, &format!("mcp-edge {args:?}"));
    Run { code: done.code, stdout: done.stdout, stderr: done.stderr }
}

#[test]
fn tools_lists_echo() {
    let Some(server) = server() else { return };
    let run = mcp_edge(&[&server, "tools"]);
    assert_eq!(run.code, Some(0), "{run:?}");
    assert!(run.stdout_lines().iter().any(|l| l.starts_with("echo ") && l.contains(" message* ")), "{run:?}");
}

#[test]
fn call_echo_prints_the_text() {
    let Some(server) = server() else { return };
    let run = mcp_edge(&[&server, "call", "echo", r#"{"message":"hi"}"#]);
    assert_eq!(run.code, Some(0), "{run:?}");
    assert_eq!(run.stdout_lines(), ["Echo: hi"], "{run:?}");
}

#[test]
fn json_tools_is_one_document_with_a_tools_array() {
    let Some(server) = server() else { return };
    let run = mcp_edge(&["--json", &server, "tools"]);
    assert_eq!(run.code, Some(0), "{run:?}");
    let json = run.json();
    let tools = json["tools"].as_array().expect("a tools array");
    assert!(tools.iter().any(|t| t["name"] == "echo"), "{run:?}");
}

#[test]
fn json_call_prints_the_raw_result() {
    let Some(server) = server() else { return };
    let run = mcp_edge(&[&server, "call", "echo", r#"{"message":"hi"}"#, "--json"]);
    assert_eq!(run.code, Some(0), "{run:?}");
    assert_eq!(run.json()["content"][0]["text"], "Echo: hi", "{run:?}");
}

#[test]
fn info_shows_version_and_transport() {
    let Some(server) = server() else { return };
    let run = mcp_edge(&[&server, "info"]);
    assert_eq!(run.code, Some(0), "{run:?}");
    let lines = run.stdout_lines();
    assert!(lines.contains(&"protocol: 2025-11-25"), "{run:?}");
    assert!(lines.contains(&"transport: stdio"), "{run:?}");
    assert!(lines.iter().any(|l| l.starts_with("server: ")), "{run:?}");
    assert!(lines.iter().any(|l| l.starts_with("capabilities: ") && l.contains("tools")), "{run:?}");

    let run = mcp_edge(&["--json", &server, "info"]);
    assert_eq!(run.code, Some(0), "{run:?}");
    let json = run.json();
    assert_eq!(json["protocolVersion"], "2025-11-25", "{run:?}");
    assert_eq!(json["transport"], "stdio", "{run:?}");
    assert!(json["serverInfo"]["name"].is_string(), "{run:?}");
    assert!(json["capabilities"]["tools"].is_object(), "{run:?}");
}

#[test]
fn long_running_call_reports_progress_on_stderr() {
    let Some(server) = server() else { return };
    let run = mcp_edge(&[&server, "call", "trigger-long-running-operation", r#"{"duration":2,"steps":4}"#]);
    assert_eq!(run.code, Some(0), "{run:?}");
    assert!(run.stdout.contains("Long running operation completed"), "{run:?}");
    assert!(!run.stdout.contains("progress"), "progress leaked into stdout: {run:?}");
    let progress: Vec<&str> = run.stderr_lines().into_iter().filter(|l| l.starts_with("progress: ")).collect();
    assert!(progress.contains(&"progress: 1/4"), "{run:?}");
    assert!(progress.contains(&"progress: 4/4"), "{run:?}");
}

#[test]
fn image_content_is_summarised() {
    let Some(server) = server() else { return };
    let run = mcp_edge(&[&server, "call", "get-tiny-image"]);
    assert_eq!(run.code, Some(0), "{run:?}");
    // Saved to a file, whose path follows.
    assert!(run.stdout_lines().iter().any(|l| l.starts_with("[image image/png, ") && l.contains(" KiB] /")), "{run:?}");
}

#[test]
fn a_tool_error_exits_1_and_prints_its_content() {
    let Some(server) = server() else { return };
    // The TypeScript SDK reports invalid arguments as an `isError` result.
    let run = mcp_edge(&[&server, "call", "echo", "{}"]);
    assert_eq!(run.code, Some(1), "{run:?}");
    assert!(run.stdout.contains("Invalid arguments for tool echo"), "{run:?}");
    assert!(!run.stderr.contains("mcp-edge:"), "{run:?}");

    // So is an unknown tool (it throws inside the tools/call handler).
    let run = mcp_edge(&[&server, "call", "no-such-tool"]);
    assert_eq!(run.code, Some(1), "{run:?}");
    assert!(run.stdout.contains("no-such-tool not found"), "{run:?}");
}

#[test]
fn a_protocol_error_exits_2_with_one_line() {
    let Some(server) = server() else { return };
    let run = mcp_edge(&[&server, "read", "nope://nothing"]);
    assert_eq!(run.code, Some(2), "{run:?}");
    assert!(run.error_line().contains("resources/read"), "{run:?}");
    assert!(run.error_line().contains("nope://nothing"), "{run:?}");
    assert!(run.stdout.is_empty(), "{run:?}");
}

#[test]
fn a_server_that_cannot_start_exits_2_with_one_line() {
    let run = mcp_edge(&["/nonexistent/binary", "tools"]);
    assert_eq!(run.code, Some(2), "{run:?}");
    assert_eq!(run.stderr_lines().len(), 1, "{run:?}");
    assert!(run.error_line().contains("/nonexistent/binary"), "{run:?}");
}

#[test]
fn a_crashing_server_exits_2_with_its_stderr_tail() {
    let run = mcp_edge(&["node -e 'console.error(\"boom\"); process.exit(3)'", "ping"]);
    assert_eq!(run.code, Some(2), "{run:?}");
    let line = run.error_line();
    assert!(line.contains("exited"), "{run:?}");
    // The tail follows, indented.
    assert!(run.stderr_lines().contains(&"  boom"), "{run:?}");
}

#[test]
fn invalid_json_args_exit_2_before_starting_the_server() {
    let run = mcp_edge(&["/nonexistent/binary", "call", "echo", r#"{"message":"#]);
    assert_eq!(run.code, Some(2), "{run:?}");
    assert!(run.error_line().contains("JSON_ARGS is not valid JSON"), "{run:?}");

    let run = mcp_edge(&["/nonexistent/binary", "call", "echo", "[1, 2]"]);
    assert_eq!(run.code, Some(2), "{run:?}");
    assert!(run.error_line().contains("must be a JSON object"), "{run:?}");
}

#[test]
fn an_unreachable_http_server_exits_2_naming_the_url() {
    let run = mcp_edge(&["http://127.0.0.1:9/mcp", "tools"]);
    assert_eq!(run.code, Some(2), "{run:?}");
    assert!(run.error_line().contains("http://127.0.0.1:9/mcp"), "{run:?}");
}

/// The runtime reads the servers' output while a test waits for the
/// binary (which blocks the test's own thread).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn streamable_http_servers_work_like_stdio_ones() {
    let Some(index) = everything_index() else { return };
    let args = [index.to_string_lossy().into_owned(), "streamableHttp".to_owned()];
    let server = Server::on_free_port("node", &args, &[]).await;
    let url = server.url("/mcp");
    let run = mcp_edge(&[&url, "info"]);
    assert_eq!(run.code, Some(0), "{run:?}");
    assert!(run.stdout.contains("transport: streamable-http"), "{run:?}");
    assert!(run.stdout.contains("protocol: 2025-11-25"), "{run:?}");
    let run = mcp_edge(&[&url, "tools"]);
    assert_eq!(run.code, Some(0), "{run:?}");
    assert!(run.stdout_lines().iter().any(|l| l.starts_with("echo ") && l.contains(" message* ")), "{run:?}");
    let run = mcp_edge(&[&url, "call", "echo", r#"{"message":"hi"}"#]);
    assert_eq!(run.code, Some(0), "{run:?}");
    assert_eq!(run.stdout_lines(), ["Echo: hi"], "{run:?}");
    let run = mcp_edge(&[&url, "call", "trigger-long-running-operation", r#"{"duration":1,"steps":2}"#]);
    assert_eq!(run.code, Some(0), "{run:?}");
    assert!(run.stdout.contains("Long running operation completed"), "{run:?}");
    assert!(run.stderr.contains("progress: 2/2"), "{run:?}");
}

#[test]
fn bad_usage_exits_2() {
    let Some(server) = server() else { return };
    let run = mcp_edge(&[&server]);
    assert_eq!(run.code, Some(2), "{run:?}");
    assert!(run.stderr.contains("requires a subcommand"), "{run:?}");
    assert!(run.stdout.is_empty(), "{run:?}");
    let run = mcp_edge(&["--timeout", "soon", &server, "ping"]);
    assert_eq!(run.code, Some(2), "{run:?}");
    assert!(run.stderr.contains("invalid value 'soon' for '--timeout"), "{run:?}");
    assert!(run.stdout.is_empty(), "{run:?}");
    let run = mcp_edge(&[&server, "complete", "tool:x", "arg"]);
    assert_eq!(run.code, Some(2), "{run:?}");
    assert!(run.error_line().contains("prompt:<name>"), "{run:?}");
}

#[test]
fn prompts_resources_and_completions() {
    let Some(server) = server() else { return };
    let run = mcp_edge(&[&server, "prompt", "args-prompt", r#"{"city": "Paris", "state": 3}"#]);
    assert_eq!(run.code, Some(0), "{run:?}");
    assert!(run.stdout_lines().iter().any(|l| l.starts_with("[user] ") && l.contains("Paris, 3")), "{run:?}");

    let run = mcp_edge(&[&server, "read", "demo://resource/dynamic/text/1"]);
    assert_eq!(run.code, Some(0), "{run:?}");
    assert!(run.stdout.starts_with("Resource 1: This is a plaintext resource"), "{run:?}");

    let run = mcp_edge(&[&server, "complete", "prompt:completable-prompt", "department", "E"]);
    assert_eq!(run.code, Some(0), "{run:?}");
    assert!(run.stdout_lines().contains(&"Engineering"), "{run:?}");

    let run = mcp_edge(&["--json", &server, "ping"]);
    assert_eq!(run.code, Some(0), "{run:?}");
    assert_eq!(run.json(), serde_json::json!({}), "ping's empty result: {run:?}");
}

/// Sends each line of `pipe` down a channel, so reads can be bounded.
fn lines_of(pipe: impl Read + Send + 'static) -> std::sync::mpsc::Receiver<String> {
    use std::io::BufRead;
    let (send, receive) = std::sync::mpsc::channel();
    thread::spawn(move || {
        for line in std::io::BufReader::new(pipe).lines().map_while(Result::ok) {
            if send.send(line).is_err() {
                break;
            }
        }
    });
    receive
}

/// The first line from `lines` that `wanted` accepts, within `limit`.
fn wait_for_line(lines: &std::sync::mpsc::Receiver<String>, limit: Duration, wanted: impl Fn(&str) -> bool) -> String {
    let started = Instant::now();
    loop {
        let left = limit.saturating_sub(started.elapsed());
        match lines.recv_timeout(left) {
            Ok(line) if wanted(&line) => return line,
            Ok(_) => {}
            Err(error) => panic!("no such line within {limit:?}: {error}"),
        }
    }
}

/// `rmcp-peer http` on a port of its choosing, its stderr (what it did,
/// e.g. `task created <id>`) in `output`; and its URL.
async fn rmcp_http(binary: &Path) -> (Server, String) {
    Server::announced(binary, &["http".to_owned()], Lines::default()).await
}

/// Waits (at most 10 s) until the peer notes, since `mark`, a line that
/// `wanted` accepts.
async fn noted(peer: &Server, mark: usize, what: &str, wanted: impl Fn(&str) -> bool) {
    let seen = peer.output.find_since(mark, Duration::from_secs(10), |line| wanted(line).then_some(())).await;
    assert!(seen.is_some(), "rmcp-peer did not note {what}: {:#?}", peer.output.since(mark));
}

/// `--tasks`: a tool the server runs as a task is polled to its end.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tasks_flag_lets_a_tool_run_as_a_task() {
    let Some(binary) = rmcp_peer() else { return };
    let (peer, url) = rmcp_http(&binary).await;
    let run = mcp_edge(&["--tasks", &url, "call", "slow_compute", r#"{"seconds": 1, "label": "cli"}"#]);
    assert_eq!(run.code, Some(0), "{run:?}");
    assert_eq!(run.stdout_lines(), ["done: cli"], "{run:?}");
    noted(&peer, 0, "a task", |l| l.contains("task created") && l.contains("slow_compute")).await;
    let mark = peer.output.mark();
    let run = mcp_edge(&[&url, "call", "slow_compute", r#"{"seconds": 0, "label": "plain"}"#]);
    assert_eq!(run.code, Some(0), "{run:?}");
    assert_eq!(run.stdout_lines(), ["done: plain"], "{run:?}");
    noted(&peer, mark, "a synchronous run", |l| l.contains("slow_compute ran synchronously")).await;
}

/// `watch` prints, as JSON lines, the changes another client causes: in
/// 2026-07-28 through `subscriptions/listen`, in the handshake era through
/// `resources/subscribe` and the session stream.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn watch_prints_the_changes_another_client_makes() {
    let Some(binary) = rmcp_peer() else { return };
    let (peer, url) = rmcp_http(&binary).await;
    for era in ["auto", "handshake"] {
        let mut watcher = Command::new(env!("CARGO_BIN_EXE_mcp-edge"))
            .args(["-v", "--json", "--era", era, &url, "watch", "demo://counter", "--tools"])
            .args(["--count", "2", "--for", "30"])
            .env("XDG_CACHE_HOME", support::native::fresh_cache_dir())
            .env_remove("RUST_LOG")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("mcp-edge starts");
        let stdout = drain(watcher.stdout.take().expect("stdout is piped"));
        let stderr = lines_of(watcher.stderr.take().expect("stderr is piped"));
        wait_for_line(&stderr, Duration::from_secs(30), |l| l.contains("watching"));
        for tool in ["bump", "grow"] {
            let run = mcp_edge(&[&url, "call", tool]);
            assert_eq!(run.code, Some(0), "{era} {tool}: {run:?}");
        }
        let started = Instant::now();
        let status = loop {
            if let Some(status) = watcher.try_wait().expect("waiting for mcp-edge watch") {
                break status;
            }
            if started.elapsed() > DEADLINE {
                let _ = watcher.kill();
                panic!("{era}: watch did not end after two notifications");
            }
            thread::sleep(Duration::from_millis(20));
        };
        assert_eq!(status.code(), Some(0), "{era}");
        let stdout = stdout.join().expect("stdout reader");
        let methods: Vec<String> = stdout
            .lines()
            .map(|line| serde_json::from_str::<Value>(line).unwrap_or_else(|e| panic!("{era}: {e}: {line}")))
            .map(|n| n["method"].as_str().unwrap_or_default().to_owned())
            .collect();
        assert!(methods.contains(&"notifications/resources/updated".to_owned()), "{era}: {stdout}");
        assert!(methods.contains(&"notifications/tools/list_changed".to_owned()), "{era}: {stdout}");
    }
    drop(peer);
}

#[test]
fn watch_without_anything_to_watch_is_a_usage_error() {
    let Some(server) = server() else { return };
    let run = mcp_edge(&[&server, "watch"]);
    assert_eq!(run.code, Some(2), "{run:?}");
    assert!(run.error_line().contains("watch needs a resource URI"), "{run:?}");
}

/// The CLI keeps what a server speaks in its cache directory: against a
/// handshake-only server (the chaos server), the first run probes with
/// `server/discover`, the second goes straight to `initialize` (the
/// server's own log of POSTed methods says so).
#[test]
fn a_second_run_against_a_handshake_server_does_not_probe() {
    let script = support::native::peers_dir().join("chaos-server.mjs").to_string_lossy().into_owned();
    let runtime = tokio::runtime::Runtime::new().expect("a runtime");
    let server = runtime.block_on(Server::on_free_port("node", &[script], &[]));
    let url = server.url("/mcp");
    let cache = support::native::fresh_cache_dir();
    let methods = || -> Vec<String> {
        let stats: Value = runtime.block_on(async {
            let response = reqwest::get(server.url("/stats")).await.expect("GET /stats");
            serde_json::from_str(&response.text().await.expect("/stats")).expect("/stats is JSON")
        });
        stats["methods"].as_array().expect("methods").iter().map(|m| m.as_str().unwrap_or("").to_owned()).collect()
    };
    let run = |what: &str| {
        let mut command = Command::new(env!("CARGO_BIN_EXE_mcp-edge"));
        command.args([url.as_str(), "tools"]).env("XDG_CACHE_HOME", &cache).env_remove("RUST_LOG");
        let done = run_to_end(command, DEADLINE, what);
        assert_eq!(done.code, Some(0), "{what}: {}", done.stderr);
    };
    run("the first run");
    let first = methods();
    assert_eq!(first.first().map(String::as_str), Some("server/discover"), "the first run probes: {first:?}");
    assert!(cache.join("mcp-edge/verdicts.json").is_file());
    run("the second run");
    let second = methods()[first.len()..].to_vec();
    println!("first run: {first:?}\nsecond run: {second:?}");
    assert_eq!(second.first().map(String::as_str), Some("initialize"), "{second:?}");
    assert!(!second.iter().any(|m| m == "server/discover"), "the second run probed again: {second:?}");
}
