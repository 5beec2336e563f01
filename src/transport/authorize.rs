//! What both HTTP transports do with an [`AuthProvider`]: put its
//! credentials on a request, recognise a challenge (401, or 403
//! `insufficient_scope`) in the answer, and let the provider recover a
//! bounded number of times per request. [`send`] is that loop, written
//! once for every request the transports authorize.

use std::sync::Arc;

use super::TransportError;
use crate::auth::challenge::{self, BearerChallenge};
use crate::auth::{AuthChallenge, AuthProvider, Recovery, fingerprint};
use crate::http::{HttpRequest, HttpResponse};
use crate::runtime::{BoxFuture, MaybeSend, MaybeSync};

/// What [`send`] needs to know about the transport it sends for.
pub(crate) trait AuthContext: MaybeSync {
    /// The provider, if the connection is authorized.
    fn auth(&self) -> Option<&Arc<dyn AuthProvider>>;

    /// The URL named in errors (the one the user gave).
    fn url(&self) -> &str;

    /// The negotiated version, handed to the provider with a challenge
    /// (2025-03-26 discovery sends it). Read when a challenge arrives.
    fn protocol_version(&self) -> Option<String> {
        None
    }

    /// The provider starts recovering (a person may be signing in): the
    /// legacy transport stops timing out its wait for an endpoint.
    fn authorization_started(&self) {}

    /// The recovery is over, whatever its outcome (also when its future is
    /// dropped).
    fn authorization_ended(&self) {}
}

/// What a 403 `insufficient_scope` that a step-up did not cure becomes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum StillInsufficient {
    /// An error that says which scopes the server wants (POSTs).
    Fail,
    /// The response itself, for the caller to report (the legacy GET turns
    /// it into "not an event stream" with the status and body).
    #[cfg(feature = "legacy-sse")]
    Answer,
}

/// One request that [`send`] sends, made afresh for every attempt.
///
/// A trait object, not closures of the caller's types: the loop is then
/// compiled once, where each transport's closures made a copy of it (with
/// the legacy transport's two, three in the full wasm module).
pub(crate) trait Attempt: MaybeSend {
    /// Waits for what the request needs, if anything (the legacy
    /// transport's endpoint); asked before every attempt. Only the legacy
    /// transport waits: without it the loop carries no such step.
    #[cfg(feature = "legacy-sse")]
    fn ready(&mut self) -> Option<BoxFuture<'_, Result<(), TransportError>>> {
        None
    }

    /// The request (the session, the endpoint or the token may have changed
    /// since the last attempt); the loop adds the provider's credentials.
    fn build(&mut self) -> HttpRequest;

    /// Sends it, with the caller's timeout and error mapping.
    fn fetch(&mut self, request: HttpRequest) -> BoxFuture<'_, Result<HttpResponse, TransportError>>;
}

/// Sends one request with the provider's credentials, recovering from its
/// challenges: a 401 runs the flow and the request goes again (once), a 403
/// `insufficient_scope` steps up (once), a DPoP nonce is updated (twice).
/// Returns the first answer that is not recovered from. Without a provider
/// this is one plain exchange.
pub(crate) async fn send(
    context: &dyn AuthContext,
    still_insufficient_is: StillInsufficient,
    attempt: &mut dyn Attempt,
) -> Result<HttpResponse, TransportError> {
    let auth = context.auth();
    let mut recoveries = Recoveries::default();
    loop {
        #[cfg(feature = "legacy-sse")]
        if let Some(waiting) = attempt.ready() {
            waiting.await?;
        }
        let mut request = attempt.build();
        let credential = match auth {
            Some(auth) => {
                let headers = auth.headers(request.method, &request.url).await.map_err(TransportError::Auth)?;
                attach(&mut request, headers)
            }
            None => None,
        };
        let response = attempt.fetch(request).await?;
        if let Some(auth) = auth
            && let Some(challenge) = challenge_in(&response, credential.as_deref(), context.protocol_version())
        {
            if let Some(refusal) = auth.refused(&challenge) {
                return Err(TransportError::Auth(refusal));
            }
            if recoveries.allow(&challenge) {
                drop(response);
                let _authorizing = Authorizing::start(context);
                let recovery = auth.challenged(&challenge).await.map_err(TransportError::Auth)?;
                recoveries.record(recovery, &challenge, context.url())?;
                continue;
            }
            if challenge.status == 403 && still_insufficient_is == StillInsufficient::Fail {
                return Err(still_insufficient(context.url(), &challenge));
            }
        }
        return Ok(response);
    }
}

/// Tells the context a recovery runs, and that it ended when dropped.
struct Authorizing<'a>(&'a dyn AuthContext);

