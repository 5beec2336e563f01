//! Token requests at the token endpoint: client authentication (secret,
//! basic or post, or a `private_key_jwt` assertion), DPoP proofs with the
//! server's nonce, the token response checked, and refresh. Every grant ends
//! here.

use serde_json::Value;

use super::OAuthProvider;
use super::fetch::OAuthErrorBody;
use crate::auth::config::Grant;
use crate::auth::error::AuthError;
use crate::auth::jwt::{self, CLIENT_ASSERTION_TYPE, Es256Key};
use crate::auth::metadata::AuthorizationServerMetadata;
use crate::auth::store::{ClientRegistration, Tokens, redacted};
use crate::http::HttpClient;
use crate::http::url as urls;
use crate::protocol::fields::{Fields, deserialize_by_fields};
use crate::runtime::now_secs;

/// Why DPoP is used, when the configuration turned it on.
pub(super) const DPOP_CONFIGURED: &str = "the client is configured to use it (the dpop option)";
/// Why DPoP is used, when the server's challenge named it.
pub(super) const DPOP_CHALLENGE: &str = "the server's WWW-Authenticate challenge names the DPoP scheme";
/// Why DPoP is used, when the protected resource metadata requires it.
pub(super) const DPOP_METADATA: &str = "its protected resource metadata sets dpop_bound_access_tokens_required";

impl<H: HttpClient> OAuthProvider<H> {
    async fn dpop_key(&self, metadata: &AuthorizationServerMetadata) -> Result<Option<Es256Key>, AuthError> {
        // DPoP when the MCP server asks for it or the user turned it on,
        // never because the authorization server merely offers it (MCP:
        // `Authorization: Bearer` unless DPoP applies). Without the `dpop`
        // feature tokens are never bound.
        let asked = {
            let mut state = self.state();
            if self.config.dpop && state.dpop_reason.is_none() {
                state.dpop_reason = Some(DPOP_CONFIGURED);
            }
            state.dpop_reason.is_some()
        };
        let wants = cfg!(feature = "dpop")
            && asked
            && metadata
                .dpop_signing_alg_values_supported
                .as_ref()
                .is_some_and(|algs| algs.iter().any(|a| a == "ES256"));
        if !wants {
            return Ok(None);
        }
        let existing = self.state().dpop_key.clone();
        if existing.is_some() {
            return Ok(existing);
        }
        // Made outside the lock (WebCrypto's key generation is async); a
        // key another request made meanwhile wins.
        let fresh = jwt::new_dpop_key().await?;
        Ok(Some(self.state().dpop_key.get_or_insert(fresh).clone()))
    }

    /// One token request with client authentication; retried once when the
    /// server asks for a DPoP nonce.
    pub(super) async fn token_request(
        &self,
        metadata: &AuthorizationServerMetadata,
        client: Option<&ClientRegistration>,
        form: Vec<(&str, String)>,
    ) -> Result<Tokens, AuthError> {
        let endpoint = metadata.token_endpoint.clone().ok_or_else(|| AuthError::InvalidMetadata {
            url: metadata.issuer.clone(),
            reason: "it has no token_endpoint".into(),
        })?;
        let dpop = self.dpop_key(metadata).await?;
        let mut nonce_retried = false;
        loop {
            let mut body = String::new();
            for (name, value) in &form {
                urls::push_pair(&mut body, name, value);
            }
            let mut headers = vec![
                ("Content-Type".to_owned(), "application/x-www-form-urlencoded".to_owned()),
                ("Accept".to_owned(), "application/json".to_owned()),
            ];
            if let Some(client) = client {
                self.client_authentication(client, &metadata.issuer, &mut body, &mut headers).await?;
            }
            if let Some(key) = &dpop {
                let nonce = self.state().as_nonce.clone();
                headers.push((
                    "DPoP".to_owned(),
                    jwt::signed_dpop_proof(key, "POST", &endpoint, now_secs(), nonce.as_deref(), None).await?,
                ));
            }
            let answer = self
                .bounded(|| format!("the token request to {endpoint}"), self.post(&endpoint, headers, body))
                .await?;
            if let Some(nonce) = &answer.dpop_nonce {
                self.state().as_nonce = Some(nonce.clone());
            }
            if (200..300).contains(&answer.status) {
                return parse_tokens(&answer.body, &endpoint, dpop.is_some());
            }
            let error = OAuthErrorBody::parse(&answer.body);
            if error.error.as_deref() == Some("use_dpop_nonce")
                && dpop.is_some()
                && !nonce_retried
                && answer.dpop_nonce.is_some()
            {
                nonce_retried = true;
                continue;
            }
            return Err(AuthError::TokenEndpoint {
                endpoint,
                status: answer.status,
                error: error.error,
                description: error.error_description,
            });
        }
    }

    async fn client_authentication(
        &self,
        client: &ClientRegistration,
        issuer: &str,
        body: &mut String,
        headers: &mut Vec<(String, String)>,
    ) -> Result<(), AuthError> {
        let method = client.token_endpoint_auth_method.as_deref().unwrap_or("none");
        match (method, &client.client_secret) {
            ("client_secret_basic", Some(secret)) => {
                // RFC 6749 §2.3.1: form-encode each part before joining.
                let joined = format!("{}:{}", urls::form_component(&client.client_id), urls::form_component(secret));
                let encoded = crate::protocol::base64::standard(joined.as_bytes());
                headers.push(("Authorization".to_owned(), format!("Basic {encoded}")));
            }
            ("client_secret_post", Some(secret)) => {
                urls::push_pair(body, "client_id", &client.client_id);
                urls::push_pair(body, "client_secret", secret);
            }
            ("private_key_jwt", _) => {
                let key = self
                    .key
                    .as_ref()
                    .ok_or_else(|| AuthError::Config("private_key_jwt needs a private key (private_key_pem)".into()))?;
                let assertion = jwt::signed_client_assertion(key, &client.client_id, issuer, now_secs()).await?;
                urls::push_pair(body, "client_id", &client.client_id);
                urls::push_pair(body, "client_assertion_type", CLIENT_ASSERTION_TYPE);
                urls::push_pair(body, "client_assertion", &assertion);
            }
            ("client_secret_basic" | "client_secret_post", None) => {
                return Err(AuthError::Config(format!(
                    "the client {} authenticates with {method}, but no client_secret is configured",
                    client.client_id
                )));
            }
            _ => urls::push_pair(body, "client_id", &client.client_id),
        }
        Ok(())
    }

