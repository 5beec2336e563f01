//! The transport's two questions. Before each request: which headers
//! (refreshing a token about to expire first, and a DPoP proof for a
//! DPoP-bound token). After a 401 or 403: what to do, which is a new DPoP
//! nonce, someone else's fresh credentials, a refresh, a new authorization
//! (discovery runs again, the server may have moved), or a step-up to more
//! scopes, bounded per scope set.

use super::tokens::{DPOP_CHALLENGE, DPOP_CONFIGURED};
use super::{AuthChallenge, OAuthProvider, Recovery, authorization_value, fingerprint};
use crate::auth::challenge;
use crate::auth::error::AuthError;
use crate::auth::jwt;
use crate::auth::scope;
use crate::auth::store::Tokens;
use crate::http::{HttpClient, Method};
use crate::runtime::now_secs;

/// The most scope sets whose authorizations are counted at once.
const MAX_SCOPE_SETS: usize = 32;

impl<H: HttpClient> OAuthProvider<H> {
    pub(super) async fn headers_for(&self, method: Method, url: &str) -> Result<Vec<(String, String)>, AuthError> {
        self.ensure_loaded().await?;
        let margin = self.config.refresh_margin.as_secs();
        let expiring = |t: &Tokens| t.refresh_due(now_secs(), margin);
        if self.state().record.tokens.as_ref().is_some_and(expiring) {
            let _flow = self.flow.clone().acquire().await;
            // Another request may have refreshed while this one waited.
            if self.state().record.tokens.as_ref().is_some_and(expiring) {
                // And another process (or tab) sharing the store.
                let _held = self.store.lock(&self.store_key).await?;
                self.reload().await?;
                if self.state().record.tokens.as_ref().is_some_and(expiring)
                    && let Err(error) = self.refresh().await
                {
                    log::warn!("refreshing the access token failed ({error}); the next 401 starts a new authorization");
                    self.drop_tokens().await?;
                }
            }
        }
        // Every request comes here: take the header value (and for DPoP what
        // the proof needs), not a copy of all the tokens.
        let (authorization, dpop) = {
            let mut state = self.state();
            let Some(tokens) = state.record.tokens.as_ref() else { return Ok(Vec::new()) };
            let dpop = match (tokens.token_type.eq_ignore_ascii_case("dpop"), state.dpop_key.clone()) {
                (false, _) => None,
                (true, Some(key)) => Some((tokens.access_token.clone(), key, state.rs_nonce.clone())),
                (true, None) => {
                    // Bound to a key that lived in the memory of the process
                    // (or page, before a reload) that got it: it cannot be
                    // presented. Forgotten here but not in the store, where a
                    // process holding the key may still use it; the request
                    // goes without, and its 401 starts a new authorization.
                    state.record.tokens = None;
                    return Ok(Vec::new());
                }
            };
            (authorization_value(tokens), dpop)
        };
        let mut headers = vec![("Authorization".to_owned(), authorization)];
        if let Some((access_token, key, nonce)) = dpop {
            let proof =
                jwt::signed_dpop_proof(&key, method.as_str(), url, now_secs(), nonce.as_deref(), Some(&access_token))
                    .await?;
            headers.push(("DPoP".to_owned(), proof));
        }
        Ok(headers)
    }

