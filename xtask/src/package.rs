//! `cargo xtask package`: the npm package `mcp-edge`.
//!
//! `wasm-pack build --target web` makes the base (the wasm32 release build
//! and wasm-bindgen's `mcp_edge.js`, `.d.ts` and `_bg.wasm`); on top of it
//! this task runs wasm-opt and adds what `pkg-config/` holds: a package.json
//! whose `exports` serve pages and bundlers, Node, Deno and workerd (where
//! wasm-pack's names one entry for one target), the npm README and the
//! per-environment entry shims. Then it packs. The layout is a contract
//! other tasks rely on:
//!
//! - `target/npm/pkg/` – the unpacked package (`node.js` is the Node entry);
//! - `target/npm/mcp-edge-<version>.tgz` – the tarball `npm pack` made of it.

use crate::setup::{self, Step};
use crate::util::{Res, capture, cmd, root, run_echo};
use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::Stdio;

/// wasm-bindgen's output name (the lib is `mcp_edge`).
const STEM: &str = "mcp_edge";
/// Placeholder for the version in pkg-config/package.json.
const VERSION_PLACEHOLDER: &str = "0.0.0-set-by-xtask";
/// Files of pkg-config/ copied into the package as they are.
const SHIPPED: &[&str] = &["README.md", "index.js", "index.d.ts", "node.js", "workerd.js"];
/// wasm-opt from the npm package `binaryen` pinned in tests/npm.
const WASM_OPT_NPM: &str = "tests/npm/node_modules/binaryen/bin/wasm-opt";
/// The features rustc enables by default for wasm32-unknown-unknown. The
/// release profile strips the `target_features` section wasm-opt would read
/// them from, so they are named here.
const WASM_FEATURES: &[&str] = &[
    "--enable-bulk-memory",
    "--enable-nontrapping-float-to-int",
    "--enable-sign-ext",
    "--enable-mutable-globals",
    "--enable-multivalue",
    "--enable-reference-types",
];

/// What `build` made.
pub struct Built {
    /// target/npm/pkg
    pub dir: PathBuf,
    /// target/npm/mcp-edge-<version>.tgz
    pub tarball: PathBuf,
}

impl Built {
    pub fn wasm(&self) -> PathBuf {
        self.dir.join(format!("{STEM}_bg.wasm"))
    }
    pub fn glue(&self) -> PathBuf {
        self.dir.join(format!("{STEM}.js"))
    }
}

