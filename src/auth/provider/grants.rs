//! Getting tokens: which grant to use (the configured one, else client
//! credentials for a machine client of a server without authorization code,
//! else authorization code), running it, and keeping the result. The
//! authorization code grant itself is in `authorization_code.rs`; SEP-990
//! identity assertions (ID-JAG) are here.

#[cfg(feature = "machine-grants")]
use serde_json::Value;

#[cfg(feature = "machine-grants")]
use super::fetch::OAuthErrorBody;
use super::{Discovery, OAuthProvider};
use crate::auth::config::Grant;
use crate::auth::error::AuthError;
#[cfg(feature = "machine-grants")]
use crate::auth::metadata;
use crate::auth::scope;
#[cfg(feature = "machine-grants")]
use crate::auth::store::Tokens;
use crate::auth::store::redacted;
use crate::http::HttpClient;
#[cfg(feature = "machine-grants")]
use crate::http::url as urls;

/// OpenID Connect's scope for a refresh token.
pub(super) const OFFLINE: &str = "offline_access";
#[cfg(feature = "machine-grants")]
const JWT_BEARER: &str = "urn:ietf:params:oauth:grant-type:jwt-bearer";
#[cfg(feature = "machine-grants")]
const TOKEN_EXCHANGE: &str = "urn:ietf:params:oauth:grant-type:token-exchange";
#[cfg(feature = "machine-grants")]
const ID_JAG: &str = "urn:ietf:params:oauth:token-type:id-jag";
#[cfg(feature = "machine-grants")]
const ID_TOKEN: &str = "urn:ietf:params:oauth:token-type:id_token";

impl<H: HttpClient> OAuthProvider<H> {
    fn choose_grant(&self, discovery: &Discovery) -> &Grant {
        if let Some(grant) = &self.config.grant {
            return grant;
        }
        let metadata = &discovery.metadata;
        let has_credentials =
            self.config.client_id.is_some() && (self.config.client_secret.is_some() || self.key.is_some());
        if cfg!(feature = "machine-grants")
            && !metadata.supports_grant("authorization_code")
            && metadata.supports_grant("client_credentials")
            && has_credentials
        {
            &Grant::ClientCredentials
        } else {
            &Grant::AuthorizationCode
        }
    }

    /// `offline_access` added to the scopes the client chose (not to ones the
    /// user configured) when the store outlives the session and the
    /// authorization server lists it: the refresh token then comes without
    /// special configuration there.
    fn with_offline_access(&self, discovery: &Discovery, scopes: Option<Vec<String>>) -> Option<Vec<String>> {
        let listed = discovery.metadata.scopes_supported.as_ref().is_some_and(|s| s.iter().any(|s| s == OFFLINE));
        if self.config.scopes.is_some() || !listed || !self.store.persistent() {
            return scopes;
        }
        let mut scopes = scopes.unwrap_or_default();
        if !scopes.iter().any(|s| s == OFFLINE) {
            scopes.push(OFFLINE.to_owned());
        }
        Some(scopes)
    }

    /// A full authorization with `scopes`.
    pub(super) async fn authorize(&self, discovery: &Discovery, scopes: Option<Vec<String>>) -> Result<(), AuthError> {
        let grant = self.choose_grant(discovery);
        let scopes = match grant {
            Grant::AuthorizationCode => self.with_offline_access(discovery, scopes),
            _ => scopes,
        };
        let scope_param = scopes.as_deref().filter(|s| !s.is_empty()).map(scope::join);
        let shown = scope_param.as_deref().unwrap_or("(none)");
        log::info!(
            "authorizing with {} for {} ({grant:?}, scopes {shown})",
            discovery.metadata.issuer,
            discovery.resource
        );
        let mut tokens = match grant {
            Grant::AuthorizationCode => self.authorization_code(discovery, scope_param.clone()).await?,
            #[cfg(feature = "machine-grants")]
            machine => self.machine_grant(discovery, machine, scope_param.clone()).await?,
            #[cfg(not(feature = "machine-grants"))]
            machine => return Err(no_machine_grants(machine)),
        };
        if tokens.scope.is_none() {
            tokens.scope = scope_param;
        }
        log::info!("got an access token {} for {}", redacted(&tokens.access_token), discovery.resource);
        {
            let mut state = self.state();
            state.record.tokens = Some(tokens);
            state.requested = scopes;
        }
        self.save().await
    }

