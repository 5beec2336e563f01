//! Project tasks, run as `cargo xtask <command>` (alias in .cargo/config.toml).
//! std only, so it builds in a second or two on a fresh machine.

mod bench;
mod conformance;
mod demo;
mod features;
mod floor;
mod fuzz;
mod npm_test;
mod oauth_browser;
mod package;
mod peers;
mod setup;
mod size;
mod test;
mod util;
mod wasm;
mod www;

use std::process::ExitCode;

/// (name, summary, entry point). New subcommands (conformance, package,
/// size, ...) get a module and a row here.
type Task = fn() -> util::Res;
const COMMANDS: &[(&str, &str, Task)] = &[
    (
        "setup",
        "install the wasm32 and Windows targets (+ MinGW), wasm-bindgen-cli, wasm-pack, Chromium + ChromeDriver, npm test peers, twiggy, nightly + rust-src (the package build)",
        || setup::setup(setup::ALL),
    ),
    ("test", "setup, then native tests and wasm tests in headless Chromium (wasm-pack test)", test::test),
    ("features", "cargo check every Cargo feature set (native, wasm32) and the Windows build", features::features_task),
    (
        "peers",
        "start the servers the wasm suites need and print their URLs as `export` lines (for wasm-pack test by hand)",
        peers::serve,
    ),
    (
        "conformance",
        "run every client scenario of the official MCP conformance suites (native and wasm adapters)",
        conformance::conformance,
    ),
    ("demo", "build the CLI and drive the reference MCP server with it", demo::demo),
    ("fuzz", "run every fuzz target of fuzz/ (cargo-fuzz, nightly) for FUZZ_SECONDS each (default 20)", fuzz::fuzz),
    (
        "package",
        "build the npm package (wasm-pack build, then the multi-runtime entries): target/npm/pkg/ and the .tgz",
        package::package,
    ),
    (
        "package-test",
        "pack the npm package and test the tarball in Vite+Chromium (page, worker), Node 22, Deno, workerd",
        npm_test::package_test,
    ),
    (
        "size",
        "build the npm package and report its size (raw, gzip, vs the TS SDK) and largest contributors",
        size::size,
    ),
    (
        "www",
        "build the npm package and serve the www/ inspector page on 127.0.0.1 (with server-everything to try)",
        www::www,
    ),
    (
        "oauth-test",
        "OAuth sign-in through the JS API in headless Chromium: popup, blocked popup, forged state, redirect",
        oauth_browser::oauth_test,
    ),
    (
        "bench",
        "speed side by side: bare fetch, the TS SDK and mcp-edge in Node 22 and Chromium, rmcp natively (--smoke, --quick)",
        bench::bench,
    ),
    (
        "www-test",
        "drive the www/ inspector page in headless Chromium against server-everything; screenshots in target/screenshots/",
        www::www_test,
    ),
];

fn usage() -> String {
    let mut s = String::from("usage: cargo xtask <command>\n\ncommands:\n");
    for (name, about, _) in COMMANDS {
        s.push_str(&format!("  {name:<8} {about}\n"));
    }
    s
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(name) = args.first() else {
        eprint!("{}", usage());
        return ExitCode::from(2);
    };
    if matches!(name.as_str(), "-h" | "--help" | "help") {
        print!("{}", usage());
        return ExitCode::SUCCESS;
    }
    let Some((_, _, task)) = COMMANDS.iter().find(|(n, _, _)| n == name) else {
        eprint!("unknown command `{name}`\n\n{}", usage());
        return ExitCode::from(2);
    };
    // Only `conformance` and `bench` read options (from std::env::args itself).
    if args.len() > 1 && !matches!(name.as_str(), "conformance" | "bench") {
        eprintln!("`cargo xtask {name}` takes no arguments");
        return ExitCode::from(2);
    }
    match task() {
        Ok(()) => {
            println!("xtask {name}: ok");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("xtask {name}: FAILED: {e}");
            ExitCode::FAILURE
        }
    }
}
