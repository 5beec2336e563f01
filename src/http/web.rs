//! The web HTTP backend: the global `fetch`, which pages, Web Workers,
//! Service Workers, Cloudflare Workers, Deno and Node 22 all have. Nothing
//! here touches `window`.

use futures::StreamExt;
use js_sys::{Array, Promise, Uint8Array};
use wasm_bindgen::prelude::*;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;
use web_sys::{AbortController, Headers, Request, RequestCredentials, RequestInit, Response};

use super::{HttpClient, HttpError, HttpRequest, HttpResponse};
use crate::runtime::{BoxFuture, boxed};

#[wasm_bindgen]
extern "C" {
    /// The global `fetch`, whatever the global object is.
    #[wasm_bindgen(js_name = fetch)]
    fn global_fetch(request: &Request) -> Promise;
}

/// Whether cross-origin requests carry cookies (the `credentials` mode).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Credentials {
    /// Never send cookies.
    Omit,
    /// Only to the page's own origin (fetch's default).
    SameOrigin,
    /// Always; the server must answer `Access-Control-Allow-Credentials: true`.
    Include,
}

/// `fetch` with streamed bodies and `AbortController` cancellation.
#[derive(Debug, Clone, Default)]
pub struct FetchHttp {
    credentials: Option<Credentials>,
}

impl FetchHttp {
    /// `fetch` with its default credentials mode.
    pub fn new() -> Self {
        FetchHttp::default()
    }

    /// `fetch` with this credentials mode.
    pub fn with_credentials(credentials: Credentials) -> Self {
        FetchHttp { credentials: Some(credentials) }
    }
}

/// Aborts the fetch when the response (or its body) is dropped.
struct AbortOnDrop(Option<AbortController>);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        if let Some(controller) = &self.0 {
            controller.abort();
        }
    }
}

fn js_message(value: &JsValue) -> String {
    if let Some(error) = value.dyn_ref::<js_sys::Error>() {
        return String::from(error.message());
    }
    value.as_string().unwrap_or_else(|| format!("{value:?}"))
}

/// A failed `fetch`, with whatever cause the runtime gives: Node's and
/// Deno's carry one (`cause`: `ECONNREFUSED`, a socket closed, a redirect
/// loop); a browser's TypeError carries none, and only there is a CORS
/// refusal among the possibilities.
fn network_failure(method: &str, url: &str, error: &JsValue) -> HttpError {
    let cause =
        js_sys::Reflect::get(error, &JsValue::from_str("cause")).ok().filter(|c| !c.is_undefined() && !c.is_null());
    let cause_text = cause.map(|cause| {
        let code = js_sys::Reflect::get(&cause, &JsValue::from_str("code")).ok().and_then(|c| c.as_string());
        match code {
            Some(code) => format!("{code}: {}", js_message(&cause)),
            None => js_message(&cause),
        }
    });
    match cause_text {
        Some(cause) => HttpError::Network(format!("{method} {url} failed ({}): {cause}", js_message(error))),
        None if in_browser() => HttpError::Network(format!(
            "{method} {url} failed ({}). The browser gives no detail: the server may be unreachable, \
             or its CORS policy may not allow this origin, method or headers",
            js_message(error)
        )),
        None => HttpError::Network(format!("{method} {url} failed ({})", js_message(error))),
    }
}

/// Whether two URLs share scheme, host and port (unparsable: no).
fn same_origin(a: &str, b: &str) -> bool {
    use super::url::Url;
    matches!((Url::parse(a), Url::parse(b)), (Ok(a), Ok(b)) if a.origin() == b.origin())
}

