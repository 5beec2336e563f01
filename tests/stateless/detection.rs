//! Era detection over stdio: handshake-only servers (one refuses the probe,
//! one exits on it), a stateless-only one, and the Python SDK's server.

use super::*;

/// tests/peers/era_scripted_server.py in `mode`, its stderr lines in
/// `seen`. The script needs no SDK: any Python 3 runs it.
fn scripted(mode: &str, seen: std::sync::Arc<std::sync::Mutex<Vec<String>>>) -> Option<StdioOptions> {
    let python = any_python()?;
    let script = peers_dir().join("era_scripted_server.py").to_string_lossy().into_owned();
    Some(StdioOptions::new(python.to_string_lossy().into_owned(), [script, mode.to_owned()]).on_stderr(move |line| {
        if let Ok(mut seen) = seen.lock() {
            seen.push(line.to_owned());
        }
    }))
}

fn auto() -> ClientOptions {
    elicitation_options().with_era(EraChoice::Auto)
}

#[tokio::test]
async fn auto_detects_a_handshake_server_that_refuses_the_probe() {
    let seen = Default::default();
    let Some(options) = scripted("legacy", std::sync::Arc::clone(&seen)) else { return };
    let client = within("connect", connect_stdio(options, auto())).await.expect("connect");
    assert_eq!(client.era(), Some(Era::Handshake));
    let result = within("call", client.call_tool("echo", None)).await.expect("call");
    assert_eq!(result.content.len(), 1);
    client.close().await;
    let seen = seen.lock().map(|s| s.clone()).unwrap_or_default();
    assert!(seen.first().is_some_and(|l| l.contains("server/discover")), "{seen:?}");
    assert!(seen.iter().skip(1).all(|l| !l.contains("io.modelcontextprotocol/protocolVersion")), "{seen:?}");
}

#[tokio::test]
async fn auto_restarts_a_handshake_server_that_exits_on_the_probe() {
    let seen = Default::default();
    let Some(options) = scripted("legacy-exit", std::sync::Arc::clone(&seen)) else { return };
    let client = within("connect", connect_stdio(options, auto())).await.expect("connect after a restart");
    assert_eq!(client.era(), Some(Era::Handshake));
    within("call", client.call_tool("echo", None)).await.expect("call");
    client.close().await;
}

#[tokio::test]
async fn auto_detects_a_stateless_only_server_and_runs_mrtr() {
    let seen = Default::default();
    let Some(options) = scripted("modern", std::sync::Arc::clone(&seen)) else { return };
    let client = within("connect", connect_stdio(options, auto())).await.expect("connect");
    assert_eq!(client.era(), Some(Era::Stateless));
    assert_eq!(within("list", client.list_all_tools()).await.expect("list").len(), 2);
    let result = within("call", client.call_tool("confirm", None)).await.expect("mrtr call");
    let text = serde_json::to_value(&result.content).unwrap_or_default()[0]["text"].as_str().unwrap_or("").to_owned();
    let echoed: Value = serde_json::from_str(&text).unwrap_or_default();
    assert_eq!(echoed["state"], "opaque-\u{e9}-state==");
    assert_eq!(echoed["responses"]["ok"]["action"], "accept");
    // No resultType: complete.
    within("call", client.call_tool("echo", None)).await.expect("plain call");
    client.close().await;
    let seen = seen.lock().map(|s| s.clone()).unwrap_or_default();
    assert!(seen.iter().all(|l| !l.contains("\"initialize\"")), "no handshake: {seen:?}");
}

#[tokio::test]
async fn the_python_sdk_server_is_spoken_to_statelessly() {
    let Some(python) = venv_python() else { return };
    let script = peers_dir().join("era_python_sdk_server.py").to_string_lossy().into_owned();
    let options = StdioOptions::new(python.to_string_lossy().into_owned(), [script]);
    let client = within("connect", connect_stdio(options, auto())).await.expect("connect");
    assert_eq!(client.era(), Some(Era::Stateless));
    let tools = within("list", client.list_all_tools()).await.expect("list");
    assert!(tools.iter().any(|t| t.name == "add"), "{tools:?}");
    let mut arguments = serde_json::Map::new();
    arguments.insert("a".into(), json!(2));
    arguments.insert("b".into(), json!(3));
    let result = within("call", client.call_tool("add", Some(arguments))).await.expect("call");
    assert!(serde_json::to_string(&result.content).unwrap_or_default().contains('5'), "{result:?}");
    // The elicitation handler answers the input_required round (accept, no content: the default).
    let result = within("confirm", client.call_tool("confirm", None)).await.expect("mrtr call");
    assert_eq!(serde_json::to_value(&result.content).unwrap_or_default()[0]["text"], "accept:True", "{result:?}");
    client.close().await;
}

/// The same server is dual-era: forced to the handshake it answers
/// `initialize`, and the elicitation arrives as a server request.
#[tokio::test]
async fn the_python_sdk_server_also_speaks_the_handshake_era() {
    let Some(python) = venv_python() else { return };
    let script = peers_dir().join("era_python_sdk_server.py").to_string_lossy().into_owned();
    let options = StdioOptions::new(python.to_string_lossy().into_owned(), [script]);
    let client = within("connect", connect_stdio(options, elicitation_options().with_era(EraChoice::Handshake)))
        .await
        .expect("connect");
    assert_eq!(client.era(), Some(Era::Handshake));
    let result = within("confirm", client.call_tool("confirm", None)).await.expect("call");
    assert_eq!(serde_json::to_value(&result.content).unwrap_or_default()[0]["text"], "accept:True", "{result:?}");
    client.close().await;
}

#[tokio::test]
async fn a_remembered_handshake_verdict_that_a_stateless_server_contradicts_is_probed_again() {
    let seen = Default::default();
    let Some(legacy) = scripted("legacy", std::sync::Arc::clone(&seen)) else { return };
    let Some(modern) = scripted("modern", std::sync::Arc::clone(&seen)) else { return };
    // Both launches share one cache key, as one server upgraded in place would.
    let options = auto().with_era_cache_key("test:upgraded-server");
    let client = within("legacy", connect_stdio(legacy, options.clone())).await.expect("legacy connect");
    assert_eq!(client.era(), Some(Era::Handshake));
    client.close().await;
    assert_eq!(mcp_edge::remembered_era("test:upgraded-server"), Some(EraVerdict::Handshake));
    // `initialize` now meets -32022 naming 2026-07-28 (R2.10): probe, go stateless.
    let client = within("modern", connect_stdio(modern, options)).await.expect("re-probed connect");
    assert_eq!(client.era(), Some(Era::Stateless));
    within("call", client.call_tool("echo", None)).await.expect("call");
    client.close().await;
    assert!(matches!(mcp_edge::remembered_era("test:upgraded-server"), Some(EraVerdict::Stateless(_))));
}
