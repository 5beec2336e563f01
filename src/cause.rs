//! [`Cause`]: the text of a failure below the crate (an I/O error, a
//! refused connection, a missing program) together with the error that
//! caused it, so [`std::error::Error::source`] still walks to the root.
//!
//! The crate's errors are `Clone` and compare equal by what they say, and a
//! boxed error is neither; so the original is shared behind an `Arc` and
//! left out of equality. Natively the original is the real error (an
//! `std::io::Error`, a `reqwest::Error`); on wasm32, where a JS exception is
//! not `Send`, it is another `Cause` carrying the exception's message, so
//! the chain has the same shape on both.

use std::error::Error as StdError;
use std::fmt;
use std::ops::Deref;
use std::sync::Arc;

/// What failed, in words, and the error it came from (if any), reachable
/// through [`source`](std::error::Error::source).
///
/// It displays and compares as its text (the text often already names the
/// underlying error, so a chain printed in full may repeat it). It
/// dereferences to that text, and converts from a `String` or `&str` for a
/// cause that has no error behind it.
#[derive(Clone)]
pub struct Cause {
    text: String,
    source: Option<Arc<dyn StdError + Send + Sync>>,
}

impl Cause {
    /// A cause with no error behind it.
    pub(crate) fn new(text: impl Into<String>) -> Cause {
        Cause { text: text.into(), source: None }
    }

    /// `text`, caused by `source`.
    pub(crate) fn with_source(text: impl Into<String>, source: impl StdError + Send + Sync + 'static) -> Cause {
        Cause { text: text.into(), source: Some(Arc::new(source)) }
    }

    /// The error itself, displayed as it displays itself, kept as the source.
    pub(crate) fn of(source: impl StdError + Send + Sync + 'static) -> Cause {
        Cause::with_source(source.to_string(), source)
    }

    /// The text.
    pub fn as_str(&self) -> &str {
        &self.text
    }
}

impl fmt::Display for Cause {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

/// Like the text's, so a variant that held a `String` debugs as before.
impl fmt::Debug for Cause {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.text, f)
    }
}

impl StdError for Cause {
    fn source(&self) -> Option<&(dyn StdError + 'static)> {
        self.source.as_deref().map(|source| source as &(dyn StdError + 'static))
    }
}

/// Equal when the texts are: two errors cannot be compared.
impl PartialEq for Cause {
    fn eq(&self, other: &Cause) -> bool {
        self.text == other.text
    }
}

impl Eq for Cause {}

impl PartialEq<str> for Cause {
    fn eq(&self, other: &str) -> bool {
        self.text == other
    }
}

impl PartialEq<&str> for Cause {
    fn eq(&self, other: &&str) -> bool {
        self.text == *other
    }
}

impl Deref for Cause {
    type Target = str;

    fn deref(&self) -> &str {
        &self.text
    }
}

impl From<String> for Cause {
    fn from(text: String) -> Cause {
        Cause::new(text)
    }
}

impl From<&str> for Cause {
    fn from(text: &str) -> Cause {
        Cause::new(text)
    }
}

impl From<Cause> for String {
    fn from(cause: Cause) -> String {
        cause.text
    }
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use std::error::Error as _;
    use std::io;

    use super::*;
    use crate::http::{DefaultHttp, HttpClient, HttpError, HttpRequest, Method};
    use crate::transport::{StdioOptions, StdioTransport, TransportError};

    /// The first `std::io::Error` down the `source()` chain of `error`.
    fn io_error_in<'a>(error: &'a (dyn StdError + 'static)) -> Option<&'a io::Error> {
        let mut next = error.source();
        while let Some(cause) = next {
            if let Some(io) = cause.downcast_ref::<io::Error>() {
                return Some(io);
            }
            next = cause.source();
        }
        None
    }

    #[tokio::test]
    async fn a_missing_program_keeps_the_os_error_as_the_source() {
        let program = "/nonexistent/mcp-edge-no-such-server";
        let error = match StdioTransport::spawn(StdioOptions::new(program, Vec::<String>::new())) {
            Err(error) => error,
            Ok(_) => panic!("{program} started"),
        };
        assert!(matches!(error, TransportError::Spawn { .. }), "{error:?}");
        let io = io_error_in(&error).unwrap_or_else(|| panic!("no io::Error under {error:?}"));
        assert_eq!(io.kind(), io::ErrorKind::NotFound);
        // The text is what it was: the OS error's own words after the command.
        assert_eq!(error.to_string(), format!("could not start the server `{program}`: {io}"));
    }

    #[tokio::test]
    async fn a_refused_connection_keeps_the_io_error_as_the_source() {
        let request =
            HttpRequest { method: Method::Get, url: "http://127.0.0.1:1/".into(), headers: vec![], body: None };
        let error = match DefaultHttp::new().fetch(request).await {
            Err(error) => error,
            Ok(response) => panic!("127.0.0.1:1 answered {}", response.status),
        };
        let HttpError::Network(cause) = &error else { panic!("not a network error: {error:?}") };
        assert!(cause.starts_with("could not reach http://127.0.0.1:1/"), "{cause}");
        let io = io_error_in(&error).unwrap_or_else(|| panic!("no io::Error under {error:?}"));
        assert_eq!(io.kind(), io::ErrorKind::ConnectionRefused);
        // Through the transport's error the chain goes on to the same root.
        let transport = TransportError::Io(cause.clone());
        assert_eq!(transport.to_string(), format!("I/O error: {cause}"));
        assert_eq!(io_error_in(&transport).map(io::Error::kind), Some(io::ErrorKind::ConnectionRefused));
    }

    #[test]
    fn a_cause_without_an_error_behind_it_ends_the_chain() {
        let cause = Cause::from("refused");
        assert!(cause.source().is_none());
        assert_eq!(cause, "refused");
        assert_eq!(format!("{cause:?}"), format!("{:?}", "refused"));
        let error = TransportError::Io(cause);
        assert!(error.source().is_some_and(|source| source.source().is_none()));
    }
}
