//! Native interactive authorization: a loopback redirect listener
//! (RFC 8252 §7.3) and the system browser.
//!
//! [`LoopbackAuthorizer::bind`] listens on `127.0.0.1:<free port>` at once,
//! so its [`LoopbackAuthorizer::redirect_uri`]
//! (`http://127.0.0.1:<port>/callback`) can go into the
//! [`AuthConfig`](super::AuthConfig) before the flow starts. On
//! [`Authorizer::authorize`] it opens the authorization URL in the system
//! browser (or, with `no_browser`, prints it on stderr and also accepts the
//! redirected URL pasted as one line on stdin), accepts one `GET /callback`,
//! answers a static page and returns the full redirected URL; the flow checks
//! `state` and the code.

use std::io::BufRead as _;
use std::sync::Arc;
use std::time::Duration;

use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};

use super::authorizer::{AuthorizationRequest, Authorizer};
use super::error::AuthError;
use crate::runtime::{BoxFuture, boxed};

/// The path the authorization server redirects to.
pub const CALLBACK_PATH: &str = "/callback";
/// The largest request head accepted on the listener.
pub const MAX_REQUEST_BYTES: usize = 8 * 1024;
/// How long one connection may take to send its request head.
pub const REQUEST_TIMEOUT: Duration = Duration::from_secs(10);
/// How long the user may take by default.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(300);

const DONE_PAGE: &str = "<!doctype html><html><head><meta charset=\"utf-8\"><title>mcp-edge</title></head>\
<body><p>Authorization finished. You can close this tab.</p></body></html>";

/// Opens a URL for the user. Given the authorization URL; returns why it could not.
pub type Opener = Arc<dyn Fn(&str) -> Result<(), String> + Send + Sync>;

/// What went wrong in the loopback step.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum LoopbackError {
    /// The listener could not be bound or used.
    #[error("the loopback listener failed: {0}")]
    Listener(String),
    /// The browser could not be started.
    #[error("could not open the browser: {0} (use --no-browser to open the URL yourself)")]
    Browser(String),
    /// A request on the listener was malformed or too large.
    #[error("bad request on the loopback listener: {0}")]
    BadRequest(String),
    /// The line read from stdin is not a redirect to this listener.
    #[error("the pasted URL is not the redirect to {expected}")]
    NotARedirect {
        /// The redirect URI expected.
        expected: String,
    },
    /// stdin closed before a line was read.
    #[error("stdin closed before the redirected URL was pasted")]
    StdinClosed,
    /// No redirect came in time.
    #[error("no redirect within {0} s")]
    TimedOut(u64),
}

impl From<LoopbackError> for AuthError {
    fn from(error: LoopbackError) -> Self {
        match error {
            LoopbackError::TimedOut(seconds) => AuthError::Timeout {
                what: "waiting for the browser to come back to the loopback redirect".into(),
                seconds,
            },
            other => AuthError::Authorizer(other.to_string()),
        }
    }
}

/// Listens on the loopback interface for the authorization redirect.
pub struct LoopbackAuthorizer {
    listener: std::net::TcpListener,
    redirect_uri: String,
    no_browser: bool,
    timeout: Duration,
    opener: Opener,
}

impl std::fmt::Debug for LoopbackAuthorizer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        crate::debug::debug_struct(f, "LoopbackAuthorizer")
            .field("redirect_uri", &self.redirect_uri)
            .field("no_browser", &self.no_browser)
            .field("timeout", &self.timeout)
            .finish_non_exhaustive()
    }
}

impl LoopbackAuthorizer {
    /// Binds `127.0.0.1:0` now; opens the system browser on `authorize`.
    pub fn bind() -> Result<Self, LoopbackError> {
        let listener = std::net::TcpListener::bind(("127.0.0.1", 0))
            .map_err(|e| LoopbackError::Listener(format!("cannot bind 127.0.0.1: {e}")))?;
        listener.set_nonblocking(true).map_err(|e| LoopbackError::Listener(e.to_string()))?;
        let port = listener.local_addr().map_err(|e| LoopbackError::Listener(e.to_string()))?.port();
        Ok(LoopbackAuthorizer {
            listener,
            redirect_uri: format!("http://127.0.0.1:{port}{CALLBACK_PATH}"),
            no_browser: false,
            timeout: DEFAULT_TIMEOUT,
            opener: Arc::new(open_system_browser),
        })
    }

