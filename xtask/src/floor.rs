//! The floor of `cargo xtask size`: benches/size-floor, the least a Rust MCP
//! client compiled to wasm can be (JSON-RPC over `fetch`, nothing else),
//! built the way the package is (its toolchain, flags, binaryen passes and
//! import renaming) in two flavours: the JSON-RPC envelope by serde_json,
//! as the package has it, and by the host's `JSON`. Each is checked against
//! the bench server (benches/size-floor/check.mjs) before it is measured:
//! a yardstick that did not work would measure nothing.

use crate::bench::Server;
use crate::package::{self, Toolchain};
use crate::util::{Res, cmd, root, run_echo, target_dir};
use std::fs;
use std::path::{Path, PathBuf};

/// The crate, and wasm-bindgen's output name for it.
const CRATE: &str = "benches/size-floor";
const STEM: &str = "mcp_size_floor";
/// The JS files of a floor package (entries, package.json), from `CRATE/js`.
const ENTRIES: &[&str] = &["index.js", "node.js", "package.json"];

/// One flavour of the floor.
pub struct Flavour {
    /// The name of its entry in the size report.
    pub name: &'static str,
    /// What it is, for the report.
    pub about: &'static str,
    features: &'static [&'static str],
}

pub const FLAVOURS: &[Flavour] = &[
    Flavour { name: "floor-serde", about: "floor, serde_json", features: &["--features", "serde-json"] },
    Flavour { name: "floor-js", about: "floor, host JSON", features: &[] },
];

/// Builds every flavour with `toolchain` into target/size-floor/<name>/ (a
/// package each: the glue, the shrunk wasm, the entries), checks each
/// against the bench server, and returns (flavour, package dir).
pub fn build(toolchain: Toolchain, node22: &Path) -> Res<Vec<(&'static Flavour, PathBuf)>> {
    let out = root().join("target").join("size-floor");
    let base = target_dir();
    let mut built = Vec::new();
    for flavour in FLAVOURS {
        let dir = out.join(flavour.name);
        let _ = fs::remove_dir_all(&dir);
        let args: Vec<String> = flavour.features.iter().map(|s| s.to_string()).collect();
        let target = base.join("size-floor").join(format!("{}-{}", flavour.name, toolchain.name()));
        package::wasm_pack_crate(toolchain, &root().join(CRATE), STEM, &args, &target, &dir, true)?;
        package::shrink(&dir.join(format!("{STEM}_bg.wasm")))?;
        package::shorten_names(&dir, STEM)?;
        package::lay_out(&dir.join(format!("{STEM}_bg.wasm")))?;
        for entry in ENTRIES {
            let from = root().join(CRATE).join("js").join(entry);
            fs::copy(&from, dir.join(entry)).map_err(|e| format!("cannot copy {}: {e}", from.display()))?;
        }
        built.push((flavour, dir));
    }
    let server = Server::start(node22)?;
    let mut check = cmd(node22);
    check.arg(root().join(CRATE).join("check.mjs")).arg(&server.base);
    for (_, dir) in &built {
        check.arg(dir);
    }
    run_echo(&mut check)?;
    Ok(built)
}
