//! `cargo xtask package`: the npm package `mcp-edge`.
//!
//! `wasm-pack build --target web` makes the base twice: the full build
//! (default features: wasm-bindgen's `mcp_edge.js`, `.d.ts` and `_bg.wasm`)
//! and the lite one (`--no-default-features --features js`: the same files
//! named `mcp_edge_lite*`, the `mcp-edge/lite` entry). On top of them this
//! task adds what `pkg-config/` holds: a package.json
//! whose `exports` serve pages and bundlers, Node, Deno and workerd (where
//! wasm-pack's names one entry for one target), the npm README and the
//! per-environment entry shims. Then it packs. The layout is a contract
//! other tasks rely on:
//!
//! - `target/npm/pkg/` – the unpacked package (`node.js` is the Node entry,
//!   `lite-node.js` the lite one);
//! - `target/npm/mcp-edge-<version>.tgz` – the tarball `npm pack` made of it.
//!
//! The wasm is built by the toolchain `SHIPPED_TOOLCHAIN` names (see
//! `Toolchain`); `cargo xtask size` builds it with the other one too.

use crate::setup::{self, Step};
use crate::util::{Res, cmd, root, run_echo, target_dir};
use crate::wasm::order::Shape;
use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::Stdio;

/// wasm-bindgen's output name (the lib is `mcp_edge`).
const STEM: &str = "mcp_edge";
/// The lite build's output name.
const LITE_STEM: &str = "mcp_edge_lite";
/// The Cargo features of the lite build (`--no-default-features` + these):
/// the JS API, Streamable HTTP and OAuth with PKCE; no legacy SSE, no ES256,
/// no grants without a person, no tasks extension, no session snapshots.
const LITE_FEATURES: &str = "js";
/// Features of both builds: `log` compiled out. The JS API installs no
/// logger, so in the package every `log::debug!`/`warn!` was a call that
/// checked a level which is always off, with its message text and module
/// path kept for nothing (about 7 KB gzip of the lite wasm; docs/size.md).
/// A Rust program built for wasm32 with a logger of its own keeps them.
pub const PACKAGE_FEATURES: &str = "log/max_level_off,talc";
/// Placeholder for the version in pkg-config/package.json.
const VERSION_PLACEHOLDER: &str = "0.0.0-set-by-xtask";
/// Files of pkg-config/ copied into the package as they are.
const SHIPPED: &[&str] = &[
    "README.md",
    "index.js",
    "index.d.ts",
    "node.js",
    "node-http.js",
    "workerd.js",
    "lite.js",
    "lite.d.ts",
    "lite-node.js",
    "lite-workerd.js",
];

/// What `build` made.
pub struct Built {
    /// target/npm/pkg
    pub dir: PathBuf,
    /// target/npm/mcp-edge-<version>.tgz
    pub tarball: PathBuf,
}

pub fn package() -> Res {
    let built = build()?;
    println!();
    println!("package: {}", rel(&built.dir));
    let mut files = Vec::new();
    files_under(&built.dir, &mut files)?;
    files.sort();
    for file in &files {
        let raw = file_size(file)?;
        let shown = file.strip_prefix(&built.dir).map(|p| p.display().to_string()).unwrap_or_else(|_| name(file));
        println!("  {shown:<24} {raw:>9} bytes  {:>8} gzip", gzip_size(file)?);
    }
    println!("tarball: {} ({} bytes)", rel(&built.tarball), file_size(&built.tarball)?);
    Ok(())
}

/// Every file under `dir`, in its subfolders too (`snippets/`).
fn files_under(dir: &Path, files: &mut Vec<PathBuf>) -> Res {
    for entry in fs::read_dir(dir).map_err(|e| format!("cannot list {}: {e}", dir.display()))? {
        let path = entry.map_err(|e| format!("cannot list {}: {e}", dir.display()))?.path();
        if path.is_dir() {
            files_under(&path, files)?;
        } else {
            files.push(path);
        }
    }
    Ok(())
}

/// Which compiler builds the package's wasm.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Toolchain {
    /// The default (stable) toolchain, the release profile as it is.
    Stable,
    /// `+nightly` with `-Z build-std`: the standard library rebuilt with
    /// the release profile, panics that abort at once (no message, no
    /// formatting machinery) and no file/line locations (`NIGHTLY_RUSTFLAGS`).
    Nightly,
}

