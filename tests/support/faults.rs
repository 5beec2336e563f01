//! The fault catalog's runner, shared by the native suite (tests/faults.rs)
//! and the browser one (tests/browser_faults.rs): reads the table of modes
//! from the fault server (`GET /modes`, tests/peers/fault-server.mjs), runs
//! each mode through the Rust API and judges the outcome against what the
//! mode expects. The JS runner (tests/npm/faults.mjs) reads the same table.

use std::time::Duration;

use futures::StreamExt;
use mcp_edge::http::{DefaultHttp, HttpClient, HttpRequest, Method};
use mcp_edge::{Client, ClientOptions, ConnectOptions, EraChoice, Error, TransportChoice, connect_url};
use serde::Deserialize;
use serde_json::json;

use super::{arguments, sleep, texts};

/// Wall-clock milliseconds, for how long a mode took.
#[cfg(not(target_arch = "wasm32"))]
fn now_millis() -> f64 {
    let since = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
    since.as_secs_f64() * 1000.0
}

/// Wall-clock milliseconds, for how long a mode took.
#[cfg(target_arch = "wasm32")]
fn now_millis() -> f64 {
    js_sys::Date::now()
}

/// The table the server publishes.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Catalog {
    /// The text `echo` is called with (and must answer).
    pub text: String,
    /// The caller's timeout for every request and for connecting, unless
    /// a mode says otherwise.
    pub timeout_ms: u64,
    /// The modes, in table order.
    pub modes: Vec<Mode>,
}

/// One misbehaving server.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Mode {
    pub name: String,
    /// `call`, `list` or `connect`.
    pub op: String,
    pub expect: Expect,
    /// What a browser does instead, where its rules differ (a page cannot
    /// follow a redirect it may not see).
    #[serde(default)]
    pub browser_expect: Option<Expect>,
    /// `auto`, `streamable-http` or `sse`.
    pub transport: String,
    /// `auto`, `handshake` or `stateless`.
    pub era: String,
    /// Whether the mode means the same in a browser.
    pub web: bool,
    /// The caller's timeout for this mode.
    pub timeout_ms: u64,
}

/// What the spec implies a client does.
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub enum Expect {
    /// Success: `text`, `tools:<n>` or `connected`.
    Ok { ok: String },
    /// A typed failure (`timeout`, `rpc:<code>`, `http:<status>`, `expired`,
    /// `fail`) whose message contains `phrase`.
    Error { error: String, phrase: String },
}

/// How long past the caller's timeout a `timeout` may come.
const TIMEOUT_SLACK: Duration = Duration::from_secs(2);

/// Reads the table from the server at `base` (`http://127.0.0.1:<port>`).
pub async fn catalog(base: &str) -> Catalog {
    let request = HttpRequest { method: Method::Get, url: format!("{base}/modes"), headers: Vec::new(), body: None };
    let response = DefaultHttp::default().fetch(request).await.unwrap_or_else(|e| panic!("GET /modes: {e}"));
    let body = response.read_body(1 << 20).await.unwrap_or_else(|e| panic!("GET /modes body: {e}"));
    serde_json::from_slice(&body).unwrap_or_else(|e| panic!("GET /modes is not the table: {e}"))
}

/// One mode's verdict: `Ok` with what happened, or `Err` with why the
/// behaviour is wrong.
pub type Verdict = Result<String, String>;

/// Runs every mode `keep` selects, `parallel` at a time, in table order of
/// the results.
pub async fn run_all(
    base: &str,
    catalog: &Catalog,
    keep: impl Fn(&Mode) -> bool,
    parallel: usize,
) -> Vec<(Mode, Verdict)> {
    let selected: Vec<Mode> = catalog.modes.iter().filter(|m| keep(m)).cloned().collect();
    futures::stream::iter(selected)
        .map(|mode| async move {
            let verdict = run_one(base, catalog, &mode).await;
            (mode, verdict)
        })
        .buffered(parallel)
        .collect()
        .await
}

/// Runs one mode, bounded in time, and judges it.
pub async fn run_one(base: &str, catalog: &Catalog, mode: &Mode) -> Verdict {
    let timeout = Duration::from_millis(mode.timeout_ms);
    let url = format!("{base}/mode/{}/mcp", mode.name);
    let started = now_millis();
    // Generous: a wrong client may hang; the verdict then says so.
    let bound = timeout * 3 + Duration::from_secs(5);
    let (outcome, ended) = match select_bounded(bound, attempt(&url, catalog, mode, timeout)).await {
        Some(outcome) => outcome,
        None => return Err(format!("no outcome within {bound:?} (hung)")),
    };
    // Up to the outcome, not the close after it.
    let took = Duration::from_millis((ended - started).max(0.0) as u64);
    judge(mode, catalog, timeout, took, outcome)
}

async fn select_bounded<T>(limit: Duration, work: impl std::future::Future<Output = T>) -> Option<T> {
    use futures::future::{Either, select};
    use std::pin::pin;
    match select(pin!(work), pin!(sleep(limit))).await {
        Either::Left((value, _)) => Some(value),
        Either::Right(_) => None,
    }
}

/// What the client did: the result in words, or its error.
type Outcome = Result<String, Error>;

