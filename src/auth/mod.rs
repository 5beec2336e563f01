//! OAuth 2.1 authorization for the HTTP transports (MCP "Authorization",
//! 2025-03-26 to 2025-11-25), one implementation for every target.
//!
//! Pure parts, internal and tested natively without I/O: `challenge`
//! (`WWW-Authenticate`), `metadata` (discovery documents, their URL orders
//! and checks), `pkce`, `scope`, `resource` (RFC 8707), `jwt` (ES256 client
//! assertions and DPoP proofs).
//!
//! The flow, [`OAuthProvider`], runs over the [`crate::http::HttpClient`]
//! seam. Only two things differ by platform, and both are seams:
//! - [`Authorizer`]: sending the user to the authorization page and getting
//!   the redirect back ([`HeadlessAuthorizer`] for servers that redirect at
//!   once; in the JS API a popup, a full-page redirect that
//!   [`OAuthProvider::complete_authorization`] finishes on the next page
//!   load, or the app's own function; natively `loopback::LoopbackAuthorizer`);
//! - [`TokenStore`]: where tokens and client registrations are kept
//!   ([`MemoryTokenStore`] here; `sessionStorage`, `localStorage` or the
//!   app's own storage in the JS API; natively `file_store::FileTokenStore`).
//!
//! Plug it into a connection with [`crate::ConnectOptions::auth`] (used by
//! whichever transport is detected), or into one transport with
//! `StreamableHttpOptions::auth` or `LegacySseOptions::auth` (in the
//! transport layer, above this one): every request then
//! carries the token, a 401 runs the flow and retries once, a 403
//! `insufficient_scope` steps up.

mod authorizer;
pub(crate) mod challenge;
mod config;
mod error;
#[cfg(not(target_arch = "wasm32"))]
mod file_store;
#[cfg(any(feature = "private-key-jwt", feature = "dpop"))]
pub(crate) mod jwt;
#[cfg(not(any(feature = "private-key-jwt", feature = "dpop")))]
#[path = "jwt_off.rs"]
pub(crate) mod jwt;
#[cfg(not(target_arch = "wasm32"))]
pub(crate) mod loopback;
pub(crate) mod metadata;
pub(crate) mod pkce;
mod provider;
pub(crate) mod resource;
pub(crate) mod scope;
mod store;

pub use authorizer::{AuthorizationRequest, Authorizer, HeadlessAuthorizer, PendingAuthorization};
pub use config::{AuthConfig, Grant};
pub use error::AuthError;
#[cfg(not(target_arch = "wasm32"))]
pub use file_store::FileTokenStore;
#[cfg(not(target_arch = "wasm32"))]
pub use loopback::{LoopbackAuthorizer, LoopbackError};
pub use metadata::{AuthorizationServerMetadata, ProtectedResourceMetadata};
pub use provider::{AuthChallenge, AuthProvider, Discovery, OAuthProvider, Recovery, fingerprint};
pub use store::{AuthRecord, ClientRegistration, MemoryTokenStore, TokenStore, Tokens};
