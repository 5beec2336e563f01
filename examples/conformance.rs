//! The native adapter for the official MCP conformance suite.
//!
//! The harness runs `conformance <server url>` with the scenario's name in
//! `MCP_CONFORMANCE_SCENARIO`. Whatever the scenario, this runs one generic
//! routine, as a real application would: connect, list the tools, call each
//! with arguments built from its input schema, answer elicitation by
//! accepting the schema's defaults and sampling with a fixed message, close.
//! The scenario only ever becomes configuration a user could give; it never
//! changes protocol behaviour.
//!
//! Authorization is always configured, as an app that may meet protected
//! servers would: the library's OAuth flow runs on the first 401. What
//! `MCP_CONFORMANCE_CONTEXT` holds becomes the settings a user would enter
//! (a pre-registered client id and secret, a private key, an enterprise ID
//! token, a workload identity token); the client's Client ID Metadata
//! Document URL is this app's own, so it is always set. The authorization
//! page is fetched headlessly: the suite's authorization servers redirect at
//! once, and the redirect's `Location` is the answer.

#[cfg(not(target_arch = "wasm32"))]
mod adapter {
    use std::process::ExitCode;
    use std::time::Duration;

    use mcp_edge::EraChoice;
    use mcp_edge::auth::{AuthConfig, Grant, HeadlessAuthorizer, OAuthProvider};
    use mcp_edge::protocol::types::{CreateMessageResult, ElicitAction, ElicitResult, JsonObject};
    use mcp_edge::transport::{StreamableHttpOptions, StreamableHttpTransport};
    use mcp_edge::{Client, ClientOptions};
    use serde_json::{Value, json};

    /// A value of the JSON Schema `schema` describes: its default, its first
    /// enum member, or a plain value of its type.
    pub fn example_value(schema: &Value) -> Value {
        if let Some(default) = schema.get("default") {
            return default.clone();
        }
        if let Some(first) = schema.get("enum").and_then(Value::as_array).and_then(|e| e.first()) {
            return first.clone();
        }
        let kind = match schema.get("type") {
            Some(Value::Array(kinds)) => {
                kinds.iter().filter_map(Value::as_str).find(|k| *k != "null").unwrap_or("null")
            }
            Some(Value::String(kind)) => kind.as_str(),
            _ => "string",
        };
        match kind {
            "integer" | "number" => json!(1),
            "boolean" => json!(true),
            "array" => json!([]),
            "object" => Value::Object(example_arguments(schema)),
            "null" => Value::Null,
            _ => json!("test"),
        }
    }

