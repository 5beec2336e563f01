//! The web HTTP backend: the global `fetch`, which pages, Web Workers,
//! Service Workers, Cloudflare Workers, Deno and Node 22 all have, or a
//! `fetch` the host installed for mcp-edge alone. The Node entries install
//! one over `node:http` (the package's `node-http.js` says why and when it
//! steps aside for the global `fetch`) under `Symbol.for("mcp-edge.fetch")`
//! on the global object, where `fetch.js`'s `installedFetch` finds it when
//! a client is made. Nothing here touches `window`.

use std::pin::Pin;
use std::task::{Context, Poll};

use futures::{FutureExt, Stream, StreamExt};
use js_sys::{Array, JsString, Promise, Uint8Array};
use wasm_bindgen::prelude::*;
use wasm_bindgen::{JsCast, JsValue};
use web_sys::{AbortController, AbortSignal, Headers, Response};

use self::reader::BodyChunks;
use super::{HttpClient, HttpError, HttpRequest, HttpResponse};
use crate::cause::Cause;
use crate::runtime::{BoxFuture, Settled, boxed, settled};

mod reader;
mod thrown;

pub(crate) use thrown::message_of;

#[wasm_bindgen(module = "/src/http/web/fetch.js")]
extern "C" {
    /// A request's init (`fetch.js` says what each argument is).
    #[wasm_bindgen(js_name = requestInit)]
    fn request_init(
        method: &JsString,
        headers: &Headers,
        body: Option<String>,
        credentials: u8,
        manual: bool,
        signal: Option<AbortSignal>,
    ) -> JsValue;
    /// Sends a request: `fetch`'s own promise.
    #[wasm_bindgen(catch)]
    fn send(
        installed: Option<&js_sys::Function>,
        deferred: bool,
        url: &JsString,
        init: &JsValue,
    ) -> Result<Promise, JsValue>;
    /// `[response, status, i, value, ...]` for the headers `RESPONSE_HEADERS[i]`, or a
    /// promise of it once a redirect was followed; throws a refusal.
    #[wasm_bindgen(js_name = readAnswer, catch)]
    fn read_answer(
        response: &JsValue,
        url: &JsString,
        init: &JsValue,
        dpop: bool,
        installed: Option<&js_sys::Function>,
    ) -> Result<JsValue, JsValue>;
    /// Whether this is a browser (a page or a worker), not Node, Deno or Bun.
    #[wasm_bindgen(js_name = inBrowser)]
    fn in_browser() -> bool;
    /// The `fetch` the host installed for mcp-edge (above), if any.
    #[wasm_bindgen(js_name = installedFetch)]
    fn installed_fetch() -> Option<js_sys::Function>;
    /// The bytes of what a body gave: `whole`, an `ArrayBuffer`; else a
    /// stream reader's `{done, value}` (`undefined` once done).
    #[wasm_bindgen(js_name = bytesOf)]
    fn bytes_of(read: &JsValue, whole: bool) -> Option<Uint8Array>;
    /// A `Headers` of `list`, the JSON text of `["name", "value", ...]`;
    /// throws `header <name>: <why>` for a name or value `fetch` refuses.
    #[wasm_bindgen(js_name = headersOf, catch)]
    fn headers_of(list: &str) -> Result<Headers, JsValue>;
    /// Ends a dropped exchange: the fetch in flight (its response's body is
    /// cancelled when it comes) or a body's reader (cancelled now).
    fn abandon(what: &JsValue);
}

/// The most strings [`js_text`] keeps.
const KEPT_STRINGS: usize = 64;

