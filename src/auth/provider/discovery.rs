//! Discovery: where the MCP server's authorization server is and what it
//! supports. Protected resource metadata (RFC 9728) names the authorization
//! server; its metadata (RFC 8414 / OpenID discovery) names the endpoints.
//! Without protected resource metadata the 2025-03-26 rules apply: the MCP
//! server's origin is the authorization server, with default endpoints when
//! it publishes no metadata either, provided it asked for a Bearer token
//! (a bare 401 with no metadata anywhere is an error that says so).

use std::sync::Arc;

use super::{Discovery, OAuthProvider};
use crate::auth::error::AuthError;
use crate::auth::metadata::{self, AuthorizationServerMetadata};
use crate::auth::resource;
use crate::http::HttpClient;
use crate::http::url::Url;

impl<H: HttpClient> OAuthProvider<H> {
    pub(super) async fn discover(
        &self,
        resource_metadata: Option<&str>,
        protocol_version: Option<&str>,
        bearer_asked: bool,
    ) -> Result<Arc<Discovery>, AuthError> {
        let insecure = self.config.allow_insecure_http;
        let candidates = metadata::protected_resource_urls(&self.server_url, resource_metadata)
            .map_err(|e| AuthError::Config(format!("the server URL {}: {e}", self.server_url)))?;
        let mut protected_resource = None;
        let mut tried = Vec::new();
        for url in &candidates {
            let fetched = self.bounded(|| format!("fetching {url}"), self.get_document(url, &[])).await;
            match fetched {
                Ok((200, body)) => {
                    let parsed = metadata::parse_protected_resource(&body, url, &self.server_url, insecure)?;
                    log::debug!(
                        "protected resource metadata from {url}: authorization servers {:?}",
                        parsed.authorization_servers
                    );
                    protected_resource = Some(parsed);
                    break;
                }
                Ok((status, _)) => {
                    log::debug!("no protected resource metadata at {url} (HTTP {status})");
                    tried.push(format!("{url}: HTTP {status}"));
                }
                Err(error @ (AuthError::CrossOriginRedirect { .. } | AuthError::InvalidMetadata { .. })) => {
                    return Err(error);
                }
                Err(error) => {
                    log::debug!("no protected resource metadata at {url}: {error}");
                    tried.push(format!("{url}: {error}"));
                }
            }
        }
        let (issuer, legacy) = match &protected_resource {
            Some(prm) => (prm.authorization_servers[0].clone(), false),
            None => {
                let origin = Url::parse(&self.server_url).map_err(AuthError::Config)?.origin();
                log::info!(
                    "{} has no protected resource metadata: using the 2025-03-26 rules ({origin} is its own \
                     authorization server)",
                    self.server_url
                );
                (origin, true)
            }
        };
        let resource = match &protected_resource {
            Some(prm) => prm.resource.clone(),
            None => resource::canonical(&self.server_url).map_err(AuthError::Config)?,
        };
        let headers: Vec<(String, String)> = match (legacy, protocol_version) {
            (true, Some(version)) => vec![("MCP-Protocol-Version".to_owned(), version.to_owned())],
            _ => Vec::new(),
        };
        let mut found = None;
        let urls = metadata::authorization_server_urls(&issuer)
            .map_err(|e| AuthError::InvalidMetadata { url: issuer.clone(), reason: e })?;
        for url in &urls {
            match self.bounded(|| format!("fetching {url}"), self.get_document(url, &headers)).await {
                Ok((200, body)) => {
                    found = Some(metadata::parse_authorization_server(&body, url, &issuer, insecure)?);
                    break;
                }
                Ok((status, _)) => tried.push(format!("{url}: HTTP {status}")),
                Err(error @ (AuthError::CrossOriginRedirect { .. } | AuthError::InvalidMetadata { .. })) => {
                    return Err(error);
                }
                Err(error) => tried.push(format!("{url}: {error}")),
            }
        }
        let metadata = match found {
            Some(metadata) => metadata,
            None if legacy && !bearer_asked => {
                return Err(AuthError::NoMetadata { server: self.server_url.clone(), tried });
            }
            None if legacy => {
                log::info!("{issuer} has no authorization server metadata: using the 2025-03-26 default endpoints");
                AuthorizationServerMetadata {
                    issuer: issuer.clone(),
                    authorization_endpoint: Some(format!("{issuer}/authorize")),
                    token_endpoint: Some(format!("{issuer}/token")),
                    registration_endpoint: Some(format!("{issuer}/register")),
                    grant_types_supported: Some(vec!["authorization_code".into(), "refresh_token".into()]),
                    token_endpoint_auth_methods_supported: Some(vec![
                        "none".into(),
                        "client_secret_basic".into(),
                        "client_secret_post".into(),
                    ]),
                    ..Default::default()
                }
            }
            None => return Err(AuthError::NoAuthorizationServerMetadata { issuer, tried }),
        };
        let discovery = Arc::new(Discovery { resource, protected_resource, metadata, legacy });
        {
            let mut state = self.state();
            let required = discovery.protected_resource.as_ref().and_then(|p| p.dpop_bound_access_tokens_required);
            if required == Some(true) && state.dpop_reason.is_none() {
                state.dpop_reason = Some(super::tokens::DPOP_METADATA);
            }
            state.discovery = Some(discovery.clone());
        }
        Ok(discovery)
    }
}
