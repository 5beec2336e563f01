//! The host side of the test support: the test peers and server processes.
//!
//! The peers are installed by `cargo xtask setup` (node_modules in
//! tests/peers, the Python venv tests/peers/.venv, rmcp's test server in
//! target/rmcp-peer). One rule for a missing peer, in every file: under CI
//! (env `CI` set) the test fails and says what to install, so a run that
//! checked nothing never passes there; elsewhere the test is skipped with a
//! `skipped ...` line on the terminal.

use std::ffi::OsStr;
use std::future::Future;
use std::io::Write;
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use tokio::io::{AsyncBufReadExt, AsyncRead, BufReader};
use tokio::process::{Child, Command};

use super::within_for;

/// How long one test may take in the suites that bound whole tests.
pub const TEST_LIMIT: Duration = Duration::from_secs(90);

/// Runs a whole test under [`TEST_LIMIT`].
/// `RUST_LOG=mcp_edge=debug cargo test --test X -- --nocapture` shows the
/// library at work.
pub async fn bounded<F: Future>(test: F) -> F::Output {
    let _ = env_logger::builder().is_test(true).try_init();
    within_for(TEST_LIMIT, "the test", test).await
}

/// The repository root (where Cargo.toml is).
pub fn repo_root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// tests/peers: the peer scripts, and what `cargo xtask setup` installs
/// for them.
pub fn peers_dir() -> PathBuf {
    repo_root().join("tests/peers")
}

/// Whether this is a CI run: env `CI` set to anything but "", "0" or
/// "false" (CI services set `CI=true`).
pub fn in_ci() -> bool {
    std::env::var("CI").is_ok_and(|value| !matches!(value.as_str(), "" | "0" | "false"))
}

/// The one rule for a missing peer: `path` if it exists; else a failure
/// under CI, or `None` with a `skipped` line elsewhere. `what` names the
/// peer, `install` says how to get it.
pub fn peer(path: PathBuf, what: &str, install: &str) -> Option<PathBuf> {
    if path.exists() {
        return Some(path);
    }
    missing(&format!("{what} is missing ({}): {install}", path.display()))
}

/// A peer that is not there: fails under CI, else skips (`None`) with a line
/// written straight to the terminal, which the test harness does not
/// capture, so a skip is never silent.
pub fn missing<T>(message: &str) -> Option<T> {
    assert!(!in_ci(), "{message} (under CI a missing test peer fails the test)");
    let thread = std::thread::current();
    let test = thread.name().unwrap_or("a test");
    let _ = writeln!(std::io::stderr(), "skipped {test}: {message}");
    None
}

const SETUP: &str = "run `cargo xtask setup`";

/// tests/peers/node_modules, with the reference server-everything (`npm ci`
/// in tests/peers). Our own node scripts import the SDK from it.
pub fn node_modules() -> Option<PathBuf> {
    let modules = peers_dir().join("node_modules");
    peer(
        modules.join("@modelcontextprotocol/server-everything/dist/index.js"),
        "server-everything (tests/peers/node_modules)",
        &format!("{SETUP} (it runs `npm ci` in tests/peers)"),
    )?;
    Some(modules)
}

/// server-everything's entry point.
pub fn everything_index() -> Option<PathBuf> {
    Some(node_modules()?.join("@modelcontextprotocol/server-everything/dist/index.js"))
}

/// One of our node scripts in tests/peers that import the SDK from
/// node_modules.
pub fn sdk_script_path(name: &str) -> Option<PathBuf> {
    node_modules()?;
    Some(peers_dir().join(name))
}

/// The Python of tests/peers/.venv, which has the Python SDK.
pub fn venv_python() -> Option<PathBuf> {
    peer(
        peers_dir().join(".venv/bin/python"),
        "the Python test peers' venv",
        &format!("{SETUP} (it makes tests/peers/.venv)"),
    )
}

