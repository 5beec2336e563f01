//! Discovery documents: protected resource metadata (RFC 9728) and
//! authorization server metadata (RFC 8414, OpenID Connect Discovery), the
//! order their well-known URLs are tried in, and the checks a document must
//! pass before anything in it is used.

use serde::Serialize;

use super::error::AuthError;
use super::resource;
use crate::debug::Quoted;
use crate::http::url::Url;
use crate::protocol::fields::{Fields, deserialize_by_fields};

/// The largest discovery document accepted.
pub const MAX_METADATA_BYTES: usize = 256 * 1024;

/// RFC 9728 protected resource metadata (the fields the client uses).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ProtectedResourceMetadata {
    /// The resource identifier: the MCP server's URL or a prefix of it.
    pub resource: String,
    /// Authorization servers that issue tokens for it.
    pub authorization_servers: Vec<String>,
    /// Scopes it understands.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scopes_supported: Option<Vec<String>>,
    /// How it accepts tokens (`header`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bearer_methods_supported: Option<Vec<String>>,
    /// A human-readable name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resource_name: Option<String>,
    /// RFC 9728: it takes DPoP-bound access tokens only.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dpop_bound_access_tokens_required: Option<bool>,
}

deserialize_by_fields!(ProtectedResourceMetadata);

impl ProtectedResourceMetadata {
    fn from_fields(fields: &mut Fields) -> Result<Self, String> {
        let value = ProtectedResourceMetadata {
            resource: fields.required_string("resource"),
            authorization_servers: fields.strings("authorization_servers").unwrap_or_default(),
            scopes_supported: fields.strings("scopes_supported"),
            bearer_methods_supported: fields.strings("bearer_methods_supported"),
            resource_name: fields.string("resource_name"),
            dpop_bound_access_tokens_required: fields.boolean("dpop_bound_access_tokens_required"),
        };
        fields.done(value)
    }
}

/// RFC 8414 / OIDC authorization server metadata (the fields the client uses).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct AuthorizationServerMetadata {
    /// The issuer identifier; must equal the URL the metadata was derived from.
    pub issuer: String,
    /// Where the user authorizes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub authorization_endpoint: Option<String>,
    /// Where codes become tokens.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub token_endpoint: Option<String>,
    /// RFC 7591 dynamic client registration.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub registration_endpoint: Option<String>,
    /// Scopes it knows.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scopes_supported: Option<Vec<String>>,
    /// `code`, ...
    #[serde(skip_serializing_if = "Option::is_none")]
    pub response_types_supported: Option<Vec<String>>,
    /// Grants; RFC 8414's default is `authorization_code` and `implicit`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub grant_types_supported: Option<Vec<String>>,
    /// Client authentication at the token endpoint; RFC 8414's default is
    /// `client_secret_basic`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub token_endpoint_auth_methods_supported: Option<Vec<String>>,
    /// JWS algorithms for `private_key_jwt`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub token_endpoint_auth_signing_alg_values_supported: Option<Vec<String>>,
    /// PKCE methods; must contain `S256`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub code_challenge_methods_supported: Option<Vec<String>>,
    /// Client ID Metadata Documents are accepted as `client_id`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub client_id_metadata_document_supported: Option<bool>,
    /// RFC 9207: the authorization response carries `iss`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub authorization_response_iss_parameter_supported: Option<bool>,
    /// RFC 9449 DPoP algorithms.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dpop_signing_alg_values_supported: Option<Vec<String>>,
}

deserialize_by_fields!(AuthorizationServerMetadata);

