//! Connects to a Streamable HTTP server, lists its tools and calls one with
//! progress: `cargo run --example http_smoke -- http://127.0.0.1:3001/mcp`.

#[cfg(not(target_arch = "wasm32"))]
#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    use mcp_edge::transport::{StreamableHttpOptions, StreamableHttpTransport};
    use mcp_edge::{Client, ClientOptions, RequestOptions};

    let url = std::env::args().nth(1).ok_or("usage: http_smoke <url>")?;
    let transport = StreamableHttpTransport::new(StreamableHttpOptions::new(url));
    let client = Client::connect(transport, ClientOptions::default()).await?;
    let negotiated = client.negotiated().ok_or("no handshake")?;
    println!("connected to {} ({})", negotiated.result.server_info.name, negotiated.version);
    let tools = client.list_all_tools().await?;
    println!("{} tools", tools.len());
    let args = serde_json::json!({"duration": 2, "steps": 4});
    let options = RequestOptions::default().with_progress(|p| println!("progress {}/{:?}", p.progress, p.total));
    let result = client.call_tool_with("trigger-long-running-operation", args.as_object().cloned(), options).await?;
    println!("{:?}", result.content);
    client.close().await;
    Ok(())
}

#[cfg(target_arch = "wasm32")]
fn main() {}
