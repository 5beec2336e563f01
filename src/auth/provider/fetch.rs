//! The HTTP exchanges with authorization servers: every one bounded in
//! time, discovery documents followed through same-origin redirects only,
//! and answers read up to a size limit, so a hostile or broken server can
//! neither hang the flow nor make it read without end.

use super::OAuthProvider;
use crate::auth::error::AuthError;
use crate::auth::metadata::MAX_METADATA_BYTES;
use crate::cause::Cause;
use crate::http::url::Url;
use crate::http::{HttpClient, HttpRequest, HttpResponse, Method};
use crate::protocol::fields::{Fields, deserialize_by_fields};
use crate::runtime::MaybeSend;
use std::time::Duration;

const MAX_RESPONSE_BYTES: usize = 64 * 1024;
const MAX_REDIRECTS: usize = 5;

impl<H: HttpClient> OAuthProvider<H> {
    pub(super) fn bounded<T>(
        &self,
        what: impl FnOnce() -> String,
        future: impl Future<Output = Result<T, AuthError>> + MaybeSend,
    ) -> impl Future<Output = Result<T, AuthError>> {
        bounded(self.config.http_timeout, what, future)
    }

    /// One request, its failure named by its URL (a combinator, not an
    /// `async fn`: one state machine less where each of its two callers
    /// waits).
    fn exchange(&self, request: HttpRequest) -> impl Future<Output = Result<HttpResponse, AuthError>> {
        use futures::FutureExt;
        let url = request.url.clone();
        self.http
            .fetch(request)
            .map(|fetched| fetched.map_err(|e| AuthError::Unreachable { url, reason: Cause::of(e) }))
    }

    /// GETs a discovery document, following same-origin redirects only
    /// (here, unless the HTTP client does it itself: then no redirect
    /// comes back, and the loop's code is left out of a build that has only
    /// such clients, the wasm one).
    pub(super) async fn get_document(
        &self,
        url: &str,
        headers: &[(String, String)],
    ) -> Result<(u16, Vec<u8>), AuthError> {
        let mut current = Url::parse(url).map_err(|e| AuthError::InvalidMetadata { url: url.to_owned(), reason: e })?;
        if !current.is_secure_or_loopback(self.config.allow_insecure_http) {
            return Err(AuthError::InsecureUrl { url: url.to_owned() });
        }
        for _ in 0..=MAX_REDIRECTS {
            let mut request_headers = vec![("Accept".to_owned(), "application/json".to_owned())];
            for header in headers {
                request_headers.push(header.clone());
            }
            let request =
                HttpRequest { method: Method::Get, url: current.to_string(), headers: request_headers, body: None };
            let response = self.exchange(request).await?;
            let status = response.status;
            if !self.http.follows_redirects()
                && (300..400).contains(&status)
                && let Some(location) = response.header("location")
            {
                let next = current.join(location).map_err(|e| AuthError::InvalidMetadata {
                    url: current.to_string(),
                    reason: format!("it redirects to something that is not a URL: {e}"),
                })?;
                // Each hop is checked against the one before, so all share
                // the first's origin.
                if !next.same_origin(&current) {
                    return Err(AuthError::CrossOriginRedirect { from: url.to_owned(), to: next.to_string() });
                }
                current = next;
                continue;
            }
            if status != 200 {
                return Ok((status, Vec::new()));
            }
            let body = response
                .read_body(MAX_METADATA_BYTES)
                .await
                .map_err(|e| AuthError::InvalidMetadata { url: url.to_owned(), reason: e.to_string() })?;
            return Ok((status, body));
        }
        Err(AuthError::InvalidMetadata { url: url.to_owned(), reason: format!("more than {MAX_REDIRECTS} redirects") })
    }

    /// POSTs a body and reads the answer (at most 64 KiB).
    pub(super) async fn post(
        &self,
        url: &str,
        headers: Vec<(String, String)>,
        body: String,
    ) -> Result<Answer, AuthError> {
        let request = HttpRequest { method: Method::Post, url: url.to_owned(), headers, body: Some(body) };
        let response = self.exchange(request).await?;
        let status = response.status;
        let dpop_nonce = response.header("dpop-nonce").map(str::to_owned);
        let body = response
            .read_body(MAX_RESPONSE_BYTES)
            .await
            .map_err(|e| AuthError::Unreachable { url: url.to_owned(), reason: Cause::of(e) })?;
        Ok(Answer { status, body, dpop_nonce })
    }
}

/// A token or registration endpoint's answer, read in full (bounded).
pub(super) struct Answer {
    pub(super) status: u16,
    pub(super) body: Vec<u8>,
    pub(super) dpop_nonce: Option<String>,
}

#[derive(Default)]
pub(super) struct OAuthErrorBody {
    pub(super) error: Option<String>,
    pub(super) error_description: Option<String>,
}

deserialize_by_fields!(OAuthErrorBody);

impl OAuthErrorBody {
    fn from_fields(fields: &mut Fields) -> Result<Self, String> {
        let value =
            OAuthErrorBody { error: fields.string("error"), error_description: fields.string("error_description") };
        fields.done(value)
    }

    pub(super) fn parse(body: &[u8]) -> OAuthErrorBody {
        let mut parsed: OAuthErrorBody = crate::protocol::fields::from_bytes(body, "an object").unwrap_or_default();
        // Never echo more than a line of whatever the server sent.
        parsed.error_description = parsed.error_description.map(|d| d.chars().take(300).collect());
        parsed.error = parsed.error.map(|e| e.chars().take(100).collect());
        parsed
    }
}

/// `future`, or a timeout error naming `what` once `limit` has passed.
/// Combinators, not an `async fn`: each caller's future type makes a copy,
/// and an `async fn`'s state machine is one more layer in each.
pub(super) fn bounded<T>(
    limit: Duration,
    what: impl FnOnce() -> String,
    future: impl Future<Output = Result<T, AuthError>> + MaybeSend,
) -> impl Future<Output = Result<T, AuthError>> {
    use futures::future::{Either, FutureExt, select};
    select(Box::pin(future), Box::pin(crate::runtime::sleep(limit))).map(move |raced| match raced {
        Either::Left((outcome, _)) => outcome,
        Either::Right(_) => Err(AuthError::Timeout { what: what(), seconds: limit.as_secs() }),
    })
}
