//! `cargo xtask setup`: install what the project needs, skipping what is
//! already there so that a second run takes seconds.

use crate::util::{Res, capture, cargo, cmd, exists, is_root, root, run};
use std::fs;
use std::path::Path;
use std::time::SystemTime;

pub const WASM_TARGET: &str = "wasm32-unknown-unknown";
/// The Windows target `cargo xtask test` checks the native library for
/// (cross-compiling with MinGW: ring's build script needs its C compiler).
pub const WINDOWS_TARGET: &str = "x86_64-pc-windows-gnu";
pub const MINGW_GCC: &str = "x86_64-w64-mingw32-gcc";
pub const CHROMIUM: &str = "/usr/bin/chromium";
pub const CHROMEDRIVER: &str = "/usr/bin/chromedriver";
/// Directories (relative to the root) with a package.json + package-lock.json
/// whose node_modules the tests or the demo need. Add more here.
pub const NPM_DIRS: &[&str] = &["tests/peers", "tests/npm", "tests/conformance", OAUTH_BROWSER_DIR];
/// The OAuth browser test's directory (playwright-core, pinned).
pub const OAUTH_BROWSER_DIR: &str = "tests/oauth-browser";
/// The Python virtual environment of the test peers, made from
/// `requirements.txt` beside it (relative to the root).
pub const PYTHON_VENV: &str = "tests/peers/.venv";
/// The wasm-pack `cargo xtask test` and `package` run (`cargo install
/// --locked`). It finds the wasm-bindgen-cli installed below on PATH (same
/// version as Cargo.lock) and ChromeDriver at CHROMEDRIVER, so it downloads
/// nothing.
pub const WASM_PACK_VERSION: &str = "0.15.1";
/// The twiggy `cargo xtask size` uses (`cargo install --locked`).
pub const TWIGGY_VERSION: &str = "0.7.0";
/// The cargo-fuzz the fuzz smoke runs use (`cargo install --locked`), with
/// a nightly toolchain (libFuzzer's sanitizer flags need it; only this tool
/// builds with nightly).
pub const CARGO_FUZZ_VERSION: &str = "0.13.1";
/// The rmcp test peer (a crate with its own workspace and Cargo.lock) and
/// where its release build goes (relative to the root).
pub const RMCP_PEER_MANIFEST: &str = "tests/peers/rmcp-server/Cargo.toml";
pub const RMCP_PEER_TARGET_DIR: &str = "target/rmcp-peer";
/// The binary that build leaves (relative to the root); tests/interop_rmcp.rs
/// and `Peer::rmcp_http` run it.
pub const RMCP_PEER_BIN: &str = "target/rmcp-peer/release/rmcp-peer";

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    /// `rustup target add wasm32-unknown-unknown`
    WasmTarget,
    /// `rustup target add x86_64-pc-windows-gnu` + MinGW-w64 gcc from Debian
    WindowsTarget,
    /// wasm-bindgen-cli at the Cargo.lock version of `wasm-bindgen`
    WasmBindgen,
    /// wasm-pack at WASM_PACK_VERSION
    WasmPack,
    /// Chromium + ChromeDriver from Debian
    Browser,
    /// `npm ci` in every NPM_DIRS entry
    Npm,
    /// `python3 -m venv` + `pip install -r requirements.txt` for PYTHON_VENV
    Python,
    /// twiggy (wasm size profiler, for `cargo xtask size`) at TWIGGY_VERSION
    Twiggy,
    /// the nightly toolchain with the wasm32 target and rust-src (the
    /// package's `-Z build-std` build)
    NightlyWasm,
    /// `cargo build --release` of the rmcp test peer into RMCP_PEER_TARGET_DIR
    RmcpPeer,
    /// a nightly toolchain + cargo-fuzz at CARGO_FUZZ_VERSION (fuzz/)
    CargoFuzz,
}