    /// The redirect URI to register and send: `http://127.0.0.1:<port>/callback`.
    pub fn redirect_uri(&self) -> &str {
        &self.redirect_uri
    }

    /// Print the URL on stderr and read the redirected URL from stdin (the
    /// listener still accepts the redirect too) instead of opening a browser.
    pub fn no_browser(mut self, no_browser: bool) -> Self {
        self.no_browser = no_browser;
        self
    }

    /// How long to wait for the redirect (default 5 minutes).
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// Replaces the system browser (tests, or an app's own way to show the URL).
    pub fn with_opener(mut self, opener: impl Fn(&str) -> Result<(), String> + Send + Sync + 'static) -> Self {
        self.opener = Arc::new(opener);
        self
    }

    /// Runs the step: opens (or prints) `url`, then waits for the redirect.
    pub async fn run(&self, url: &str) -> Result<String, LoopbackError> {
        let listener = self
            .listener
            .try_clone()
            .and_then(tokio::net::TcpListener::from_std)
            .map_err(|e| LoopbackError::Listener(e.to_string()))?;
        let seconds = self.timeout.as_secs();
        let stdin_line = if self.no_browser {
            eprintln!(
                "Open this URL in a browser to authorize, then paste the URL it redirects to \
                 (starting with {}) here if this machine's browser cannot reach it:\n{url}",
                self.redirect_uri
            );
            Some(read_stdin_line())
        } else {
            (self.opener)(url).map_err(LoopbackError::Browser)?;
            None
        };
        let wait = async {
            match stdin_line {
                Some(line) => {
                    tokio::select! {
                        redirect = accept_callback(&listener, &self.redirect_uri) => redirect,
                        line = line => {
                            let line = line.map_err(|_| LoopbackError::StdinClosed)??;
                            check_pasted(&line, &self.redirect_uri)
                        }
                    }
                }
                None => accept_callback(&listener, &self.redirect_uri).await,
            }
        };
        tokio::time::timeout(self.timeout, wait).await.map_err(|_| LoopbackError::TimedOut(seconds))?
    }
}

impl Authorizer for LoopbackAuthorizer {
    fn authorize<'a>(&'a self, request: &'a AuthorizationRequest) -> BoxFuture<'a, Result<String, AuthError>> {
        boxed(async move { self.run(&request.url).await.map_err(AuthError::from) })
    }
}

/// Opens `url` with the platform's opener (`open`, `xdg-open`, or
/// `rundll32 url.dll,FileProtocolHandler`), the URL as one argument, never
/// through a shell.
pub fn open_system_browser(url: &str) -> Result<(), String> {
    if !(url.starts_with("https://") || url.starts_with("http://")) {
        return Err("not an http(s) URL".into());
    }
    let mut command = if cfg!(target_os = "macos") {
        std::process::Command::new("open")
    } else if cfg!(windows) {
        // Not `cmd /c start`: cmd would parse the `&`s of the query itself.
        let mut command = std::process::Command::new("rundll32");
        command.arg("url.dll,FileProtocolHandler");
        command
    } else {
        std::process::Command::new("xdg-open")
    };
    command
        .arg(url)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .map(|_| ())
        .map_err(|e| e.to_string())
}

/// Reads one line of stdin on its own thread (a blocking read cannot be
/// cancelled; the thread is left behind if the listener wins).
fn read_stdin_line() -> tokio::sync::oneshot::Receiver<Result<String, LoopbackError>> {
    let (send, receive) = tokio::sync::oneshot::channel();
    std::thread::spawn(move || {
        let mut line = String::new();
        let result = match std::io::Read::take(std::io::stdin().lock(), MAX_REQUEST_BYTES as u64).read_line(&mut line) {
            Ok(0) | Err(_) => Err(LoopbackError::StdinClosed),
            Ok(_) => Ok(line.trim().to_owned()),
        };
        let _ = send.send(result);
    });
    receive
}