/// Whether this is a browser (a page or a worker), not Node, Deno or Bun.
fn in_browser() -> bool {
    let global = js_sys::global();
    let get = |target: &JsValue, key: &str| js_sys::Reflect::get(target, &JsValue::from_str(key)).ok();
    let node = get(&global, "process").and_then(|p| get(&p, "versions")).and_then(|v| get(&v, "node"));
    let server_side = node.is_some_and(|n| n.is_string())
        || get(&global, "Deno").is_some_and(|d| !d.is_undefined())
        || get(&global, "Bun").is_some_and(|b| !b.is_undefined());
    !server_side
}

fn build_request(
    request: &HttpRequest,
    credentials: Option<Credentials>,
    controller: Option<&AbortController>,
) -> Result<Request, HttpError> {
    let invalid = |reason: String| HttpError::InvalidUrl { url: request.url.clone(), reason };
    let init = RequestInit::new();
    init.set_method(request.method.as_str());
    let headers = Headers::new().map_err(|e| invalid(js_message(&e)))?;
    for (name, value) in &request.headers {
        headers.append(name, value).map_err(|e| invalid(format!("header {name}: {}", js_message(&e))))?;
    }
    init.set_headers(&headers);
    if let Some(body) = &request.body {
        init.set_body(&JsValue::from_str(body));
    }
    if let Some(controller) = controller {
        init.set_signal(Some(&controller.signal()));
    }
    match credentials {
        Some(Credentials::Omit) => init.set_credentials(RequestCredentials::Omit),
        Some(Credentials::SameOrigin) => init.set_credentials(RequestCredentials::SameOrigin),
        Some(Credentials::Include) => init.set_credentials(RequestCredentials::Include),
        None => {}
    }
    Request::new_with_str_and_init(&request.url, &init).map_err(|e| invalid(js_message(&e)))
}

fn response_headers(response: &Response) -> Vec<(String, String)> {
    let mut headers = Vec::new();
    let Ok(Some(entries)) = js_sys::try_iter(&response.headers()) else {
        return headers;
    };
    for entry in entries.flatten() {
        let pair = Array::from(&entry);
        if let (Some(name), Some(value)) = (pair.get(0).as_string(), pair.get(1).as_string()) {
            headers.push((name.to_ascii_lowercase(), value));
        }
    }
    headers
}

impl HttpClient for FetchHttp {
    fn fetch(&self, request: HttpRequest) -> BoxFuture<'static, Result<HttpResponse, HttpError>> {
        let credentials = self.credentials;
        boxed(async move {
            let controller = AbortController::new().ok();
            let js_request = build_request(&request, credentials, controller.as_ref())?;
            let guard = AbortOnDrop(controller);
            let method = request.method;
            let answered = JsFuture::from(global_fetch(&js_request))
                .await
                .map_err(|e| network_failure(method.as_str(), &request.url, &e))?;
            let response: Response = answered
                .dyn_into()
                .map_err(|_| HttpError::Network("fetch resolved to something that is not a Response".into()))?;
            // `fetch` follows redirects itself; a response that came from
            // another origin is refused, as natively (see `NativeHttp`): its
            // server was not the one the request was meant for.
            if response.redirected() && !same_origin(&request.url, &response.url()) {
                return Err(HttpError::Network(format!(
                    "{} {}: the server redirected to {}, another origin: refused, so the session id, \
                     credentials and headers are used only with the server's own origin",
                    method.as_str(),
                    request.url,
                    response.url()
                )));
            }
            let status = response.status();
            let headers = response_headers(&response);
            let body: crate::runtime::BoxStream<'static, Result<Vec<u8>, HttpError>> = match response.body() {
                None => Box::pin(futures::stream::empty()),
                Some(raw) => {
                    let chunks = wasm_streams::ReadableStream::from_raw(raw).into_stream();
                    Box::pin(chunks.map(move |chunk| {
                        // The guard lives as long as the body is being read.
                        let _keep = &guard;
                        chunk.map(|value| Uint8Array::new(&value).to_vec()).map_err(|e| HttpError::Body(js_message(&e)))
                    }))
                }
            };
            Ok(HttpResponse { status, headers, body })
        })
    }
}
