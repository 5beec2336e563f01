//! Opening a session from the SERVER argument: a URL (HTTP transports,
//! detected or forced with `--transport`) or a command line (stdio).

use std::sync::Arc;

use mcp_edge::http::DefaultHttp;
use mcp_edge::transport::StdioOptions;

use mcp_edge::auth::{AuthConfig, FileTokenStore, LoopbackAuthorizer, MemoryTokenStore, OAuthProvider, TokenStore};
use mcp_edge::{Client, ClientOptions, ConnectOptions, Error, TransportChoice};

use crate::config::Target;

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

/// Starts the transport `target` names and opens the conversation. An
/// http(s) URL speaks Streamable HTTP or the legacy HTTP+SSE transport:
/// `transport` says which, or (`auto`) to detect it.
///
/// If the handshake fails the transport is closed (the process shut down)
/// before the error is returned.
pub async fn connect(
    target: &Target,
    transport: TransportChoice,
    auth: &AuthArgs,
    options: ClientOptions,
) -> Result<Client, Error> {
    match target {
        Target::Http { url, headers, sse } => {
            let transport = if *sse && transport == TransportChoice::Auto { TransportChoice::Sse } else { transport };
            let mut connect = ConnectOptions::new().with_transport(transport);
            for (name, value) in headers {
                connect = connect.header(name.clone(), value.clone());
            }
            // A key given with -H is the credential: a 401 then means a
            // wrong key, not a reason to open a browser for OAuth.
            if !headers.iter().any(|(name, _)| is_credential(name)) {
                connect = connect.with_auth(oauth_provider(url, auth)?);
            }
            // The default client follows redirects only within the server's
            // origin: headers given with -H never reach another.
            mcp_edge::connect_url_with_http(DefaultHttp::default(), url, connect, options).await
        }
        Target::Stdio { command, args, env, cwd } => {
            if transport != TransportChoice::Auto {
                return Err(Error::InvalidArgument(format!(
                    "--transport {transport} applies to http:// and https:// servers, and `{command}` is a \
                     command line (it is run over stdio)"
                )));
            }
            let mut stdio = StdioOptions::new(command.clone(), args.iter().cloned())
                .on_stderr(|line: &str| log::info!(target: SERVER_LOG_TARGET, "{line}"));
            for (key, value) in env {
                stdio = stdio.env(key.clone(), value.clone());
            }
            if let Some(dir) = cwd {
                stdio = stdio.cwd(dir.clone());
            }
            // The era as `--era` says (probed by default; a server that exits when
            // probed is started again for the handshake).
            mcp_edge::connect_stdio(stdio, options).await
        }
    }
}

/// `Authorization`, or a header that names a key or token (`X-API-Key`,
/// `Api-Key`, `X-Auth-Token`).
fn is_credential(name: &str) -> bool {
    let name = name.to_ascii_lowercase();
    name == "authorization" || name.contains("key") || name.contains("token")
}

/// The target of a SERVER argument given as a URL or a command line.
pub fn target_of(server: &str) -> Result<Target, Error> {
    let server = server.trim();
    if is_url(server) {
        return Ok(Target::Http { url: server.to_owned(), headers: Vec::new(), sse: false });
    }
    let words = shlex::split(server).ok_or_else(|| {
        Error::InvalidArgument(format!("`{server}`: unbalanced quotes or a trailing backslash in the command line"))
    })?;
    let mut words = words.into_iter();
    let command = words.next().ok_or_else(|| Error::InvalidArgument("SERVER is empty".into()))?;
    Ok(Target::Stdio { command, args: words.collect(), env: Vec::new(), cwd: None })
}

pub fn is_url(server: &str) -> bool {
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
