//! `cargo xtask demo`: build the CLI and drive the reference MCP server
//! (`@modelcontextprotocol/server-everything`) with it.

use crate::setup::{self, Step};
use crate::util::{Res, cargo, cmd, root, run, run_echo, shell_quote};

const SERVER_JS: &str = "tests/peers/node_modules/@modelcontextprotocol/server-everything/dist/index.js";

pub fn demo() -> Res {
    setup::setup(&[Step::WasmTarget, Step::Npm])?;

    run_echo(cmd(cargo()).args(["build", "--bin", "mcp-edge"]))?;

    let script = root().join(SERVER_JS);
    if !script.exists() {
        return Err(format!("{} is missing (npm ci in tests/peers failed?)", script.display()));
    }
    // SERVER is one command line, split by the CLI with shell rules.
    let server = format!("node {} stdio", shell_quote(&script.to_string_lossy()));
    let cli = root().join("target").join("debug").join("mcp-edge");

    let runs: &[&[&str]] = &[
        &["info"],
        &["tools"],
        &["call", "echo", r#"{"message":"hi"}"#],
        &["call", "trigger-long-running-operation", r#"{"duration":3,"steps":6}"#],
    ];
    let mut failures = Vec::new();
    for args in runs {
        println!();
        // Echo with the relative path, as a user would type it from the root.
        let mut c = cmd(&cli);
        c.arg(&server).args(*args);
        let shown: Vec<String> = std::iter::once("target/debug/mcp-edge".to_string())
            .chain(c.get_args().map(|a| shell_quote(&a.to_string_lossy())))
            .collect();
        println!("$ {}", shown.join(" "));
        if let Err(e) = run(&mut c) {
            println!("demo: FAILED: {e}");
            failures.push(e);
        }
    }
    if failures.is_empty() { Ok(()) } else { Err(format!("{} of {} demo commands failed", failures.len(), runs.len())) }
}
