//! Opening a session from the SERVER argument: a URL (HTTP transports,
//! detected or forced with `--transport`) or a command line (stdio).

use mcp_edge::transport::stdio::StdioOptions;
use std::sync::Arc;

use mcp_edge::auth::{AuthConfig, FileTokenStore, LoopbackAuthorizer, MemoryTokenStore, OAuthProvider, TokenStore};
use mcp_edge::{Client, ClientOptions, ConnectOptions, Error, TransportChoice};

/// The OAuth options of the command line.
#[derive(Debug, Default)]
pub struct AuthArgs {
    /// A pre-registered client id.
    pub client_id: Option<String>,
    /// Its secret.
    pub client_secret: Option<String>,
    /// Scopes to ask for instead of the server's suggestion.
    pub scopes: Vec<String>,
    /// Print the URL and read the redirect from stdin.
    pub no_browser: bool,
    /// Keep tokens in memory only.
    pub no_store: bool,
}

/// OAuth for an http(s) server: used only if the server answers 401.
fn oauth_provider(server: &str, args: &AuthArgs) -> Result<OAuthProvider, Error> {
    let to_error = |e: mcp_edge::auth::AuthError| Error::InvalidArgument(e.to_string());
    let authorizer =
        LoopbackAuthorizer::bind().map_err(|e| Error::InvalidArgument(e.to_string()))?.no_browser(args.no_browser);
    let mut config = AuthConfig::new(authorizer.redirect_uri());
    config.client_id = args.client_id.clone();
    config.client_secret = args.client_secret.clone();
    if !args.scopes.is_empty() {
        config.scopes = Some(args.scopes.clone());
    }
    let store: Arc<dyn TokenStore> = if args.no_store {
        Arc::new(MemoryTokenStore::new())
    } else {
        match FileTokenStore::new() {
            Ok(store) => Arc::new(store),
            Err(error) => {
                log::warn!("{error}; tokens are kept in memory only");
                Arc::new(MemoryTokenStore::new())
            }
        }
    };
    Ok(OAuthProvider::new(server, config).map_err(to_error)?.with_authorizer(authorizer).with_store(store))
}

/// Where the server's stderr lines go in the log (`RUST_LOG=server=info`).
const SERVER_LOG_TARGET: &str = "server";

/// Starts the transport `server` names and opens the conversation. An
/// http(s) URL speaks Streamable HTTP or the legacy HTTP+SSE transport:
/// `transport` says which, or (`auto`) to detect it.
///
/// If the handshake fails the transport is closed (the process shut down)
/// before the error is returned.
pub async fn connect(
    server: &str,
    transport: TransportChoice,
    auth: &AuthArgs,
    options: ClientOptions,
) -> Result<Client, Error> {
    let server = server.trim();
    if is_url(server) {
        let connect = ConnectOptions::new().with_transport(transport).with_auth(oauth_provider(server, auth)?);
        return mcp_edge::connect_url(server, connect, options).await;
    }
    if transport != TransportChoice::Auto {
        return Err(Error::InvalidArgument(format!(
            "--transport {transport} applies to http:// and https:// servers, and `{server}` is a \
             command line (it is run over stdio)"
        )));
    }
    let stdio = StdioOptions::from_command_line(server)?
        .on_stderr(|line: &str| log::info!(target: SERVER_LOG_TARGET, "{line}"));
    // The era as `--era` says (probed by default; a server that exits when
    // probed is started again for the handshake).
    mcp_edge::client::connect_stdio(stdio, options).await
}

fn is_url(server: &str) -> bool {
    let lower = server.get(..8).unwrap_or(server).to_ascii_lowercase();
    lower.starts_with("http://") || lower.starts_with("https://")
}

#[cfg(test)]
mod tests {
    use super::is_url;

    #[test]
    fn urls_and_commands() {
        assert!(is_url("http://localhost:3000/mcp"));
        assert!(is_url("HTTPS://example.com"));
        assert!(!is_url("node server.js"));
        assert!(!is_url("httpie"));
        assert!(!is_url("é"));
    }
}
