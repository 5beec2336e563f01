#![cfg(not(target_arch = "wasm32"))]
//! The stdio transport against real server processes: the reference
//! `server-everything`, a paginating server on the official SDK, and small
//! misbehaving node scripts in `tests/peers`.

mod support;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use mcp_edge::protocol::{Message, ProtocolVersion};
use mcp_edge::transport::{StdioOptions, StdioTransport};
use mcp_edge::transport::{Transport, TransportError};
use mcp_edge::{Client, ClientOptions, Error, RequestOptions};
use serde_json::{Value, json};
use support::native::{Lines, bounded, everything_index, peers_dir, sdk_script_path};
use support::watched::{Watched, Watcher};
use support::{arguments, texts};

/// server-everything over stdio.
fn everything() -> Option<StdioOptions> {
    let index = everything_index()?;
    Some(StdioOptions::new("node", [index.to_string_lossy().into_owned(), "stdio".to_owned()]))
}

/// One of our own node scripts in tests/peers.
fn script(name: &str) -> StdioOptions {
    StdioOptions::new("node", [peers_dir().join(name).to_string_lossy().into_owned()])
}

/// One of our scripts that import the SDK from `node_modules`.
fn sdk_script(name: &str) -> Option<StdioOptions> {
    Some(StdioOptions::new("node", [sdk_script_path(name)?.to_string_lossy().into_owned()]))
}

fn spawn(options: StdioOptions) -> StdioTransport {
    match StdioTransport::spawn(options) {
        Ok(transport) => transport,
        Err(e) => panic!("could not start the peer (is node installed?): {e}"),
    }
}

fn process_exists(pid: u32) -> bool {
    let pid = libc::pid_t::try_from(pid).expect("a pid fits in pid_t");
    // SAFETY: signal 0 only checks that the process exists.
    let alive = unsafe { libc::kill(pid, 0) } == 0;
    // A zombie still "exists" for kill(0): ESRCH means it was reaped too.
    alive || std::io::Error::last_os_error().raw_os_error() != Some(libc::ESRCH)
}

