//! What can go wrong while authorizing, each with what to do about it.

use crate::cause::Cause;

/// An authorization failure. The messages name the server, the URL and the
/// setting involved; they never contain a token or a secret.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum AuthError {
    /// The configuration cannot work.
    #[error("OAuth configuration: {0}")]
    Config(String),
    /// An authorization server or metadata URL could not be reached.
    #[error("OAuth: could not reach {url}: {reason}")]
    Unreachable {
        /// The URL.
        url: String,
        /// What failed; its [`source`](std::error::Error::source) is the
        /// HTTP error.
        #[source]
        reason: Cause,
    },
    /// A discovery document is unusable.
    #[error("OAuth: the metadata at {url} is unusable: {reason}")]
    InvalidMetadata {
        /// Where it came from.
        url: String,
        /// What is wrong.
        reason: String,
    },
    /// The protected resource metadata is for another server (RFC 9728 §3.3).
    #[error(
        "OAuth: the protected resource metadata at {metadata_url} is for {resource}, not for {server}: \
         refusing to authorize (a token obtained this way could be replayed elsewhere)"
    )]
    ResourceMismatch {
        /// Where the metadata came from.
        metadata_url: String,
        /// The resource it names.
        resource: String,
        /// The server being connected to.
        server: String,
    },
    /// The authorization server metadata names another issuer (RFC 8414 §3.3).
    #[error(
        "OAuth: the authorization server metadata at {metadata_url} names the issuer \"{found}\", but it was \
         looked up for \"{expected}\"; RFC 8414 §3.3 requires them to be identical, so it is not used \
         (the server's metadata is misconfigured, or someone is impersonating it)"
    )]
    IssuerMismatch {
        /// Where the metadata came from.
        metadata_url: String,
        /// The issuer it was looked up for.
        expected: String,
        /// The issuer it names.
        found: String,
    },
    /// The server refused with 401 but neither names an authorization
    /// scheme (no `WWW-Authenticate: Bearer`) nor publishes protected
    /// resource or authorization server metadata: there is nothing to
    /// authorize with (registering at a guessed `/register` would be a
    /// shot in the dark).
    #[error(
        "OAuth: {server} requires authorization but publishes no metadata (no WWW-Authenticate Bearer challenge; \
         tried {})",
        crate::debug::joined(.tried, ", ")
    )]
    NoMetadata {
        /// The MCP server.
        server: String,
        /// The URLs tried and what each answered.
        tried: Vec<String>,
    },
    /// No authorization server metadata anywhere it may be.
    #[error("OAuth: no authorization server metadata for {issuer} (tried {})", crate::debug::joined(.tried, ", "))]
    NoAuthorizationServerMetadata {
        /// The issuer.
        issuer: String,
        /// The URLs tried and what each answered.
        tried: Vec<String>,
    },
    /// The authorization server does not do PKCE with S256.
    #[error(
        "OAuth: the authorization server {issuer} does not advertise PKCE with S256 ({}), which MCP requires: \
         refusing to start an authorization code flow",
        match .advertised { Some(m) => format!("code_challenge_methods_supported is [{}]", crate::debug::joined(m, ", ")), None => "code_challenge_methods_supported is missing".to_owned() }
    )]
    PkceUnsupported {
        /// The issuer.
        issuer: String,
        /// What it advertised.
        advertised: Option<Vec<String>>,
    },
    /// An http URL to another machine, where OAuth needs https.
    #[error("OAuth: {url} is not https; OAuth endpoints must use https (plain http is allowed only to localhost)")]
    InsecureUrl {
        /// The URL.
        url: String,
    },
    /// Discovery was redirected to another origin.
    #[error("OAuth: {from} redirected to {to}, another origin: refusing to follow it during discovery")]
    CrossOriginRedirect {
        /// The URL fetched.
        from: String,
        /// Where it pointed.
        to: String,
    },
    /// No way to identify this client to the authorization server.
    #[error(
        "OAuth: the authorization server {issuer} offers neither dynamic client registration nor client ID \
         metadata documents{cimd}: configure a client_id (and client_secret, if it is a confidential client) \
         registered there, with the redirect URI {redirect_uri}"
    )]
    ClientRegistrationNeeded {
        /// The issuer.
        issuer: String,
        /// The redirect URI to register.
        redirect_uri: String,
        /// A hint about a configured CIMD URL the server does not accept.
        cimd: String,
    },
    /// Dynamic client registration was refused.
    #[error("OAuth: client registration at {endpoint} failed (HTTP {status}){}", describe(.error, .description))]
    Registration {
        /// The registration endpoint.
        endpoint: String,
        /// The status.
        status: u16,
        /// RFC 7591 `error`.
        error: Option<String>,
        /// `error_description`.
        description: Option<String>,
    },
    /// No interactive step is available to send the user to the authorization page.
    #[error(
        "OAuth: {server} needs a user to sign in, but no authorizer is configured to open the authorization \
         page (give the auth provider an Authorizer: a browser popup/redirect, or a loopback listener natively)"
    )]
    NoAuthorizer {
        /// The MCP server.
        server: String,
    },
    /// The interactive step failed or was abandoned.
    #[error("OAuth: the authorization step failed: {0}")]
    Authorizer(String),
    /// The authorization server (or the user) refused the authorization request.
    #[error("OAuth: authorization was refused: {error}{}", describe(&None, .description))]
    AuthorizationDenied {
        /// RFC 6749 §4.1.2.1 `error` (`access_denied`, `invalid_scope`, ...).
        error: String,
        /// `error_description`.
        description: Option<String>,
    },
    /// The redirect does not answer our request (`state` missing or wrong).
    #[error("OAuth: the authorization response's state does not match the request: ignoring it (possible CSRF)")]
    StateMismatch,
    /// RFC 9207: the response's `iss` is not the issuer we asked.
    #[error(
        "OAuth: the authorization response {} where \"{expected}\" was expected (RFC 9207): \
         ignoring it (possible mix-up attack)",
        match .found { Some(found) => format!("names the issuer \"{found}\""), None => "names no issuer (no iss parameter)".to_owned() }
    )]
    IssuerParameterMismatch {
        /// The issuer asked.
        expected: String,
        /// What the response said (`None`: missing though advertised).
        found: Option<String>,
    },
    /// The authorization response is unusable.
    #[error("OAuth: the authorization response is unusable: {0}")]
    InvalidAuthorizationResponse(String),
    /// The token endpoint refused.
    #[error("OAuth: the token endpoint {endpoint} refused (HTTP {status}){}{}", describe(.error, .description), hint(.error))]
    TokenEndpoint {
        /// The endpoint.
        endpoint: String,
        /// The status.
        status: u16,
        /// RFC 6749 §5.2 `error`.
        error: Option<String>,
        /// `error_description`.
        description: Option<String>,
    },
    /// The token response is unusable.
    #[error("OAuth: the token response from {endpoint} is unusable: {reason}")]
    InvalidTokenResponse {
        /// The endpoint.
        endpoint: String,
        /// What is wrong.
        reason: String,
    },
    /// Step-up authorization did not satisfy the server.
    #[error(
        "OAuth: the server keeps refusing with insufficient_scope (needs \"{}\") after {attempts} \
         authorizations: the account or client may not be allowed these scopes", crate::debug::joined(.scopes, " ")
    )]
    InsufficientScope {
        /// The scopes required.
        scopes: Vec<String>,
        /// How many authorizations were tried.
        attempts: u32,
    },
    /// The server keeps rejecting the tokens its authorization server issues.
    #[error(
        "OAuth: {server} rejected the tokens from {attempts} authorizations: its authorization server issues \
         tokens it does not accept (check the server's audience/resource configuration)"
    )]
    TokensRejected {
        /// The MCP server.
        server: String,
        /// How many authorizations were tried.
        attempts: u32,
    },
    /// The server refused a DPoP-bound token and its challenge offers Bearer only.
    #[error(
        "OAuth: {server} accepts Bearer tokens only (its WWW-Authenticate challenge names no DPoP scheme) and \
         refused the DPoP-bound token; DPoP was used because {why}"
    )]
    DpopRefused {
        /// The MCP server.
        server: String,
        /// Why the client bound its token with DPoP.
        why: String,
    },
    /// A key or assertion could not be made.
    #[error("OAuth: {0}")]
    Crypto(String),
    /// The token store failed.
    #[error("OAuth: the token store failed: {0}")]
    Store(String),
    /// A step took too long.
    #[error("OAuth: {what} took longer than {seconds} s")]
    Timeout {
        /// What.
        what: String,
        /// The limit.
        seconds: u64,
    },
}

