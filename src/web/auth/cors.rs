//! Explaining a failed `fetch` to the authorization server: a no-cors probe
//! tells "unreachable" from "reachable but sends no CORS headers".

use wasm_bindgen::prelude::wasm_bindgen;

use super::*;
use crate::cause::Cause;
use crate::runtime::settled;

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
                    // The explanation replaces the text; the browser's own
                    // failure stays the source.
                    let explained = settled(&explain_failure(method.as_str(), &url, &page_origin)).await;
                    Err(HttpError::Network(match explained.ok().and_then(|text| text.as_string()) {
                        Some(text) => Cause::with_source(text, reason),
                        None => reason,
                    }))
                }
                other => other,
            }
        })
    }
}

#[wasm_bindgen(module = "/src/http/web/fetch.js")]
extern "C" {
    /// Resolves with why `method url` failed without an answer when the
    /// page at `page_origin` sent it to another origin (a no-cors probe
    /// tells which way), else undefined; never rejects. Written in JS: the
    /// URL's origin and the texts are the host's work.
    #[wasm_bindgen(js_name = explainFailure)]
    fn explain_failure(method: &str, url: &str, page_origin: &str) -> Promise;
}
