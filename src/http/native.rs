//! The native HTTP backend: reqwest (hyper + rustls) on tokio.

use futures::StreamExt;

use super::{HttpClient, HttpError, HttpRequest, HttpResponse, Method};
use crate::Cause;
use crate::runtime::{BoxFuture, boxed};

/// reqwest, with streamed bodies. Cheap to clone: clones share connections.
#[derive(Debug, Clone, Default)]
pub struct NativeHttp {
    client: reqwest::Client,
}

impl NativeHttp {
    /// A client with reqwest's defaults (rustls, connection pooling).
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
        Ok(NativeHttp { client })
    }

    /// Wraps a configured reqwest client (proxies, certificates, timeouts).
    pub fn with_client(client: reqwest::Client) -> Self {
        NativeHttp { client }
    }
}

impl HttpClient for NativeHttp {
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
            let headers = response
                .headers()
                .iter()
                .filter_map(|(name, value)| Some((name.as_str().to_owned(), value.to_str().ok()?.to_owned())))
                .collect();
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
