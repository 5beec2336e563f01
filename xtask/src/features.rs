//! `cargo xtask features`: the Cargo feature matrix and the Windows build,
//! as `cargo check`s (and the library's unit tests without features), so a
//! feature set that no longer compiles is caught without running the suites;
//! `cargo doc` with `-D warnings` in the four corners (native and wasm32, all
//! features and none) keeps the API docs free of broken or private links.
//! `cargo xtask test` runs both as steps.

use crate::setup::{WASM_TARGET, WINDOWS_TARGET};
use crate::util::{Res, cargo, cmd, display, root};
use std::fs;
use std::io::Write as _;
use std::process::Command;
use std::time::Instant;

/// The features of the root Cargo.toml, `default` left out, in file order.
/// Read from the manifest so a new feature joins the matrix by itself.
pub fn features() -> Res<Vec<String>> {
    let path = root().join("Cargo.toml");
    let manifest = fs::read_to_string(&path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let mut in_table = false;
    let mut names = Vec::new();
    for line in manifest.lines() {
        let line = line.trim_end();
        if line.starts_with('[') && !line.starts_with("[ ") {
            in_table = line == "[features]";
            continue;
        }
        // A key starts the line; continuation lines of an array are indented.
        if !in_table || line.starts_with([' ', '\t', '#', ']']) {
            continue;
        }
        if let Some((key, _)) = line.split_once('=') {
            let key = key.trim();
            if key != "default" && !key.is_empty() {
                names.push(key.to_owned());
            }
        }
    }
    if names.is_empty() {
        return Err(format!("no [features] found in {}", path.display()));
    }
    Ok(names)
}

/// One feature selection: its cargo flags.
fn sets(features: &[String]) -> Vec<Vec<String>> {
    let mut sets = vec![Vec::new(), vec!["--no-default-features".to_owned()]];
    for feature in features {
        sets.push(vec!["--no-default-features".to_owned(), "--features".to_owned(), feature.clone()]);
    }
    sets
}

/// Checks every feature set natively (library, binary, examples; the tests
/// too without features, which is where a missing `required-features` or
/// cfg shows) and for wasm32 (library), then runs the library's unit tests
/// with no features.
pub fn matrix() -> Res {
    let started = Instant::now();
    let features = features()?;
    println!("features: {}", features.join(", "));
    let mut failures = Vec::new();
    let mut check = |target: Option<&str>, targets: &[&str], set: &[String]| {
        let mut c = cmd(cargo());
        c.arg("check").args(targets).args(set);
        if let Some(target) = target {
            c.args(["--target", target]);
        }
        if let Err(e) = run_strict(&mut c) {
            failures.push(e);
        }
    };
    for set in sets(&features) {
        let targets: &[&str] = if set == ["--no-default-features"] {
            &["--lib", "--bins", "--examples", "--tests"]
        } else {
            &["--lib", "--bins", "--examples"]
        };
        check(None, targets, &set);
    }
    for set in sets(&features) {
        // `cli` alone means nothing on wasm32 (the binary is an empty main).
        if set.iter().any(|f| f == "cli") {
            continue;
        }
        check(Some(WASM_TARGET), &["--lib"], &set);
    }
    // The API docs build without a broken or private link, natively and on
    // wasm32, with every feature and with none.
    for target in [None, Some(WASM_TARGET)] {
        for set in [&[][..], &["--no-default-features"][..]] {
            let mut doc = cmd(cargo());
            doc.args(["doc", "--no-deps", "--lib"]).args(set).env("RUSTDOCFLAGS", "-D warnings");
            if let Some(target) = target {
                doc.args(["--target", target]);
            }
            if let Err(e) = run_strict(&mut doc) {
                failures.push(e);
            }
        }
    }
    let mut unit = cmd(cargo());
    unit.args(["test", "--no-default-features", "--lib"]);
    if let Err(e) = run_strict(&mut unit) {
        failures.push(e);
    }
    println!("feature matrix: {:.0}s", started.elapsed().as_secs_f32());
    match failures.len() {
        0 => Ok(()),
        n => Err(format!("{n} feature set(s) failed: {}", failures.join("; "))),
    }
}

/// The native library, and the CLI, cross-checked for Windows (MinGW):
/// nothing unix-only may leak out of a `cfg(unix)`.
pub fn windows() -> Res {
    let mut lib = cmd(cargo());
    lib.args(["check", "--lib", "--target", WINDOWS_TARGET]);
    run_strict(&mut lib)?;
    let mut cli = cmd(cargo());
    cli.args(["check", "--features", "cli", "--bin", "mcp-edge", "--target", WINDOWS_TARGET]);
    run_strict(&mut cli)
}

/// `cargo xtask features`: both of the above.
pub fn features_task() -> Res {
    crate::setup::setup(&[crate::setup::Step::WasmTarget, crate::setup::Step::WindowsTarget])?;
    let matrix = matrix();
    let windows = windows();
    matrix.and(windows)
}

/// Runs a cargo command like `run_echo`, and also fails when our package
/// warned: an unused import under one feature set is how a missing cfg shows.
/// (Not `RUSTFLAGS=-D warnings`: that would rebuild every dependency apart
/// from the test runs' build.)
fn run_strict(c: &mut Command) -> Res {
    let shown = display(c);
    println!("$ {shown}");
    let out = c.output().map_err(|e| format!("could not start `{shown}`: {e}"))?;
    let _ = std::io::stdout().write_all(&out.stdout);
    let _ = std::io::stderr().write_all(&out.stderr);
    let stderr = String::from_utf8_lossy(&out.stderr);
    if !out.status.success() {
        return Err(format!("`{shown}` failed ({})", out.status));
    }
    if stderr.lines().any(|l| l.starts_with("warning: `mcp-edge`") || l.starts_with("warning: `xtask`")) {
        return Err(format!("`{shown}` warned (see above)"));
    }
    Ok(())
}