pub const ALL: &[Step] = &[
    Step::WasmTarget,
    Step::WindowsTarget,
    Step::WasmBindgen,
    Step::WasmPack,
    Step::Browser,
    Step::Npm,
    Step::Python,
    Step::Twiggy,
    Step::NightlyWasm,
    Step::RmcpPeer,
];

/// State shared by the steps of one run.
#[derive(Default)]
struct Ctx {
    apt_updated: bool,
}

/// Runs the given steps in order; every step runs even if an earlier one
/// failed, and the error lists all failures.
pub fn setup(steps: &[Step]) -> Res {
    let mut ctx = Ctx::default();
    let mut failures = Vec::new();
    for &step in steps {
        let result = match step {
            Step::WasmTarget => rust_target(WASM_TARGET),
            Step::WindowsTarget => windows_target(&mut ctx),
            Step::WasmBindgen => wasm_bindgen(),
            Step::WasmPack => wasm_pack(),
            Step::Browser => browser(&mut ctx),
            Step::Npm => npm(&mut ctx),
            Step::Python => python(&mut ctx),
            Step::Twiggy => twiggy(),
            Step::NightlyWasm => nightly_wasm(),
            Step::RmcpPeer => rmcp_peer(),
            Step::CargoFuzz => cargo_fuzz(),
        };
        if let Err(e) = result {
            println!("setup: FAILED: {e}");
            failures.push(e);
        }
    }
    match failures.len() {
        0 => Ok(()),
        1 => Err(failures.remove(0)),
        n => Err(format!("{n} setup steps failed (see above)")),
    }
}

fn line(what: &str, status: &str) {
    println!("setup: {what}: {status}");
}

fn rust_target(target: &str) -> Res {
    let what = format!("rust target {target}");
    let installed = capture(cmd("rustup").args(["target", "list", "--installed"]))
        .map_err(|e| format!("{e} (rustup is needed to add the {target} target; see https://rustup.rs)"))?;
    if installed.lines().any(|l| l.trim() == target) {
        line(&what, "ok");
        return Ok(());
    }
    line(&what, "installing ...");
    run(cmd("rustup").args(["target", "add", target]))
}

/// The nightly toolchain, its wasm32 target and its standard library's
/// sources: what `-Z build-std` needs (the npm package's wasm build; the
/// library itself builds and tests on stable).
fn nightly_wasm() -> Res {
    let what = format!("nightly toolchain with {WASM_TARGET} and rust-src");
    let listed = |args: &[&str]| capture(cmd("rustup").args(["+nightly"]).args(args)).unwrap_or_default();
    let has_target = listed(&["target", "list", "--installed"]).lines().any(|l| l.trim() == WASM_TARGET);
    let has_src = listed(&["component", "list", "--installed"]).lines().any(|l| l.trim().starts_with("rust-src"));
    if has_target && has_src {
        line(&what, "ok");
        return Ok(());
    }
    line(&what, "installing ...");
    let toolchains = capture(cmd("rustup").args(["toolchain", "list"])).unwrap_or_default();
    if !toolchains.lines().any(|l| l.starts_with("nightly")) {
        run(cmd("rustup").args(["toolchain", "install", "nightly", "--profile", "minimal"]))?;
    }
    if !has_target {
        run(cmd("rustup").args(["+nightly", "target", "add", WASM_TARGET]))?;
    }
    run(cmd("rustup").args(["+nightly", "component", "add", "rust-src"]))
}

/// The Windows target and the MinGW C compiler its `cargo check` needs (ring
/// builds C even for a check).
fn windows_target(ctx: &mut Ctx) -> Res {
    rust_target(WINDOWS_TARGET)?;
    let what = format!("MinGW-w64 ({MINGW_GCC})");
    if exists(MINGW_GCC) {
        line(&what, "ok");
        return Ok(());
    }
    line(&what, "installing ...");
    apt_install(ctx, &["gcc-mingw-w64-x86-64"])?;
    if exists(MINGW_GCC) { Ok(()) } else { Err(format!("{MINGW_GCC} still missing after apt-get install")) }
}