/// Whether the process is gone (reaped, not a zombie), polling for a while.
async fn process_gone(pid: u32) -> bool {
    let deadline = Instant::now() + Duration::from_secs(5);
    while process_exists(pid) {
        if Instant::now() > deadline {
            return false;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    true
}

fn sigkill(pid: u32) {
    let pid = libc::pid_t::try_from(pid).expect("a pid fits in pid_t");
    // SAFETY: the pid is our live child's; the test kills it on purpose.
    assert_eq!(unsafe { libc::kill(pid, libc::SIGKILL) }, 0, "kill: {}", std::io::Error::last_os_error());
}

/// Counts the `tools/list` requests the client sends.
struct CountsToolsList(Arc<AtomicUsize>);

impl<T> Watcher<T> for CountsToolsList {
    fn sent(&mut self, message: &Message) {
        if let Message::Request(request) = message
            && request.method == "tools/list"
        {
            self.0.fetch_add(1, Ordering::SeqCst);
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn initializes_with_server_everything_and_calls_echo() {
    bounded(async {
        let Some(server) = everything() else { return };
        let transport = spawn(server);
        assert_eq!(transport.kind(), "stdio");
        let client = Client::connect(transport, ClientOptions::default()).await.expect("initialize");
        assert_eq!(client.transport_kind(), "stdio");

        let negotiated = client.negotiated().expect("negotiated after connect");
        assert_eq!(negotiated.version, ProtocolVersion::V2025_11_25);
        assert_eq!(negotiated.version.as_str(), "2025-11-25");
        assert!(!negotiated.result.server_info.name.is_empty(), "the server has no name: {:?}", negotiated.result);

        let result = client.call_tool("echo", arguments(json!({ "message": "hi" }))).await.expect("echo");
        assert!(!result.is_error());
        assert_eq!(texts(&result), "Echo: hi");
        client.close().await;
    })
    .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lists_tools_across_pages_from_an_sdk_server() {
    bounded(async {
        let stderr = Lines::default();
        let collect = stderr.clone();
        let Some(paged) = sdk_script("paged-server.mjs") else { return };
        let transport = spawn(paged.on_stderr(move |line| collect.push(line)));
        let tools_list = Arc::new(AtomicUsize::new(0));
        let counting = Watched { inner: transport, watcher: CountsToolsList(tools_list.clone()) };
        let client = Client::connect(counting, ClientOptions::default()).await.expect("initialize");

        let tools = client.list_all_tools().await.expect("tools/list");
        let names: Vec<&str> = tools.iter().map(|tool| tool.name.as_str()).collect();
        let expected: Vec<String> = (1..=25).map(|i| format!("tool-{i:02}")).collect();
        assert_eq!(names, expected);
        assert_eq!(tools_list.load(Ordering::SeqCst), 3, "one tools/list per page");

        let served = stderr
            .wait_until(Duration::from_secs(5), |lines| lines.iter().filter(|l| l.contains("tools/list")).count() >= 3)
            .await;
        let served: Vec<&String> = served.iter().filter(|l| l.contains("tools/list")).collect();
        assert_eq!(served.len(), 3, "the server saw {served:?}");
        assert!(served[0].ends_with("cursor=none"), "{served:?}");
        client.close().await;
    })
    .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn long_running_tool_reports_progress_then_result() {
    bounded(async {
        let Some(server) = everything() else { return };
        let client = Client::connect(spawn(server), ClientOptions::default()).await.expect("initialize");
        let seen = Arc::new(Mutex::new(Vec::<f64>::new()));
        let record = seen.clone();
        let options = RequestOptions::timeout(Duration::from_secs(30))
            .with_progress(move |progress| record.lock().unwrap().push(progress.progress));

        let result = client
            .call_tool_with("trigger-long-running-operation", arguments(json!({ "duration": 2, "steps": 4 })), options)
            .await
            .expect("the long-running tool");

        assert!(texts(&result).contains("Long running operation completed"), "{result:?}");
        let seen = seen.lock().unwrap().clone();
        assert_eq!(seen.len(), 4, "progress seen: {seen:?}");
        assert!(seen.windows(2).all(|pair| pair[0] < pair[1]), "progress must increase: {seen:?}");
        client.close().await;
    })
    .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_killed_server_fails_the_call_at_once_naming_the_signal() {
    bounded(async {
        let Some(server) = everything() else { return };
        let transport = spawn(server);
        let pid = transport.pid().expect("a running child has a pid");
        let client = Client::connect(transport, ClientOptions::default()).await.expect("initialize");

        let caller = client.clone();
        let call = tokio::spawn(async move {
            caller
                .call_tool_with(
                    "trigger-long-running-operation",
                    arguments(json!({ "duration": 10, "steps": 5 })),
                    RequestOptions::timeout(Duration::from_secs(30)),
                )
                .await
        });
        tokio::time::sleep(Duration::from_millis(500)).await;
        assert!(!call.is_finished(), "the tool answered before the crash: {:?}", call.await);

        sigkill(pid);
        let killed = Instant::now();
        let outcome = call.await.expect("the call task");
        let waited = killed.elapsed();
        assert!(waited < Duration::from_secs(3), "the call failed only after {waited:?}");

        let error = outcome.expect_err("a call to a killed server fails");
        match &error {
            Error::Transport(TransportError::ProcessExited { status, .. }) => {
                assert_eq!(status, "killed by signal 9 (SIGKILL)");
            }
            other => panic!("expected ProcessExited, got {other:?}"),
        }
        let message = error.to_string();
        assert!(message.contains("signal 9") && message.contains("SIGKILL"), "{message}");

        // The session is over: later calls fail at once too.
        let later = client.call_tool("echo", arguments(json!({ "message": "hi" }))).await;
        assert!(matches!(later, Err(Error::Transport(_))), "{later:?}");
        assert!(process_gone(pid).await, "the killed child was not reaped");
        client.close().await;
    })
    .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_crashing_server_reports_its_exit_code_and_stderr_tail() {
    bounded(async {
        let transport = spawn(script("crashy-server.mjs"));
        let client = Client::connect(transport, ClientOptions::default()).await.expect("initialize");

        let started = Instant::now();
        let error = client
            .call_tool_with("anything", None, RequestOptions::timeout(Duration::from_secs(30)))
            .await
            .expect_err("the server exits instead of answering");
        assert!(started.elapsed() < Duration::from_secs(5), "the call failed only after {:?}", started.elapsed());

        match &error {
            Error::Transport(TransportError::ProcessExited { status, stderr_tail }) => {
                assert_eq!(status, "exit code 3");
                assert_eq!(
                    stderr_tail[stderr_tail.len().saturating_sub(2)..],
                    ["crashy: the database is on fire", "crashy: giving up with code 3"],
                    "tail: {stderr_tail:?}"
                );
            }
            other => panic!("expected ProcessExited, got {other:?}"),
        }
        let message = error.to_string();
        for needle in ["exit code 3", "crashy: the database is on fire", "crashy: giving up with code 3"] {
            assert!(message.contains(needle), "{needle:?} missing from: {message}");
        }
        client.close().await;
    })
    .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn close_leaves_no_server_everything_process() {
    bounded(async {
        let Some(server) = everything() else { return };
        let transport = spawn(server);
        let pid = transport.pid().expect("a running child has a pid");
        let client = Client::connect(transport, ClientOptions::default()).await.expect("initialize");
        client.ping().await.expect("ping");

        client.close().await;
        assert!(process_gone(pid).await, "server-everything (pid {pid}) survived close()");
        // Closing again is harmless.
        client.close().await;
        let after = client.ping().await;
        assert!(matches!(after, Err(Error::Transport(_))), "{after:?}");
    })
    .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn close_kills_a_server_that_ignores_stdin_and_sigterm() {
    bounded(async {
        let stderr = Lines::default();
        let collect = stderr.clone();
        let mut options = script("stubborn-server.mjs").on_stderr(move |line| collect.push(line));
        // Graces long enough for a starved node process to log each step.
        options.exit_grace = Duration::from_secs(1);
        options.term_grace = Duration::from_secs(1);
        let transport = spawn(options);
        let pid = transport.pid().expect("a running child has a pid");
        let client = Client::connect(transport, ClientOptions::default()).await.expect("initialize");

        let started = Instant::now();
        client.close().await;
        let took = started.elapsed();
        assert!(process_gone(pid).await, "the stubborn server (pid {pid}) survived close()");
        assert!(took >= Duration::from_millis(1900), "SIGKILL came before both graces ran out ({took:?})");
        assert!(took < Duration::from_secs(10), "close took {took:?}");

        // It saw stdin close first, then SIGTERM, and ignored both.
        let lines = stderr.get();
        let stdin_closed = lines.iter().position(|l| l.contains("ignoring stdin closing"));
        let sigterm = lines.iter().position(|l| l.contains("ignoring SIGTERM"));
        assert!(matches!((stdin_closed, sigterm), (Some(a), Some(b)) if a < b), "stderr: {lines:?}");
    })
    .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dropping_the_transport_kills_the_server() {
    bounded(async {
        let transport = spawn(script("stubborn-server.mjs"));
        let pid = transport.pid().expect("a running child has a pid");
        drop(transport);
        assert!(process_gone(pid).await, "the server (pid {pid}) outlived its transport");
    })
    .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn garbage_on_stdout_is_skipped_and_the_session_keeps_working() {
    bounded(async {
        let notifications = Lines::default();
        let collect = notifications.clone();
        let mut options = script("noisy-server.mjs");
        options.max_line_bytes = 1024;
        let client_options = ClientOptions::default().on_notification(move |notification| {
            let data = notification.params.as_ref().and_then(|p| p.get("data")).and_then(Value::as_str);
            collect.push(data.unwrap_or("?"));
        });
        let client = Client::connect(spawn(options), client_options).await.expect("initialize through the noise");

        for word in ["hello", "again"] {
            let result = client.call_tool("shout", arguments(json!({ "message": word }))).await.expect("tools/call");
            assert_eq!(texts(&result), format!("still here: {word}"));
        }
        // The notification in a batch arrives; the oversized one never does.
        assert_eq!(notifications.get(), ["from a batch", "from a batch"]);
        client.close().await;
    })
    .await
}

#[tokio::test]
async fn a_missing_program_is_a_spawn_error_naming_the_command() {
    let outcome = StdioTransport::spawn(StdioOptions::new("/nonexistent/mcp-server", ["--flag", "two words"]));
    match outcome {
        Err(TransportError::Spawn { command, reason }) => {
            assert_eq!(command, "/nonexistent/mcp-server --flag 'two words'");
            assert!(!reason.is_empty());
        }
        Err(other) => panic!("expected a spawn error, got {other:?}"),
        Ok(transport) => panic!("spawned {transport:?}"),
    }
}
