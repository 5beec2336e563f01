//! The client identity at an authorization server, in MCP's priority order:
//! a configured (pre-registered) client, one registered earlier and kept in
//! the store, a Client ID Metadata Document URL when the server accepts
//! those, and last RFC 7591 dynamic registration.

use serde::Deserialize;
use serde_json::json;

use super::fetch::OAuthErrorBody;
use super::{Discovery, OAuthProvider};
use crate::auth::error::AuthError;
use crate::auth::metadata::AuthorizationServerMetadata;
use crate::auth::scope;
use crate::auth::store::ClientRegistration;
use crate::http::HttpClient;
use crate::http::url::Url;
use crate::runtime::now_secs;

impl<H: HttpClient> OAuthProvider<H> {
    fn secret_method(&self, metadata: &AuthorizationServerMetadata, has_secret: bool) -> String {
        if let Some(method) = &self.config.token_endpoint_auth_method {
            return method.clone();
        }
        if self.key.is_some() && metadata.supports_auth_method("private_key_jwt") {
            return "private_key_jwt".into();
        }
        if !has_secret {
            return if self.key.is_some() { "private_key_jwt".into() } else { "none".into() };
        }
        if metadata.supports_auth_method("client_secret_basic") {
            "client_secret_basic".into()
        } else if metadata.supports_auth_method("client_secret_post") {
            "client_secret_post".into()
        } else {
            "client_secret_basic".into()
        }
    }

    pub(super) fn configured_client(&self, discovery: &Discovery) -> Option<ClientRegistration> {
        let client_id = self.config.client_id.clone()?;
        let method = self.secret_method(&discovery.metadata, self.config.client_secret.is_some());
        Some(ClientRegistration {
            issuer: discovery.metadata.issuer.clone(),
            client_id,
            client_secret: self.config.client_secret.clone(),
            token_endpoint_auth_method: Some(method),
            client_secret_expires_at: None,
        })
    }

    /// The client identity, in MCP's priority order; registers if needed.
    pub(super) async fn client_for(
        &self,
        discovery: &Discovery,
        register: bool,
    ) -> Result<ClientRegistration, AuthError> {
        if let Some(client) = self.configured_client(discovery) {
            return Ok(client);
        }
        let issuer = &discovery.metadata.issuer;
        let now = now_secs();
        let stored = self.state().record.clients.iter().find(|c| &c.issuer == issuer).cloned();
        if let Some(client) = stored {
            let expired = matches!(client.client_secret_expires_at, Some(at) if at != 0 && at <= now);
            if !expired {
                return Ok(client);
            }
        }
        if let Some(cimd) = &self.config.client_metadata_url
            && discovery.metadata.client_id_metadata_document_supported == Some(true)
        {
            let method = if self.key.is_some() && discovery.metadata.supports_auth_method("private_key_jwt") {
                "private_key_jwt"
            } else {
                "none"
            };
            return Ok(ClientRegistration {
                issuer: issuer.clone(),
                client_id: cimd.clone(),
                client_secret: None,
                token_endpoint_auth_method: Some(method.into()),
                client_secret_expires_at: None,
            });
        }
        match &discovery.metadata.registration_endpoint {
            Some(endpoint) if register => self.register(discovery, endpoint).await,
            _ => Err(AuthError::ClientRegistrationNeeded {
                issuer: issuer.clone(),
                redirect_uri: self.config.redirect_uri.clone(),
                cimd: match &self.config.client_metadata_url {
                    Some(url) => format!(" (the configured client metadata document {url} is not accepted there)"),
                    None => String::new(),
                },
            }),
        }
    }

    /// RFC 7591 dynamic client registration.
    async fn register(&self, discovery: &Discovery, endpoint: &str) -> Result<ClientRegistration, AuthError> {
        let metadata = &discovery.metadata;
        let method = if metadata.supports_auth_method("none") {
            "none"
        } else if metadata.supports_auth_method("client_secret_basic") {
            "client_secret_basic"
        } else if metadata.supports_auth_method("client_secret_post") {
            "client_secret_post"
        } else {
            "none"
        };
        let redirect = Url::parse(&self.config.redirect_uri)
            .map_err(|e| AuthError::Config(format!("redirect_uri {:?}: {e}", self.config.redirect_uri)))?;
        let application_type = if redirect.scheme == "https" && !redirect.is_loopback() { "web" } else { "native" };
        let mut body = json!({
            "client_name": self.config.client_name,
            "redirect_uris": [self.config.redirect_uri],
            "grant_types": ["authorization_code", "refresh_token"],
            "response_types": ["code"],
            "token_endpoint_auth_method": method,
            "application_type": application_type,
        });
        if let Some(scopes) = &self.config.scopes {
            body["scope"] = json!(scope::join(scopes));
        }
        let headers = vec![
            ("Content-Type".to_owned(), "application/json".to_owned()),
            ("Accept".to_owned(), "application/json".to_owned()),
        ];
        let answer = self
            .bounded(|| format!("registering at {endpoint}"), self.post(endpoint, headers, body.to_string()))
            .await?;
        if !(200..300).contains(&answer.status) {
            let error = OAuthErrorBody::parse(&answer.body);
            return Err(AuthError::Registration {
                endpoint: endpoint.to_owned(),
                status: answer.status,
                error: error.error,
                description: error.error_description,
            });
        }
        #[derive(Deserialize)]
        struct Registered {
            client_id: String,
            #[serde(default)]
            client_secret: Option<String>,
            #[serde(default)]
            token_endpoint_auth_method: Option<String>,
            #[serde(default)]
            client_secret_expires_at: Option<u64>,
        }
        let registered: Registered = serde_json::from_slice(&answer.body).map_err(|e| AuthError::Registration {
            endpoint: endpoint.to_owned(),
            status: answer.status,
            error: None,
            description: Some(format!("the answer is not a client registration: {e}")),
        })?;
        if registered.client_id.is_empty() {
            return Err(AuthError::Registration {
                endpoint: endpoint.to_owned(),
                status: answer.status,
                error: None,
                description: Some("the answer has an empty client_id".into()),
            });
        }
        let method =
            registered.token_endpoint_auth_method.unwrap_or_else(|| match (&registered.client_secret, method) {
                (Some(_), "none") => "client_secret_basic".into(),
                (_, method) => method.into(),
            });
        let client = ClientRegistration {
            issuer: metadata.issuer.clone(),
            client_id: registered.client_id,
            client_secret: registered.client_secret,
            token_endpoint_auth_method: Some(method),
            client_secret_expires_at: registered.client_secret_expires_at,
        };
        log::info!("registered with {} as client {}", metadata.issuer, client.client_id);
        {
            let mut state = self.state();
            state.record.clients.retain(|c| c.issuer != client.issuer);
            state.record.clients.push(client.clone());
        }
        self.save().await?;
        Ok(client)
    }
}