impl AuthorizationServerMetadata {
    pub(crate) fn from_fields(fields: &mut Fields) -> Result<Self, String> {
        let value = AuthorizationServerMetadata {
            issuer: fields.required_string("issuer"),
            authorization_endpoint: fields.string("authorization_endpoint"),
            token_endpoint: fields.string("token_endpoint"),
            registration_endpoint: fields.string("registration_endpoint"),
            scopes_supported: fields.strings("scopes_supported"),
            response_types_supported: fields.strings("response_types_supported"),
            grant_types_supported: fields.strings("grant_types_supported"),
            token_endpoint_auth_methods_supported: fields.strings("token_endpoint_auth_methods_supported"),
            token_endpoint_auth_signing_alg_values_supported: fields
                .strings("token_endpoint_auth_signing_alg_values_supported"),
            code_challenge_methods_supported: fields.strings("code_challenge_methods_supported"),
            client_id_metadata_document_supported: fields.boolean("client_id_metadata_document_supported"),
            authorization_response_iss_parameter_supported: fields
                .boolean("authorization_response_iss_parameter_supported"),
            dpop_signing_alg_values_supported: fields.strings("dpop_signing_alg_values_supported"),
        };
        fields.done(value)
    }

    /// As JSON, the same as its `Serialize` writes it (`protocol::build`):
    /// part of what the browser's redirect flow keeps across the page load.
    #[cfg(any(all(target_arch = "wasm32", feature = "js"), test))]
    pub(crate) fn to_value(&self) -> serde_json::Value {
        crate::protocol::build::Builder::new()
            .text("issuer", Some(&self.issuer))
            .text("authorization_endpoint", self.authorization_endpoint.as_deref())
            .text("token_endpoint", self.token_endpoint.as_deref())
            .text("registration_endpoint", self.registration_endpoint.as_deref())
            .texts("scopes_supported", self.scopes_supported.as_deref())
            .texts("response_types_supported", self.response_types_supported.as_deref())
            .texts("grant_types_supported", self.grant_types_supported.as_deref())
            .texts("token_endpoint_auth_methods_supported", self.token_endpoint_auth_methods_supported.as_deref())
            .texts(
                "token_endpoint_auth_signing_alg_values_supported",
                self.token_endpoint_auth_signing_alg_values_supported.as_deref(),
            )
            .texts("code_challenge_methods_supported", self.code_challenge_methods_supported.as_deref())
            .boolean("client_id_metadata_document_supported", self.client_id_metadata_document_supported)
            .boolean(
                "authorization_response_iss_parameter_supported",
                self.authorization_response_iss_parameter_supported,
            )
            .texts("dpop_signing_alg_values_supported", self.dpop_signing_alg_values_supported.as_deref())
            .done()
    }

    /// Whether the token endpoint accepts this client authentication method
    /// (an absent list means `client_secret_basic` only).
    pub fn supports_auth_method(&self, method: &str) -> bool {
        match &self.token_endpoint_auth_methods_supported {
            Some(methods) => methods.iter().any(|m| m == method),
            None => method == "client_secret_basic",
        }
    }

    /// Whether the server issues tokens for this grant (an absent list means
    /// `authorization_code` and `implicit`).
    pub fn supports_grant(&self, grant: &str) -> bool {
        match &self.grant_types_supported {
            Some(grants) => grants.iter().any(|g| g == grant),
            None => grant == "authorization_code" || grant == "implicit",
        }
    }
}

/// Where to look for protected resource metadata, best first: the URL the
/// server's challenge named, then the path-inserted well-known URL, then the
/// root one (only the root when the endpoint is at `/`).
pub fn protected_resource_urls(server_url: &str, resource_metadata: Option<&str>) -> Result<Vec<String>, String> {
    let server = Url::parse(server_url)?;
    let mut urls = Vec::new();
    if let Some(url) = resource_metadata {
        urls.push(url.to_owned());
    }
    let origin = server.origin();
    let path = crate::ascii::trim_end_any(&server.path, b"/");
    if !path.is_empty() {
        urls.push(format!("{origin}/.well-known/oauth-protected-resource{path}"));
    }
    urls.push(format!("{origin}/.well-known/oauth-protected-resource"));
    urls.dedup();
    Ok(urls)
}