fn describe(error: &Option<String>, description: &Option<String>) -> String {
    match (error, description) {
        (Some(e), Some(d)) => format!(": {e}: {d}"),
        (Some(e), None) => format!(": {e}"),
        (None, Some(d)) => format!(": {d}"),
        (None, None) => String::new(),
    }
}

fn hint(error: &Option<String>) -> &'static str {
    match error.as_deref() {
        Some("invalid_client") => {
            " (check the configured client_id and client_secret, and the token endpoint authentication method)"
        }
        Some("invalid_grant") => " (the code or refresh token is invalid, expired or was issued to another client)",
        Some("unauthorized_client") => " (this client is not allowed this grant type: check its registration)",
        Some("unsupported_grant_type") => " (the authorization server does not offer this grant type)",
        Some("invalid_scope") => " (the requested scopes are unknown or not allowed: check the configured scopes)",
        Some("invalid_target") => " (the authorization server does not issue tokens for this MCP server's URL)",
        _ => "",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// No Rust debug formatting (`Some("...")`, `None`, `[...]` of quoted
    /// strings) in what users read.
    #[test]
    fn texts_have_no_debug_formatting() {
        let texts = [
            AuthError::IssuerParameterMismatch { expected: "https://as.example".into(), found: None }.to_string(),
            AuthError::IssuerParameterMismatch {
                expected: "https://as.example".into(),
                found: Some("https://evil.example".into()),
            }
            .to_string(),
            AuthError::PkceUnsupported { issuer: "https://as.example".into(), advertised: Some(vec!["plain".into()]) }
                .to_string(),
            AuthError::InsufficientScope { scopes: vec!["a".into(), "b".into()], attempts: 3 }.to_string(),
            AuthError::IssuerMismatch {
                metadata_url: "https://as.example/.well-known/x".into(),
                expected: "https://as.example".into(),
                found: "https://other.example".into(),
            }
            .to_string(),
        ];
        for text in &texts {
            assert!(!text.contains("Some(") && !text.contains("None") && !text.contains("[\""), "{text}");
        }
        assert!(texts[0].contains("names no issuer"), "{}", texts[0]);
        assert!(texts[1].contains("names the issuer \"https://evil.example\""), "{}", texts[1]);
        assert!(texts[2].contains("is [plain]"), "{}", texts[2]);
        assert!(texts[3].contains("needs \"a b\""), "{}", texts[3]);
    }
}