pub fn package() -> Res {
    let built = build()?;
    println!();
    println!("package: {}", rel(&built.dir));
    let mut files: Vec<PathBuf> = fs::read_dir(&built.dir)
        .map_err(|e| format!("cannot list {}: {e}", built.dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .collect();
    files.sort();
    for file in &files {
        let raw = file_size(file)?;
        println!("  {:<24} {:>9} bytes  {:>8} gzip", name(file), raw, gzip_size(file)?);
    }
    println!("tarball: {} ({} bytes)", rel(&built.tarball), file_size(&built.tarball)?);
    Ok(())
}

/// Builds target/npm/pkg and the tarball (setup of what it needs included).
pub fn build() -> Res<Built> {
    setup::setup(&[Step::WasmTarget, Step::WasmBindgen, Step::WasmPack, Step::Npm])?;
    let version = crate_version()?;
    let npm = root().join("target").join("npm");
    let dir = npm.join("pkg");

    if dir.exists() {
        fs::remove_dir_all(&dir).map_err(|e| format!("cannot remove {}: {e}", dir.display()))?;
    }
    // `--no-pack`: the package.json, README and entries are ours (below).
    // `--no-opt`: wasm-pack would download a wasm-opt; `optimize` runs the
    // pinned one. `--mode no-install`: use the wasm-bindgen-cli setup
    // installed (on PATH, the Cargo.lock version), never download one.
    run_echo(
        cmd("wasm-pack")
            .args(["build", "--target", "web", "--release", "--no-pack", "--no-opt", "--mode", "no-install"])
            .args(["--out-name", STEM, "--out-dir"])
            .arg(&dir),
    )?;
    // wasm-pack leaves a `.gitignore` of `*` in its output; the package
    // lists its files in package.json, and target/ is ignored anyway.
    let _ = fs::remove_file(dir.join(".gitignore"));
    let wasm = dir.join(format!("{STEM}_bg.wasm"));
    optimize(&wasm)?;

    let config = root().join("pkg-config");
    for file in SHIPPED {
        let from = config.join(file);
        fs::copy(&from, dir.join(file)).map_err(|e| format!("cannot copy {}: {e}", from.display()))?;
    }
    let template = config.join("package.json");
    let manifest = fs::read_to_string(&template).map_err(|e| format!("cannot read {}: {e}", template.display()))?;
    if !manifest.contains(VERSION_PLACEHOLDER) {
        return Err(format!("{} has no version placeholder {VERSION_PLACEHOLDER:?}", template.display()));
    }
    let manifest = manifest.replace(VERSION_PLACEHOLDER, &version);
    fs::write(dir.join("package.json"), manifest).map_err(|e| format!("cannot write package.json: {e}"))?;
    for listed in listed_files(&dir.join("package.json"))? {
        if !dir.join(&listed).exists() {
            return Err(format!("package.json lists {listed}, which the build did not make"));
        }
    }

    let tarball = npm.join(format!("mcp-edge-{version}.tgz"));
    let _ = fs::remove_file(&tarball);
    run_echo(cmd("npm").args(["pack", "--pack-destination"]).arg(&npm).current_dir(&dir))?;
    if !tarball.is_file() {
        return Err(format!("npm pack did not make {}", tarball.display()));
    }
    Ok(Built { dir, tarball })
}

/// `wasm-opt -Oz` in place, when a wasm-opt is there (the pinned npm
/// binaryen, else one on PATH). The smaller file by gzip size is kept: that
/// is what travels, and -Oz does not always shrink it.
fn optimize(wasm: &Path) -> Res {
    let npm_tool = root().join(WASM_OPT_NPM);
    let mut c = if npm_tool.is_file() {
        // The npm binaryen's wasm-opt is JavaScript (binaryen built to wasm).
        let mut c = cmd("node");
        c.arg(&npm_tool);
        c
    } else if capture(cmd("wasm-opt").arg("--version")).is_ok() {
        cmd("wasm-opt")
    } else {
        println!("package: no wasm-opt (npm ci in tests/npm installs it): the .wasm is not post-optimized");
        return Ok(());
    };
    let out = wasm.with_extension("opt.wasm");
    c.arg("-Oz").args(WASM_FEATURES).args(["--strip-debug", "--strip-producers"]).arg(wasm).arg("-o").arg(&out);
    run_echo(&mut c)?;
    let (before, after) = ((file_size(wasm)?, gzip_size(wasm)?), (file_size(&out)?, gzip_size(&out)?));
    println!("package: wasm-opt -Oz: {} -> {} bytes, gzip {} -> {}", before.0, after.0, before.1, after.1);
    if after.1 <= before.1 {
        fs::rename(&out, wasm).map_err(|e| format!("cannot replace {}: {e}", wasm.display()))?;
    } else {
        println!("package: keeping wasm-bindgen's .wasm, {} gzip bytes smaller", after.1 - before.1);
        let _ = fs::remove_file(&out);
    }
    Ok(())
}

/// The `version` of the [package] in the root Cargo.toml.
pub fn crate_version() -> Res<String> {
    let path = root().join("Cargo.toml");
    let text = fs::read_to_string(&path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let mut in_package = false;
    for line in text.lines() {
        let line = line.trim();
        if line.starts_with('[') {
            in_package = line == "[package]";
        } else if in_package
            && let Some((key, value)) = line.split_once('=')
            && key.trim() == "version"
        {
            return Ok(value.trim().trim_matches('"').to_string());
        }
    }
    Err(format!("{} has no [package] version", path.display()))
}

/// The entries of `"files": [...]` in a package.json (no JSON parser: the
/// template keeps the list on lines of their own).
fn listed_files(manifest: &Path) -> Res<Vec<String>> {
    let text = fs::read_to_string(manifest).map_err(|e| format!("cannot read {}: {e}", manifest.display()))?;
    let start = text.find("\"files\"").ok_or("package.json has no \"files\"")?;
    let list = &text[start..];
    let list = &list[list.find('[').ok_or("bad \"files\"")? + 1..list.find(']').ok_or("bad \"files\"")?];
    Ok(list.split(',').map(|s| s.trim().trim_matches('"').to_string()).filter(|s| !s.is_empty()).collect())
}

pub fn file_size(path: &Path) -> Res<u64> {
    fs::metadata(path).map(|m| m.len()).map_err(|e| format!("cannot stat {}: {e}", path.display()))
}

/// Bytes of `gzip -9` of the file (the `gzip` program; xtask is std only).
pub fn gzip_size(path: &Path) -> Res<u64> {
    let mut child = cmd("gzip")
        .args(["-9", "-c", "-n"])
        .arg(path)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| format!("cannot start gzip: {e}"))?;
    let mut stdout = child.stdout.take().ok_or("no gzip stdout")?;
    let mut buf = [0u8; 64 * 1024];
    let mut total = 0u64;
    loop {
        match stdout.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => total += n as u64,
            Err(e) => return Err(format!("reading gzip output: {e}")),
        }
    }
    let status = child.wait().map_err(|e| format!("gzip: {e}"))?;
    if !status.success() {
        return Err(format!("gzip {} failed ({status})", path.display()));
    }
    Ok(total)
}

fn name(path: &Path) -> String {
    path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default()
}

/// A path relative to the root, for messages.
pub fn rel(path: &Path) -> String {
    path.strip_prefix(root()).unwrap_or(path).display().to_string()
}