/// The version of the `wasm-bindgen` package in Cargo.lock.
pub fn locked_wasm_bindgen() -> Res<String> {
    let path = root().join("Cargo.lock");
    let lock = fs::read_to_string(&path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let mut versions = Vec::new();
    for block in lock.split("[[package]]") {
        let field = |key: &str| {
            block.lines().find_map(|l| {
                let (k, v) = l.split_once('=')?;
                (k.trim() == key).then(|| v.trim().trim_matches('"').to_string())
            })
        };
        if field("name").as_deref() == Some("wasm-bindgen") {
            versions.extend(field("version"));
        }
    }
    versions.sort();
    versions.dedup();
    match versions.as_slice() {
        [v] => Ok(v.clone()),
        [] => Err(format!("{} has no `wasm-bindgen` package", path.display())),
        many => Err(format!("{} has several wasm-bindgen versions: {}", path.display(), many.join(", "))),
    }
}

/// `<tool> --version` -> "0.2.130", or None if missing/unparsable.
fn tool_version(tool: &str) -> Option<String> {
    let out = capture(cmd(tool).arg("--version")).ok()?;
    out.split_whitespace().nth(1).map(str::to_string)
}

fn wasm_bindgen() -> Res {
    let want = locked_wasm_bindgen()?;
    let what = format!("wasm-bindgen-cli {want}");
    let have = |tool| tool_version(tool).as_deref() == Some(want.as_str());
    if have("wasm-bindgen") && have("wasm-bindgen-test-runner") {
        line(&what, "ok");
        return Ok(());
    }
    line(&what, "installing (cargo install, a few minutes) ...");
    // No --locked: one of its locked dependencies is gone from the registry.
    // --force: also repairs an install whose binaries were removed.
    run(cmd(cargo()).args(["install", "wasm-bindgen-cli", "--force", "--version", &want]))?;
    for tool in ["wasm-bindgen", "wasm-bindgen-test-runner"] {
        if !have(tool) {
            return Err(format!(
                "after installing, `{tool} --version` is {:?}, not {want}: another {tool} earlier in PATH?",
                tool_version(tool)
            ));
        }
    }
    Ok(())
}

/// wasm-pack at WASM_PACK_VERSION (`cargo install --locked`, a few minutes).
fn wasm_pack() -> Res {
    let what = format!("wasm-pack {WASM_PACK_VERSION}");
    // `wasm-pack --version` prints "wasm-pack 0.15.1".
    if tool_version("wasm-pack").as_deref() == Some(WASM_PACK_VERSION) {
        line(&what, "ok");
        return Ok(());
    }
    line(&what, "installing (cargo install, a few minutes) ...");
    run(cmd(cargo()).args(["install", "wasm-pack", "--locked", "--force", "--version", WASM_PACK_VERSION]))?;
    match tool_version("wasm-pack") {
        Some(v) if v == WASM_PACK_VERSION => Ok(()),
        other => Err(format!(
            "after installing, `wasm-pack --version` is {other:?}, not {WASM_PACK_VERSION}: another wasm-pack earlier in PATH?"
        )),
    }
}

/// `apt-get install -y <packages>`, with one `apt-get update` per run.
fn apt_install(ctx: &mut Ctx, packages: &[&str]) -> Res {
    let list = packages.join(" ");
    if !is_root() {
        return Err(format!(
            "not root, cannot install Debian packages: run `sudo apt-get update && sudo apt-get install -y {list}` and retry"
        ));
    }
    if !exists("apt-get") {
        return Err(format!("apt-get not found (not Debian?): install {list} by hand and retry"));
    }
    if !ctx.apt_updated {
        run(cmd("apt-get").arg("update").env("DEBIAN_FRONTEND", "noninteractive"))?;
        ctx.apt_updated = true;
    }
    run(cmd("apt-get").args(["install", "-y"]).args(packages).env("DEBIAN_FRONTEND", "noninteractive"))
}

fn browser(ctx: &mut Ctx) -> Res {
    let what = "chromium + chromedriver";
    let missing: Vec<&str> = [CHROMIUM, CHROMEDRIVER].into_iter().filter(|p| !Path::new(p).exists()).collect();
    if missing.is_empty() {
        line(what, "ok");
        return Ok(());
    }
    line(what, &format!("installing (missing {}) ...", missing.join(", ")));
    apt_install(ctx, &["chromium", "chromium-driver"])?;
    match [CHROMIUM, CHROMEDRIVER].into_iter().find(|p| !Path::new(p).exists()) {
        Some(p) => Err(format!("{p} still missing after apt-get install")),
        None => Ok(()),
    }
}

fn mtime(p: &Path) -> Option<SystemTime> {
    fs::metadata(p).and_then(|m| m.modified()).ok()
}

fn npm(ctx: &mut Ctx) -> Res {
    if !exists("npm") {
        line("node + npm", "installing ...");
        apt_install(ctx, &["nodejs", "npm"])?;
    }
    let mut failures = Vec::new();
    // The CLI's shell is tested in a terminal multiplexer (tests/cli_shell.rs).
    if !exists("tmux") {
        line("tmux", "installing ...");
        if let Err(e) = apt_install(ctx, &["tmux"]) {
            failures.push(e);
        }
    }
    for dir in NPM_DIRS {
        let what = format!("npm packages in {dir}");
        let abs = root().join(dir);
        let lock = abs.join("package-lock.json");
        // npm writes node_modules/.package-lock.json at the end of a
        // successful install: a better stamp than the directory itself,
        // which exists after a failed install too.
        let stamp = abs.join("node_modules").join(".package-lock.json");
        let Some(lock_time) = mtime(&lock) else {
            failures.push(format!("{} is missing", lock.display()));
            continue;
        };
        if mtime(&stamp).is_some_and(|t| t >= lock_time) {
            line(&what, "ok");
            continue;
        }
        // A node_modules that is a link to another checkout's: `npm ci` would
        // empty and refill that one, under whoever else is using it.
        if fs::symlink_metadata(abs.join("node_modules")).is_ok_and(|m| m.file_type().is_symlink()) {
            line(&what, "older than package-lock.json, but node_modules is a link: left alone");
            continue;
        }
        line(&what, "installing (npm ci) ...");
        if let Err(e) = run(cmd("npm").args(["ci", "--no-audit", "--no-fund"]).current_dir(&abs)) {
            failures.push(e);
        }
    }
    if failures.is_empty() { Ok(()) } else { Err(failures.join("; ")) }
}

/// The test peers' venv: made with `python3 -m venv` when missing, and
/// `pip install -r requirements.txt` run when the requirements changed since
/// the last successful install (a copy of them in the venv is the stamp).
fn python(ctx: &mut Ctx) -> Res {
    let venv = root().join(PYTHON_VENV);
    let requirements = venv.with_file_name("requirements.txt");
    let what = format!("python packages in {PYTHON_VENV}");
    let wanted =
        fs::read_to_string(&requirements).map_err(|e| format!("cannot read {}: {e}", requirements.display()))?;
    let stamp = venv.join("installed-requirements.txt");
    let python = venv.join("bin").join("python");
    if python.is_file() && fs::read_to_string(&stamp).is_ok_and(|installed| installed == wanted) {
        line(&what, "ok");
        return Ok(());
    }
    if !python.is_file() {
        line(&what, "creating the venv (python3 -m venv) ...");
        if !exists("python3") {
            apt_install(ctx, &["python3", "python3-venv"])?;
        }
        let made = run(cmd("python3").arg("-m").arg("venv").arg(&venv));
        if made.is_err() || !python.is_file() {
            // Debian splits venv (and its pip) into python3-venv.
            let _ = fs::remove_dir_all(&venv);
            apt_install(ctx, &["python3-venv"])?;
            run(cmd("python3").arg("-m").arg("venv").arg(&venv))?;
        }
    }
    line(&what, "installing (pip install -r requirements.txt) ...");
    let _ = fs::remove_file(&stamp);
    run(cmd(&python)
        .args(["-m", "pip", "install", "--quiet", "--disable-pip-version-check", "-r"])
        .arg(&requirements))?;
    fs::write(&stamp, &wanted).map_err(|e| format!("cannot write {}: {e}", stamp.display()))
}

/// twiggy at TWIGGY_VERSION (`cargo install --locked`, about 2 minutes).
fn twiggy() -> Res {
    let what = format!("twiggy {TWIGGY_VERSION}");
    // `twiggy --version` prints "twiggy-opt 0.7.0".
    if tool_version("twiggy").as_deref() == Some(TWIGGY_VERSION) {
        line(&what, "ok");
        return Ok(());
    }
    line(&what, "installing (cargo install, a few minutes) ...");
    run(cmd(cargo()).args(["install", "twiggy", "--locked", "--force", "--version", TWIGGY_VERSION]))?;
    match tool_version("twiggy") {
        Some(v) if v == TWIGGY_VERSION => Ok(()),
        other => Err(format!(
            "after installing, `twiggy --version` is {other:?}, not {TWIGGY_VERSION}: another twiggy earlier in PATH?"
        )),
    }
}

fn cargo_fuzz() -> Res {
    let toolchains = capture(cmd("rustup").args(["toolchain", "list"]))?;
    if toolchains.lines().any(|l| l.starts_with("nightly")) {
        line("rust nightly (for cargo-fuzz)", "ok");
    } else {
        line("rust nightly (for cargo-fuzz)", "installing ...");
        run(cmd("rustup").args(["toolchain", "install", "nightly", "--profile", "minimal"]))?;
    }
    let what = format!("cargo-fuzz {CARGO_FUZZ_VERSION}");
    // `cargo-fuzz --version` prints "cargo-fuzz 0.13.1".
    if tool_version("cargo-fuzz").as_deref() == Some(CARGO_FUZZ_VERSION) {
        line(&what, "ok");
        return Ok(());
    }
    line(&what, "installing (cargo install, a few minutes) ...");
    run(cmd(cargo()).args(["install", "cargo-fuzz", "--locked", "--force", "--version", CARGO_FUZZ_VERSION]))?;
    match tool_version("cargo-fuzz") {
        Some(v) if v == CARGO_FUZZ_VERSION => Ok(()),
        other => Err(format!("after installing, `cargo-fuzz --version` is {other:?}, not {CARGO_FUZZ_VERSION}")),
    }
}

/// The rmcp test peer. Always runs cargo: it is incremental, so an
/// up-to-date build takes a second, and it notices every source change.
/// `--locked`: the peer's Cargo.lock is committed and must not drift.
fn rmcp_peer() -> Res {
    let what = format!("rmcp test peer ({RMCP_PEER_BIN})");
    let first = !root().join(RMCP_PEER_BIN).is_file();
    line(
        &what,
        if first {
            "building (cargo build --release, a few minutes the first time) ..."
        } else {
            "checking (cargo build --release) ..."
        },
    );
    run(cmd(cargo()).args([
        "build",
        "--release",
        "--locked",
        "--manifest-path",
        RMCP_PEER_MANIFEST,
        "--target-dir",
        RMCP_PEER_TARGET_DIR,
    ]))?;
    if root().join(RMCP_PEER_BIN).is_file() {
        Ok(())
    } else {
        Err(format!("the build finished but {RMCP_PEER_BIN} is missing"))
    }
}