    /// Uses the refresh token; on success the new tokens replace the old.
    pub(super) async fn refresh(&self) -> Result<(), AuthError> {
        let (refresh_token, old_scope) = {
            let state = self.state();
            let Some(old) = &state.record.tokens else {
                return Err(AuthError::Config("no tokens to refresh".into()));
            };
            let Some(refresh_token) = old.refresh_token.clone() else {
                return Err(AuthError::Config("no refresh token".into()));
            };
            (refresh_token, old.scope.clone())
        };
        let known = self.state().discovery.clone();
        let discovery = match known {
            Some(discovery) => discovery,
            None => self.discover(None, None, true).await?,
        };
        let client = match self.config.grant {
            None | Some(Grant::AuthorizationCode) => Some(self.client_for(&discovery, false).await?),
            _ => self.configured_client(&discovery),
        };
        let form = vec![
            ("grant_type", "refresh_token".to_owned()),
            ("refresh_token", refresh_token.clone()),
            ("resource", discovery.resource.clone()),
        ];
        let mut tokens = self.token_request(&discovery.metadata, client.as_ref(), form).await?;
        if tokens.refresh_token.is_none() {
            tokens.refresh_token = Some(refresh_token);
        }
        if tokens.scope.is_none() {
            tokens.scope = old_scope;
        }
        log::info!("refreshed the access token: {}", redacted(&tokens.access_token));
        self.state().record.tokens = Some(tokens);
        self.save().await
    }

    pub(super) async fn drop_tokens(&self) -> Result<(), AuthError> {
        self.state().record.tokens = None;
        self.save().await
    }
}

/// The `Authorization` header value for tokens.
pub(super) fn authorization_value(tokens: &Tokens) -> String {
    if tokens.token_type.eq_ignore_ascii_case("dpop") {
        format!("DPoP {}", tokens.access_token)
    } else {
        format!("Bearer {}", tokens.access_token)
    }
}

fn parse_tokens(body: &[u8], endpoint: &str, dpop: bool) -> Result<Tokens, AuthError> {
    struct TokenResponse {
        access_token: String,
        token_type: String,
        expires_in: Option<Value>,
        refresh_token: Option<String>,
        scope: Option<String>,
    }
    deserialize_by_fields!(TokenResponse);
    impl TokenResponse {
        fn from_fields(fields: &mut Fields) -> Result<Self, String> {
            let value = TokenResponse {
                access_token: fields.required_string("access_token"),
                token_type: fields.required_string("token_type"),
                expires_in: fields.value("expires_in"),
                refresh_token: fields.string("refresh_token"),
                scope: fields.string("scope"),
            };
            fields.done(value)
        }
    }
    let invalid = |reason: String| AuthError::InvalidTokenResponse { endpoint: endpoint.to_owned(), reason };
    let response: TokenResponse = crate::protocol::fields::from_bytes(body, "an object")
        .map_err(|e| invalid(format!("not a token response: {e}")))?;
    if response.access_token.is_empty() {
        return Err(invalid("the access_token is empty".into()));
    }
    let token_type = if response.token_type.eq_ignore_ascii_case("bearer") {
        "Bearer"
    } else if response.token_type.eq_ignore_ascii_case("dpop") && dpop {
        "DPoP"
    } else {
        return Err(invalid(format!("the token_type {} is not Bearer", crate::debug::Quoted(&response.token_type))));
    };
    let expires_in = match response.expires_in {
        Some(Value::Number(n)) => n.as_u64(),
        Some(Value::String(s)) => s.parse::<u64>().ok(),
        _ => None,
    };
    Ok(Tokens {
        access_token: response.access_token,
        token_type: token_type.into(),
        refresh_token: response.refresh_token.filter(|t| !t.is_empty()),
        expires_at: expires_in.map(|secs| now_secs().saturating_add(secs)),
        issued_at: expires_in.map(|_| now_secs()),
        scope: response.scope,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn token_responses() {
        let tokens =
            parse_tokens(br#"{"access_token":"t","token_type":"bearer","expires_in":60}"#, "e", false).unwrap();
        assert_eq!(tokens.token_type, "Bearer");
        assert!(tokens.expires_at.is_some());
        assert!(parse_tokens(br#"{"access_token":"t","token_type":"mac"}"#, "e", false).is_err());
        assert!(parse_tokens(br#"{"access_token":"","token_type":"Bearer"}"#, "e", false).is_err());
        assert!(parse_tokens(br#"{"token_type":"Bearer"}"#, "e", false).is_err());
        assert!(parse_tokens(b"<html>", "e", false).is_err());
        assert!(parse_tokens(br#"{"access_token":"t","token_type":"DPoP"}"#, "e", false).is_err());
        assert!(parse_tokens(br#"{"access_token":"t","token_type":"DPoP"}"#, "e", true).is_ok());
    }
}