/// Accepts the pasted line if it is a redirect to `redirect_uri`.
pub fn check_pasted(line: &str, redirect_uri: &str) -> Result<String, LoopbackError> {
    let line = line.trim();
    let rest = line.strip_prefix(redirect_uri);
    match rest {
        Some(rest) if rest.starts_with('?') && line.bytes().all(|b| b.is_ascii_graphic()) => Ok(line.to_owned()),
        _ => Err(LoopbackError::NotARedirect { expected: redirect_uri.to_owned() }),
    }
}

/// Accepts connections until one is a `GET /callback`; others get a 404 (or
/// a 400) and are closed.
async fn accept_callback(listener: &tokio::net::TcpListener, redirect_uri: &str) -> Result<String, LoopbackError> {
    loop {
        let (mut stream, _) = listener.accept().await.map_err(|e| LoopbackError::Listener(e.to_string()))?;
        let head = match tokio::time::timeout(REQUEST_TIMEOUT, read_head(&mut stream)).await {
            Ok(Ok(head)) => head,
            Ok(Err(error)) => {
                let _ = respond(&mut stream, "400 Bad Request", "Bad request.").await;
                log::debug!("loopback listener: {error}");
                continue;
            }
            Err(_) => continue,
        };
        match parse_callback_request(&head) {
            Ok(Some(query)) => {
                let _ = respond(&mut stream, "200 OK", DONE_PAGE).await;
                return Ok(format!("{redirect_uri}{query}"));
            }
            Ok(None) => {
                let _ = respond(&mut stream, "404 Not Found", "Not found.").await;
            }
            Err(error) => {
                let _ = respond(&mut stream, "400 Bad Request", "Bad request.").await;
                log::debug!("loopback listener: {error}");
            }
        }
    }
}

/// Reads up to the end of the request head (`\r\n\r\n`), at most [`MAX_REQUEST_BYTES`].
async fn read_head(stream: &mut tokio::net::TcpStream) -> Result<Vec<u8>, LoopbackError> {
    let mut head = Vec::with_capacity(1024);
    let mut buffer = [0u8; 1024];
    loop {
        let read = stream.read(&mut buffer).await.map_err(|e| LoopbackError::BadRequest(e.to_string()))?;
        if read == 0 {
            return Err(LoopbackError::BadRequest("the connection closed before the request ended".into()));
        }
        head.extend_from_slice(&buffer[..read]);
        if head.windows(4).any(|w| w == b"\r\n\r\n") || head.windows(2).any(|w| w == b"\n\n") {
            return Ok(head);
        }
        if head.len() > MAX_REQUEST_BYTES {
            return Err(LoopbackError::BadRequest("the request head is too large".into()));
        }
    }
}

async fn respond(stream: &mut tokio::net::TcpStream, status: &str, body: &str) -> std::io::Result<()> {
    let response = format!(
        "HTTP/1.1 {status}\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: {}\r\n\
         Cache-Control: no-store\r\nReferrer-Policy: no-referrer\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    let write = async {
        stream.write_all(response.as_bytes()).await?;
        stream.shutdown().await
    };
    tokio::time::timeout(REQUEST_TIMEOUT, write).await.unwrap_or_else(|_| Err(std::io::ErrorKind::TimedOut.into()))
}