thread_local! {
    /// The strings every exchange sends again (its method and URL), kept as
    /// JS strings.
    static JS_TEXT: std::cell::RefCell<Vec<(Box<str>, JsString)>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// `text` as a JS string, made once for the strings each exchange repeats:
/// a string handed to JS is decoded from UTF-8 every time (`TextDecoder`,
/// about 1.5 µs a string in Chromium), and every call sends its method and
/// URL.
/// Bounded: past [`KEPT_STRINGS`] a new string is made and not kept.
/// Secrets (a session id, credentials, a URL's query) are never given to it.
fn js_text(text: &str) -> JsString {
    JS_TEXT.with(|kept| {
        let mut kept = kept.borrow_mut();
        if let Some((_, string)) = kept.iter().find(|(known, _)| **known == *text) {
            return string.clone();
        }
        let string = JsString::from(text);
        if kept.len() < KEPT_STRINGS {
            kept.push((text.into(), string.clone()));
        }
        string
    })
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

/// `fetch` with streamed bodies; a dropped exchange is ended (aborted, or in
/// Node its body cancelled: see `AbortOnDrop`).
#[derive(Debug, Clone)]
pub struct FetchHttp {
    credentials: Option<Credentials>,
    /// Whether each request carries an `AbortSignal` (not in Node: see
    /// [`AbortOnDrop`]).
    signals: bool,
    /// Whether `fetch` is called from a microtask (browsers) rather than
    /// from the wasm call that wants it. Chromium's `fetch()` costs far
    /// more with wasm frames on the stack below it: sequential calls to a
    /// local server took 100-220 µs longer each, and 1,000 calls at once
    /// 5-9% longer, than the same calls made from a microtask (A/B pages,
    /// docs/speed.md). Node, Deno and Bun call it directly; pages, workers
    /// and workerd (which `in_browser` does not tell from a browser) defer.
    deferred: bool,
    /// The last request's headers, as sent and as a JS `Headers`.
    last_headers: std::rc::Rc<std::cell::RefCell<Option<SentHeaders>>>,
    /// The `fetch` the host installed for mcp-edge (see above), called
    /// instead of the global one.
    installed: Option<js_sys::Function>,
}

/// A `Headers` object and the list it was made from. `fetch` copies the
/// headers it is given when it is called, so one object serves every
/// request that sends the same list: a session's calls send the same three
/// to five headers, call after call, and making the object again costs a
/// crossing and the runtime's checks of every name and value.
#[derive(Debug)]
struct SentHeaders {
    list: Vec<(String, String)>,
    headers: Headers,
}

impl Default for FetchHttp {
    fn default() -> Self {
        let installed = installed_fetch();
        // An installed `fetch` takes a signal for what it costs natively
        // (Node's `node:http` ends the request on it), not undici's price.
        let signals = !in_node() || installed.is_some();
        FetchHttp { credentials: None, signals, deferred: in_browser(), last_headers: Default::default(), installed }
    }
}

impl FetchHttp {
    /// `fetch` with its default credentials mode.
    pub fn new() -> Self {
        FetchHttp::default()
    }

    /// `fetch` with this credentials mode.
    pub fn with_credentials(credentials: Credentials) -> Self {
        FetchHttp { credentials: Some(credentials), ..FetchHttp::default() }
    }
}

/// Ends the exchange when the response (or its body) is dropped before the
/// body was read to its end. A finished exchange is not aborted: the abort
/// would only cost a DOMException and an event dispatch for nothing.
///
/// With a controller (browsers, workers, Deno, workerd, and wherever a
/// `fetch` is installed: Node's entries) the fetch is aborted. With Node's
/// own `fetch`, where a signal costs each request about 60 µs of CPU
/// (undici ties the caller's signal to its own with a `WeakRef`, a
/// `FinalizationRegistry` entry and a listener), no signal is passed: an
/// unanswered fetch has its response's body cancelled when it comes (which
/// closes the exchange and frees the connection), and a streamed body is
/// cancelled when its reader is dropped. What Node cannot do without a
/// signal is end a request whose server never answers before undici's own
/// header timeout; the caller stops waiting at once either way.
struct AbortOnDrop {
    controller: Option<AbortController>,
    /// The fetch in flight, kept only when there is no controller.
    unanswered: Option<Promise>,
    finished: bool,
}

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        if self.finished {
            return;
        }
        if let Some(controller) = &self.controller {
            controller.abort();
        } else if let Some(fetching) = self.unanswered.take() {
            abandon(&fetching);
        }
    }
}

/// Whether this is Node, whose `fetch` (undici) makes a signal expensive
/// (see [`AbortOnDrop`]). Node 21 and later name themselves in
/// `navigator.userAgent`; Deno, Bun, workerd and browsers do not.
fn in_node() -> bool {
    crate::runtime::user_agent().is_some_and(|agent| agent.starts_with("Node.js/"))
}

/// The largest body read in one go (`arrayBuffer()`) rather than chunk by
/// chunk; bigger ones, and bodies of unknown length, stream, so a reader's
/// size limit stops them early, and a large body is copied once into wasm
/// rather than gathered and copied twice by `arrayBuffer()` first (undici
/// concatenates the chunks, then copies them into a new `ArrayBuffer`).
const WHOLE_BODY_LIMIT: u64 = 256 * 1024;

