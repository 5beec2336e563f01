//! Small helpers shared by the subcommands: paths, running commands, quoting.

use std::env;
use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// Every fallible step reports a human-readable message.
pub type Res<T = ()> = Result<T, String>;

/// The workspace root (the directory holding the root Cargo.toml).
pub fn root() -> PathBuf {
    // `cargo run` sets CARGO_MANIFEST_DIR at run time too; fall back to the
    // compile-time value when the binary is started by hand.
    let xtask_dir = env::var_os("CARGO_MANIFEST_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")));
    xtask_dir.parent().map(Path::to_path_buf).unwrap_or(xtask_dir)
}

/// Cargo's target directory: `CARGO_TARGET_DIR` (a relative one read from
/// the workspace root, where [`cmd`] runs cargo), else `target/`.
pub fn target_dir() -> PathBuf {
    env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .map(|dir| if dir.is_absolute() { dir } else { root().join(dir) })
        .unwrap_or_else(|| root().join("target"))
}

/// The cargo that started us (same toolchain), or `cargo` from PATH.
pub fn cargo() -> OsString {
    env::var_os("CARGO").unwrap_or_else(|| "cargo".into())
}

/// PATH with the `cargo install` bin directories (`$CARGO_INSTALL_ROOT/bin`,
/// `$CARGO_HOME/bin`) in front, so binaries that `cargo install` just put
/// there (wasm-bindgen, wasm-bindgen-test-runner) are found even when the
/// caller's PATH lacks them.
fn path_with_cargo_bin() -> OsString {
    let current = env::var_os("PATH").unwrap_or_default();
    let cargo_home = env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| env::var_os("HOME").map(|h| PathBuf::from(h).join(".cargo")));
    let install_root = env::var_os("CARGO_INSTALL_ROOT").map(PathBuf::from);
    let mut parts: Vec<PathBuf> = env::split_paths(&current).collect();
    for dir in [cargo_home, install_root].into_iter().flatten() {
        let bin = dir.join("bin");
        if !parts.contains(&bin) {
            parts.insert(0, bin);
        }
    }
    env::join_paths(parts).unwrap_or(current)
}

/// A command rooted at the workspace, with no stdin (CI has none) and the
/// extended PATH.
pub fn cmd(program: impl AsRef<OsStr>) -> Command {
    let mut c = Command::new(program);
    c.current_dir(root()).stdin(Stdio::null()).env("PATH", path_with_cargo_bin());
    c
}

/// Runs a command with inherited stdout/stderr; Err if it cannot start or
/// exits non-zero.
pub fn run(c: &mut Command) -> Res {
    let shown = display_args(c);
    let status = c.status().map_err(|e| format!("could not start `{shown}`: {e}"))?;
    if status.success() { Ok(()) } else { Err(format!("`{shown}` failed ({status})")) }
}

/// Prints `$ <command>` and then runs it.
pub fn run_echo(c: &mut Command) -> Res {
    println!("$ {}", display(c));
    run(c)
}

/// Runs a command and returns its stdout; Err if it cannot start or exits
/// non-zero (stderr is included in the message).
pub fn capture(c: &mut Command) -> Res<String> {
    let shown = display_args(c);
    let out = c
        .stderr(Stdio::piped())
        .stdout(Stdio::piped())
        .output()
        .map_err(|e| format!("could not start `{shown}`: {e}"))?;
    if out.status.success() {
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    } else {
        Err(format!("`{shown}` failed ({}): {}", out.status, String::from_utf8_lossy(&out.stderr).trim()))
    }
}

/// Is `program` runnable at all (found and starts)?
pub fn exists(program: &str) -> bool {
    cmd(program).arg("--version").stdout(Stdio::null()).stderr(Stdio::null()).status().is_ok()
}

/// The command line as a user could paste it into a shell, with the
/// environment variables it sets (except PATH).
pub fn display(c: &Command) -> String {
    let envs: Vec<String> = c
        .get_envs()
        .filter(|(k, _)| *k != "PATH")
        .filter_map(|(k, v)| v.map(|v| format!("{}={}", k.to_string_lossy(), shell_quote(&v.to_string_lossy()))))
        .collect();
    if envs.is_empty() { display_args(c) } else { format!("{} {}", envs.join(" "), display_args(c)) }
}

/// Program and arguments only (the cargo that started us shown as `cargo`).
pub fn display_args(c: &Command) -> String {
    let program = c.get_program();
    let program = if Some(program) == env::var_os("CARGO").as_deref() {
        "cargo".to_string()
    } else {
        program.to_string_lossy().into_owned()
    };
    let mut parts = vec![shell_quote(&program)];
    parts.extend(c.get_args().map(|a| shell_quote(&a.to_string_lossy())));
    parts.join(" ")
}

/// POSIX-shell quoting: bare when safe, otherwise single quotes.
pub fn shell_quote(s: &str) -> String {
    let safe = !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || "-_./=:,@%+".contains(c));
    if safe { s.to_string() } else { format!("'{}'", s.replace('\'', r"'\''")) }
}

/// Are we root? (Effective uid from /proc, falling back to `id -u`.)
pub fn is_root() -> bool {
    let from_proc = std::fs::read_to_string("/proc/self/status").ok().and_then(|status| {
        // "Uid:  real effective saved fs"
        let line = status.lines().find(|l| l.starts_with("Uid:"))?;
        Some(line.split_whitespace().nth(2) == Some("0"))
    });
    from_proc.unwrap_or_else(|| capture(cmd("id").arg("-u")).is_ok_and(|s| s.trim() == "0"))
}
