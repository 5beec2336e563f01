//! The native HTTP backend: reqwest (hyper + rustls) on tokio.

use futures::StreamExt;

use super::{HttpClient, HttpError, HttpRequest, HttpResponse, Method};
use crate::cause::Cause;
use crate::runtime::{BoxFuture, boxed};

/// reqwest, with streamed bodies. Cheap to clone: clones share connections.
///
/// Replies in gzip, deflate or brotli are decoded (`Accept-Encoding` says
/// so), as a browser's `fetch` does. Redirects are followed only within the
/// request's origin ([`same_origin_redirects`]).
#[derive(Debug, Clone)]
pub struct NativeHttp {
    client: reqwest::Client,
    /// Built with [`same_origin_redirects`]: see
    /// [`HttpClient::follows_redirects`].
    follows_redirects: bool,
}

impl Default for NativeHttp {
    fn default() -> Self {
        // Building fails only when the TLS backend cannot start, where
        // `reqwest::Client::new` (the fallback) fails the same way.
        let client = reqwest::Client::builder()
            .redirect(same_origin_redirects())
            .build()
            .unwrap_or_else(|_| reqwest::Client::new());
        NativeHttp { client, follows_redirects: true }
    }
}

/// The most redirects one request follows.
const MAX_REDIRECTS: usize = 10;

/// The redirect policy of the default client (and the CLI): a 3xx within
/// the request's origin (scheme, host and port) is followed, up to
/// `MAX_REDIRECTS` (10); one to another origin is refused, because the request
/// carries what only its server may see: `Mcp-Session-Id`, `Authorization`,
/// DPoP proofs, `Last-Event-ID` and the caller's own headers (an API key).
/// (reqwest would strip only `Authorization` and cookies.) The TypeScript
/// SDK refuses cross-origin redirects too.
pub fn same_origin_redirects() -> reqwest::redirect::Policy {
    let origin =
        |url: &reqwest::Url| (url.scheme().to_owned(), url.host_str().map(str::to_owned), url.port_or_known_default());
    reqwest::redirect::Policy::custom(move |attempt| {
        let home = attempt.previous().first().map(origin);
        if attempt.previous().len() >= MAX_REDIRECTS {
            attempt.error(format!("more than {MAX_REDIRECTS} redirects"))
        } else if home.is_some_and(|home| home != origin(attempt.url())) {
            let to = attempt.url().to_string();
            attempt.error(format!(
                "the server redirected to {to}, another origin: refused, so the session id, credentials and \
                 headers go only to the server's own origin"
            ))
        } else {
            attempt.follow()
        }
    })
}

impl NativeHttp {
    /// A client with reqwest's defaults (rustls, connection pooling), the
    /// content codings and the same-origin redirect policy.
    pub fn new() -> Self {
        NativeHttp::default()
    }

    /// A client that hands back 3xx responses instead of following them, so
    /// the caller can check each hop (OAuth discovery refuses redirects to
    /// other origins; a headless authorizer reads `Location`).
    pub fn without_redirects() -> Result<Self, HttpError> {
        let client = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .map_err(|e| HttpError::Network(Cause::with_source(format!("could not build the HTTP client: {e}"), e)))?;
        Ok(NativeHttp { client, follows_redirects: false })
    }

    /// Wraps a configured reqwest client (proxies, certificates, timeouts).
    /// Its redirect policy is its own: [`same_origin_redirects`] is the safe one.
    /// (Its callers are handed what it gives back: OAuth discovery checks
    /// each redirect it is handed itself.)
    pub fn with_client(client: reqwest::Client) -> Self {
        NativeHttp { client, follows_redirects: false }
    }
}

impl HttpClient for NativeHttp {
    fn follows_redirects(&self) -> bool {
        self.follows_redirects
    }

    fn fetch(&self, request: HttpRequest) -> BoxFuture<'static, Result<HttpResponse, HttpError>> {
        let method = match request.method {
            Method::Get => reqwest::Method::GET,
            Method::Post => reqwest::Method::POST,
            Method::Delete => reqwest::Method::DELETE,
        };
        let url = request.url.clone();
        let mut builder = self.client.request(method, &request.url);
        for (name, value) in &request.headers {
            builder = builder.header(name, value);
        }
        if let Some(body) = request.body {
            builder = builder.body(body);
        }
        boxed(async move {
            let response = builder.send().await.map_err(|e| describe(&url, e))?;
            let status = response.status().as_u16();
            // Values that are not visible ASCII are kept (lossily), so the
            // layer that reads one can say what is wrong with it rather than
            // miss it (a session id with a non-ASCII byte).
            let headers: Vec<(String, String)> = response
                .headers()
                .iter()
                .map(|(name, value)| (name.as_str().to_owned(), String::from_utf8_lossy(value.as_bytes()).into_owned()))
                .collect();
            // reqwest removes the header of a coding it decoded: one left is
            // one it cannot decode.
            if let Some((_, coding)) = headers.iter().find(|(name, value)| {
                name == "content-encoding" && !value.trim().is_empty() && !value.trim().eq_ignore_ascii_case("identity")
            }) {
                return Err(HttpError::UnsupportedCoding { url, coding: coding.trim().to_owned() });
            }
            let body = response
                .bytes_stream()
                .map(|chunk| chunk.map(|bytes| bytes.to_vec()).map_err(|e| HttpError::Body(Cause::of(e))));
            Ok(HttpResponse { status, headers, body: Box::pin(body) })
        })
    }
}

fn describe(url: &str, error: reqwest::Error) -> HttpError {
    if error.is_builder() {
        return HttpError::InvalidUrl { url: url.to_owned(), reason: error.to_string() };
    }
    // reqwest's top-level message is generic; the source chain names the cause
    // (connection refused, DNS, certificate).
    let mut message = format!("could not reach {url}");
    let mut source = std::error::Error::source(&error);
    while let Some(cause) = source {
        message.push_str(": ");
        message.push_str(&cause.to_string());
        source = cause.source();
    }
    HttpError::Network(Cause::with_source(message, error))
}
