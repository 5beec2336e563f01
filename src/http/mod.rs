//! The HTTP seam: the few things every HTTP transport needs from an HTTP
//! client, with a backend per platform chosen by `cfg` (the way reqwest
//! splits one API over hyper and `fetch`).
//!
//! Bodies are streams of byte chunks, never buffered whole, so SSE events are
//! parsed as they arrive. Dropping a response (or its body) aborts the
//! exchange: natively the connection is dropped, in a browser the backend's
//! `AbortController` fires.

use std::fmt;

use crate::cause::Cause;
use crate::runtime::{BoxFuture, BoxStream, MaybeSend, MaybeSync};

mod budget;
pub(crate) mod form;
#[cfg(not(target_arch = "wasm32"))]
mod native;
#[cfg(all(test, not(target_arch = "wasm32")))]
pub(crate) mod scripted;
pub(crate) mod url;
#[cfg(target_arch = "wasm32")]
mod web;

pub use budget::{Budgeted, WORKERD_MAX_CONNECTIONS, default_max_connections};
#[cfg(not(target_arch = "wasm32"))]
pub use native::{NativeHttp as DefaultHttp, same_origin_redirects};
// For the JS face and the legacy transport's `EventSource`.
#[cfg(all(target_arch = "wasm32", any(feature = "js", feature = "legacy-sse")))]
pub(crate) use web::message_of;
#[cfg(target_arch = "wasm32")]
pub use web::{Credentials, FetchHttp as DefaultHttp};

/// The response headers the transports and OAuth read. The `fetch` backend
/// reads only these (`www-authenticate` only with 401 and 403,
/// `retry-after` with 429 and 503, `location` with 201 and 3xx): a
/// response's `Headers` is asked for each by name, which is cheaper across
/// the wasm boundary than iterating it.
pub const RESPONSE_HEADERS: &[&str] =
    &["content-type", "content-length", "mcp-session-id", "www-authenticate", "retry-after", "dpop-nonce", "location"];

/// The methods the MCP transports use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Method {
    /// Opens a server stream.
    Get,
    /// Sends a message.
    Post,
    /// Ends a session.
    Delete,
}

impl Method {
    /// The method's name on the wire.
    pub fn as_str(self) -> &'static str {
        match self {
            Method::Get => "GET",
            Method::Post => "POST",
            Method::Delete => "DELETE",
        }
    }
}

/// One HTTP request.
#[derive(Debug, Clone)]
pub struct HttpRequest {
    /// The method.
    pub method: Method,
    /// The absolute URL.
    pub url: String,
    /// Header names and values, in order.
    pub headers: Vec<(String, String)>,
    /// The body, for POST.
    pub body: Option<String>,
}

/// A response whose body is still arriving.
pub struct HttpResponse {
    /// The status code.
    pub status: u16,
    /// Headers with lowercase names. In a browser, only the ones the server's
    /// CORS policy exposes; with `fetch` (wasm32), only those of
    /// [`RESPONSE_HEADERS`].
    pub headers: Vec<(String, String)>,
    /// The body, chunk by chunk.
    pub body: BoxStream<'static, Result<Vec<u8>, HttpError>>,
}

impl fmt::Debug for HttpResponse {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        crate::debug::debug_struct(f, "HttpResponse")
            .field("status", &self.status)
            .field("headers", &self.headers)
            .finish()
    }
}

impl HttpResponse {
    /// The first value of a header, by case-insensitive name.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }

    /// The media type of the body, lowercase, without parameters.
    pub fn media_type(&self) -> Option<String> {
        let value = self.header("content-type")?;
        Some(value.split(';').next().unwrap_or_default().trim_ascii().to_ascii_lowercase())
    }

    /// Reads the whole body, refusing more than `limit` bytes.
    pub async fn read_body(self, limit: usize) -> Result<Vec<u8>, HttpError> {
        use futures::StreamExt;
        // A body that comes in chunks is gathered in one allocation of its
        // declared length, not grown by doubling: a 1 MB body in 64 KB
        // chunks was copied some 2 MB over within wasm. `limit` caps what a
        // false `Content-Length` can make us allocate (HTTP ends such a
        // response with an error when the body falls short).
        let declared = self
            .header("content-length")
            .and_then(|n| n.parse::<u64>().ok())
            .map(|n| usize::try_from(n).unwrap_or(usize::MAX).min(limit));
        let mut body = self.body;
        let mut bytes = Vec::new();
        while let Some(chunk) = body.next().await {
            let chunk = chunk?;
            if bytes.len() + chunk.len() > limit {
                return Err(HttpError::Body(format!("the response body is larger than {limit} bytes").into()));
            }
            if bytes.is_empty() && declared.is_none_or(|n| n <= chunk.len()) {
                // A whole body in one chunk (a JSON reply, on the web) is
                // kept rather than copied.
                bytes = chunk;
            } else {
                if bytes.is_empty()
                    && let Some(n) = declared
                {
                    bytes.reserve_exact(n);
                }
                bytes.extend_from_slice(&chunk);
            }
        }
        Ok(bytes)
    }
}

