//! The client identity at an authorization server, in MCP's priority order:
//! a configured (pre-registered) client, one registered earlier and kept in
//! the store, a Client ID Metadata Document URL when the server accepts
//! those, and last RFC 7591 dynamic registration.

use serde_json::Value;

use super::fetch::OAuthErrorBody;
use super::{Discovery, OAuthProvider};
use crate::auth::error::AuthError;
use crate::auth::metadata::AuthorizationServerMetadata;
use crate::auth::scope;
use crate::auth::store::ClientRegistration;
use crate::http::HttpClient;
use crate::http::url::Url;
use crate::protocol::fields::{Fields, deserialize_by_fields};
use crate::protocol::{json_text, object};
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
            redirect_uris: Vec::new(),
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
            // A new authorization sends this run's redirect URI, which the
            // registration must cover (a refresh sends none).
            let redirect = &self.config.redirect_uri;
            let fits = !register
                || covers(&client.redirect_uris, redirect)
                || (client.redirect_uris.is_empty() && portless_loopback(redirect).is_none());
            if !expired && fits {
                return Ok(client);
            }
            if !fits {
                log::info!(
                    "the client registered with {issuer} does not cover the redirect URI {redirect}: registering again"
                );
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
                redirect_uris: Vec::new(),
            });
        }
        match &discovery.metadata.registration_endpoint {
            // RFC 7591 dynamic client registration (here, not in a function
            // of its own: one state machine less). A loopback IP redirect URI
            // is registered in its port-less form too, so the registration
            // serves later runs on other ports (RFC 8252 §7.3); an
            // authorization server that refuses that form gets the exact URI
            // alone.
            Some(endpoint) if register => {
                let exact = self.config.redirect_uri.clone();
                let (mut redirect_uris, mut fallback) = match portless_loopback(&exact) {
                    Some(bare) => (vec![bare, exact.clone()], true),
                    None => (vec![exact.clone()], false),
                };
                // A loop, not a second `.await` of the registration: each is
                // a state of this future with its own moves and drops.
                loop {
                    match self.register_with(discovery, endpoint, redirect_uris).await {
                        Err(AuthError::Registration { error: Some(error), .. })
                            if fallback && (error == "invalid_redirect_uri" || error == "invalid_client_metadata") =>
                        {
                            log::info!(
                                "{endpoint} refused the port-less loopback redirect URI ({error}): registering \
                                 {exact} alone"
                            );
                            (redirect_uris, fallback) = (vec![exact.clone()], false);
                        }
                        other => return other,
                    }
                }
            }
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

    async fn register_with(
        &self,
        discovery: &Discovery,
        endpoint: &str,
        redirect_uris: Vec<String>,
    ) -> Result<ClientRegistration, AuthError> {
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
        let redirect = Url::parse(&self.config.redirect_uri).map_err(|e| {
            AuthError::Config(format!("redirect_uri {}: {e}", crate::debug::Quoted(&self.config.redirect_uri)))
        })?;
        let application_type = if redirect.scheme == "https" && !redirect.is_loopback() { "web" } else { "native" };
        let mut body = object! {
            "client_name": self.config.client_name.as_str(),
            "redirect_uris": redirect_uris.clone(),
            "grant_types": vec!["authorization_code", "refresh_token"],
            "response_types": vec!["code"],
            "token_endpoint_auth_method": method,
            "application_type": application_type,
        };
        if let Some(scopes) = &self.config.scopes {
            body["scope"] = Value::from(scope::join(scopes));
        }
        let headers = vec![
            ("Content-Type".to_owned(), "application/json".to_owned()),
            ("Accept".to_owned(), "application/json".to_owned()),
        ];
        let answer = self
            .bounded(|| format!("registering at {endpoint}"), self.post(endpoint, headers, json_text(&body)))
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
        struct Registered {
            client_id: String,
            client_secret: Option<String>,
            token_endpoint_auth_method: Option<String>,
            client_secret_expires_at: Option<u64>,
        }
        deserialize_by_fields!(Registered);
        impl Registered {
            fn from_fields(fields: &mut Fields) -> Result<Self, String> {
                let value = Registered {
                    client_id: fields.required_string("client_id"),
                    client_secret: fields.string("client_secret"),
                    token_endpoint_auth_method: fields.string("token_endpoint_auth_method"),
                    client_secret_expires_at: fields.unsigned("client_secret_expires_at"),
                };
                fields.done(value)
            }
        }
        let registered: Registered =
            crate::protocol::fields::from_bytes(&answer.body, "an object").map_err(|e| AuthError::Registration {
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
            redirect_uris,
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

/// The port-less form of a loopback IP redirect URI with a port
/// (`http://127.0.0.1:8123/callback` → `http://127.0.0.1/callback`): RFC 8252
/// §7.3 has the authorization server accept it with any port. `None` for
/// other URIs (`localhost` is a name, not a loopback IP).
fn portless_loopback(uri: &str) -> Option<String> {
    let url = Url::parse(uri).ok()?;
    let ip = url.host == "[::1]" || (url.host.starts_with("127.") && url.is_loopback());
    if url.scheme != "http" || !ip || url.port.is_none() {
        return None;
    }
    let mut bare = url;
    bare.port = None;
    Some(bare.to_string())
}

/// Whether a client registered with `registered` may send `redirect_uri`.
fn covers(registered: &[String], redirect_uri: &str) -> bool {
    registered.iter().any(|r| r == redirect_uri)
        || portless_loopback(redirect_uri).is_some_and(|bare| registered.contains(&bare))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loopback_redirect_uris() {
        assert_eq!(portless_loopback("http://127.0.0.1:8123/callback").as_deref(), Some("http://127.0.0.1/callback"));
        assert_eq!(portless_loopback("http://[::1]:8123/cb?x=1").as_deref(), Some("http://[::1]/cb?x=1"));
        assert_eq!(portless_loopback("http://127.0.0.1/callback"), None);
        assert_eq!(portless_loopback("http://localhost:8123/callback"), None);
        assert_eq!(portless_loopback("https://127.0.0.1:8123/callback"), None);
        let registered = vec!["http://127.0.0.1/callback".to_owned(), "http://127.0.0.1:1/callback".to_owned()];
        assert!(covers(&registered, "http://127.0.0.1:2/callback"));
        assert!(!covers(&registered, "http://127.0.0.1:2/other"));
        assert!(!covers(&["http://127.0.0.1:1/callback".to_owned()], "http://127.0.0.1:2/callback"));
        assert!(covers(&["https://app.example/cb".to_owned()], "https://app.example/cb"));
    }
}