/// Where to look for authorization server metadata, in the MCP order:
/// RFC 8414 path insertion, OIDC path insertion, OIDC path appending (for an
/// issuer with a path); RFC 8414 then OIDC at the root (for one without).
pub fn authorization_server_urls(issuer: &str) -> Result<Vec<String>, String> {
    let url = Url::parse(issuer)?;
    if url.query.is_some() || url.fragment.is_some() {
        return Err(format!(
            "the issuer {issuer} has a query or fragment, which RFC 8414 forbids",
            issuer = Quoted(issuer)
        ));
    }
    let origin = url.origin();
    let path = crate::ascii::trim_end_any(&url.path, b"/");
    Ok(if path.is_empty() {
        vec![
            format!("{origin}/.well-known/oauth-authorization-server"),
            format!("{origin}/.well-known/openid-configuration"),
        ]
    } else {
        vec![
            format!("{origin}/.well-known/oauth-authorization-server{path}"),
            format!("{origin}/.well-known/openid-configuration{path}"),
            format!("{origin}{path}/.well-known/openid-configuration"),
        ]
    })
}

fn parse_json<T: crate::protocol::fields::FromFields>(body: &[u8], url: &str) -> Result<T, AuthError> {
    if body.len() > MAX_METADATA_BYTES {
        return Err(unreadable(url, None));
    }
    crate::protocol::fields::from_bytes(body, "an object").map_err(|e| unreadable(url, Some(e)))
}

/// `parse_json`'s errors (too large, or not the JSON expected), out of
/// line: once, not once per document type.
#[inline(never)]
fn unreadable(url: &str, error: Option<String>) -> AuthError {
    let reason = match error {
        Some(error) => format!("not the expected JSON: {error}"),
        None => format!("the document is larger than {MAX_METADATA_BYTES} bytes"),
    };
    AuthError::InvalidMetadata { url: url.to_owned(), reason }
}

/// Parses and checks protected resource metadata fetched from `url` for the
/// MCP server at `server_url`: its `resource` must be the server (or a
/// prefix of it), and it must name an authorization server.
pub fn parse_protected_resource(
    body: &[u8],
    url: &str,
    server_url: &str,
    allow_insecure: bool,
) -> Result<ProtectedResourceMetadata, AuthError> {
    let metadata: ProtectedResourceMetadata = parse_json(body, url)?;
    if !resource::covers(&metadata.resource, server_url) {
        return Err(AuthError::ResourceMismatch {
            metadata_url: url.to_owned(),
            resource: metadata.resource,
            server: server_url.to_owned(),
        });
    }
    if metadata.authorization_servers.is_empty() {
        return Err(AuthError::InvalidMetadata {
            url: url.to_owned(),
            reason: "it names no authorization server (`authorization_servers` is empty)".into(),
        });
    }
    for server in &metadata.authorization_servers {
        check_endpoint(server, url, "authorization_servers", allow_insecure)?;
    }
    Ok(metadata)
}

/// Parses and checks authorization server metadata fetched from `url` for
/// the issuer `expected_issuer`: the issuer must match exactly (RFC 8414
/// §3.3; a bare origin with or without its `/` counts as the same), and
/// every endpoint must be https (or http to this machine).
pub fn parse_authorization_server(
    body: &[u8],
    url: &str,
    expected_issuer: &str,
    allow_insecure: bool,
) -> Result<AuthorizationServerMetadata, AuthError> {
    let metadata: AuthorizationServerMetadata = parse_json(body, url)?;
    if !same_issuer(&metadata.issuer, expected_issuer) {
        return Err(AuthError::IssuerMismatch {
            metadata_url: url.to_owned(),
            expected: expected_issuer.to_owned(),
            found: metadata.issuer,
        });
    }
    for (name, endpoint) in [
        ("authorization_endpoint", &metadata.authorization_endpoint),
        ("token_endpoint", &metadata.token_endpoint),
        ("registration_endpoint", &metadata.registration_endpoint),
    ] {
        if let Some(endpoint) = endpoint {
            check_endpoint(endpoint, url, name, allow_insecure)?;
        }
    }
    Ok(metadata)
}

