//! `cargo xtask test`: setup, then the native and the browser test suites.

use crate::peers::BrowserPeers;
use crate::setup::{self, CHROMEDRIVER};
use crate::util::{Res, cargo, cmd, root, run_echo};
use std::fs;
use std::time::{Duration, Instant};

/// Integration tests (tests/<name>.rs) that run in headless Chromium.
pub const WASM_TESTS: &[&str] = &[
    "engine",
    "protocol",
    "browser",
    "browser_chaos",
    "browser_faults",
    "browser_legacy",
    "browser_stateless",
    "browser_harden",
];

pub fn test() -> Res {
    let mut summary = Summary::default();

    summary.step("setup", || setup::setup(setup::ALL));
    if summary.failed() {
        return summary.finish();
    }

    // Fast checks first: every Cargo feature set compiles (and the library's
    // unit tests pass with none), and the native library builds for Windows.
    summary.step("feature matrix (cargo check per feature set, native and wasm32)", crate::features::matrix);
    summary.step("Windows build (cargo check --target x86_64-pc-windows-gnu)", crate::features::windows);

    summary.step("native tests (cargo test --workspace)", || {
        run_echo(cmd(cargo()).args(["test", "--workspace", "--no-fail-fast"]))
    });

    summary.step("browser tests (wasm-pack test --headless --chrome)", browser_tests);

    // No fuzz run here: cargo-fuzz's install and the sanitizer build of the
    // targets cost CI more minutes than its 45-minute budget has left; the
    // committed corpus (and every crash reproducer) is replayed by the
    // library's unit tests above, and `cargo xtask fuzz` runs the fuzzers.

    // The packed npm package (target/npm/mcp-edge-<version>.tgz), installed
    // into a fresh project and run in five real environments.
    summary
        .step("npm package: Vite page + Web Worker in Chromium, Node 22, Deno, workerd", crate::npm_test::package_test);

    // OAuth sign-in (popup and redirect) through the built package, in Chromium.
    summary.step(
        "OAuth in the browser: popup and redirect sign-in (Playwright, headless Chromium)",
        crate::oauth_browser::oauth_test,
    );

    // The www/ inspector page on the built package, driven in Chromium.
    summary.step("www inspector page in headless Chromium", crate::www::www_test);

    // Every client scenario of both official suites, native and wasm
    // adapters; fails on any failure not listed with its reason.
    summary.step("conformance (official suites 0.1.16 and 0.2.0-alpha.12)", crate::conformance::conformance);

    summary.finish()
}

/// Every suite of WASM_TESTS through `wasm-pack test --headless --chrome`,
/// one run per suite so that a failing suite does not hide the next (cargo's
/// `--no-fail-fast` cannot be passed: wasm-pack gives the same arguments to
/// its `cargo build --tests`, which has no such flag). The suites all
/// `run_in_browser`, so `--node` would skip them.
fn browser_tests() -> Res {
    // chromedriver gives each session a fresh profile in $TMPDIR, but the
    // runner kills it without ending the session, so the profile (~12 MB)
    // would stay in /tmp. Give the run its own TMPDIR and remove it after.
    let tmp = root().join("target").join("xtask-tmp").join(std::process::id().to_string());
    fs::create_dir_all(&tmp).map_err(|e| format!("cannot create {}: {e}", tmp.display()))?;
    let result = BrowserPeers::start().and_then(|peers| {
        let mut failed = Vec::new();
        // The library's own wasm-bindgen tests (WebCrypto in `auth::jwt`)
        // run as the suite `--lib`; its plain `#[test]`s run natively above.
        let lib = std::iter::once(LIB_SUITE);
        for suite in lib.chain(WASM_TESTS.iter().copied()) {
            let mut c = wasm_pack_test(suite);
            c.env("TMPDIR", &tmp);
            // The browser tests reach real servers cross-origin; their URLs
            // are compiled into the tests (`option_env!`).
            for (name, url) in peers.env() {
                c.env(name, url);
            }
            if let Err(e) = run_echo(&mut c) {
                println!("browser tests: {suite}: {e}");
                failed.push(suite);
            }
        }
        if failed.is_empty() { Ok(()) } else { Err(format!("failed suites: {}", failed.join(", "))) }
    });
    let _ = fs::remove_dir_all(&tmp);
    let _ = tmp.parent().map(fs::remove_dir); // only if now empty
    result
}

/// The name `wasm_pack_test` gives the library's unit tests.
const LIB_SUITE: &str = "lib";

/// `wasm-pack test --headless --chrome` of one suite (tests/<suite>.rs, or
/// the library's unit tests for LIB_SUITE),
/// the command the README gives. `--mode no-install`: wasm-pack must use
/// the wasm-bindgen-cli setup installed (on PATH, the Cargo.lock version)
/// and fail rather than download one; `--chromedriver`: Debian's, matching
/// its Chromium, rather than one it would download.
fn wasm_pack_test(suite: &str) -> std::process::Command {
    let mut c = cmd("wasm-pack");
    c.args(["test", "--headless", "--chrome", "--mode", "no-install", "--chromedriver", CHROMEDRIVER]);
    if suite == LIB_SUITE {
        c.args(["--", "--lib"]);
    } else {
        c.args(["--", "--test", suite]);
    }
    // wasm-bindgen-test-runner merges webdriver.json (headless, no sandbox:
    // we may run as root) into the session capabilities. It looks for
    // ./webdriver.json, and cargo runs it from the crate root; the variable
    // makes that explicit.
    c.env("WASM_BINDGEN_TEST_WEBDRIVER_JSON", root().join("webdriver.json"));
    // The runner gives a whole suite 20 s by default; the chaos suite's
    // stream cuts and the fault catalog take longer. A cap, not a wait.
    c.env("WASM_BINDGEN_TEST_TIMEOUT", "300");
    c
}

#[derive(Default)]
struct Summary {
    rows: Vec<(String, Result<(), String>, Duration)>,
}

impl Summary {
    fn step(&mut self, name: &str, f: impl FnOnce() -> Res) {
        println!("\n==> {name}");
        let start = Instant::now();
        let result = f();
        self.rows.push((name.to_string(), result, start.elapsed()));
    }

    fn failed(&self) -> bool {
        self.rows.iter().any(|(_, r, _)| r.is_err())
    }

    fn finish(self) -> Res {
        println!("\n==> summary");
        for (name, result, took) in &self.rows {
            let secs = took.as_secs_f32();
            match result {
                Ok(()) => println!("  ok      {name} ({secs:.1}s)"),
                Err(e) => println!("  FAILED  {name} ({secs:.1}s): {e}"),
            }
        }
        let failed = self.rows.iter().filter(|(_, r, _)| r.is_err()).count();
        if failed == 0 { Ok(()) } else { Err(format!("{failed} step(s) failed")) }
    }
}