impl Toolchain {
    pub fn name(self) -> &'static str {
        match self {
            Toolchain::Stable => "stable",
            Toolchain::Nightly => "nightly",
        }
    }
    pub fn other(self) -> Toolchain {
        match self {
            Toolchain::Stable => Toolchain::Nightly,
            Toolchain::Nightly => Toolchain::Stable,
        }
    }
}

/// The toolchain the shipped package is built with (the size report shows
/// the other one beside it; docs/size.md says what each bought).
pub const SHIPPED_TOOLCHAIN: Toolchain = Toolchain::Nightly;
/// RUSTFLAGS of the nightly build (this nightly's spelling of
/// `panic_immediate_abort`; `location-detail=none` drops the file names and
/// lines panics would have printed; `fmt-debug=shallow` makes a derived
/// `Debug` print only the type's or variant's name, -3.6 KB gzip of the
/// full wasm. Hand-written `Debug` impls, a string's quoting among them,
/// are untouched: no error message quotes a derived `Debug` other than a
/// unit variant's, and panics print nothing here anyway).
///
/// `-reference-types`: without the wasm feature, wasm-bindgen keeps JS
/// values in a JS array of its glue rather than in a wasm `externref` table,
/// so the module has no table shims per import and no table bookkeeping of
/// its own (-1.6 KB gzip of the lite wasm, +0.3 KB of glue; docs/size.md).
/// The standard library is rebuilt with the same features (`-Z build-std`).
///
/// `-Zcross-crate-inline-threshold=always`: every function is compiled as
/// if marked `#[inline]`, so each crate's functions reach the final
/// (fat-LTO) link as local copies LLVM may specialize or drop, not as
/// exported symbols it must keep whole. Measured -6.9 KB gzip of the lite
/// wasm before the packer's function order, -3.7 KB of the shipped one
/// (with sha2's compact SHA-256; docs/size.md, session 28); a numeric
/// threshold changed nothing at `"z"`, and `never` cost 1.7 KB.
///
/// `-Cllvm-args=-disable-lsr`: no loop strength reduction, LLVM's rewriting
/// of a loop's index arithmetic into pointer increments, which adds
/// induction variables and set-up code to every loop: -1.2 KB gzip of each
/// wasm. In Node, sequential calls, a flood of 20,000 progress
/// notifications and a 1.5 MB result took the same time with and without
/// it (docs/size.md, session 28).
///
/// `-Cllvm-args=-enable-pre=false`: no partial redundancy elimination in
/// GVN, which copies a load or an expression into the branches where it
/// was not yet computed so that a later use needs none: -2.5 KB gzip of the
/// full wasm, -1.6 KB of the lite one, and no slower in the same three
/// measurements. Other LLVM switches measured with it (docs/size.md) took
/// off 100 B or less, or added.
///
/// `-zstack-size=917504` (896 KiB, not the target's 1 MiB): the linker puts
/// the stack first and the static data after it, so with 1 MiB every
/// address of a string or a static is at least 2^20, a 4-byte `i32.const`;
/// below 2^20 (the lite module's data ends near 955,000) it takes 3. Some
/// 2,300 constants: -2.3 KB raw, -409 B gzip of the full wasm, +3 B of the
/// lite one (docs/size.md, session 31). A stack overflow still traps.
///
/// `--cfg mcp_edge_shallow_debug`: what `-Zfmt-debug=shallow` does to derived
/// `Debug` impls, done to the crate's hand-written ones (src/debug.rs):
/// -1.5 KB gzip of the lite wasm (docs/size.md, session 32).
const NIGHTLY_RUSTFLAGS: &str = "-Zunstable-options -Cpanic=immediate-abort -Zlocation-detail=none -Zfmt-debug=shallow \
                                 --cfg mcp_edge_shallow_debug \
                                 -Ctarget-feature=-reference-types -Zcross-crate-inline-threshold=always -Cllvm-args=-disable-lsr \
                                 -Cllvm-args=-enable-pre=false -Clink-arg=-zstack-size=917504";