/// Why an HTTP exchange failed below the status code.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum HttpError {
    /// The URL cannot be used.
    #[error("invalid URL {}: {reason}", crate::debug::Quoted(.url))]
    InvalidUrl {
        /// The URL.
        url: String,
        /// Why.
        reason: String,
    },
    /// No response: DNS, refused connection, TLS, or (in a browser, which
    /// gives no detail) possibly a CORS refusal.
    #[error("{0}")]
    Network(#[source] Cause),
    /// The body broke off or could not be read.
    #[error("reading the response body: {0}")]
    Body(#[source] Cause),
    /// The body is in a content coding this client cannot decode (natively
    /// gzip, deflate and br are decoded; a browser decodes what it knows).
    #[error(
        "the response from {url} is encoded with {}, which this client cannot decode (it decodes gzip, deflate and br)",
        crate::debug::Quoted(.coding)
    )]
    UnsupportedCoding {
        /// The URL.
        url: String,
        /// The `Content-Encoding` value.
        coding: String,
    },
}

/// An HTTP client the transports can use. Implement it to route requests
/// through your own stack (a proxy, a test double, a worker's service binding).
pub trait HttpClient: MaybeSend + MaybeSync + 'static {
    /// Sends a request; resolves once the status and headers arrived.
    fn fetch(&self, request: HttpRequest) -> BoxFuture<'static, Result<HttpResponse, HttpError>>;

    /// Whether this client follows the redirects of a request that carries
    /// nothing secret (only `Accept` and MCP's own headers, as OAuth
    /// discovery's GETs) itself, within the request's origin, and refuses
    /// one to another origin with an error, so that the caller of such a
    /// request is never handed a redirect to follow. The default, `false`,
    /// is always safe: discovery then follows same-origin redirects itself
    /// and refuses the others. The web's `fetch` client says `true` (a page
    /// cannot see where a redirect leads without following it, and
    /// `fetch.js` refuses an answer from another origin), and so does the
    /// native default client (`same_origin_redirects`): a build that has
    /// only such clients, the wasm one, leaves discovery's loop out.
    fn follows_redirects(&self) -> bool {
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn response(length: Option<&str>, chunks: &[&[u8]]) -> HttpResponse {
        let chunks: Vec<Result<Vec<u8>, HttpError>> = chunks.iter().map(|chunk| Ok(chunk.to_vec())).collect();
        HttpResponse {
            status: 200,
            headers: length.map(|n| vec![("content-length".to_owned(), n.to_owned())]).unwrap_or_default(),
            body: Box::pin(futures::stream::iter(chunks)),
        }
    }

    /// The body of a response whose chunks are all there: read in one
    /// poll, with no runtime (the lib's tests also run on wasm32).
    fn read(response: HttpResponse, limit: usize) -> Result<Vec<u8>, HttpError> {
        use std::future::Future;
        use std::task::{Context, Poll, Waker};
        let mut reading = std::pin::pin!(response.read_body(limit));
        match reading.as_mut().poll(&mut Context::from_waker(Waker::noop())) {
            Poll::Ready(body) => body,
            Poll::Pending => panic!("a body whose chunks are all there is read in one poll"),
        }
    }

    #[test]
    fn read_body_gathers_the_chunks_whatever_length_is_declared() {
        let chunks: &[&[u8]] = &[b"{\"a\":", b"[1,2", b"]}"];
        for length in [None, Some("12"), Some("3"), Some("999999"), Some("nonsense")] {
            let body = read(response(length, chunks), 64).unwrap_or_else(|e| panic!("{length:?}: {e}"));
            assert_eq!(body, b"{\"a\":[1,2]}", "declared length {length:?}");
        }
        assert_eq!(read(response(Some("5"), &[b"whole"]), 64).ok(), Some(b"whole".to_vec()));
        assert_eq!(read(response(Some("0"), &[]), 64).ok(), Some(Vec::new()));
    }

    #[test]
    fn read_body_stops_at_the_limit_even_when_the_declared_length_is_larger() {
        let declared = usize::MAX.to_string();
        let error = read(response(Some(&declared), &[b"0123", b"4567", b"89"]), 8);
        assert!(
            matches!(&error, Err(HttpError::Body(cause)) if cause.to_string().contains("larger than 8 bytes")),
            "{error:?}"
        );
        assert_eq!(read(response(Some(&declared), &[b"0123", b"4567"]), 8).ok(), Some(b"01234567".to_vec()));
    }
}
