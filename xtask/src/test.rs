//! `cargo xtask test`: setup, then the native and the browser test suites.

use crate::peers::Peer;
use crate::setup::{self, CHROMEDRIVER, WASM_TARGET};
use crate::util::{Res, cargo, cmd, root, run_echo};
use std::fs;
use std::time::{Duration, Instant};

/// Integration tests (tests/<name>.rs) that run in headless Chromium.
pub const WASM_TESTS: &[&str] =
    &["engine", "protocol", "browser", "browser_chaos", "browser_legacy", "browser_stateless"];

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

    summary.step("browser tests (wasm32 in headless Chromium)", || {
        let mut c = cmd(cargo());
        c.args(["test", "--no-fail-fast", "--target", WASM_TARGET]);
        for t in WASM_TESTS {
            c.args(["--test", t]);
        }
        // wasm-bindgen-test-runner picks the browser from CHROMEDRIVER and
        // merges webdriver.json (headless, no sandbox: we may run as root)
        // into the session capabilities. It looks for ./webdriver.json, and
        // cargo runs it from the crate root; the variable makes that explicit.
        c.env("CHROMEDRIVER", CHROMEDRIVER).env("WASM_BINDGEN_TEST_WEBDRIVER_JSON", root().join("webdriver.json"));
        // chromedriver gives each session a fresh profile in $TMPDIR, but the
        // runner kills it without ending the session, so the profile (~12 MB)
        // would stay in /tmp. Give the run its own TMPDIR and remove it after.
        let tmp = root().join("target").join("xtask-tmp").join(std::process::id().to_string());
        fs::create_dir_all(&tmp).map_err(|e| format!("cannot create {}: {e}", tmp.display()))?;
        c.env("TMPDIR", &tmp);
        // The browser tests reach a real server cross-origin; its URL is
        // compiled into the test (`option_env!`), as a page cannot read env.
        let server = Peer::everything_http()?;
        c.env("MCP_EDGE_TEST_SERVER_URL", &server.url);
        let chaos = Peer::chaos_http()?;
        c.env("MCP_EDGE_TEST_CHAOS_URL", &chaos.url);
        let legacy = Peer::everything_sse()?;
        c.env("MCP_EDGE_TEST_LEGACY_URL", &legacy.url);
        // The Python SDK over Streamable HTTP, dual-era (2026-07-28 and the
        // handshake era on one endpoint); and the same with a handshake-era
        // CORS allowlist, which refuses the probe's `Mcp-Method` preflight.
        let modern = Peer::python_http()?;
        c.env("MCP_EDGE_TEST_MODERN_URL", &modern.url);
        let strict = Peer::python_http_strict_cors()?;
        c.env("MCP_EDGE_TEST_STRICT_CORS_URL", &strict.url);
        // rmcp's server (Rust), dual-era too.
        let rmcp = Peer::rmcp_http()?;
        c.env("MCP_EDGE_TEST_RMCP_URL", &rmcp.url);
        let result = run_echo(&mut c);
        drop(server);
        drop(chaos);
        drop(legacy);
        drop(modern);
        drop(strict);
        drop(rmcp);
        let _ = fs::remove_dir_all(&tmp);
        let _ = tmp.parent().map(fs::remove_dir); // only if now empty
        result
    });

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