/// The full build's standard library crates (and its allocator) rebuilt
/// at `opt-level = 3`, not the profile's `"z"`: the prebuilt std of a stable
/// build is optimized for speed, and `-Z build-std` at `"z"` made a flood of
/// 20,000 progress notifications 12-16% slower in Node (hashing, copying,
/// allocation) for 3.5 KB of gzip (docs/speed.md). The crate's own code
/// stays at `"z"`: against an in-process `fetch` (Node), `opt-level = 3`
/// took 12.6 µs off a sequential call of 54 and `"s"` 6.3, for 120 KB and
/// 45 KB more gzip of the full wasm (docs/speed.md, 2026-11-26). The lite
/// build is for weight first: see [`LITE_FOR_SIZE`].
const NIGHTLY_STD_OPT_LEVEL: &[&str] = &[
    "profile.release.package.core.opt-level=3",
    "profile.release.package.alloc.opt-level=3",
    "profile.release.package.std.opt-level=3",
    "profile.release.package.dlmalloc.opt-level=3",
];

/// The lite build keeps everything at the profile's `"z"`, the standard
/// library (nightly) and the allocator (Cargo.toml builds talc at 3) too:
/// -3.0 KB and -1.0 KB of its wasm's gzip, for a flood of progress
/// notifications some 10% slower (docs/size.md, session 26).
const LITE_FOR_SIZE: &[&str] =
    &["profile.release.package.talc.opt-level=\"z\"", "profile.release.package.mcp-edge-alloc.opt-level=\"z\""];

/// Builds target/npm/pkg and the tarball (setup of what it needs included).
pub fn build() -> Res<Built> {
    let dir = build_unpacked(SHIPPED_TOOLCHAIN, "pkg")?;
    let npm = root().join("target").join("npm");
    let tarball = npm.join(format!("mcp-edge-{}.tgz", crate_version()?));
    let _ = fs::remove_file(&tarball);
    run_echo(cmd("npm").args(["pack", "--pack-destination"]).arg(&npm).current_dir(&dir))?;
    if !tarball.is_file() {
        return Err(format!("npm pack did not make {}", tarball.display()));
    }
    Ok(Built { dir, tarball })
}

/// Builds the unpacked package into target/npm/<name> with `toolchain`.
pub fn build_unpacked(toolchain: Toolchain, name: &str) -> Res<PathBuf> {
    setup::setup(&[Step::WasmTarget, Step::WasmBindgen, Step::WasmPack, Step::Npm])?;
    if toolchain == Toolchain::Nightly {
        setup::setup(&[Step::NightlyWasm])?;
    }
    let version = crate_version()?;
    let npm = root().join("target").join("npm");
    let dir = npm.join(name);

    if dir.exists() {
        fs::remove_dir_all(&dir).map_err(|e| format!("cannot remove {}: {e}", dir.display()))?;
    }
    wasm_pack(toolchain, STEM, None, &dir)?;
    shrink(&dir.join(format!("{STEM}_bg.wasm")))?;
    shorten_names(&dir, STEM)?;
    lay_out(&dir.join(format!("{STEM}_bg.wasm")))?;
    // The lite build goes to a directory of its own (wasm-pack writes more
    // than the three files taken from it).
    let lite = npm.join(format!("{name}-lite"));
    let _ = fs::remove_dir_all(&lite);
    wasm_pack(toolchain, LITE_STEM, Some(LITE_FEATURES), &lite)?;
    shrink(&lite.join(format!("{LITE_STEM}_bg.wasm")))?;
    shorten_names(&lite, LITE_STEM)?;
    lay_out(&lite.join(format!("{LITE_STEM}_bg.wasm")))?;
    for suffix in [".js", ".d.ts", "_bg.wasm", "_bg.wasm.d.ts"] {
        let file = format!("{LITE_STEM}{suffix}");
        fs::rename(lite.join(&file), dir.join(&file)).map_err(|e| format!("cannot move {file}: {e}"))?;
    }
    move_snippets(&lite.join(SNIPPETS), &dir.join(SNIPPETS))?;
    let _ = fs::remove_dir_all(&lite);
    // wasm-pack leaves a `.gitignore` of `*` in its output; the package
    // lists its files in package.json, and target/ is ignored anyway.
    let _ = fs::remove_file(dir.join(".gitignore"));

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
    Ok(dir)
}

