//! The one dependency the shipped wasm builds patch: serde_core's text for
//! an unexpected float.
//!
//! `<serde_core::de::Unexpected as Display>::fmt` prints a float with
//! core's `f64` formatting (`WithDecimalPoint`). In the package its only
//! caller is serde_json's error text, which prints an unexpected float
//! itself (with zmij, already in the module) and hands serde every other
//! kind; but the match is one function of its own, so its float arm, and
//! with it core's float formatting (grisu, dragon and their tables, about
//! 11 KB of wasm), stays in the module for a value it never gets. The
//! crate's own code formats no `f64` (protocol::schema prints numbers as
//! JSON writes them), so this arm is the last path to it: with it patched,
//! the lite wasm is 5.5 KB smaller in gzip and the full one 8.9 KB
//! (docs/size.md, session 27).
//!
//! The patch is made on a copy of the locked serde_core under the target
//! directory, given to cargo as `patch.crates-io` with a copy of Cargo.lock
//! (`resolver.lockfile-path`), so the repository's Cargo.lock and every other
//! build (stable, native, tests) keep the crate as published. If serde_core
//! no longer has the line, the build stops and says so. Cargo then warns
//! that the patch "was not used in the crate graph": that is the standard
//! library's own resolve under `-Z build-std`, which has no serde; the
//! package's graph uses it (the log shows serde_core compiled from the copy).

use crate::util::{Res, capture, cargo, cmd, root, target_dir};
use std::fs;
use std::path::{Path, PathBuf};

/// The line of serde_core's `src/de/mod.rs` that is replaced, and by what:
/// the same words without the value (`WithDecimalPoint` still named, so the
/// crate compiles without a dead-code warning).
const FILE: &str = "src/de/mod.rs";
const LINE: &str = "Float(f) => write!(formatter, \"floating point `{}`\", WithDecimalPoint(f)),";
const PATCHED: &str = "Float(f) => { let _ = WithDecimalPoint(f); formatter.write_str(\"floating point\") }";

/// Cargo arguments (`--config ...`) that build against the patched copy.
pub fn cargo_args() -> Res<Vec<String>> {
    let dir = target_dir().join("patched");
    let source = serde_core_dir()?;
    let name = source.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let copy = dir.join(&name);
    copy_changed(&source, &copy, &copy.join(FILE))?;
    let original = source.join(FILE);
    let text = fs::read_to_string(&original).map_err(|e| format!("cannot read {}: {e}", original.display()))?;
    if text.matches(LINE).count() != 1 {
        return Err(format!(
            "{name}'s {FILE} does not have the line xtask/src/patch.rs replaces, once ({LINE}): \
             see that file, and update or drop the patch"
        ));
    }
    write_changed(&copy.join(FILE), text.replacen(LINE, PATCHED, 1).as_bytes())?;
    // Cargo rewrites the lock file for the patch: a copy takes it (the
    // setting wants a file named Cargo.lock).
    let lock = dir.join("Cargo.lock");
    let locked = root().join("Cargo.lock");
    fs::copy(&locked, &lock).map_err(|e| format!("cannot copy {}: {e}", locked.display()))?;
    Ok(vec![
        "--config".into(),
        format!("patch.crates-io.serde_core.path={}", toml_string(&copy)?),
        "--config".into(),
        format!("resolver.lockfile-path={}", toml_string(&lock)?),
        // Cargo caps the lints of a crate from the registry, not of a path
        // dependency: serde_core's `#![deny(unused_imports)]` would fail the
        // build on `std::ffi::{OsStr, OsString}`, which its `std` feature
        // imports and nothing uses on wasm32. The copy gets
        // the cap the original has (nightly: `-Z profile-rustflags`).
        "-Z".into(),
        "profile-rustflags".into(),
        "--config".into(),
        "profile.release.package.serde_core.rustflags=[\"--cap-lints=allow\"]".into(),
    ])
}

/// The source directory of the serde_core the workspace locks (fetched by
/// `cargo metadata` if it is not yet on the machine).
fn serde_core_dir() -> Res<PathBuf> {
    let metadata = capture(cmd(cargo()).args([
        "metadata",
        "--format-version",
        "1",
        "--locked",
        "--filter-platform",
        "wasm32-unknown-unknown",
    ]))?;
    // xtask has no JSON reader; the manifest paths are plain strings.
    let manifests: Vec<&str> = metadata
        .split("\"manifest_path\":\"")
        .skip(1)
        .filter_map(|rest| rest.split('"').next())
        .filter(|path| {
            Path::new(path).parent().and_then(Path::file_name).is_some_and(|dir| {
                dir.to_string_lossy()
                    .strip_prefix("serde_core-")
                    .is_some_and(|v| v.starts_with(|c: char| c.is_ascii_digit()))
            })
        })
        .collect();
    match manifests.as_slice() {
        [one] => Path::new(one).parent().map(Path::to_path_buf).ok_or_else(|| format!("no directory in {one}")),
        _ => Err(format!("expected one serde_core in `cargo metadata`, found {}", manifests.len())),
    }
}

/// Copies the tree `from` to `to` but the file `skip`, writing only files
/// whose bytes differ, so that cargo does not rebuild serde_core and every
/// crate above it for a copy with new mtimes.
fn copy_changed(from: &Path, to: &Path, skip: &Path) -> Res {
    fs::create_dir_all(to).map_err(|e| format!("cannot create {}: {e}", to.display()))?;
    let entries = fs::read_dir(from).map_err(|e| format!("cannot read {}: {e}", from.display()))?;
    for entry in entries {
        let entry = entry.map_err(|e| format!("cannot read {}: {e}", from.display()))?;
        let (path, target) = (entry.path(), to.join(entry.file_name()));
        if path.is_dir() {
            copy_changed(&path, &target, skip)?;
        } else if target != skip {
            let bytes = fs::read(&path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
            write_changed(&target, &bytes)?;
        }
    }
    Ok(())
}

fn write_changed(path: &Path, bytes: &[u8]) -> Res {
    if fs::read(path).is_ok_and(|old| old == bytes) {
        return Ok(());
    }
    fs::write(path, bytes).map_err(|e| format!("cannot write {}: {e}", path.display()))
}

/// `path` as a TOML basic string.
fn toml_string(path: &Path) -> Res<String> {
    let text = path.to_str().ok_or_else(|| format!("{} is not UTF-8", path.display()))?;
    Ok(format!("\"{}\"", text.replace('\\', "\\\\").replace('"', "\\\"")))
}