/// A Python 3 for scripts that need no SDK: the venv's, else `python3` on
/// the PATH.
pub fn any_python() -> Option<PathBuf> {
    let venv = peers_dir().join(".venv/bin/python");
    if venv.is_file() {
        return Some(venv);
    }
    let on_path = std::env::var_os("PATH")
        .and_then(|path| std::env::split_paths(&path).map(|dir| dir.join("python3")).find(|p| p.is_file()));
    on_path.or_else(|| missing(&format!("python3 is missing (neither tests/peers/.venv nor on PATH): {SETUP}")))
}

/// rmcp's test server (tests/peers/rmcp-server, built into
/// target/rmcp-peer).
pub fn rmcp_peer() -> Option<PathBuf> {
    peer(
        repo_root().join("target/rmcp-peer/release/rmcp-peer"),
        "rmcp's test server",
        &format!("{SETUP} (its step builds tests/peers/rmcp-server)"),
    )
}

/// A port nobody listens on right now, and one this process has not handed
/// out before: tests start servers on several threads at once, and two
/// ports the system found free a moment apart can be the same one (a test
/// would then talk to another test's server, and lose it when that test
/// ends).
pub fn free_port() -> u16 {
    static GIVEN: Mutex<Vec<u16>> = Mutex::new(Vec::new());
    let mut given = GIVEN.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    for _ in 0..1000 {
        let listener = TcpListener::bind("127.0.0.1:0").expect("binding 127.0.0.1:0");
        let port = listener.local_addr().expect("a bound listener has an address").port();
        if !given.contains(&port) {
            given.push(port);
            return port;
        }
    }
    panic!("the system gave 1000 ports in a row that this process had handed out already")
}

/// Lines a process printed or a callback saw, shared with whoever collects
/// them; optionally shown as they come (`echo` prefix).
#[derive(Clone, Default)]
pub struct Lines {
    lines: Arc<Mutex<Vec<String>>>,
    echo: Option<&'static str>,
}

impl Lines {
    /// Lines that are also printed (`{prefix} {line}`) as they come.
    pub fn echoed(prefix: &'static str) -> Lines {
        Lines { echo: Some(prefix), ..Lines::default() }
    }

    fn locked(&self) -> MutexGuard<'_, Vec<String>> {
        self.lines.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    pub fn push(&self, line: &str) {
        if let Some(prefix) = self.echo {
            eprintln!("{prefix} {line}");
        }
        self.locked().push(line.to_owned());
    }

    pub fn get(&self) -> Vec<String> {
        self.locked().clone()
    }

    /// How many lines so far: a mark to look after.
    pub fn mark(&self) -> usize {
        self.locked().len()
    }

    /// The lines since `mark`.
    pub fn since(&self, mark: usize) -> Vec<String> {
        self.locked().get(mark..).map(<[String]>::to_vec).unwrap_or_default()
    }