/// Where wasm-bindgen puts the JS files the crate binds to
/// (`#[wasm_bindgen(module = ...)]`, e.g. src/web/store.js), beside the
/// glue that imports them.
const SNIPPETS: &str = "snippets";

/// The lite build's snippets into the full build's: both glues import them
/// by the same relative path, and the same file may be in both (one copy
/// kept, if they are the same).
fn move_snippets(from: &Path, to: &Path) -> Res {
    if !from.is_dir() {
        return Ok(());
    }
    for entry in fs::read_dir(from).map_err(|e| format!("cannot read {}: {e}", from.display()))? {
        let entry = entry.map_err(|e| format!("cannot read {}: {e}", from.display()))?;
        let (source, target) = (entry.path(), to.join(entry.file_name()));
        if source.is_dir() {
            fs::create_dir_all(&target).map_err(|e| format!("cannot create {}: {e}", target.display()))?;
            move_snippets(&source, &target)?;
        } else if !target.exists() {
            fs::rename(&source, &target).map_err(|e| format!("cannot move {}: {e}", source.display()))?;
        } else if fs::read(&source).ok() != fs::read(&target).ok() {
            return Err(format!("the full and the lite build have different {}", target.display()));
        }
    }
    Ok(())
}

/// `wasm-pack build` of one flavour: the default features, or
/// `--no-default-features --features <features>`.
fn wasm_pack(toolchain: Toolchain, stem: &str, features: Option<&str>, out: &Path) -> Res {
    // Each build has a target directory of its own: the cdylib's file name
    // carries no hash, so the full and the lite build would overwrite each
    // other's and recompile the crate every time; nightly's std and flags
    // would rebuild the stable artefacts and back.
    let base = target_dir();
    let target = match (toolchain, features.is_some()) {
        (Toolchain::Stable, false) => base,
        (Toolchain::Stable, true) => base.join("lite"),
        (Toolchain::Nightly, false) => base.join("nightly"),
        (Toolchain::Nightly, true) => base.join("nightly-lite"),
    };
    let lite = features.is_some();
    let mut args: Vec<String> = match features {
        Some(features) => {
            vec!["--no-default-features".into(), "--features".into(), format!("{features},{PACKAGE_FEATURES}")]
        }
        None => vec!["--features".into(), PACKAGE_FEATURES.into()],
    };
    if lite {
        for setting in LITE_FOR_SIZE {
            args.extend(["--config".into(), setting.to_string()]);
        }
    }
    wasm_pack_crate(toolchain, &root(), stem, &args, &target, out, !lite)
}

/// `wasm-pack build` of the crate in `dir` (the package, or the size
/// floor of `cargo xtask size`) the way the package is built: `toolchain`
/// with its flags, `cargo_args` after them, into `target`, the glue and the
/// wasm named `stem` in `out`; `std_for_speed`: the nightly build's
/// standard library at [`NIGHTLY_STD_OPT_LEVEL`] rather than the
/// profile's `"z"`.
pub fn wasm_pack_crate(
    toolchain: Toolchain,
    dir: &Path,
    stem: &str,
    cargo_args: &[String],
    target: &Path,
    out: &Path,
    std_for_speed: bool,
) -> Res {
    // `--no-pack`: the package.json, README and entries are ours (below).
    // `--no-opt`: wasm-pack would download a wasm-opt and run its `-O`
    // presets; `shrink` runs the pinned one with passes chosen for the
    // compressed size. `--mode no-install`: use the wasm-bindgen-cli setup
    // installed (on PATH, the Cargo.lock version), never download one.
    let mut c = cmd("wasm-pack");
    c.args(["build", "--target", "web", "--release", "--no-pack", "--no-opt", "--mode", "no-install"])
        .args(["--out-name", stem, "--out-dir"])
        .arg(out)
        // After `--` the first word is the crate's directory, the rest goes
        // to `cargo build`.
        .arg("--")
        .arg(dir)
        .args(cargo_args)
        // rustc's `name` section, which the release profile strips, reaches
        // `shrink`: its table pass finds wasm-bindgen's closure shims by name.
        // binaryen then writes no names (no `-g`), so none are shipped.
        .args(["--config", "profile.release.strip=false"])
        .env("CARGO_TARGET_DIR", target);
    if toolchain == Toolchain::Nightly {
        // optimize_for_size: std's smaller variants (sorting, formatting
        // helpers); measured -3,533 B gzip of the full wasm (docs/size.md).
        c.args(["-Z", "build-std=std,panic_abort", "-Z", "build-std-features=optimize_for_size"])
            .env("RUSTUP_TOOLCHAIN", "nightly")
            .env("RUSTFLAGS", NIGHTLY_RUSTFLAGS);
        if std_for_speed {
            for setting in NIGHTLY_STD_OPT_LEVEL {
                c.args(["--config", setting]);
            }
        }
    }
    run_echo(&mut c)
}