/// A response body: SSE streams (and bodies of unknown length) chunk by
/// chunk; a body of known, bounded length (JSON replies) in one
/// `arrayBuffer()`, which is one promise instead of a reader, its reads and
/// its release.
enum Chunks {
    Whole(Option<Settled>),
    Streamed(BodyChunks),
}

struct FetchBody {
    chunks: Chunks,
    guard: AbortOnDrop,
}

impl Stream for FetchBody {
    type Item = Result<Vec<u8>, HttpError>;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = self.get_mut();
        // `arrayBuffer()` gives an `ArrayBuffer`, which a `Uint8Array` views;
        // a body stream gives `Uint8Array`s, which `new Uint8Array(chunk)`
        // would copy (a 1 MB body streamed in Node: 0.4 ms for nothing).
        let polled = match &mut this.chunks {
            Chunks::Whole(None) => Poll::Ready(None),
            Chunks::Whole(Some(read)) => {
                let read = read
                    .poll_unpin(cx)
                    .map(|read| Some(read.map(|buffer| bytes_of(&buffer, true).unwrap_or_default())));
                if read.is_ready() {
                    this.chunks = Chunks::Whole(None);
                }
                read
            }
            Chunks::Streamed(stream) => stream.poll_next_unpin(cx),
        };
        match polled {
            Poll::Pending => Poll::Pending,
            Poll::Ready(None) => {
                this.guard.finished = true;
                Poll::Ready(None)
            }
            Poll::Ready(Some(Ok(value))) => {
                if matches!(this.chunks, Chunks::Whole(None)) {
                    this.guard.finished = true;
                }
                Poll::Ready(Some(Ok(value.to_vec())))
            }
            Poll::Ready(Some(Err(e))) => Poll::Ready(Some(Err(body_error(&e)))),
        }
    }
}

fn body_error(e: &JsValue) -> HttpError {
    HttpError::Body(Cause::of(Cause::new(message_of(e))))
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
            Some(code) => format!("{code}: {}", message_of(&cause)),
            None => message_of(&cause),
        }
    });
    let thrown = message_of(error);
    // A JS exception is not `Send`: causes carrying its message (and its
    // `cause`'s) stand in for it, so the source chain has the same shape as
    // natively.
    let source = match &cause_text {
        Some(cause) => Cause::with_source(thrown.clone(), Cause::new(cause.clone())),
        None => Cause::new(thrown.clone()),
    };
    let text = match cause_text {
        Some(cause) => format!("{method} {url} failed ({thrown}): {cause}"),
        None if in_browser() => format!(
            "{method} {url} failed ({thrown}). The browser gives no detail: the server may be unreachable, \
             or its CORS policy may not allow this origin, method or headers"
        ),
        None => format!("{method} {url} failed ({thrown})"),
    };
    HttpError::Network(Cause::with_source(text, source))
}

/// Headers that carry nothing secret: a request with only these may follow
/// a redirect (and is refused if it ends on another origin); any other
/// (`Mcp-Session-Id`, `Authorization`, `DPoP`, `Last-Event-ID`, the caller's
/// own) makes it `redirect: "manual"`.
const ORDINARY_HEADERS: &[&str] = &["accept", "content-type", "mcp-protocol-version", "mcp-method", "mcp-name"];

/// `request`'s headers as a JS `Headers`: the last request's object again
/// when the list is the same (see [`SentHeaders`]).
fn request_headers(
    request: &HttpRequest,
    last: &std::cell::RefCell<Option<SentHeaders>>,
) -> Result<Headers, HttpError> {
    if let Some(sent) = &*last.borrow()
        && sent.list == request.headers
    {
        return Ok(sent.headers.clone());
    }
    // `["name", "value", ...]` as JSON text, one string across and one
    // `JSON.parse` there, where a crossing per name and value was code of
    // its own in the wasm.
    let mut list = String::from("[");
    for (name, value) in &request.headers {
        if list.len() > 1 {
            list.push(',');
        }
        crate::protocol::json::write_string(name, &mut list);
        list.push(',');
        crate::protocol::json::write_string(value, &mut list);
    }
    list.push(']');
    let headers =
        headers_of(&list).map_err(|e| HttpError::InvalidUrl { url: request.url.clone(), reason: message_of(&e) })?;
    *last.borrow_mut() = Some(SentHeaders { list: request.headers.clone(), headers: headers.clone() });
    Ok(headers)
}

