#![cfg(not(target_arch = "wasm32"))]
//! The fault catalog, natively: every mode of tests/peers/fault-server.mjs
//! (SSE framing, JSON-RPC envelopes, HTTP statuses, content types, codings
//! and redirects, sessions, sizes, timing, the legacy transport,
//! authorization edge cases) through the Rust API, each bounded in time and
//! judged by what the spec implies (tests/support/faults.rs). Prints one
//! line per mode and the score.

mod support;

use std::time::Duration;

use support::faults::{catalog, report, run_all};
use support::native::{Lines, Server, sdk_script_path};
use support::within_for;

/// Modes that fail today for a reason the issue names and another branch
/// fixes: listed with that reason, they are reported but do not fail the
/// suite. A listed mode that passes fails it (take it off the list).
const KNOWN: &[(&str, &str)] = &[];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_fault_mode_behaves_as_the_spec_implies() {
    let _ = env_logger::builder().is_test(true).try_init();
    // The script needs no SDK, but lives with the peers (and their rule).
    let Some(script) = sdk_script_path("fault-server.mjs") else { return };
    let (_server, url) = Server::announced("node", &[script.to_string_lossy().into_owned()], Lines::default()).await;
    let catalog = catalog(&url).await;
    assert!(catalog.modes.len() >= 60, "only {} modes", catalog.modes.len());
    let results = within_for(Duration::from_secs(300), "the fault catalog", run_all(&url, &catalog, |_| true, 6)).await;
    let failed = report("native", &results);
    let unexpected: Vec<&String> = failed.iter().filter(|name| !KNOWN.iter().any(|(known, _)| known == name)).collect();
    let fixed: Vec<&str> =
        KNOWN.iter().map(|(name, _)| *name).filter(|name| !failed.iter().any(|f| f == name)).collect();
    for (name, why) in KNOWN {
        println!("  known   {name}: {why}");
    }
    assert!(unexpected.is_empty(), "modes that misbehave: {unexpected:?}");
    assert!(fixed.is_empty(), "modes listed as known failures now pass (take them off KNOWN): {fixed:?}");
}