/// wasm-opt from the npm package `binaryen` pinned in tests/npm.
const WASM_OPT: &str = "tests/npm/node_modules/binaryen/bin/wasm-opt";
/// The features rustc enables for wasm32-unknown-unknown. The release
/// profile strips the `target_features` section wasm-opt would read them
/// from, so they are named here.
const WASM_FEATURES: &[&str] = &[
    "--enable-bulk-memory",
    "--enable-nontrapping-float-to-int",
    "--enable-sign-ext",
    "--enable-mutable-globals",
    "--enable-multivalue",
    "--enable-reference-types",
];
/// binaryen passes that make the wasm smaller *compressed*, run twice. Its
/// size presets (`-Oz`, `-Os`, `--converge`, `--gufa`) shrink the bytes but
/// grow the gzip and brotli (they inline and merge similar functions,
/// undoing the repetition deflate feeds on); these were chosen one at a time
/// by what each took off the gzip of the nightly full wasm (docs/size.md):
/// together -5.9 KB gzip on either entry, in seconds. With the functions in
/// the order `wasm::order` gives them, `--dae-optimizing` and `--merge-blocks`
/// once cost gzip instead (-440 B of the full wasm without them, -387 of the
/// lite). Measured again in session 36, on a module whose callers changed:
/// `--dae-optimizing` back in takes 110 B off the shipped full entry and 180
/// off the lite one; `--merge-blocks` with it, +562 and -252, stays out.
const SHRINK_PASSES: &[&str] = &[
    "--duplicate-function-elimination",
    "--remove-unused-module-elements",
    "--reorder-locals",
    "--dae-optimizing",
    "--optimize-instructions",
    "--remove-unused-brs",
    "--code-folding",
    "--precompute",
    "--rse",
    "--remove-unused-names",
    "--simplify-locals-nostructure",
    "--vacuum",
];

/// Points the table entries nothing reaches elsewhere (`wasm::table`), then
/// runs `SHRINK_PASSES` (twice) over wasm-bindgen's output, in place.
pub fn shrink(wasm: &Path) -> Res {
    let module = fs::read(wasm).map_err(|e| format!("cannot read {}: {e}", wasm.display()))?;
    let (module, dead) =
        crate::wasm::table::drop_dead_entries(&module).map_err(|e| format!("{}: {e}", wasm.display()))?;
    println!("{}: {dead} table entries nothing reaches, pointed elsewhere", wasm.display());
    fs::write(wasm, module).map_err(|e| format!("cannot write {}: {e}", wasm.display()))?;
    let mut c = cmd(root().join(WASM_OPT));
    c.args(WASM_FEATURES).args(SHRINK_PASSES).args(SHRINK_PASSES).arg(wasm).arg("-o").arg(wasm);
    run_echo(&mut c)
}

