//! `cargo xtask fuzz`: every fuzz target of fuzz/ (cargo-fuzz, libFuzzer,
//! nightly) for a while each: `FUZZ_SECONDS` (default 20) per target. The
//! committed corpus (fuzz/corpus/<target>) is read, never written: new
//! inputs go to target/fuzz-corpus/<target>. A crash fails the run; its
//! reproducer is in fuzz/artifacts/<target>/ (copy it into fuzz/corpus/ to
//! keep it as a test: `cargo test --lib fuzzing` replays the corpus).

use crate::setup::{self, Step};
use crate::util::{Res, cmd, root, run_echo};
use std::fs;

/// The targets (fuzz/fuzz_targets/<name>.rs), one per parser.
pub const TARGETS: &[&str] = &["sse", "jsonrpc", "www_authenticate", "url", "metadata", "schema", "raw"];

/// Seconds per target unless `FUZZ_SECONDS` says otherwise.
const DEFAULT_SECONDS: u64 = 20;

pub fn fuzz() -> Res {
    setup::setup(&[Step::CargoFuzz])?;
    let seconds = match std::env::var("FUZZ_SECONDS") {
        Ok(value) => value.parse::<u64>().map_err(|_| format!("FUZZ_SECONDS={value:?} is not a number"))?,
        Err(_) => DEFAULT_SECONDS,
    };
    let mut failed = Vec::new();
    for target in TARGETS {
        let scratch = root().join("target").join("fuzz-corpus").join(target);
        fs::create_dir_all(&scratch).map_err(|e| format!("cannot create {}: {e}", scratch.display()))?;
        let mut c = cmd("cargo");
        // The rustup proxy picks nightly; the outer cargo's variables would
        // point cargo-fuzz at the stable toolchain.
        c.env_remove("CARGO").env_remove("RUSTC").env_remove("RUSTUP_TOOLCHAIN");
        c.args(["+nightly", "fuzz", "run", target]).arg(&scratch).arg(root().join("fuzz/corpus").join(target));
        c.args(["--", &format!("-max_total_time={seconds}"), "-rss_limit_mb=2048", "-max_len=65536"]);
        if let Err(e) = run_echo(&mut c) {
            println!("fuzz: {target}: {e}");
            failed.push(*target);
        }
    }
    if failed.is_empty() { Ok(()) } else { Err(format!("fuzz targets that failed: {}", failed.join(", "))) }
}
