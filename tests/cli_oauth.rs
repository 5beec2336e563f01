//! The CLI against a server that requires OAuth (tests/peers/oauth-server.mjs),
//! with `--no-browser`: the test plays the user, fetching the printed
//! authorization URL, pressing "Allow" and pasting the final redirect on stdin.
#![cfg(not(target_arch = "wasm32"))]

mod support;

use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

use support::native::{Lines, Server, peers_dir, unique_temp_path};

/// tests/peers/oauth-server.mjs on a port it picks itself (killed when
/// dropped), and its MCP endpoint. Not a port found free beforehand: the two
/// tests here start their servers at once, and two such picks could name
/// the same port, one test then talking to the other's server (and losing
/// it when that test ends).
async fn oauth_server() -> (Server, String) {
    let script = peers_dir().join("oauth-server.mjs").to_string_lossy().into_owned();
    let (server, origin) = Server::announced("node", &[script], Lines::default()).await;
    (server, format!("{origin}/mcp"))
}

/// A configuration directory of its own for one test's CLI runs (not
/// created: the CLI makes it when it stores tokens). A leftover of an
/// earlier process with the same id is removed first.
fn temp_dir() -> std::path::PathBuf {
    let dir = unique_temp_path("cli-oauth");
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

fn spawn_cli(config: &std::path::Path, args: &[&str]) -> Child {
    Command::new(env!("CARGO_BIN_EXE_mcp-edge"))
        .args(args)
        .env("XDG_CONFIG_HOME", config)
        .env("XDG_CACHE_HOME", support::native::fresh_cache_dir())
        .env_remove("RUST_LOG")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// Waits (bounded) for the child; kills it on overrun.
fn wait(mut child: Child, limit: Duration) -> (Option<i32>, String) {
    let started = Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            let mut stdout = String::new();
            child.stdout.take().unwrap().read_to_string(&mut stdout).unwrap();
            return (status.code(), stdout);
        }
        if started.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            panic!("mcp-edge did not finish within {limit:?}");
        }
        thread::sleep(Duration::from_millis(50));
    }
}

/// Plays the user: opens the authorization URL, presses Allow, returns the redirect.
async fn consent(authorize_url: &str) -> String {
    let http = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .timeout(Duration::from_secs(10))
        .build()
        .unwrap();
    let page = http.get(authorize_url).send().await.unwrap().text().await.unwrap();
    let marker = "name=\"request\" value=\"";
    let start = page.find(marker).unwrap_or_else(|| panic!("no consent form: {page}")) + marker.len();
    let id = &page[start..start + page[start..].find('"').unwrap()];
    let origin = &authorize_url[..authorize_url.find("/authorize").unwrap()];
    let decision = http
        .post(format!("{origin}/authorize/decision"))
        .header("content-type", "application/x-www-form-urlencoded")
        .body(format!("request={id}&decision=allow"))
        .send()
        .await
        .unwrap();
    assert_eq!(decision.status().as_u16(), 302);
    decision.headers().get("location").unwrap().to_str().unwrap().to_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_browser_flow_then_stored_tokens() {
    let (_server, url) = oauth_server().await;
    let config = temp_dir();
    let mut child = spawn_cli(&config, &["--no-browser", &url, "tools"]);

    // The authorization URL is printed on stderr.
    let stderr = child.stderr.take().unwrap();
    let (send, receive) = mpsc::channel();
    thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            let _ = send.send(line);
        }
    });
    let started = Instant::now();
    let authorize_url = loop {
        let remaining = Duration::from_secs(20).saturating_sub(started.elapsed());
        let line = receive.recv_timeout(remaining).expect("the authorization URL on stderr");
        if line.starts_with("http") && line.contains("/authorize?") {
            break line;
        }
    };
    assert!(authorize_url.contains("redirect_uri=http%3A%2F%2F127.0.0.1%3A"), "{authorize_url}");
    let location = consent(&authorize_url).await;
    assert!(location.starts_with("http://127.0.0.1:") && location.contains("/callback?code="), "{location}");
    {
        let mut stdin = child.stdin.take().unwrap();
        stdin.write_all(format!("{location}\n").as_bytes()).unwrap();
    }
    let (code, stdout) = tokio::task::spawn_blocking(move || wait(child, Duration::from_secs(30))).await.unwrap();
    assert_eq!(code, Some(0), "{stdout}");
    assert!(stdout.contains("echo"), "{stdout}");
    let remaining: Vec<String> = receive.try_iter().collect();
    assert!(!remaining.iter().any(|l| l.contains("access_token")), "{remaining:?}");

    // The tokens were stored, owner-only, and a second run needs no authorization.
    let dir = config.join("mcp-edge/tokens");
    let files: Vec<_> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()).collect();
    assert_eq!(files.len(), 1, "{files:?}");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        assert_eq!(std::fs::metadata(&dir).unwrap().permissions().mode() & 0o777, 0o700);
        assert_eq!(std::fs::metadata(&files[0]).unwrap().permissions().mode() & 0o777, 0o600);
    }
    let mut again = spawn_cli(&config, &["--no-browser", &url, "tools"]);
    drop(again.stdin.take()); // nothing to paste: a prompt would fail
    let (code, stdout) = tokio::task::spawn_blocking(move || wait(again, Duration::from_secs(30))).await.unwrap();
    assert_eq!(code, Some(0), "{stdout}");
    assert!(stdout.contains("echo"), "{stdout}");
    let _ = std::fs::remove_dir_all(&config);
}

/// The runtime reads the server's output while the test waits for the
/// binary (which blocks the test's own thread).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_auth_store_keeps_nothing_on_disk_and_a_closed_stdin_fails() {
    let (_server, url) = oauth_server().await;
    let config = temp_dir();
    let mut child = spawn_cli(&config, &["--no-browser", "--no-auth-store", &url, "tools"]);
    drop(child.stdin.take());
    let (code, _) = wait(child, Duration::from_secs(30));
    assert_eq!(code, Some(2));
    assert!(!config.exists());
}
