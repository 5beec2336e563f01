//! The `endpoint` event: where messages go, resolved against the SSE URL
//! and refused on another origin; and waiting for it.

use std::sync::Arc;

use crate::runtime::channel::oneshot;
use futures::future::{Either, select};

use super::{LegacyError, Shared};
use crate::debug::Quoted;
use crate::http::HttpClient;
use crate::http::url::{self, Reference};
use crate::runtime::{BoxFuture, boxed, sleep};

impl<H: HttpClient> Shared<H> {
    /// Resolves once the server named an endpoint (at most `connect_timeout`,
    /// not counting time spent authorizing).
    pub(super) fn endpoint_ready(self: &Arc<Self>) -> BoxFuture<'static, Result<String, LegacyError>> {
        let shared = self.clone();
        let after = self.options.connect_timeout;
        boxed(async move {
            let mut epoch = shared.state().auth_epoch;
            loop {
                // A waiter is only woken; what it was woken for is read from
                // the state, so the wake carries nothing (one channel type,
                // `oneshot<()>`, for every wait in the module).
                let mut woken = match shared.endpoint_or_wait() {
                    Ok(settled) => return settled,
                    Err(woken) => woken,
                };
                match select(&mut woken, Box::pin(sleep(after))).await {
                    Either::Left((Ok(()), _)) => continue,
                    Either::Left((Err(_dropped), _)) => return Err(LegacyError::Closed),
                    Either::Right(_) => {
                        // The authorization is bounded by the provider; the
                        // wait starts over once it is done.
                        let state = shared.state();
                        if state.authorizing > 0 || state.auth_epoch != epoch {
                            epoch = state.auth_epoch;
                            continue;
                        }
                        return Err(LegacyError::Timeout { url: shared.options.url.clone(), after });
                    }
                }
            }
        })
    }

    /// The endpoint, or why there will be none; else a wake for when the
    /// stream names one or gives up.
    fn endpoint_or_wait(&self) -> Result<Result<String, LegacyError>, oneshot::Receiver<()>> {
        let mut state = self.state();
        if let Some(endpoint) = &state.endpoint {
            return Ok(Ok(endpoint.clone()));
        }
        if let Some(failure) = &state.failure {
            return Ok(Err(failure.clone()));
        }
        if state.closed {
            return Ok(Err(LegacyError::Closed));
        }
        // Sends that gave up waiting (timed out, dropped) leave now: a
        // stream that stays open and silent never drains the list.
        state.waiters.retain(|waiter| !waiter.is_canceled());
        let (sender, woken) = oneshot::channel();
        state.waiters.push(sender);
        Err(woken)
    }

    pub(super) fn set_endpoint(&self, endpoint: String) {
        let mut state = self.state();
        state.previous_endpoint = None;
        state.endpoint = Some(endpoint);
        state.wake_waiters();
    }
}

/// Checks that `url` is an absolute http(s) URL with a host.
pub(super) fn check_http_url(url: &str) -> Result<(), String> {
    let reference = Reference::split(url);
    match reference.scheme.map(str::to_ascii_lowercase).as_deref() {
        Some("http" | "https") => {}
        Some(other) => return Err(format!("the scheme is {other}", other = Quoted(other))),
        None => return Err("it has no scheme".into()),
    }
    match reference.authority {
        Some(authority) if !url::host_port(authority).0.is_empty() => Ok(()),
        _ => Err("it has no host".into()),
    }
}

/// The absolute URL an `endpoint` event's data names, refused unless it is
/// on the SSE URL's origin.
pub fn endpoint_url(sse_url: &str, data: &str) -> Result<String, LegacyError> {
    let data = data.trim_ascii();
    let invalid = |reason: &str| LegacyError::InvalidEndpoint {
        url: sse_url.to_owned(),
        endpoint: data.to_owned(),
        reason: reason.to_owned(),
    };
    if data.is_empty() {
        return Err(invalid("it is empty"));
    }
    if data.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return Err(invalid("it contains white space or control characters"));
    }
    let resolved = url::resolve(sse_url, data).map_err(|reason| invalid(&reason))?;
    match (url::origin_parts(sse_url), url::origin_parts(&resolved)) {
        (Some(ours), Some(theirs)) if ours == theirs => Ok(resolved),
        _ => Err(LegacyError::ForeignEndpoint { url: sse_url.to_owned(), endpoint: resolved }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SSE: &str = "http://127.0.0.1:3001/sse";

    #[test]
    fn endpoints_the_sdks_send() {
        assert_eq!(
            endpoint_url(SSE, "/message?sessionId=abc").as_deref(),
            Ok("http://127.0.0.1:3001/message?sessionId=abc")
        );
        assert_eq!(
            endpoint_url(SSE, " /messages/?session_id=f00 \n").as_deref(),
            Ok("http://127.0.0.1:3001/messages/?session_id=f00")
        );
        assert_eq!(endpoint_url(SSE, "messages?x=1").as_deref(), Ok("http://127.0.0.1:3001/messages?x=1"));
        assert_eq!(endpoint_url("http://h/a/b/sse", "../m?s=1").as_deref(), Ok("http://h/a/m?s=1"));
        // Absolute, same origin, default port spelled out or not.
        assert_eq!(
            endpoint_url("https://Example.com/sse", "https://example.COM:443/m").as_deref(),
            Ok("https://example.COM:443/m")
        );
        assert_eq!(endpoint_url("http://[::1]:8080/sse", "/m").as_deref(), Ok("http://[::1]:8080/m"));
    }

    #[test]
    fn endpoints_on_another_origin_are_refused() {
        for endpoint in [
            "http://evil.example/steal",
            "//evil.example/steal",
            "https://127.0.0.1:3001/message",
            "http://127.0.0.1:3002/message",
            "http://localhost:3001/message",
            "ftp://127.0.0.1:3001/message",
            "javascript:alert(1)",
            "http://127.0.0.1:3001@evil.example/m",
        ] {
            match endpoint_url(SSE, endpoint) {
                Err(LegacyError::ForeignEndpoint { url, .. }) => assert_eq!(url, SSE),
                other => panic!("{endpoint}: {other:?}"),
            }
        }
    }

    #[test]
    fn unusable_endpoints_are_refused() {
        for endpoint in ["", "   ", "/a b", "1ab:cd", "/m\u{7}"] {
            assert!(
                matches!(endpoint_url(SSE, endpoint), Err(LegacyError::InvalidEndpoint { .. })),
                "{endpoint:?}: {:?}",
                endpoint_url(SSE, endpoint)
            );
        }
    }

    #[test]
    fn origins() {
        assert_eq!(url::origin_parts("http://A.b/x"), Some(("http".into(), "a.b".into(), 80)));
        assert_eq!(url::origin_parts("HTTPS://u:p@h:8443"), Some(("https".into(), "h".into(), 8443)));
        assert_eq!(url::origin_parts("http://h:99999/"), None);
        assert_eq!(url::origin_parts("/relative"), None);
        assert!(check_http_url("http://127.0.0.1:1/sse").is_ok());
        assert!(check_http_url("ws://h/sse").is_err());
        assert!(check_http_url("http:///sse").is_err());
        assert!(check_http_url("127.0.0.1/sse").is_err());
    }
}