/// Issuer identifiers compare as strings; the only leeway is the `/` of an
/// issuer that is a bare origin (`https://as.example` is `https://as.example/`).
pub fn same_issuer(found: &str, expected: &str) -> bool {
    if found == expected {
        return true;
    }
    let bare = |s: &str| Url::parse(s).map(|u| u.path.is_empty() || u.path == "/").unwrap_or(false);
    bare(found)
        && bare(expected)
        && crate::ascii::trim_end_any(found, b"/") == crate::ascii::trim_end_any(expected, b"/")
}

/// An endpoint must be an absolute https URL (http only to this machine
/// unless allowed) with no fragment.
pub fn check_endpoint(endpoint: &str, source: &str, field: &str, allow_insecure: bool) -> Result<Url, AuthError> {
    let invalid = |reason: String| AuthError::InvalidMetadata { url: source.to_owned(), reason };
    let url = Url::parse(endpoint)
        .map_err(|e| invalid(format!("{field} {endpoint} is not a URL: {e}", endpoint = Quoted(endpoint))))?;
    if url.fragment.is_some() {
        return Err(invalid(format!("{field} {endpoint} has a fragment", endpoint = Quoted(endpoint))));
    }
    if !url.is_secure_or_loopback(allow_insecure) {
        return Err(AuthError::InsecureUrl { url: endpoint.to_owned() });
    }
    Ok(url)
}