/// Parses a request head. `Ok(Some(query))` (the query with its `?`, or
/// empty) for `GET /callback[?query]`, `Ok(None)` for any other well-formed
/// request, `Err` for a malformed one.
pub fn parse_callback_request(head: &[u8]) -> Result<Option<String>, LoopbackError> {
    if head.len() > MAX_REQUEST_BYTES + 1024 {
        return Err(LoopbackError::BadRequest("the request head is too large".into()));
    }
    let end =
        head.iter().position(|&b| b == b'\n').ok_or_else(|| LoopbackError::BadRequest("no request line".into()))?;
    let line = std::str::from_utf8(&head[..end])
        .map_err(|_| LoopbackError::BadRequest("the request line is not UTF-8".into()))?
        .trim_end_matches('\r');
    let mut parts = line.split(' ');
    let (Some(method), Some(target), Some(version), None) = (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return Err(LoopbackError::BadRequest("the request line is not `METHOD TARGET VERSION`".into()));
    };
    if !version.starts_with("HTTP/1.") {
        return Err(LoopbackError::BadRequest("not HTTP/1.x".into()));
    }
    if target.is_empty() || !target.bytes().all(|b| b.is_ascii_graphic()) {
        return Err(LoopbackError::BadRequest("the request target has invalid characters".into()));
    }
    let (path, query) = match target.find('?') {
        Some(at) => (&target[..at], &target[at..]),
        None => (target, ""),
    };
    if method != "GET" || path != CALLBACK_PATH || query.contains('#') {
        return Ok(None);
    }
    Ok(Some(query.to_owned()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_callback() {
        let head = b"GET /callback?code=abc&state=xyz HTTP/1.1\r\nHost: 127.0.0.1:1\r\n\r\n";
        assert_eq!(parse_callback_request(head), Ok(Some("?code=abc&state=xyz".into())));
        assert_eq!(parse_callback_request(b"GET /callback HTTP/1.1\r\n\r\n"), Ok(Some(String::new())));
    }

    #[test]
    fn other_requests_are_not_the_callback() {
        assert_eq!(parse_callback_request(b"GET /favicon.ico HTTP/1.1\r\n\r\n"), Ok(None));
        assert_eq!(parse_callback_request(b"POST /callback?code=a HTTP/1.1\r\n\r\n"), Ok(None));
        assert_eq!(parse_callback_request(b"GET /callbackx?code=a HTTP/1.1\r\n\r\n"), Ok(None));
    }

    #[test]
    fn malformed_requests_are_rejected() {
        for head in [
            &b"GET /callback\r\n\r\n"[..],
            b"GET  /callback HTTP/1.1\r\n\r\n",
            b"GET /callback HTTP/2\r\n\r\n",
            b"GET /call\xffback HTTP/1.1\r\n\r\n",
            b"GET /callback?a=\x01 HTTP/1.1\r\n\r\n",
            b"no newline",
        ] {
            assert!(parse_callback_request(head).is_err(), "{head:?}");
        }
        let huge = [b'a'; MAX_REQUEST_BYTES + 2048];
        assert!(parse_callback_request(&huge).is_err());
    }

    #[test]
    fn pasted_urls_must_be_redirects_here() {
        let uri = "http://127.0.0.1:4000/callback";
        assert_eq!(
            check_pasted(" http://127.0.0.1:4000/callback?code=a&state=b\n", uri),
            Ok("http://127.0.0.1:4000/callback?code=a&state=b".into())
        );
        assert!(check_pasted("http://127.0.0.1:4001/callback?code=a", uri).is_err());
        assert!(check_pasted("http://127.0.0.1:4000/callbackx?code=a", uri).is_err());
        assert!(check_pasted("http://127.0.0.1:4000/callback", uri).is_err());
    }

    #[tokio::test]
    async fn times_out() {
        let authorizer = LoopbackAuthorizer::bind().unwrap().with_opener(|_| Ok(())).timeout(Duration::from_millis(50));
        assert_eq!(authorizer.run("http://127.0.0.1/authorize").await, Err(LoopbackError::TimedOut(0)));
    }

    #[tokio::test]
    async fn a_failing_opener_is_reported() {
        let authorizer = LoopbackAuthorizer::bind().unwrap().with_opener(|_| Err("no display".into()));
        assert!(matches!(authorizer.run("http://127.0.0.1/a").await, Err(LoopbackError::Browser(_))));
    }
}