/// The outcome, and when it was known.
async fn attempt(url: &str, catalog: &Catalog, mode: &Mode, timeout: Duration) -> (Outcome, f64) {
    let transport = match mode.transport.as_str() {
        "auto" => TransportChoice::Auto,
        "sse" => TransportChoice::Sse,
        _ => TransportChoice::StreamableHttp,
    };
    let era = match mode.era.as_str() {
        "auto" => EraChoice::Auto,
        "stateless" => EraChoice::Stateless,
        _ => EraChoice::Handshake,
    };
    let client_options = ClientOptions::default().with_timeout(timeout).with_era(era);
    let client = match connect_url(url, ConnectOptions::new().with_transport(transport), client_options).await {
        Ok(client) => client,
        Err(error) => return (Err(error), now_millis()),
    };
    let outcome = operate(&client, catalog, mode).await;
    let ended = now_millis();
    // Closing is bounded too: a server that stalls DELETE must not hang us.
    let _ = select_bounded(Duration::from_secs(2), client.close()).await;
    (outcome, ended)
}

async fn operate(client: &Client, catalog: &Catalog, mode: &Mode) -> Outcome {
    match mode.op.as_str() {
        "call" => {
            let result = client.call_tool("echo", arguments(json!({ "text": catalog.text }))).await?;
            Ok(format!("text:{}{}", texts(&result), if result.is_error() { " (isError)" } else { "" }))
        }
        "list" => {
            let tools = client.list_all_tools().await?;
            let mut names: Vec<&str> = tools.iter().map(|t| t.name.as_str()).collect();
            names.sort_unstable();
            names.dedup();
            Ok(format!("tools:{} ({} distinct)", tools.len(), names.len()))
        }
        _ => Ok("connected".to_owned()),
    }
}

fn judge(mode: &Mode, catalog: &Catalog, timeout: Duration, took: Duration, outcome: Outcome) -> Verdict {
    match (&mode.expect, outcome) {
        (Expect::Ok { ok }, Ok(got)) => {
            let want = match ok.as_str() {
                "text" => format!("text:{}", catalog.text),
                "connected" => "connected".to_owned(),
                tools => format!("{tools} ({} distinct)", tools.trim_start_matches("tools:")),
            };
            if got == want {
                Ok(format!("{got:.60} in {took:?}"))
            } else {
                Err(format!("expected {want:.80}, got {got:.80}"))
            }
        }
        (Expect::Ok { ok }, Err(error)) => Err(format!("expected {ok}, got the error: {error} (after {took:?})")),
        (Expect::Error { error, .. }, Ok(got)) => Err(format!("expected a {error} error, got {got:.80}")),
        (Expect::Error { error: kind, phrase }, Err(error)) => {
            let message = error.to_string();
            let kind_ok = match kind.split_once(':') {
                _ if kind == "timeout" => error.is_timeout(),
                _ if kind == "expired" => error.is_session_expired(),
                _ if kind == "fail" => true,
                Some(("rpc", code)) => error.rpc_code().map(|c| c.to_string()).as_deref() == Some(code),
                Some(("http", status)) => error.http_status().map(|s| s.to_string()).as_deref() == Some(status),
                _ => false,
            };
            let in_time = if kind == "timeout" { took <= timeout + TIMEOUT_SLACK } else { took < timeout };
            let said = message.to_lowercase().contains(&phrase.to_lowercase());
            match (kind_ok, in_time, said) {
                (true, true, true) => Ok(format!("{kind} in {took:?}: {message:.100}")),
                (false, _, _) => Err(format!("expected a {kind} error, got ({}) {message:.300}", describe(&error))),
                (_, false, _) => Err(format!("{kind} error came after {took:?} (timeout {timeout:?}): {message:.200}")),
                (_, _, false) => Err(format!("the message does not say {phrase:?}: {message:.300}")),
            }
        }
    }
}

/// The predicates an error answers yes to, for the report.
fn describe(error: &Error) -> String {
    let mut said = Vec::new();
    if error.is_timeout() {
        said.push("timeout".to_owned());
    }
    if let Some(code) = error.rpc_code() {
        said.push(format!("rpc {code}"));
    }
    if let Some(status) = error.http_status() {
        said.push(format!("http {status}"));
    }
    for (yes, name) in [
        (error.is_session_expired(), "expired"),
        (error.is_closed(), "closed"),
        (error.is_connect(), "connect"),
        (error.is_auth(), "auth"),
        (error.is_transport(), "transport"),
    ] {
        if yes {
            said.push(name.to_owned());
        }
    }
    if said.is_empty() { "no predicate".to_owned() } else { said.join(", ") }
}

/// Prints one line per mode and the score; returns the names that failed.
pub fn report(runtime: &str, results: &[(Mode, Verdict)]) -> Vec<String> {
    let mut failed = Vec::new();
    for (mode, verdict) in results {
        match verdict {
            Ok(what) => println!("  ok      {:<36} {what}", mode.name),
            Err(why) => {
                println!("  FAILED  {:<36} {why}", mode.name);
                failed.push(mode.name.clone());
            }
        }
    }
    println!("fault catalog, {runtime}: {}/{} modes pass", results.len() - failed.len(), results.len());
    failed
}
