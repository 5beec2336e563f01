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
        // Quoted as `{:?}` quotes a string, without `str`'s `Debug`.
        fmt::Display::fmt(&crate::debug::Quoted(&self.text), f)
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
mod tests;