/// PKCE support (MCP 2025-11-25 "Authorization Code Protection"): metadata
/// that lists `code_challenge_methods_supported` must include `S256`; metadata
/// without the list is refused too, except under the 2025-03-26 rules (no
/// protected resource metadata: the MCP server is its own authorization
/// server, and PKCE is mandatory there without being advertised).
pub fn check_pkce(metadata: &AuthorizationServerMetadata, legacy: bool) -> Result<(), AuthError> {
    match &metadata.code_challenge_methods_supported {
        Some(methods) if methods.iter().any(|m| m == "S256") => Ok(()),
        Some(methods) => {
            Err(AuthError::PkceUnsupported { issuer: metadata.issuer.clone(), advertised: Some(methods.clone()) })
        }
        None if legacy => Ok(()),
        None => Err(AuthError::PkceUnsupported { issuer: metadata.issuer.clone(), advertised: None }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn protected_resource_order() {
        assert_eq!(
            protected_resource_urls("https://example.com/public/mcp", None).unwrap(),
            vec![
                "https://example.com/.well-known/oauth-protected-resource/public/mcp",
                "https://example.com/.well-known/oauth-protected-resource",
            ]
        );
        assert_eq!(
            protected_resource_urls("https://example.com/", None).unwrap(),
            vec!["https://example.com/.well-known/oauth-protected-resource"]
        );
        assert_eq!(
            protected_resource_urls("http://localhost:9/mcp", Some("http://localhost:9/custom/metadata/location.json"))
                .unwrap()[0],
            "http://localhost:9/custom/metadata/location.json"
        );
    }

    #[test]
    fn authorization_server_order() {
        assert_eq!(
            authorization_server_urls("https://auth.example.com/tenant1").unwrap(),
            vec![
                "https://auth.example.com/.well-known/oauth-authorization-server/tenant1",
                "https://auth.example.com/.well-known/openid-configuration/tenant1",
                "https://auth.example.com/tenant1/.well-known/openid-configuration",
            ]
        );
        assert_eq!(
            authorization_server_urls("https://auth.example.com").unwrap(),
            vec![
                "https://auth.example.com/.well-known/oauth-authorization-server",
                "https://auth.example.com/.well-known/openid-configuration",
            ]
        );
        assert_eq!(authorization_server_urls("https://auth.example.com/").unwrap().len(), 2);
        assert!(authorization_server_urls("https://auth.example.com/?x=1").is_err());
    }

    const SERVER: &str = "http://localhost:5/mcp";

    #[test]
    fn protected_resource_checks() {
        let good = br#"{"resource":"http://localhost:5/mcp","authorization_servers":["http://localhost:6"]}"#;
        assert!(parse_protected_resource(good, "u", SERVER, false).is_ok());
        let prefix = br#"{"resource":"http://localhost:5","authorization_servers":["http://localhost:6"]}"#;
        assert_eq!(parse_protected_resource(prefix, "u", SERVER, false).unwrap().resource, "http://localhost:5");
        let other = br#"{"resource":"https://evil.example.com/mcp","authorization_servers":["http://localhost:6"]}"#;
        assert!(matches!(parse_protected_resource(other, "u", SERVER, false), Err(AuthError::ResourceMismatch { .. })));
        let no_as = br#"{"resource":"http://localhost:5/mcp","authorization_servers":[]}"#;
        assert!(matches!(parse_protected_resource(no_as, "u", SERVER, false), Err(AuthError::InvalidMetadata { .. })));
        let insecure = br#"{"resource":"http://localhost:5/mcp","authorization_servers":["http://as.example"]}"#;
        assert!(matches!(parse_protected_resource(insecure, "u", SERVER, false), Err(AuthError::InsecureUrl { .. })));
        assert!(parse_protected_resource(insecure, "u", SERVER, true).is_ok());
        for garbage in [&b"not json"[..], b"[]", b"{\"resource\":5}", b""] {
            assert!(matches!(
                parse_protected_resource(garbage, "u", SERVER, false),
                Err(AuthError::InvalidMetadata { .. })
            ));
        }
        let huge = format!(
            r#"{{"resource":"http://localhost:5/mcp","authorization_servers":["http://localhost:6"],"pad":"{}"}}"#,
            "x".repeat(MAX_METADATA_BYTES)
        );
        assert!(matches!(
            parse_protected_resource(huge.as_bytes(), "u", SERVER, false),
            Err(AuthError::InvalidMetadata { .. })
        ));
    }

    #[test]
    fn issuer_checks() {
        let doc = |issuer: &str| {
            format!(
                r#"{{"issuer":"{issuer}","authorization_endpoint":"{issuer}/authorize","token_endpoint":"{issuer}/token","code_challenge_methods_supported":["S256"]}}"#
            )
        };
        assert!(
            parse_authorization_server(doc("http://localhost:6").as_bytes(), "u", "http://localhost:6", false).is_ok()
        );
        assert!(
            parse_authorization_server(doc("http://localhost:6").as_bytes(), "u", "http://localhost:6/", false).is_ok()
        );
        // The 0.1.16 back-compat mock: metadata at the origin naming `<origin>/oauth`.
        assert!(matches!(
            parse_authorization_server(doc("http://localhost:6/oauth").as_bytes(), "u", "http://localhost:6", false),
            Err(AuthError::IssuerMismatch { .. })
        ));
        assert!(matches!(
            parse_authorization_server(
                doc("https://attacker.example.com").as_bytes(),
                "u",
                "http://localhost:6",
                false
            ),
            Err(AuthError::IssuerMismatch { .. })
        ));
        assert!(!same_issuer("http://localhost:6/t/", "http://localhost:6/t"));
        let evil_endpoint = br#"{"issuer":"https://as.example","authorization_endpoint":"javascript:alert(1)"}"#;
        assert!(matches!(
            parse_authorization_server(evil_endpoint, "u", "https://as.example", false),
            Err(AuthError::InvalidMetadata { .. })
        ));
    }

    #[test]
    fn pkce_checks() {
        let mut metadata = AuthorizationServerMetadata { issuer: "https://as".into(), ..Default::default() };
        assert!(check_pkce(&metadata, false).is_err());
        assert!(check_pkce(&metadata, true).is_ok());
        metadata.code_challenge_methods_supported = Some(vec!["plain".into()]);
        assert!(check_pkce(&metadata, true).is_err());
        metadata.code_challenge_methods_supported = Some(vec!["plain".into(), "S256".into()]);
        assert!(check_pkce(&metadata, false).is_ok());
    }

    #[test]
    fn defaults_of_absent_lists() {
        let metadata = AuthorizationServerMetadata::default();
        assert!(metadata.supports_auth_method("client_secret_basic"));
        assert!(!metadata.supports_auth_method("none"));
        assert!(metadata.supports_grant("authorization_code"));
        assert!(!metadata.supports_grant("client_credentials"));
    }
}