    /// The lines, once `enough` says so or `limit` has passed (a pipe may
    /// trail what the test saw elsewhere).
    pub async fn wait_until(&self, limit: Duration, enough: impl Fn(&[String]) -> bool) -> Vec<String> {
        let deadline = Instant::now() + limit;
        loop {
            let lines = self.get();
            if enough(&lines) || Instant::now() > deadline {
                return lines;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    /// What `found` extracts from the first line since `mark` it accepts,
    /// waiting up to `limit`; `None` if no line came.
    pub async fn find_since<T>(&self, mark: usize, limit: Duration, found: impl Fn(&str) -> Option<T>) -> Option<T> {
        let deadline = Instant::now() + limit;
        loop {
            if let Some(value) = self.since(mark).iter().find_map(|line| found(line)) {
                return Some(value);
            }
            if Instant::now() > deadline {
                return None;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    /// Collects every line of `pipe` (until it closes) on a task.
    fn collect(&self, pipe: impl AsyncRead + Send + Unpin + 'static) {
        let lines = self.clone();
        tokio::spawn(async move {
            let mut reader = BufReader::new(pipe).lines();
            while let Ok(Some(line)) = reader.next_line().await {
                lines.push(&line);
            }
        });
    }
}

/// A server process on 127.0.0.1 whose output goes to `output`; killed
/// when dropped.
pub struct Server {
    pub child: Child,
    pub port: u16,
    pub output: Lines,
}

impl Drop for Server {
    fn drop(&mut self) {
        // kill_on_drop does it too; this makes the intent explicit.
        let _ = self.child.start_kill();
    }
}

fn spawn(program: &OsStr, args: &[String], env: &[(&str, &str)]) -> Child {
    Command::new(program)
        .args(args)
        .envs(env.iter().copied())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap_or_else(|e| panic!("could not start {} {args:?} (is it installed?): {e}", program.to_string_lossy()))
}

impl Server {
    /// `program args` with env `PORT` a free port (plus `env`), once it
    /// accepts connections there (at most 30 s; a process that exits first
    /// fails the test with what it printed). Stdout and stderr go to
    /// `output`.
    pub async fn on_free_port(program: impl AsRef<OsStr>, args: &[String], env: &[(&str, &str)]) -> Server {
        // A port can still be taken between the pick and the server's bind
        // (an outgoing connection's local port is drawn from the same range):
        // a server that exits saying so is started again on another port.
        for _ in 0..2 {
            if let Some(server) = Self::try_on_free_port(program.as_ref(), args, env).await {
                return server;
            }
        }
        Self::try_on_free_port(program.as_ref(), args, env).await.unwrap_or_else(|| {
            panic!("{} {args:?}: three ports in a row were taken", program.as_ref().to_string_lossy())
        })
    }

    /// One try of [`Server::on_free_port`]: `None` if the process exited
    /// because its port was in use.
    async fn try_on_free_port(program: &OsStr, args: &[String], env: &[(&str, &str)]) -> Option<Server> {
        let port = free_port();
        let port_text = port.to_string();
        let env: Vec<(&str, &str)> = [("PORT", port_text.as_str())].into_iter().chain(env.iter().copied()).collect();
        let mut child = spawn(program, args, &env);
        let output = Lines::default();
        for pipe in [
            child.stdout.take().map(|p| Box::new(p) as Box<dyn AsyncRead + Send + Unpin>),
            child.stderr.take().map(|p| Box::new(p) as Box<dyn AsyncRead + Send + Unpin>),
        ]
        .into_iter()
        .flatten()
        {
            output.collect(pipe);
        }
        let mut server = Server { child, port, output };
        let what = format!("{} {args:?}", program.to_string_lossy());
        let address = SocketAddr::from(([127, 0, 0, 1], port));
        let deadline = Instant::now() + Duration::from_secs(30);
        while TcpStream::connect_timeout(&address, Duration::from_millis(200)).is_err() {
            if let Ok(Some(status)) = server.child.try_wait() {
                // Let the pipes' readers catch up with what it printed last.
                let output = server.output.wait_until(Duration::from_secs(2), port_in_use).await;
                if port_in_use(&output) {
                    eprintln!("{what}: port {port} was in use; trying another");
                    return None;
                }
                panic!("{what} exited ({status}) before listening: {output:#?}");
            }
            assert!(
                Instant::now() < deadline,
                "{what} is not listening on {address} after 30 s: {:#?}",
                server.output.get()
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        Some(server)
    }

    /// `program args` with env `PORT=0`: it picks a port and prints
    /// `listening <url>` as its first stdout line (within 30 s). The rest of
    /// stdout is read and dropped (so the pipe never fills), stderr goes to
    /// `output`. Returns the server and the URL.
    pub async fn announced(program: impl AsRef<OsStr>, args: &[String], output: Lines) -> (Server, String) {
        let program = program.as_ref();
        let what = format!("{} {args:?}", program.to_string_lossy());
        let mut child = spawn(program, args, &[("PORT", "0")]);
        if let Some(stderr) = child.stderr.take() {
            output.collect(stderr);
        }
        let stdout = child.stdout.take().expect("stdout is piped");
        let mut lines = BufReader::new(stdout).lines();
        let line = within_for(Duration::from_secs(30), &format!("the `listening` line of {what}"), lines.next_line())
            .await
            .unwrap_or_else(|e| panic!("reading the stdout of {what}: {e}"))
            .unwrap_or_else(|| panic!("{what} exited before listening: {:#?}", output.get()));
        let url = line
            .strip_prefix("listening ")
            .unwrap_or_else(|| panic!("{what} printed {line:?}, not `listening <url>`"))
            .trim()
            .to_owned();
        let port = url
            .strip_prefix("http://127.0.0.1:")
            .and_then(|rest| rest.split(['/', '?']).next())
            .and_then(|port| port.parse().ok())
            .unwrap_or_else(|| panic!("{what} listens on {url}, not on http://127.0.0.1:<port>"));
        tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
        (Server { child, port, output }, url)
    }

    /// `http://127.0.0.1:<port><path>`.
    pub fn url(&self, path: &str) -> String {
        format!("http://127.0.0.1:{}{path}", self.port)
    }
}

/// Whether a server's output says its port was taken (Node's and Python's
/// words for it).
fn port_in_use(lines: &[String]) -> bool {
    lines.iter().any(|line| line.contains("EADDRINUSE") || line.contains("Address already in use"))
}

/// Reads a child's pipe to its end on a thread of its own, as text.
pub fn drain(mut pipe: impl std::io::Read + Send + 'static) -> std::thread::JoinHandle<String> {
    std::thread::spawn(move || {
        let mut bytes = Vec::new();
        let _ = pipe.read_to_end(&mut bytes);
        String::from_utf8_lossy(&bytes).into_owned()
    })
}

/// A path under the system's temporary directory that no other test of
/// this process (nor any other process) is given: the process id and a
/// count, not the clock, whose readings two tests starting together on two
/// threads may share. Not created.
pub fn unique_temp_path(tag: &str) -> PathBuf {
    static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    std::env::temp_dir().join(format!("mcp-edge-{tag}-{}-{n}", std::process::id()))
}

/// A new, empty directory for one CLI run's `XDG_CACHE_HOME`: the CLI keeps
/// what servers speak there between runs, and test servers on reused ports
/// must not inherit another test's verdicts.
pub fn fresh_cache_dir() -> PathBuf {
    static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!("mcp-edge-test-cache-{}-{n}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a temporary cache directory");
    dir
}

/// What a finished process printed, as text.
#[derive(Debug)]
pub struct Finished {
    /// Its exit code (`None` if a signal ended it).
    pub code: Option<i32>,
    /// Everything it wrote to stdout.
    pub stdout: String,
    /// Everything it wrote to stderr.
    pub stderr: String,
}

/// Runs `command` with stdin closed and its output captured, to its end;
/// kills it and fails the test after `deadline`. Blocking: the tests that
/// run the CLI call it from their own thread.
pub fn run_to_end(mut command: std::process::Command, deadline: Duration, what: &str) -> Finished {
    if !command.get_envs().any(|(name, _)| name == "XDG_CACHE_HOME" || name == "HOME") {
        command.env("XDG_CACHE_HOME", fresh_cache_dir());
    }
    let mut child = command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("{what} does not start: {e}"));
    let stdout = drain(child.stdout.take().expect("stdout is piped"));
    let stderr = drain(child.stderr.take().expect("stderr is piped"));
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("waiting for the process") {
            break status;
        }
        if started.elapsed() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{what} did not finish within {deadline:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    Finished {
        code: status.code(),
        stdout: stdout.join().expect("stdout reader"),
        stderr: stderr.join().expect("stderr reader"),
    }
}