/// Whether a request may follow a redirect: not when it carries what only
/// its server may see. `fetch` would follow a redirect, anywhere, with the
/// request's headers; a page cannot see where a redirect leads without
/// following it.
fn manual_redirects(request: &HttpRequest) -> bool {
    request.headers.iter().any(|(name, _)| !ORDINARY_HEADERS.iter().any(|h| name.eq_ignore_ascii_case(h)))
}

/// The number `fetch.js` knows a credentials mode by.
fn credentials_mode(credentials: Option<Credentials>) -> u8 {
    match credentials {
        None => 0,
        Some(Credentials::Omit) => 1,
        Some(Credentials::SameOrigin) => 2,
        Some(Credentials::Include) => 3,
    }
}

/// What `fetch.js` rejected with: its own refusal (an `Error` with
/// `refused`, whose message says it all), or what `fetch` failed with.
fn exchange_failure(method: &str, url: &str, error: &JsValue) -> HttpError {
    let refused = js_sys::Reflect::get(error, &js_text("refused")).is_ok_and(|r| r.is_truthy());
    if refused { HttpError::Network(message_of(error).into()) } else { network_failure(method, url, error) }
}

impl HttpClient for FetchHttp {
    /// `fetch` follows the redirects of a request that carries nothing
    /// secret itself, and `fetch.js` refuses an answer from another origin.
    fn follows_redirects(&self) -> bool {
        true
    }

    fn fetch(&self, request: HttpRequest) -> BoxFuture<'static, Result<HttpResponse, HttpError>> {
        let (credentials, signals, deferred) = (self.credentials, self.signals, self.deferred);
        let installed = self.installed.clone();
        let headers = request_headers(&request, &self.last_headers);
        boxed(async move {
            let controller = if signals { AbortController::new().ok() } else { None };
            let manual = manual_redirects(&request);
            let HttpRequest { method, url, headers: sent, body } = request;
            let dpop = sent.iter().any(|(name, _)| name.eq_ignore_ascii_case("dpop"));
            drop(sent);
            // A URL with a query may carry a key: not kept.
            let js_url = if url.contains('?') { JsString::from(url.as_str()) } else { js_text(&url) };
            let signal = controller.as_ref().map(AbortController::signal);
            let init =
                request_init(&js_text(method.as_str()), &headers?, body, credentials_mode(credentials), manual, signal);
            let failed = |e: JsValue| exchange_failure(method.as_str(), &url, &e);
            let fetching = send(installed.as_ref(), deferred, &js_url, &init).map_err(failed)?;
            let mut guard = AbortOnDrop { controller, unanswered: None, finished: false };
            // The response, then what `fetch.js` read of it; outside a
            // browser that may be the promise of a redirect it followed,
            // whose answer is what was read. One `.await` for both.
            let mut waiting = fetching;
            let mut response_next = true;
            let found = loop {
                if guard.controller.is_none() {
                    guard.unanswered = Some(Clone::clone(&waiting));
                }
                let outcome = settled(&waiting).await.map_err(failed)?;
                guard.unanswered = None;
                if !response_next {
                    break outcome;
                }
                response_next = false;
                let read = read_answer(&outcome, &js_url, &init, dpop, installed.as_ref());
                // An answer carries its status at [1]; a promise (a redirect
                // followed) has nothing there: no `instanceof` check needed.
                let read = read.map_err(failed)?;
                if read.unchecked_ref::<Array>().get(1).as_f64().is_some() {
                    break read;
                }
                waiting = read.unchecked_into();
            };
            let found: Array = found.unchecked_into();
            let response: Response = found.get(0).unchecked_into();
            let status = found.get(1).as_f64().unwrap_or_default() as u16;
            // `[.., i, value, ...]`: the headers `RESPONSE_HEADERS[i]`, each
            // name at most once; the two the body's reading needs are read
            // on the way.
            let (mut headers, mut length, mut event_stream) = (Vec::new(), None, false);
            let mut at = 2;
            while at + 1 < found.length() {
                if let Some(&name) = found.get(at).as_f64().and_then(|i| super::RESPONSE_HEADERS.get(i as usize))
                    && let Some(value) = found.get(at + 1).as_string()
                {
                    match name {
                        "content-length" => length = value.parse::<u64>().ok(),
                        "content-type" => {
                            event_stream = value.get(..17).is_some_and(|m| m.eq_ignore_ascii_case("text/event-stream"))
                        }
                        _ => {}
                    }
                    headers.push((name.to_owned(), value));
                }
                at += 2;
            }
            // From here the body is read (or cancelled by its reader).
            // A body of known length is read without asking for `body`
            // first: in a browser that getter makes the stream's JS object,
            // which `arrayBuffer()` does not need (a response without a body
            // gives an empty buffer).
            let chunks = match length {
                Some(0) => {
                    guard.finished = true;
                    Chunks::Whole(None)
                }
                Some(n) if !event_stream && n <= WHOLE_BODY_LIMIT => {
                    let read = response.array_buffer().map_err(|e| body_error(&e))?;
                    Chunks::Whole(Some(settled(&read)))
                }
                _ => match response.body() {
                    None => {
                        guard.finished = true;
                        Chunks::Whole(None)
                    }
                    Some(raw) => Chunks::Streamed(BodyChunks::new(raw).map_err(|e| body_error(&e))?),
                },
            };
            let body: crate::runtime::BoxStream<'static, Result<Vec<u8>, HttpError>> =
                Box::pin(FetchBody { chunks, guard });
            Ok(HttpResponse { status, headers, body })
        })
    }
}

