//! The native figures of `cargo xtask bench`: sequential and concurrent
//! `tools/call` round trips over stdio, mcp-edge's Rust API vs rmcp 3.11's
//! client, both on one current-thread tokio runtime, against the instant
//! server below (this binary run as `mcp-bench-native serve`), beside the
//! floor: a bare client that writes each request line and reads its reply
//! with blocking pipe I/O and serde_json, and no MCP client at all.
//!
//! `mcp-bench-native run <calls> <rounds> <out.json>` prints one line per
//! figure (medians, ratios) and writes the time of every round (ms) as JSON.
//! Rounds alternate which client goes first so neither always meets a warm
//! or a cold machine.

use std::io::{BufRead, Write};
use std::time::Instant;

use serde_json::{Value, json};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("serve") => serve(),
        Some("run") => {
            let number = |i: usize, default: usize| args.get(i).and_then(|s| s.parse().ok()).unwrap_or(default);
            let runtime = match tokio::runtime::Builder::new_current_thread().enable_all().build() {
                Ok(runtime) => runtime,
                Err(e) => fail(&format!("cannot start a tokio runtime: {e}")),
            };
            let Some(out) = args.get(3) else { fail("usage: mcp-bench-native run <calls> <rounds> <out.json>") };
            let report = runtime.block_on(run(number(1, 2000), number(2, 5)));
            if let Err(e) = std::fs::write(out, format!("{report:#}\n")) {
                fail(&format!("cannot write {out}: {e}"));
            }
        }
        _ => fail("usage: mcp-bench-native serve | run <calls> <rounds> <out.json>"),
    }
}

fn fail(message: &str) -> ! {
    eprintln!("mcp-bench-native: {message}");
    std::process::exit(1)
}

/// An MCP server over stdin/stdout that answers at once: `initialize`,
/// `tools/list` (one tool) and `tools/call` (echoes the arguments).
fn serve() {
    let stdin = std::io::stdin();
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    for line in stdin.lock().lines() {
        let Ok(line) = line else { return };
        let Ok(message) = serde_json::from_str::<Value>(&line) else { continue };
        let (Some(id), Some(method)) = (message.get("id"), message.get("method").and_then(Value::as_str)) else {
            continue; // notifications and responses need no answer
        };
        let result = match method {
            "initialize" => json!({
                "protocolVersion": message["params"]["protocolVersion"].as_str().unwrap_or("2025-06-18"),
                "capabilities": { "tools": {} },
                "serverInfo": { "name": "bench-stdio", "version": "1.0.0" },
            }),
            "tools/list" => json!({ "tools": [{ "name": "echo", "inputSchema": { "type": "object" } }] }),
            "tools/call" => json!({
                "content": [{ "type": "text", "text": message["params"]["arguments"].to_string() }],
            }),
            "ping" => json!({}),
            _ => {
                let error =
                    json!({ "jsonrpc": "2.0", "id": id, "error": { "code": -32601, "message": "no such method" } });
                if writeln!(out, "{error}").and_then(|()| out.flush()).is_err() {
                    return;
                }
                continue;
            }
        };
        let reply = json!({ "jsonrpc": "2.0", "id": id, "result": result });
        if writeln!(out, "{reply}").and_then(|()| out.flush()).is_err() {
            return;
        }
    }
}

fn arguments(i: usize) -> serde_json::Map<String, Value> {
    let mut map = serde_json::Map::new();
    map.insert("text".into(), Value::String(format!("call {i}")));
    map
}

fn server_command() -> (String, Vec<String>) {
    let me = std::env::current_exe().unwrap_or_else(|e| fail(&format!("cannot find this binary: {e}")));
    (me.to_string_lossy().into_owned(), vec!["serve".to_owned()])
}

/// The floor: no client library, no async runtime. A request is a line of
/// JSON written to the server's stdin; its answer is the next stdout line,
/// parsed. Concurrent: one thread writes every line while this one reads.
fn bare(calls: usize) -> Times {
    use std::io::BufReader;
    use std::process::{Command, Stdio};
    let (program, args) = server_command();
    let mut child = Command::new(program)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| fail(&format!("bare: cannot start the server: {e}")));
    let (Some(mut stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
        fail("bare: the server has no pipes");
    };
    let mut stdout = BufReader::new(stdout);
    let request = |i: usize| {
        let message = json!({
            "jsonrpc": "2.0", "id": i, "method": "tools/call",
            "params": { "name": "echo", "arguments": arguments(i) },
        });
        format!("{message}\n")
    };
    let mut line = String::new();
    let mut answer = |stdout: &mut BufReader<_>| {
        line.clear();
        match stdout.read_line(&mut line) {
            Ok(0) => fail("bare: the server closed its stdout"),
            Ok(_) => {}
            Err(e) => fail(&format!("bare: reading the server's stdout: {e}")),
        }
        if serde_json::from_str::<Value>(&line).map_or(true, |reply| reply.get("result").is_none()) {
            fail(&format!("bare: not an answer: {line}"));
        }
    };
    let start = Instant::now();
    for i in 0..calls {
        if let Err(e) = stdin.write_all(request(i).as_bytes()) {
            fail(&format!("bare: writing to the server: {e}"));
        }
        answer(&mut stdout);
    }
    let sequential = start.elapsed().as_secs_f64() * 1e3;
    let start = Instant::now();
    let writer = std::thread::spawn(move || {
        for i in 0..calls {
            if let Err(e) = stdin.write_all(request(i).as_bytes()) {
                fail(&format!("bare: writing to the server: {e}"));
            }
        }
        stdin // closed once the server has answered everything
    });
    for _ in 0..calls {
        answer(&mut stdout);
    }
    let concurrent = start.elapsed().as_secs_f64() * 1e3;
    drop(writer.join());
    let _ = child.wait();
    Times { sequential, concurrent }
}