/// Lays like functions side by side (`wasm::order`), in place, in whichever
/// of the orders of `wasm::order::shapes` gzip compresses best. Run last (after
/// [`shorten_names`], whose merged imports renumber every function and move
/// the gzip of each order by some hundred bytes). Without `-g` binaryen
/// writes no `name` section, so the names given for the order leave again.
pub fn lay_out(wasm: &Path) -> Res {
    let module = fs::read(wasm).map_err(|e| format!("cannot read {}: {e}", wasm.display()))?;
    // The order of each shape of `wasm::order::shapes`; the one that gzip
    // compresses best is kept (some 0.4 s each).
    let mut best: Option<(Shape, u64, Vec<u8>)> = None;
    let mut largest = 0;
    let (named, laid_out) = (wasm.with_extension("named.wasm"), wasm.with_extension("ordered.wasm"));
    for shape in crate::wasm::order::shapes() {
        let order =
            crate::wasm::order::name_by_likeness(&module, shape).map_err(|e| format!("{}: {e}", wasm.display()))?;
        fs::write(&named, order).map_err(|e| format!("cannot write {}: {e}", named.display()))?;
        let mut c = cmd(root().join(WASM_OPT));
        // The `producers` and `target_features` sections (184 bytes) are read
        // by no runtime and by nothing after this step. The bodies are
        // written through binaryen's Stack IR, optimized as its size presets
        // do it (a shrink level of 1 or more): a `local.set` and `local.get`
        // pair becomes a `local.tee` or nothing, blocks no branch needs go
        // (-0.4 KB gzip of the lite entry, -0.5 KB of the full one; without
        // the presets' other passes, which cost gzip, see SHRINK_PASSES).
        c.args(WASM_FEATURES)
            .args(["--reorder-functions-by-name", "--strip-producers", "--strip-target-features"])
            .args(["--generate-stack-ir", "--optimize-stack-ir", "--shrink-level=1"])
            .arg(&named)
            .arg("-o")
            .arg(&laid_out);
        crate::util::run(&mut c)?;
        let bytes = fs::read(&laid_out).map_err(|e| format!("cannot read {}: {e}", laid_out.display()))?;
        let gzip = gzip_size(&laid_out)?;
        largest = largest.max(gzip);
        if best.as_ref().is_none_or(|(_, smallest, _)| gzip < *smallest) {
            best = Some((shape, gzip, bytes));
        }
    }
    let _ = fs::remove_file(&named);
    let _ = fs::remove_file(&laid_out);
    let (shape, gzip, bytes) = best.ok_or("wasm::order::shapes is empty")?;
    println!("{}: laid out by {shape} ({gzip} B gzip; the other orders up to {largest})", wasm.display());
    fs::write(wasm, bytes).map_err(|e| format!("cannot write {}: {e}", wasm.display()))
}

/// The imports and exports of `<stem>_bg.wasm` renamed to a letter or two
/// (`wasm::imports`, `wasm::exports`), in place, and in its glue `<stem>.js`
/// and its declarations (`<stem>.d.ts`, `<stem>_bg.wasm.d.ts`, where
/// wasm-bindgen wrote them) alike; imports of the same JS function merged.
pub fn shorten_names(dir: &Path, stem: &str) -> Res {
    let (wasm, glue) = (dir.join(format!("{stem}_bg.wasm")), dir.join(format!("{stem}.js")));
    let module = fs::read(&wasm).map_err(|e| format!("cannot read {}: {e}", wasm.display()))?;
    let text = fs::read_to_string(&glue).map_err(|e| format!("cannot read {}: {e}", glue.display()))?;
    let (module, text, merged) =
        crate::wasm::imports::shorten(&module, &text).map_err(|e| format!("{}: {e}", glue.display()))?;
    let declared: Vec<PathBuf> = [format!("{stem}.d.ts"), format!("{stem}_bg.wasm.d.ts")]
        .iter()
        .map(|f| dir.join(f))
        .filter(|f| f.exists())
        .collect();
    let mut declarations = Vec::new();
    for file in &declared {
        declarations.push(fs::read_to_string(file).map_err(|e| format!("cannot read {}: {e}", file.display()))?);
    }
    let (module, text, declarations) =
        crate::wasm::exports::shorten(&module, &text, &declarations).map_err(|e| format!("{}: {e}", glue.display()))?;
    fs::write(&wasm, module).map_err(|e| format!("cannot write {}: {e}", wasm.display()))?;
    for (file, text) in declared.iter().zip(declarations) {
        fs::write(file, text).map_err(|e| format!("cannot write {}: {e}", file.display()))?;
    }
    fs::write(&glue, text).map_err(|e| format!("cannot write {}: {e}", glue.display()))?;
    // Imports that now share a name (the same JS and type) become one.
    println!("{}: {merged} imports the same as one before them, merged", wasm.display());
    if merged == 0 {
        return Ok(());
    }
    let mut c = cmd(root().join(WASM_OPT));
    c.args(WASM_FEATURES).arg("--duplicate-import-elimination").arg(&wasm).arg("-o").arg(&wasm);
    run_echo(&mut c)
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
