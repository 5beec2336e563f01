//! The authorization code grant with PKCE: the authorization URL, the
//! authorizer that sends the user there and brings the redirect back, the
//! checks on that redirect (state, RFC 9207 `iss`), and the code exchange;
//! also finishing a flow that a full-page redirect split across two page
//! loads.

use super::fetch::bounded;
use super::{Discovery, OAuthProvider};
use crate::auth::authorizer::{AuthorizationRequest, PendingAuthorization};
use crate::auth::error::AuthError;
use crate::auth::metadata::{self, AuthorizationServerMetadata};
use crate::auth::pkce::{self, Pkce};
use crate::auth::resource;
use crate::auth::store::{ClientRegistration, Tokens, redacted};
use crate::http::HttpClient;
use crate::http::url::{self as urls, Url};
use crate::runtime::now_secs;

impl<H: HttpClient> OAuthProvider<H> {
    /// Finishes an authorization code flow that an earlier page load started
    /// (a full-page redirect, see [`Authorizer::remember`](crate::auth::Authorizer::remember)): checks the
    /// redirect the browser came back with (`state`, RFC 9207 `iss`, an
    /// `error`), exchanges the code with the PKCE verifier, and keeps the
    /// tokens in the store.
    pub async fn complete_authorization(
        &self,
        redirected: &str,
        pending: &PendingAuthorization,
    ) -> Result<(), AuthError> {
        let _flow = self.flow.clone().acquire().await;
        self.ensure_loaded().await?;
        if resource::canonical(&pending.server_url).ok().as_deref() != Some(self.store_key.as_str()) {
            return Err(AuthError::Config(format!(
                "the pending authorization is for {}, not for {}",
                pending.server_url, self.server_url
            )));
        }
        let code = check_authorization_response(redirected, &pending.redirect_uri, &pending.state, &pending.metadata)?;
        let mut tokens = self
            .exchange_code(
                &pending.metadata,
                &pending.client,
                code,
                pending.redirect_uri.clone(),
                pending.code_verifier.clone(),
                &pending.resource,
            )
            .await?;
        if tokens.scope.is_none() {
            tokens.scope = pending.scope.clone();
        }
        log::info!(
            "got an access token {} for {} (after a redirect)",
            redacted(&tokens.access_token),
            pending.resource
        );
        {
            let mut state = self.state();
            state.record.tokens = Some(tokens);
            state.requested = pending.scope.as_deref().map(crate::auth::scope::words);
            let issuer = &pending.metadata.issuer;
            if self.config.client_id.is_none() && !state.record.clients.iter().any(|c| &c.issuer == issuer) {
                state.record.clients.push(pending.client.clone());
            }
        }
        self.save().await
    }

    pub(super) async fn authorization_code(
        &self,
        discovery: &Discovery,
        scope: Option<String>,
    ) -> Result<Tokens, AuthError> {
        let metadata = &discovery.metadata;
        metadata::check_pkce(metadata, discovery.legacy)?;
        let authorizer =
            self.authorizer.clone().ok_or_else(|| AuthError::NoAuthorizer { server: self.server_url.clone() })?;
        let endpoint = metadata.authorization_endpoint.clone().ok_or_else(|| AuthError::InvalidMetadata {
            url: metadata.issuer.clone(),
            reason: "it has no authorization_endpoint".into(),
        })?;
        let endpoint_url = metadata::check_endpoint(
            &endpoint,
            &metadata.issuer,
            "authorization_endpoint",
            self.config.allow_insecure_http,
        )?;
        let client = self.client_for(discovery, true).await?;
        let pkce = Pkce::generate().map_err(AuthError::Crypto)?;
        let state = pkce::random_string(24).map_err(AuthError::Crypto)?;
        let redirect_uri = self.config.redirect_uri.clone();
        let mut params: Vec<(&str, &str)> = vec![
            ("response_type", "code"),
            ("client_id", &client.client_id),
            ("redirect_uri", &redirect_uri),
            ("code_challenge", &pkce.challenge),
            ("code_challenge_method", "S256"),
            ("state", &state),
            ("resource", &discovery.resource),
        ];
        if let Some(scope) = &scope {
            params.push(("scope", scope));
            // OpenID Connect Core §11: offline_access needs prompt=consent
            // (oidc-provider drops the scope without it).
            if scope.split(' ').any(|s| s == super::grants::OFFLINE) {
                params.push(("prompt", "consent"));
            }
        }
        let request = AuthorizationRequest {
            url: urls::with_query(&endpoint_url.to_string(), &params),
            redirect_uri: redirect_uri.clone(),
            state: state.clone(),
        };
        let pending = PendingAuthorization {
            state: state.clone(),
            code_verifier: pkce.verifier.clone(),
            server_url: self.server_url.clone(),
            redirect_uri: redirect_uri.clone(),
            resource: discovery.resource.clone(),
            scope: scope.clone(),
            client: client.clone(),
            metadata: metadata.clone(),
            legacy: discovery.legacy,
            created_at: now_secs(),
        };
        authorizer.remember(&pending)?;
        drop(pending);
        let timeout = self.config.authorization_timeout;
        let authorizing = bounded(timeout, || "the authorization step".to_owned(), authorizer.authorize(&request));
        let redirected = self.interaction.count(authorizing).await?;
        let code = check_authorization_response(&redirected, &redirect_uri, &state, metadata)?;
        let outcome =
            self.exchange_code(metadata, &client, code, redirect_uri, pkce.verifier, &discovery.resource).await;
        if let Err(AuthError::TokenEndpoint { error: Some(code), .. }) = &outcome
            && code == "invalid_client"
        {
            // A stored registration the server forgot: drop it so the next
            // attempt registers again.
            self.state().record.clients.retain(|c| c.client_id != client.client_id);
            self.save().await?;
        }
        outcome
    }

