//! Real MCP servers the test suites talk to, started on loopback for the
//! length of a step and killed when dropped.

use crate::util::{Res, root};
use std::net::{TcpListener, TcpStream};
use std::process::{Child, Command, Stdio};
use std::thread;
use std::time::{Duration, Instant};

/// A server process on 127.0.0.1.
pub struct Peer {
    child: Child,
    /// The MCP endpoint.
    pub url: String,
}

impl Peer {
    /// server-everything in Streamable HTTP mode (it sends CORS headers, so
    /// the browser tests' cross-origin page can reach it).
    pub fn everything_http() -> Res<Peer> {
        let script = root().join("tests/peers/node_modules/@modelcontextprotocol/server-everything/dist/index.js");
        if !script.is_file() {
            return Err(format!("{} is missing: setup did not install the test peers", script.display()));
        }
        let port = free_port()?;
        let mut command = Command::new("node");
        command.arg(&script).arg("streamableHttp").env("PORT", port.to_string());
        Peer::start(command, port, "/mcp")
    }

    /// tests/peers/chaos-server.mjs: cuts SSE streams at random byte
    /// offsets (seeded), with a short `retry`, and CORS for the browser.
    pub fn chaos_http() -> Res<Peer> {
        let port = free_port()?;
        let mut command = Command::new("node");
        command
            .arg(root().join("tests/peers/chaos-server.mjs"))
            .env("PORT", port.to_string())
            .env("CHAOS_CUT_POST", "0.6")
            .env("CHAOS_CUT_GET", "0.3")
            .env("CHAOS_RETRY_MS", "20")
            .env("CHAOS_SEED", "7")
            // A browser drops body bytes it has queued but not yet handed to
            // the page when the connection then breaks (the Streams spec
            // discards an errored stream's queue), so events need a moment
            // between them for a cut to land after, not on, the one before.
            .env("CHAOS_EVENT_GAP_MS", "10")
            // For the same reason a POST stream delivers eight events before
            // it may be cut: a page busy with a dozen streams lost every event
            // of a stream cut after one (and, rarely, after three), leaving no
            // id to resume from.
            .env("CHAOS_POST_MIN_EVENTS", "8");
        Peer::start(command, port, "/mcp")
    }

    /// tests/peers/fault-server.mjs: the fault catalog, one misbehaving
    /// server per path (CORS for the browser). The URL is the base: the
    /// runners read `/modes` and reach `/mode/<name>/mcp`.
    pub fn faults_http() -> Res<Peer> {
        let port = free_port()?;
        let mut command = Command::new("node");
        command.arg(root().join("tests/peers/fault-server.mjs")).env("PORT", port.to_string());
        Peer::start(command, port, "")
    }

    /// tests/peers/harden-server.mjs: the misbehaving modes of issue 19,
    /// chosen by path (the URL is the bare origin).
    pub fn harden_http() -> Res<Peer> {
        let port = free_port()?;
        let mut command = Command::new("node");
        command.arg(root().join("tests/peers/harden-server.mjs")).env("PORT", port.to_string());
        Peer::start(command, port, "")
    }

    /// server-everything in legacy HTTP+SSE mode (2024-11-05): the stream is
    /// GET /sse, messages go to the endpoint it names. It sends CORS headers.
    pub fn everything_sse() -> Res<Peer> {
        let script = root().join("tests/peers/node_modules/@modelcontextprotocol/server-everything/dist/index.js");
        if !script.is_file() {
            return Err(format!("{} is missing: setup did not install the test peers", script.display()));
        }
        let port = free_port()?;
        let mut command = Command::new("node");
        command.arg(&script).arg("sse").env("PORT", port.to_string());
        Peer::start(command, port, "/sse")
    }

    /// tests/peers/era_python_http_server.py: the Python SDK (`mcp` 2.3.0)
    /// over Streamable HTTP, serving 2026-07-28 and the handshake era on one
    /// endpoint, with CORS that allows the new `Mcp-*` headers.
    pub fn python_http() -> Res<Peer> {
        Peer::python_http_with(false)
    }

    /// The same server with a handshake-era CORS allowlist (no `Mcp-Method`,
    /// `Mcp-Name`, `Mcp-Param-*`), as an old deployment would have.
    pub fn python_http_strict_cors() -> Res<Peer> {
        Peer::python_http_with(true)
    }

    fn python_http_with(strict_cors: bool) -> Res<Peer> {
        let python = root().join(crate::setup::PYTHON_VENV).join("bin").join("python");
        if !python.is_file() {
            return Err(format!("{} is missing: setup did not make the test peers' venv", python.display()));
        }
        let port = free_port()?;
        let mut command = Command::new(python);
        command.arg(root().join("tests/peers/era_python_http_server.py")).env("PORT", port.to_string());
        if strict_cors {
            command.env("MCP_PEER_STRICT_CORS", "1");
        }
        Peer::start(command, port, "/mcp")
    }