/// Milliseconds of `calls` sequential and `calls` concurrent calls.
struct Times {
    sequential: f64,
    concurrent: f64,
}

async fn edge(calls: usize) -> Times {
    use mcp_edge::transport::{StdioOptions, StdioTransport};
    let (program, args) = server_command();
    let transport = StdioTransport::spawn(StdioOptions::new(program, args))
        .unwrap_or_else(|e| fail(&format!("mcp-edge: cannot start the server: {e}")));
    let client = mcp_edge::Client::connect(transport, mcp_edge::ClientOptions::new("bench", "1.0.0"))
        .await
        .unwrap_or_else(|e| fail(&format!("mcp-edge: connect: {e}")));
    let start = Instant::now();
    for i in 0..calls {
        if let Err(e) = client.call_tool("echo", Some(arguments(i))).await {
            fail(&format!("mcp-edge: call: {e}"));
        }
    }
    let sequential = start.elapsed().as_secs_f64() * 1e3;
    let start = Instant::now();
    let all = futures::future::join_all((0..calls).map(|i| client.call_tool("echo", Some(arguments(i))))).await;
    let concurrent = start.elapsed().as_secs_f64() * 1e3;
    if let Some(Err(e)) = all.into_iter().find(Result::is_err) {
        fail(&format!("mcp-edge: concurrent call: {e}"));
    }
    client.close().await;
    Times { sequential, concurrent }
}

async fn rmcp_client(calls: usize) -> Times {
    use rmcp::ServiceExt;
    use rmcp::model::CallToolRequestParams;
    let (program, args) = server_command();
    let mut child = tokio::process::Command::new(program)
        .args(args)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap_or_else(|e| fail(&format!("rmcp: cannot start the server: {e}")));
    let (Some(stdout), Some(stdin)) = (child.stdout.take(), child.stdin.take()) else {
        fail("rmcp: the server has no pipes");
    };
    let client = ().serve((stdout, stdin)).await.unwrap_or_else(|e| fail(&format!("rmcp: connect: {e}")));
    let call = |i: usize| {
        let peer = client.peer().clone();
        async move { peer.call_tool(CallToolRequestParams::new("echo").with_arguments(arguments(i))).await }
    };
    let start = Instant::now();
    for i in 0..calls {
        if let Err(e) = call(i).await {
            fail(&format!("rmcp: call: {e}"));
        }
    }
    let sequential = start.elapsed().as_secs_f64() * 1e3;
    let start = Instant::now();
    let all = futures::future::join_all((0..calls).map(call)).await;
    let concurrent = start.elapsed().as_secs_f64() * 1e3;
    if let Some(Err(e)) = all.into_iter().find(Result::is_err) {
        fail(&format!("rmcp: concurrent call: {e}"));
    }
    let _ = client.cancel().await;
    let _ = child.kill().await;
    Times { sequential, concurrent }
}

async fn run(calls: usize, rounds: usize) -> Value {
    let (mut edge_seq, mut edge_con, mut rmcp_seq, mut rmcp_con) = (vec![], vec![], vec![], vec![]);
    let (mut bare_seq, mut bare_con) = (vec![], vec![]);
    for round in 0..rounds {
        let floor = bare(calls);
        bare_seq.push(floor.sequential);
        bare_con.push(floor.concurrent);
        let (a, b) = if round % 2 == 0 {
            let a = edge(calls).await;
            (a, rmcp_client(calls).await)
        } else {
            let b = rmcp_client(calls).await;
            (edge(calls).await, b)
        };
        edge_seq.push(a.sequential);
        edge_con.push(a.concurrent);
        rmcp_seq.push(b.sequential);
        rmcp_con.push(b.concurrent);
    }
    let median = |values: &[f64]| {
        let mut sorted = values.to_vec();
        sorted.sort_by(f64::total_cmp);
        let mid = sorted.len() / 2;
        if sorted.len() % 2 == 1 { sorted[mid] } else { (sorted[mid - 1] + sorted[mid]) / 2.0 }
    };
    let figures = [("sequential", &bare_seq, &edge_seq, &rmcp_seq), ("concurrent", &bare_con, &edge_con, &rmcp_con)];
    for (name, bare, edge, rmcp) in figures {
        let (bare, edge, rmcp) = (median(bare), median(edge), median(rmcp));
        println!(
            "{:<64} bare {bare:.1} ms | rmcp {rmcp:.1} ms ({:.2}x bare) | mcp-edge {edge:.1} ms ({:.2}x bare, {:.2}x rmcp's speed)",
            format!("native   {name} tools/call over stdio (n={calls})"),
            rmcp / bare,
            edge / bare,
            rmcp / edge
        );
    }
    json!({
        "runtime": "native",
        "calls": calls,
        "rounds": rounds,
        "mcp-edge": { "sequential_ms": edge_seq, "concurrent_ms": edge_con },
        "rmcp": { "sequential_ms": rmcp_seq, "concurrent_ms": rmcp_con },
        "bare": { "sequential_ms": bare_seq, "concurrent_ms": bare_con },
    })
}
