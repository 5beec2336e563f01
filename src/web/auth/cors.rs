//! Explaining a failed `fetch` to the authorization server: a no-cors probe
//! tells "unreachable" from "reachable but sends no CORS headers".

use super::*;
use crate::cause::Cause;

/// `fetch` for the authorization server. In a browser, a request that fails
/// without an answer is probed once more with `mode: "no-cors"`: if that
/// gets through, the server is reachable and the failure was its missing
/// CORS headers, which the error then says.
#[derive(Debug, Clone)]
pub(crate) struct ExplainCors {
    pub(super) inner: DefaultHttp,
    pub(super) page_origin: Option<String>,
}

impl HttpClient for ExplainCors {
    fn fetch(&self, request: HttpRequest) -> BoxFuture<'static, Result<HttpResponse, HttpError>> {
        let page_origin = self.page_origin.clone();
        let url = request.url.clone();
        let method = request.method;
        let sending = self.inner.fetch(request);
        boxed(async move {
            match sending.await {
                Err(HttpError::Network(reason)) => {
                    let Some(page_origin) = page_origin else {
                        return Err(HttpError::Network(reason));
                    };
                    let Some(target) = Url::parse(&url).ok().map(|u| u.origin()).filter(|o| *o != page_origin) else {
                        return Err(HttpError::Network(reason));
                    };
                    let who = if crate::protocol::raw::mentions(&url, "/.well-known/oauth-protected-resource", 2) {
                        format!("the MCP server at {target} (its protected resource metadata)")
                    } else {
                        format!("the authorization server at {target}")
                    };
                    // The explanation replaces the text; the browser's own
                    // failure stays the source.
                    let explained = if reachable(&url).await {
                        format!(
                            "{} {url} failed: {who} may not allow cross-origin requests from this page (no CORS \
                             headers): it answers, but the browser does not let {page_origin} read the answer. \
                             It must send Access-Control-Allow-Origin for this origin",
                            method.as_str()
                        )
                    } else {
                        format!(
                            "{} {url} failed: {who} is unreachable from this page (or may not allow \
                             cross-origin requests from it: no CORS headers)",
                            method.as_str()
                        )
                    };
                    Err(HttpError::Network(Cause::with_source(explained, reason)))
                }
                other => other,
            }
        })
    }
}

/// Whether `url` answers a `no-cors` GET (an opaque response) within a few
/// seconds.
pub(super) async fn reachable(url: &str) -> bool {
    use futures::future::{Either, select};
    let init = RequestInit::new();
    init.set_mode(RequestMode::NoCors);
    init.set_method("GET");
    let global = js_sys::global();
    let Ok(fetch) = Reflect::get(&global, &JsValue::from_str("fetch")) else {
        return false;
    };
    let Ok(fetch) = fetch.dyn_into::<Function>() else {
        return false;
    };
    let Ok(promise) = fetch.call2(&global, &JsValue::from_str(url), &init) else {
        return false;
    };
    let probe = crate::runtime::settled(&Promise::resolve(&promise));
    matches!(select(probe, Box::pin(crate::runtime::sleep(PROBE_TIMEOUT))).await, Either::Left((Ok(_), _)))
}