    /// tests/peers/rmcp-server (`rmcp-peer http`): rmcp 3.11.0, the official
    /// Rust SDK, over Streamable HTTP, serving 2026-07-28 and the handshake
    /// era on one endpoint, with CORS for any origin that mirrors the
    /// requested headers.
    pub fn rmcp_http() -> Res<Peer> {
        let binary = root().join(crate::setup::RMCP_PEER_BIN);
        if !binary.is_file() {
            return Err(format!("{} is missing: setup did not build the rmcp test peer", binary.display()));
        }
        let port = free_port()?;
        let mut command = Command::new(binary);
        command.arg("http").env("PORT", port.to_string());
        Peer::start(command, port, "/mcp")
    }

    fn start(mut command: Command, port: u16, path: &str) -> Res<Peer> {
        let child = command
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("cannot start a test server: {e}"))?;
        let mut peer = Peer { child, url: format!("http://127.0.0.1:{port}{path}") };
        let started = Instant::now();
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            if let Ok(Some(status)) = peer.child.try_wait() {
                return Err(format!("the test server exited before listening ({status})"));
            }
            if started.elapsed() > Duration::from_secs(30) {
                return Err(format!("the test server did not listen on port {port} within 30 s"));
            }
            thread::sleep(Duration::from_millis(50));
        }
        println!("started test server at {}", peer.url);
        Ok(peer)
    }
}

impl Drop for Peer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn free_port() -> Res<u16> {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .map(|address| address.port())
        .map_err(|e| format!("no free port on 127.0.0.1: {e}"))
}

/// The servers the wasm test suites (test::WASM_TESTS) reach, each named by
/// the variable that carries its URL into the suites. A page cannot read
/// the environment, so the suites take the URLs at compile time
/// (`option_env!`): the variables must be set for the build, which
/// `wasm-pack test` runs, not only for the run.
pub struct BrowserPeers {
    peers: Vec<(&'static str, Peer)>,
}

impl BrowserPeers {
    pub fn start() -> Res<BrowserPeers> {
        let peers = vec![
            ("MCP_EDGE_TEST_SERVER_URL", Peer::everything_http()?),
            ("MCP_EDGE_TEST_CHAOS_URL", Peer::chaos_http()?),
            ("MCP_EDGE_TEST_LEGACY_URL", Peer::everything_sse()?),
            // The Python SDK over Streamable HTTP, dual-era (2026-07-28 and
            // the handshake era on one endpoint); and the same with a
            // handshake-era CORS allowlist, which refuses the probe's
            // `Mcp-Method` preflight.
            ("MCP_EDGE_TEST_MODERN_URL", Peer::python_http()?),
            ("MCP_EDGE_TEST_STRICT_CORS_URL", Peer::python_http_strict_cors()?),
            // rmcp's server (Rust), dual-era too.
            ("MCP_EDGE_TEST_RMCP_URL", Peer::rmcp_http()?),
            // The fault catalog (base URL; modes at /mode/<name>/mcp).
            ("MCP_EDGE_TEST_FAULTS_URL", Peer::faults_http()?),
            ("MCP_EDGE_TEST_HARDEN_URL", Peer::harden_http()?),
        ];
        Ok(BrowserPeers { peers })
    }

    /// (variable, URL) for each server.
    pub fn env(&self) -> impl Iterator<Item = (&'static str, &str)> {
        self.peers.iter().map(|(name, peer)| (*name, peer.url.as_str()))
    }
}

/// Where `cargo xtask peers` writes the `export` lines (relative to the root).
pub const PEERS_ENV: &str = "target/test-peers.env";

/// `cargo xtask peers`: starts the servers of the wasm suites and keeps them
/// up until interrupted, with their URLs as `export` lines in PEERS_ENV, so
/// that `wasm-pack test` can be run by hand in another shell.
/// It installs nothing: each server says what `cargo xtask setup` left out.
pub fn serve() -> Res {
    let peers = BrowserPeers::start()?;
    let lines: String = peers.env().map(|(name, url)| format!("export {name}={url}\n")).collect();
    let file = root().join(PEERS_ENV);
    if let Some(dir) = file.parent() {
        std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    }
    std::fs::write(&file, &lines).map_err(|e| format!("cannot write {}: {e}", file.display()))?;
    println!("\n{lines}");
    println!("(also in {PEERS_ENV}). In another shell, from the repository root:");
    println!("  . {PEERS_ENV}");
    println!("  wasm-pack test --headless --chrome -- --test browser");
    println!("The servers run until this command is interrupted (Ctrl-C).");
    loop {
        thread::sleep(Duration::from_secs(3600));
    }
}