    pub(super) async fn recover(&self, challenge: &AuthChallenge) -> Result<Recovery, AuthError> {
        let bearer = challenge::bearer(challenge.www_authenticate.iter().map(String::as_str));
        // Without the `dpop` feature no token is DPoP-bound, so neither a
        // nonce nor a refusal of the scheme can concern this client.
        if cfg!(feature = "dpop")
            && bearer.as_ref().and_then(|b| b.error.as_deref()) == Some("use_dpop_nonce")
            && let Some(nonce) = &challenge.dpop_nonce
        {
            self.state().rs_nonce = Some(nonce.clone());
            return Ok(Recovery::Nonce);
        }
        let _flow = self.flow.clone().acquire().await;
        self.ensure_loaded().await?;
        let current = self.current_fingerprint();
        if current.is_some() && current != challenge.rejected {
            // Someone got new credentials while this request was out.
            return Ok(Recovery::Credentials);
        }
        if let Some(refusal) = self.dpop_refusal(challenge) {
            return Err(refusal);
        }
        if cfg!(feature = "dpop") && names_dpop(challenge) && self.state().dpop_reason.is_none() {
            self.state().dpop_reason = Some(DPOP_CHALLENGE);
        }
        let version = challenge.protocol_version.as_deref();
        let asked = bearer.is_some();
        let bearer = bearer.unwrap_or_default();
        // A 403 `insufficient_scope` steps up: the scopes held (or
        // configured) with those the server names, counted first.
        let step_up = match challenge.status {
            403 => {
                let held = self.state().requested.clone();
                let base = held.or_else(|| self.config.scopes.clone());
                let scopes = scope::union(base.as_deref(), bearer.scope.as_deref());
                self.count_attempt(&scopes)?;
                Some(scopes)
            }
            _ => None,
        };
        // Discovery runs again on every 401 (the server may have moved to
        // another authorization server, whose tokens and client
        // registration the old one cannot provide) and on a step-up: one
        // `.await` of it, and one of `authorize`, for both.
        let previous = self.state().discovery.as_ref().map(|d| d.metadata.issuer.clone());
        let discovery = self.discover(bearer.resource_metadata.as_deref(), version, asked || step_up.is_some()).await?;
        let scopes = match step_up {
            Some(scopes) => {
                let shown = |s: &Option<Vec<String>>| {
                    s.as_deref().map(|s| crate::debug::joined(s, " ")).unwrap_or_else(|| "(none)".into())
                };
                log::info!(
                    "step-up: the server needs scopes {}; authorizing with {}",
                    shown(&bearer.scope),
                    shown(&scopes)
                );
                scopes
            }
            None => {
                let moved = previous.as_ref().is_some_and(|p| *p != discovery.metadata.issuer);
                if moved {
                    log::info!(
                        "{} now uses the authorization server {}: authorizing there",
                        self.server_url,
                        discovery.metadata.issuer
                    );
                }
                let has_refresh = self.state().record.tokens.as_ref().is_some_and(|t| t.refresh_token.is_some());
                if has_refresh && challenge.rejected.is_some() && !moved {
                    let _held = self.store.lock(&self.store_key).await?;
                    self.reload().await?;
                    if self.current_fingerprint() != challenge.rejected {
                        // Another process refreshed meanwhile.
                        return Ok(Recovery::Credentials);
                    }
                    match self.refresh().await {
                        Ok(()) => return Ok(Recovery::Credentials),
                        Err(error) => log::info!("refresh after 401 failed ({error}); authorizing again"),
                    }
                }
                if challenge.rejected.is_some() || moved {
                    self.drop_tokens().await?;
                }
                let scopes = self.config.scopes.clone().or_else(|| {
                    scope::select(
                        bearer.scope.as_deref(),
                        discovery.protected_resource.as_ref().and_then(|p| p.scopes_supported.as_deref()),
                    )
                });
                self.count_attempt(&scopes).map_err(|_| AuthError::TokensRejected {
                    server: self.server_url.clone(),
                    attempts: self.config.max_step_up_attempts.max(1),
                })?;
                scopes
            }
        };
        self.authorize(&discovery, scopes).await.map(|()| Recovery::Credentials)
    }

    /// A 401 for a DPoP-bound token from a server whose challenge offers
    /// Bearer only: it refuses the scheme itself, and a new token of the same
    /// kind cannot help. The error says why DPoP was used.
    pub(super) fn dpop_refusal(&self, challenge: &AuthChallenge) -> Option<AuthError> {
        // No DPoP-bound token without the `dpop` feature.
        if !cfg!(feature = "dpop") {
            return None;
        }
        let state = self.state();
        let tokens = state.record.tokens.as_ref()?;
        let refused = challenge.status == 401
            && tokens.token_type.eq_ignore_ascii_case("dpop")
            && challenge.rejected.as_deref() == Some(fingerprint(&authorization_value(tokens)).as_str())
            && !challenge.www_authenticate.is_empty()
            && !names_dpop(challenge);
        refused.then(|| AuthError::DpopRefused {
            server: self.server_url.clone(),
            why: state.dpop_reason.unwrap_or(DPOP_CONFIGURED).to_owned(),
        })
    }

    /// Counts an authorization for this scope set; refuses past the bound.
    fn count_attempt(&self, scopes: &Option<Vec<String>>) -> Result<(), AuthError> {
        let key = scopes.clone().unwrap_or_default();
        let limit = self.config.max_step_up_attempts.max(1);
        let mut state = self.state();
        let entry = match state.attempts.iter().position(|(k, _)| scope::same_set(k, &key)) {
            Some(index) => &mut state.attempts[index].1,
            None => {
                // Bounded: a server naming new scopes on every refusal adds a
                // set each time; the oldest sets are forgotten first.
                if state.attempts.len() >= MAX_SCOPE_SETS {
                    state.attempts.remove(0);
                }
                state.attempts.push((key.clone(), 0));
                let last = state.attempts.len() - 1;
                &mut state.attempts[last].1
            }
        };
        if *entry >= limit {
            return Err(AuthError::InsufficientScope { scopes: key, attempts: *entry });
        }
        *entry += 1;
        Ok(())
    }
}

/// Whether a challenge names the DPoP scheme (RFC 9449 §7.1).
fn names_dpop(challenge: &AuthChallenge) -> bool {
    for value in &challenge.www_authenticate {
        if let Ok(challenges) = challenge::parse(value)
            && challenges.iter().any(|c| c.scheme == "dpop")
        {
            return true;
        }
    }
    false
}