    /// Arguments for a tool: every required property, and every property
    /// with a default.
    pub fn example_arguments(schema: &Value) -> JsonObject {
        let required: Vec<&str> =
            schema.get("required").and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_str).collect();
        let mut arguments = JsonObject::new();
        if let Some(properties) = schema.get("properties").and_then(Value::as_object) {
            for (name, property) in properties {
                if required.contains(&name.as_str()) || property.get("default").is_some() {
                    arguments.insert(name.clone(), example_value(property));
                }
            }
        }
        arguments
    }

    /// What a person would type for a tool whose description asks for
    /// something no schema can produce. `json_schema_echo` asks for "the
    /// inputSchema the client observed for json_schema_2020_12_tool": a user
    /// pastes that schema as the library handed it over, which shows whether
    /// the library kept it verbatim ($schema, $defs, additionalProperties...).
    /// This chooses argument values only; the protocol path is the same.
    pub fn user_input(tool: &str, tools: &[mcp_edge::protocol::types::Tool]) -> Option<JsonObject> {
        // Arguments the user typed for this tool (the context's `toolCalls`).
        let context: Value = std::env::var("MCP_CONFORMANCE_CONTEXT")
            .ok()
            .and_then(|text| serde_json::from_str(&text).ok())
            .unwrap_or(Value::Null);
        let typed = context
            .get("toolCalls")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .find(|call| call.get("name").and_then(Value::as_str) == Some(tool));
        if let Some(arguments) = typed.and_then(|call| call.get("arguments")).and_then(Value::as_object) {
            return Some(arguments.clone());
        }
        let observed = |name: &str| tools.iter().find(|t| t.name == name).map(|t| t.input_schema.clone());
        match tool {
            "json_schema_echo" => {
                let mut arguments = JsonObject::new();
                arguments.insert("schema".into(), observed("json_schema_2020_12_tool")?);
                Some(arguments)
            }
            _ => None,
        }
    }

    fn options() -> ClientOptions {
        ClientOptions::new("mcp-edge-conformance", env!("CARGO_PKG_VERSION"))
            .with_timeout(Duration::from_secs(20))
            // A dual-era app: probe with `server/discover`, fall back to `initialize`.
            .with_era(EraChoice::Auto)
            .on_sampling(|_params, _context| async {
                Ok(CreateMessageResult {
                    role: "assistant".into(),
                    content: json!({"type": "text", "text": "This is a fixed answer from the conformance client."}),
                    model: "mcp-edge-fixed".into(),
                    stop_reason: Some("endTurn".into()),
                })
            })
            // Accept with nothing typed in: the library fills in every default.
            .on_elicitation(
                |_params, _context| async { Ok(ElicitResult { action: ElicitAction::Accept, content: None }) },
                true,
            )
    }

    /// This app's Client ID Metadata Document (a real app hosts its own).
    const CLIENT_METADATA_URL: &str = "https://conformance-test.local/client-metadata.json";
    /// This app's registered redirect URI.
    const REDIRECT_URI: &str = "http://localhost:3000/callback";

    /// The OAuth settings a user of this app would enter.
    pub fn auth_config(context: &Value) -> AuthConfig {
        let text = |key: &str| context.get(key).and_then(Value::as_str).map(str::to_owned);
        let mut config = AuthConfig::new(REDIRECT_URI).client_metadata_url(CLIENT_METADATA_URL);
        config.client_name = "mcp-edge conformance client".into();
        config.client_id = text("client_id");
        config.client_secret = text("client_secret");
        config.private_key_pem = text("private_key_pem");
        if let (Some(idp_token_endpoint), Some(id_token), Some(idp_client_id)) =
            (text("idp_token_endpoint"), text("idp_id_token"), text("idp_client_id"))
        {
            config.grant = Some(Grant::IdentityAssertion {
                idp_token_endpoint,
                id_token,
                idp_client_id,
                idp_client_secret: text("idp_client_secret"),
            });
        } else if let Some(assertion) = text("valid_jwt") {
            config.grant = Some(Grant::JwtBearer { assertion });
        }
        config
    }

    fn transport_options(url: &str) -> Result<StreamableHttpOptions, mcp_edge::Error> {
        let context: Value = std::env::var("MCP_CONFORMANCE_CONTEXT")
            .ok()
            .and_then(|text| serde_json::from_str(&text).ok())
            .unwrap_or(Value::Null);
        let to_error = |e: mcp_edge::auth::AuthError| mcp_edge::Error::InvalidArgument(e.to_string());
        let provider = OAuthProvider::new(url, auth_config(&context))
            .map_err(to_error)?
            .with_authorizer(HeadlessAuthorizer::new().map_err(to_error)?);
        Ok(StreamableHttpOptions::new(url).with_auth(provider))
    }

    async fn session(url: &str) -> Result<(), mcp_edge::Error> {
        let transport = StreamableHttpTransport::new(transport_options(url)?);
        let client = Client::connect(transport, options()).await?;
        let outcome = async {
            let tools = match client.negotiated().map(|n| n.result.capabilities.tools.is_some()) {
                Some(true) => client.list_all_tools().await?,
                _ => Vec::new(),
            };
            for tool in &tools {
                let arguments = user_input(&tool.name, &tools).unwrap_or_else(|| example_arguments(&tool.input_schema));
                match client.call_tool(&tool.name, Some(arguments)).await {
                    Ok(result) => {
                        eprintln!("called {}: {}", tool.name, if result.is_error() { "isError" } else { "ok" })
                    }
                    // The server refused this one call (as a user would see it):
                    // report it and go on with the others.
                    Err(mcp_edge::Error::Rpc { error, .. }) => eprintln!("called {}: refused: {error}", tool.name),
                    Err(other) => return Err(other),
                }
            }
            Ok(())
        }
        .await;
        client.close().await;
        outcome
    }

    pub async fn main() -> ExitCode {
        let Some(url) = std::env::args().next_back().filter(|a| a.starts_with("http")) else {
            eprintln!("usage: conformance <server url>");
            return ExitCode::from(2);
        };
        match session(&url).await {
            Ok(()) => ExitCode::SUCCESS,
            Err(error) => {
                eprintln!("conformance client: {error}");
                ExitCode::FAILURE
            }
        }
    }
}

#[cfg(not(target_arch = "wasm32"))]
#[tokio::main(flavor = "current_thread")]
async fn main() -> std::process::ExitCode {
    env_logger::init();
    adapter::main().await
}

#[cfg(target_arch = "wasm32")]
fn main() {}