impl<'a> Authorizing<'a> {
    fn start(context: &'a dyn AuthContext) -> Self {
        context.authorization_started();
        Authorizing(context)
    }
}

impl Drop for Authorizing<'_> {
    fn drop(&mut self) {
        self.0.authorization_ended();
    }
}

/// Adds the provider's `headers` to `request`; returns the `Authorization`
/// value they carry, if any, for [`challenge_in`] to fingerprint should the
/// server refuse it. Only a refusal is fingerprinted: the hash of a JWT
/// bearer token (often a kilobyte) was some 8 µs of every authorized
/// request in the wasm build, where a copy of the value costs well under one.
/// Not async (the callers await the headers): no state machine of its own.
pub(crate) fn attach(request: &mut HttpRequest, headers: Vec<(String, String)>) -> Option<String> {
    let credential = headers.iter().find(|(n, _)| n.eq_ignore_ascii_case("authorization")).map(|(_, v)| v.clone());
    request.headers.extend(headers);
    credential
}

fn bearer_of(challenge: &AuthChallenge) -> Option<BearerChallenge> {
    challenge::bearer(challenge.www_authenticate.iter().map(String::as_str))
}

/// A 401, or a 403 with `insufficient_scope`, that a provider may recover
/// from; `None` for any other answer. `credential` is the `Authorization`
/// value the request carried (the challenge keeps only its [`fingerprint`]),
/// `protocol_version` the negotiated one (2025-03-26 discovery sends it).
pub(crate) fn challenge_in(
    response: &HttpResponse,
    credential: Option<&str>,
    protocol_version: Option<String>,
) -> Option<AuthChallenge> {
    if response.status != 401 && response.status != 403 {
        return None;
    }
    let mut www_authenticate = Vec::new();
    for (name, value) in &response.headers {
        if name.eq_ignore_ascii_case("www-authenticate") {
            www_authenticate.push(value.clone());
        }
    }
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
        rejected: credential.map(fingerprint),
        protocol_version,
    })
}

/// The recoveries one request has had: one new authorization for 401, one
/// step-up for 403, two DPoP nonce updates.
#[derive(Debug, Default)]
struct Recoveries {
    authorized: bool,
    stepped_up: bool,
    nonces: u32,
}

impl Recoveries {
    /// Whether `challenge` may still be recovered from for this request.
    fn allow(&self, challenge: &AuthChallenge) -> bool {
        let nonce_only = challenge.dpop_nonce.is_some()
            && bearer_of(challenge).is_some_and(|b| b.error.as_deref() == Some("use_dpop_nonce"));
        match challenge.status {
            401 if nonce_only => self.nonces < 2,
            401 => !self.authorized,
            _ => !self.stepped_up,
        }
    }

    /// Counts the provider's recovery from `challenge` (asked only when
    /// [`Recoveries::allow`] said so); the request should then be sent again.
    /// Not async (the caller awaits the provider): no state machine of its own.
    fn record(&mut self, recovery: Recovery, challenge: &AuthChallenge, url: &str) -> Result<(), TransportError> {
        match recovery {
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
fn still_insufficient(url: &str, challenge: &AuthChallenge) -> TransportError {
    let needed = bearer_of(challenge)
        .and_then(|b| b.scope)
        .map(|s| format!(" (it asks for scopes {})", crate::debug::Quoted(&crate::debug::joined(&s, " "))))
        .unwrap_or_default();
    TransportError::Http {
        status: 403,
        message: format!(
            "{url} still answers insufficient_scope after a step-up authorization{needed}: the authorization \
             server did not grant those scopes to this user or client"
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answer(status: u16, www_authenticate: &str) -> HttpResponse {
        HttpResponse {
            status,
            headers: vec![("www-authenticate".to_owned(), www_authenticate.to_owned())],
            body: Box::pin(futures::stream::empty()),
        }
    }

    #[test]
    fn a_refused_credential_is_kept_as_its_fingerprint_only() {
        let token = "Bearer eyJ.secret-token-value.sig";
        let challenge = challenge_in(&answer(401, "Bearer"), Some(token), None).expect("a 401 is a challenge");
        let rejected = challenge.rejected.expect("the credential the request carried");
        assert_eq!(rejected, fingerprint(token));
        assert!(!rejected.contains("secret"));
        assert_eq!(challenge_in(&answer(401, "Bearer"), None, None).expect("a 401").rejected, None);
        let scope = r#"Bearer error="insufficient_scope", scope="a b""#;
        assert_eq!(challenge_in(&answer(403, scope), Some(token), None).expect("a step-up").rejected, Some(rejected));
        assert!(challenge_in(&answer(403, "Bearer"), Some(token), None).is_none());
        assert!(challenge_in(&answer(200, ""), Some(token), None).is_none());
    }
}