    /// The token request that trades an authorization code for tokens.
    fn exchange_code(
        &self,
        metadata: &AuthorizationServerMetadata,
        client: &ClientRegistration,
        code: String,
        redirect_uri: String,
        verifier: String,
        resource: &str,
    ) -> impl Future<Output = Result<Tokens, AuthError>> {
        let form = vec![
            ("grant_type", "authorization_code".to_owned()),
            ("code", code),
            ("redirect_uri", redirect_uri),
            ("code_verifier", verifier),
            ("resource", resource.to_owned()),
        ];
        self.token_request(metadata, Some(client), form)
    }
}

/// Checks the redirect the authorizer came back with and returns the code.
pub fn check_authorization_response(
    redirected: &str,
    redirect_uri: &str,
    state: &str,
    metadata: &AuthorizationServerMetadata,
) -> Result<String, AuthError> {
    let url = Url::parse(redirected).map_err(|e| AuthError::InvalidAuthorizationResponse(format!("not a URL: {e}")))?;
    let expected = Url::parse(redirect_uri).map_err(|e| AuthError::Config(format!("redirect_uri: {e}")))?;
    if !url.same_origin(&expected) || url.path != expected.path {
        return Err(AuthError::InvalidAuthorizationResponse(format!(
            "it went to {}{}, not to the redirect URI",
            url.origin(),
            url.path
        )));
    }
    let pairs = url.query_pairs();
    let get = |name: &str| pairs.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str());
    if get("state") != Some(state) {
        return Err(AuthError::StateMismatch);
    }
    // RFC 9207: an advertised `iss` must be there; any `iss` must match exactly.
    match (get("iss"), metadata.authorization_response_iss_parameter_supported == Some(true)) {
        (Some(iss), _) if iss != metadata.issuer => {
            return Err(AuthError::IssuerParameterMismatch {
                expected: metadata.issuer.clone(),
                found: Some(iss.to_owned()),
            });
        }
        (None, true) => {
            return Err(AuthError::IssuerParameterMismatch { expected: metadata.issuer.clone(), found: None });
        }
        _ => {}
    }
    if let Some(error) = get("error") {
        return Err(AuthError::AuthorizationDenied {
            error: error.chars().take(100).collect(),
            description: get("error_description").map(|d| d.chars().take(300).collect()),
        });
    }
    get("code")
        .filter(|c| !c.is_empty())
        .map(str::to_owned)
        .ok_or_else(|| AuthError::InvalidAuthorizationResponse("it carries neither a code nor an error".into()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn metadata(iss_supported: Option<bool>) -> AuthorizationServerMetadata {
        AuthorizationServerMetadata {
            issuer: "http://localhost:6".into(),
            authorization_response_iss_parameter_supported: iss_supported,
            ..Default::default()
        }
    }

    const CB: &str = "http://localhost:3000/callback";

    #[test]
    fn authorization_responses() {
        let m = metadata(None);
        assert_eq!(check_authorization_response(&format!("{CB}?code=abc&state=s1"), CB, "s1", &m).unwrap(), "abc");
        assert_eq!(
            check_authorization_response(&format!("{CB}?code=abc"), CB, "s1", &m),
            Err(AuthError::StateMismatch)
        );
        assert_eq!(
            check_authorization_response(&format!("{CB}?code=abc&state=s2"), CB, "s1", &m),
            Err(AuthError::StateMismatch)
        );
        assert!(matches!(
            check_authorization_response(
                &format!("{CB}?error=access_denied&error_description=no&state=s1"),
                CB,
                "s1",
                &m
            ),
            Err(AuthError::AuthorizationDenied { .. })
        ));
        assert!(matches!(
            check_authorization_response("https://evil.example/callback?code=abc&state=s1", CB, "s1", &m),
            Err(AuthError::InvalidAuthorizationResponse(_))
        ));
        assert!(matches!(
            check_authorization_response(&format!("{CB}?state=s1"), CB, "s1", &m),
            Err(AuthError::InvalidAuthorizationResponse(_))
        ));
    }

    #[test]
    fn rfc9207_issuer_parameter() {
        let advertised = metadata(Some(true));
        let ok = format!("{CB}?code=c&state=s&iss=http%3A%2F%2Flocalhost%3A6");
        assert!(check_authorization_response(&ok, CB, "s", &advertised).is_ok());
        let missing = format!("{CB}?code=c&state=s");
        assert!(matches!(
            check_authorization_response(&missing, CB, "s", &advertised),
            Err(AuthError::IssuerParameterMismatch { found: None, .. })
        ));
        let normalized = format!("{CB}?code=c&state=s&iss=http%3A%2F%2Flocalhost%3A6%2F");
        assert!(check_authorization_response(&normalized, CB, "s", &advertised).is_err());
        let unexpected = format!("{CB}?code=c&state=s&iss=https%3A%2F%2Fevil.example.com");
        assert!(check_authorization_response(&unexpected, CB, "s", &metadata(None)).is_err());
        assert!(check_authorization_response(&missing, CB, "s", &metadata(None)).is_ok());
    }
}