// Run in Chromium by `cargo xtask test` (the library's wasm-bindgen suite,
// configured to run in the browser in `auth::jwt::web`).
#[cfg(test)]
mod tests {
    use wasm_bindgen_test::wasm_bindgen_test;

    use super::*;
    use crate::http::Method;

    #[wasm_bindgen(module = "/src/http/web/fetch.js")]
    extern "C" {
        #[wasm_bindgen(thread_local_v2, js_name = RESPONSE_HEADERS)]
        static READ_IN_JS: Array;
    }

    #[wasm_bindgen_test]
    fn fetch_js_reads_the_response_headers_in_the_same_order() {
        let read: Vec<String> = READ_IN_JS.with(|names| names.iter().filter_map(|name| name.as_string()).collect());
        assert_eq!(read, crate::http::RESPONSE_HEADERS);
    }

    #[wasm_bindgen_test]
    fn kept_strings_read_back_the_same_and_stay_bounded() {
        for round in 0..2 {
            for i in 0..(KEPT_STRINGS * 3) {
                let text = format!("x-header-{i}");
                assert_eq!(String::from(js_text(&text)), text, "round {round}");
            }
        }
        assert!(JS_TEXT.with(|kept| kept.borrow().len()) <= KEPT_STRINGS);
        assert_eq!(String::from(js_text("content-type")), "content-type");
    }

    #[wasm_bindgen_test]
    fn the_same_headers_reuse_one_object_and_other_headers_get_their_own() {
        let request = |session: &str| HttpRequest {
            method: Method::Post,
            url: "https://example.test/mcp".into(),
            headers: vec![
                ("content-type".into(), "application/json".into()),
                ("mcp-session-id".into(), session.into()),
            ],
            body: Some("{}".into()),
        };
        let last = std::cell::RefCell::new(None);
        let headers = |session: &str| match request_headers(&request(session), &last) {
            Ok(headers) => headers,
            Err(e) => panic!("request_headers failed: {e}"),
        };
        let (first, again, other) = (headers("a"), headers("a"), headers("b"));
        assert!(js_sys::Object::is(&first, &again), "the same list reuses the object");
        assert!(!js_sys::Object::is(&first, &other), "another list gets its own");
        assert_eq!(other.get("mcp-session-id").ok().flatten().as_deref(), Some("b"));
        assert_eq!(first.get("mcp-session-id").ok().flatten().as_deref(), Some("a"));
    }

    #[wasm_bindgen_test]
    fn the_headers_carry_every_header_and_a_session_id_is_not_kept() {
        let request = HttpRequest {
            method: Method::Post,
            url: "https://example.test/mcp".into(),
            headers: vec![
                ("Content-Type".into(), "application/json".into()),
                ("Mcp-Session-Id".into(), "secret-session".into()),
                ("MCP-Protocol-Version".into(), "2025-11-25".into()),
            ],
            body: Some("{}".into()),
        };
        let last = std::cell::RefCell::new(None);
        let headers = match request_headers(&request, &last) {
            Ok(headers) => headers,
            Err(e) => panic!("request_headers failed: {e}"),
        };
        let header = |name: &str| headers.get(name).ok().flatten();
        assert_eq!(header("content-type").as_deref(), Some("application/json"));
        assert_eq!(header("mcp-session-id").as_deref(), Some("secret-session"));
        assert_eq!(header("mcp-protocol-version").as_deref(), Some("2025-11-25"));
        // A session id is not kept among the strings every exchange repeats.
        assert!(JS_TEXT.with(|kept| kept.borrow().iter().all(|(text, _)| &**text != "secret-session")));
    }
}
