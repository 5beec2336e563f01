//! Explaining a failed `fetch` to the authorization server: a no-cors probe
//! tells "unreachable" from "reachable but sends no CORS headers".

use wasm_bindgen::prelude::wasm_bindgen;

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
    fn follows_redirects(&self) -> bool {
        self.inner.follows_redirects()
    }

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

#[wasm_bindgen(module = "/src/http/web/fetch.js")]
extern "C" {
    /// Resolves to whether `url` answers a `no-cors` GET (an opaque
    /// response) within `timeout_ms`; never rejects.
    #[wasm_bindgen(js_name = reachable)]
    fn probe(url: &str, timeout_ms: f64) -> Promise;
}

/// Whether `url` answers a `no-cors` GET within [`PROBE_TIMEOUT_MS`].
async fn reachable(url: &str) -> bool {
    let answered = crate::runtime::settled(&probe(url, PROBE_TIMEOUT_MS)).await;
    answered.ok().and_then(|reached| reached.as_bool()) == Some(true)
}
