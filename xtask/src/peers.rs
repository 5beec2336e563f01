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
        let script = root()
            .join("tests/peers/node_modules/@modelcontextprotocol/server-everything/dist/index.js");
        if !script.is_file() {
            return Err(format!(
                "{} is missing: setup did not install the test peers",
                script.display()
            ));
        }
        let port = free_port()?;
        let mut command = Command::new("node");
        command
            .arg(&script)
            .arg("streamableHttp")
            .env("PORT", port.to_string());
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
            .env("CHAOS_EVENT_GAP_MS", "10");
        Peer::start(command, port, "/mcp")
    }

    /// server-everything in legacy HTTP+SSE mode (2024-11-05): the stream is
    /// GET /sse, messages go to the endpoint it names. It sends CORS headers.
    pub fn everything_sse() -> Res<Peer> {
        let script = root()
            .join("tests/peers/node_modules/@modelcontextprotocol/server-everything/dist/index.js");
        if !script.is_file() {
            return Err(format!(
                "{} is missing: setup did not install the test peers",
                script.display()
            ));
        }
        let port = free_port()?;
        let mut command = Command::new("node");
        command
            .arg(&script)
            .arg("sse")
            .env("PORT", port.to_string());
        Peer::start(command, port, "/sse")
    }

    fn start(mut command: Command, port: u16, path: &str) -> Res<Peer> {
        let child = command
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("cannot start a test server: {e}"))?;
        let mut peer = Peer {
            child,
            url: format!("http://127.0.0.1:{port}{path}"),
        };
        let started = Instant::now();
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            if let Ok(Some(status)) = peer.child.try_wait() {
                return Err(format!(
                    "the test server exited before listening ({status})"
                ));
            }
            if started.elapsed() > Duration::from_secs(30) {
                return Err(format!(
                    "the test server did not listen on port {port} within 30 s"
                ));
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