    /// A grant without a person: client credentials, a JWT bearer
    /// assertion, an identity assertion.
    #[cfg(feature = "machine-grants")]
    async fn machine_grant(
        &self,
        discovery: &Discovery,
        grant: &Grant,
        scope_param: Option<String>,
    ) -> Result<Tokens, AuthError> {
        let resource = discovery.resource.clone();
        let client = self.configured_client(discovery);
        // Each grant's first pairs; the scope, and one token request (one
        // `.await` of it), for all three.
        let mut form = match grant {
            Grant::ClientCredentials => {
                if client.is_none() {
                    return Err(AuthError::Config("the client credentials grant needs a configured client_id".into()));
                }
                vec![("grant_type", "client_credentials".to_owned()), ("resource", resource)]
            }
            Grant::JwtBearer { assertion } => {
                vec![("grant_type", JWT_BEARER.to_owned()), ("assertion", assertion.clone()), ("resource", resource)]
            }
            Grant::IdentityAssertion { idp_token_endpoint, id_token, idp_client_id, idp_client_secret } => {
                let idp = IdentityProvider {
                    token_endpoint: idp_token_endpoint,
                    id_token,
                    client_id: idp_client_id,
                    client_secret: idp_client_secret.as_deref(),
                };
                let assertion = self.id_jag(discovery, idp, scope_param.as_deref()).await?;
                vec![("grant_type", JWT_BEARER.to_owned()), ("assertion", assertion), ("resource", resource)]
            }
            // `authorize` runs it itself; a second call site here would
            // compile its future into this one too.
            Grant::AuthorizationCode => {
                return Err(AuthError::Config(
                    "the authorization code grant needs a person, not a machine grant".into(),
                ));
            }
        };
        if let Some(scope) = scope_param {
            form.push(("scope", scope));
        }
        self.token_request(&discovery.metadata, client.as_ref(), form).await
    }
}

/// The error of a build without grants that need no person (the
/// `machine-grants` feature is off, as in the npm package's `mcp-edge/lite`).
#[cfg(not(feature = "machine-grants"))]
fn no_machine_grants(grant: &Grant) -> AuthError {
    let name = match grant {
        Grant::ClientCredentials => "client_credentials",
        Grant::JwtBearer { .. } => "jwt_bearer",
        Grant::IdentityAssertion { .. } => "identity_assertion",
        Grant::AuthorizationCode => "authorization_code",
    };
    AuthError::Config(format!(
        "this build of mcp-edge has no {name} grant: enable the `machine-grants` feature (in the npm package, \
         import `mcp-edge` rather than `mcp-edge/lite`)"
    ))
}

/// What an identity assertion grant asks its identity provider with.
#[cfg(feature = "machine-grants")]
struct IdentityProvider<'a> {
    token_endpoint: &'a String,
    id_token: &'a String,
    client_id: &'a String,
    client_secret: Option<&'a str>,
}

#[cfg(feature = "machine-grants")]
impl<H: HttpClient> OAuthProvider<H> {
    /// SEP-990's first step: the ID token → an ID-JAG at the identity
    /// provider (RFC 8693), the assertion the authorization server then takes
    /// as a jwt-bearer grant (RFC 7523, in `machine_grant`).
    async fn id_jag(
        &self,
        discovery: &Discovery,
        idp: IdentityProvider<'_>,
        scope: Option<&str>,
    ) -> Result<String, AuthError> {
        let IdentityProvider {
            token_endpoint: idp_token_endpoint,
            id_token,
            client_id: idp_client_id,
            client_secret: idp_client_secret,
        } = idp;
        metadata::check_endpoint(
            idp_token_endpoint,
            "the configuration",
            "idp_token_endpoint",
            self.config.allow_insecure_http,
        )?;
        let mut form = vec![
            ("grant_type", TOKEN_EXCHANGE.to_owned()),
            ("requested_token_type", ID_JAG.to_owned()),
            ("subject_token", id_token.clone()),
            ("subject_token_type", ID_TOKEN.to_owned()),
            ("audience", discovery.metadata.issuer.clone()),
            ("resource", discovery.resource.clone()),
            ("client_id", idp_client_id.clone()),
        ];
        if let Some(secret) = idp_client_secret {
            form.push(("client_secret", secret.to_owned()));
        }
        if let Some(scope) = scope {
            form.push(("scope", scope.to_owned()));
        }
        let headers = vec![
            ("Content-Type".to_owned(), "application/x-www-form-urlencoded".to_owned()),
            ("Accept".to_owned(), "application/json".to_owned()),
        ];
        let mut body = String::new();
        for (name, value) in &form {
            urls::push_pair(&mut body, name, value);
        }
        let answer = self
            .bounded(
                || format!("the token exchange at {idp_token_endpoint}"),
                self.post(idp_token_endpoint, headers, body),
            )
            .await?;
        if !(200..300).contains(&answer.status) {
            let error = OAuthErrorBody::parse(&answer.body);
            return Err(AuthError::TokenEndpoint {
                endpoint: idp_token_endpoint.clone(),
                status: answer.status,
                error: error.error,
                description: error.error_description,
            });
        }
        let jag = crate::protocol::json::parse_bytes(&answer.body).map_err(|e| AuthError::InvalidTokenResponse {
            endpoint: idp_token_endpoint.clone(),
            reason: e.to_string(),
        })?;
        let assertion = jag.get("access_token").and_then(Value::as_str).filter(|t| !t.is_empty()).ok_or_else(|| {
            AuthError::InvalidTokenResponse {
                endpoint: idp_token_endpoint.clone(),
                reason: "no ID-JAG in access_token".into(),
            }
        })?;
        Ok(assertion.to_owned())
    }
}

#[cfg(all(test, not(feature = "machine-grants")))]
mod tests {
    use super::*;

    #[test]
    fn a_build_without_machine_grants_names_the_grant_and_the_feature() {
        let error = no_machine_grants(&Grant::JwtBearer { assertion: "a".into() }).to_string();
        assert!(error.contains("no jwt_bearer grant"), "{error}");
        assert!(error.contains("`machine-grants` feature"), "{error}");
    }
}
