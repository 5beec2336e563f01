//! What both HTTP transports do with an [`AuthProvider`]: put its
//! credentials on a request, recognise a challenge (401, or 403
//! `insufficient_scope`) in the answer, and let the provider recover a
//! bounded number of times per request.

use std::sync::Arc;

use super::TransportError;
use crate::auth::challenge::{self, BearerChallenge};
use crate::auth::{AuthChallenge, AuthProvider, Recovery, fingerprint};
use crate::http::{HttpRequest, HttpResponse};

/// Adds the provider's headers to `request`; returns the [`fingerprint`] of
/// the `Authorization` value it carries, if any.
pub(crate) async fn add_credentials(
    auth: Option<&Arc<dyn AuthProvider>>,
    request: &mut HttpRequest,
) -> Result<Option<String>, TransportError> {
    let Some(auth) = auth else { return Ok(None) };
    let headers = auth.headers(request.method, &request.url).await.map_err(TransportError::Auth)?;
    let credential = headers.iter().find(|(n, _)| n.eq_ignore_ascii_case("authorization")).map(|(_, v)| fingerprint(v));
    request.headers.extend(headers);
    Ok(credential)
}

fn bearer_of(challenge: &AuthChallenge) -> Option<BearerChallenge> {
    challenge::bearer(challenge.www_authenticate.iter().map(String::as_str))
}

/// A 401, or a 403 with `insufficient_scope`, that a provider may recover
/// from; `None` for any other answer. `credential` is what the request
/// carried, `protocol_version` the negotiated one (2025-03-26 discovery
/// sends it).
pub(crate) fn challenge_in(
    response: &HttpResponse,
    credential: Option<String>,
    protocol_version: Option<String>,
) -> Option<AuthChallenge> {
    let www_authenticate: Vec<String> = response
        .headers
        .iter()
        .filter(|(n, _)| n.eq_ignore_ascii_case("www-authenticate"))
        .map(|(_, v)| v.clone())
        .collect();
    match response.status {
        401 => {}
        403 => {
            let bearer = challenge::bearer(www_authenticate.iter().map(String::as_str));
            if !bearer.is_some_and(|b| b.is_insufficient_scope()) {
                return None;
            }
        }
        _ => return None,
    }
    Some(AuthChallenge {
        status: response.status,
        www_authenticate,
        dpop_nonce: response.header("dpop-nonce").map(str::to_owned),
        rejected: credential,
        protocol_version,
    })
}

/// The recoveries one request has had: one new authorization for 401, one
/// step-up for 403, two DPoP nonce updates.
#[derive(Debug, Default)]
pub(crate) struct Recoveries {
    authorized: bool,
    stepped_up: bool,
    nonces: u32,
}

impl Recoveries {
    /// Whether `challenge` may still be recovered from for this request.
    pub(crate) fn allow(&self, challenge: &AuthChallenge) -> bool {
        let nonce_only = challenge.dpop_nonce.is_some()
            && bearer_of(challenge).is_some_and(|b| b.error.as_deref() == Some("use_dpop_nonce"));
        match challenge.status {
            401 if nonce_only => self.nonces < 2,
            401 => !self.authorized,
            _ => !self.stepped_up,
        }
    }

    /// Lets the provider recover from `challenge` (call only when
    /// [`Recoveries::allow`] said so); the request should then be sent again.
    pub(crate) async fn recover(
        &mut self,
        auth: &dyn AuthProvider,
        challenge: &AuthChallenge,
        url: &str,
    ) -> Result<(), TransportError> {
        match auth.challenged(challenge).await.map_err(TransportError::Auth)? {
            Recovery::Nonce if self.nonces < 2 => self.nonces += 1,
            Recovery::Nonce => {}
            Recovery::Credentials if challenge.status == 401 && !self.authorized => self.authorized = true,
            Recovery::Credentials if challenge.status == 403 => self.stepped_up = true,
            Recovery::Credentials => {
                return Err(TransportError::Http {
                    status: 401,
                    message: format!("{url} refuses the credentials its authorization server just issued"),
                });
            }
        }
        Ok(())
    }
}

/// The error for a 403 `insufficient_scope` that a step-up did not cure.
pub(crate) fn still_insufficient(url: &str, challenge: &AuthChallenge) -> TransportError {
    let needed = bearer_of(challenge)
        .and_then(|b| b.scope)
        .map(|s| format!(" (it asks for scopes {:?})", s.join(" ")))
        .unwrap_or_default();
    TransportError::Http {
        status: 403,
        message: format!(
            "{url} still answers insufficient_scope after a step-up authorization{needed}: the authorization \
             server did not grant those scopes to this user or client"
        ),
    }
}
