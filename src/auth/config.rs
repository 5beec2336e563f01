//! What the user configures.

use std::time::Duration;

/// How this client gets tokens.
#[derive(Clone, PartialEq, Eq)]
pub enum Grant {
    /// A user signs in (authorization code with PKCE), through the [`super::Authorizer`].
    AuthorizationCode,
    /// The client acts for itself (`client_credentials`), authenticated with
    /// its secret or its private key.
    ClientCredentials,
    /// An assertion the client already holds, e.g. a workload identity token
    /// (RFC 7523 `jwt-bearer` grant).
    JwtBearer {
        /// The JWT to present.
        assertion: String,
    },
    /// Enterprise-managed authorization (SEP-990): the user's ID token from
    /// the enterprise identity provider is exchanged there for an ID-JAG
    /// (RFC 8693), which the MCP server's authorization server takes as a
    /// `jwt-bearer` grant.
    IdentityAssertion {
        /// The identity provider's token endpoint.
        idp_token_endpoint: String,
        /// The user's ID token from that provider.
        id_token: String,
        /// This client's id at the identity provider.
        idp_client_id: String,
        /// This client's secret at the identity provider, if it has one.
        idp_client_secret: Option<String>,
    },
}

impl std::fmt::Debug for Grant {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Grant::AuthorizationCode => f.write_str("AuthorizationCode"),
            Grant::ClientCredentials => f.write_str("ClientCredentials"),
            Grant::JwtBearer { .. } => f.write_str("JwtBearer { assertion: <redacted> }"),
            Grant::IdentityAssertion { idp_token_endpoint, idp_client_id, .. } => {
                crate::debug::debug_struct(f, "IdentityAssertion")
                    .field("idp_token_endpoint", idp_token_endpoint)
                    .field("idp_client_id", idp_client_id)
                    .finish_non_exhaustive()
            }
        }
    }
}

/// OAuth settings for one MCP server.
#[derive(Clone)]
pub struct AuthConfig {
    /// A client id registered with the authorization server beforehand.
    /// Used first when set (MCP's registration priority).
    pub client_id: Option<String>,
    /// The secret of that client, for a confidential client.
    pub client_secret: Option<String>,
    /// How to authenticate at the token endpoint (`client_secret_basic`,
    /// `client_secret_post`, `private_key_jwt`, `none`); chosen from what the
    /// server supports when unset.
    pub token_endpoint_auth_method: Option<String>,
    /// The https URL of this client's Client ID Metadata Document, used as
    /// its `client_id` where the authorization server accepts them.
    pub client_metadata_url: Option<String>,
    /// Where the authorization server sends the browser back to.
    pub redirect_uri: String,
    /// The name shown on consent screens (dynamic registration).
    pub client_name: String,
    /// Scopes to ask for instead of the ones the server suggests.
    pub scopes: Option<Vec<String>>,
    /// The grant; `None` chooses: authorization code when the server offers
    /// it, else client credentials when a secret or key is configured.
    pub grant: Option<Grant>,
    /// A P-256 private key (PKCS#8 or SEC1 PEM) for `private_key_jwt`.
    pub private_key_pem: Option<String>,
    /// The `kid` to put in client assertions.
    pub key_id: Option<String>,
    /// Allow plain http to hosts other than localhost (development only).
    pub allow_insecure_http: bool,
    /// The longest any one exchange with an authorization server may take.
    pub http_timeout: Duration,
    /// The longest the user may take on the authorization page.
    pub authorization_timeout: Duration,
    /// Refresh this long before the access token expires.
    pub refresh_margin: Duration,
    /// How many authorizations one scope set may take before step-up gives up.
    pub max_step_up_attempts: u32,
    /// Bind tokens with DPoP (RFC 9449) even where the MCP server does not
    /// ask for it. Without this, DPoP is used only when the server does (a
    /// `DPoP` challenge, or `dpop_bound_access_tokens_required` in its
    /// protected resource metadata), never because the authorization
    /// server offers it: MCP servers take `Bearer` unless they say otherwise.
    pub dpop: bool,
}

impl std::fmt::Debug for AuthConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        crate::debug::debug_struct(f, "AuthConfig")
            .field("client_id", &self.client_id)
            .field("client_secret", &self.client_secret.as_ref().map(|_| "<redacted>"))
            .field("token_endpoint_auth_method", &self.token_endpoint_auth_method)
            .field("client_metadata_url", &self.client_metadata_url)
            .field("redirect_uri", &self.redirect_uri)
            .field("scopes", &self.scopes)
            .field("grant", &self.grant)
            .field("private_key_pem", &self.private_key_pem.as_ref().map(|_| "<redacted>"))
            .finish_non_exhaustive()
    }
}

impl AuthConfig {
    /// Defaults for a public client that redirects back to `redirect_uri`.
    pub fn new(redirect_uri: impl Into<String>) -> Self {
        AuthConfig {
            client_id: None,
            client_secret: None,
            token_endpoint_auth_method: None,
            client_metadata_url: None,
            redirect_uri: redirect_uri.into(),
            client_name: "mcp-edge".into(),
            scopes: None,
            grant: None,
            private_key_pem: None,
            key_id: None,
            allow_insecure_http: false,
            http_timeout: Duration::from_secs(30),
            authorization_timeout: Duration::from_secs(300),
            refresh_margin: Duration::from_secs(60),
            max_step_up_attempts: 3,
            dpop: false,
        }
    }

    /// A pre-registered client.
    pub fn client(mut self, client_id: impl Into<String>, client_secret: Option<String>) -> Self {
        self.client_id = Some(client_id.into());
        self.client_secret = client_secret;
        self
    }

    /// This client's Client ID Metadata Document URL.
    pub fn client_metadata_url(mut self, url: impl Into<String>) -> Self {
        self.client_metadata_url = Some(url.into());
        self
    }

    /// The grant to use.
    pub fn grant(mut self, grant: Grant) -> Self {
        self.grant = Some(grant);
        self
    }

    /// A private key for `private_key_jwt`.
    pub fn private_key_pem(mut self, pem: impl Into<String>) -> Self {
        self.private_key_pem = Some(pem.into());
        self
    }

    /// Scopes to ask for instead of the server's suggestion.
    pub fn scopes(mut self, scopes: Vec<String>) -> Self {
        self.scopes = Some(scopes);
        self
    }
}
