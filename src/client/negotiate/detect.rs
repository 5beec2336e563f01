//! Which HTTP transport a server URL speaks: the decisions of the
//! spec's backwards-compatibility steps (2025-11-25 "Backwards
//! Compatibility"), kept apart from the I/O so they test natively.
//!
//! 1. POST `initialize` with the Streamable HTTP headers. Success: Streamable
//!    HTTP.
//! 2. A 4xx to that POST (400, 404, 405 and any other, except 401 and 403,
//!    which are authorization's business and are returned as they are):
//!    GET the same URL, expecting `text/event-stream` whose first event is
//!    `endpoint`. If it comes: the legacy HTTP+SSE transport.
//! 3. Anything else: an error saying what was tried and what each attempt
//!    got.
//!
//! The verdict is remembered per URL in the negotiation's verdict cache
//! ([`super::cache`]: a legacy verdict is trusted for ten minutes, a
//! Streamable HTTP one until the server contradicts it), so a reconnect
//! does not probe again. The I/O is in [`super::connect_url`].

use std::fmt;
use std::str::FromStr;

use super::cache::{self, VerdictCache};
use crate::debug::Quoted;
use crate::transport::TransportError;

/// Which transport to use for an http(s) URL.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum TransportChoice {
    /// Detect it (the default): Streamable HTTP, else legacy HTTP+SSE.
    #[default]
    Auto,
    /// Streamable HTTP (2025-03-26 and later), no detection.
    StreamableHttp,
    /// The legacy HTTP+SSE transport (2024-11-05), no detection.
    Sse,
}

impl TransportChoice {
    /// The name used on the command line: `auto`, `streamable-http`, `sse`.
    pub fn as_str(self) -> &'static str {
        match self {
            TransportChoice::Auto => "auto",
            TransportChoice::StreamableHttp => "streamable-http",
            TransportChoice::Sse => "sse",
        }
    }
}

impl fmt::Display for TransportChoice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for TransportChoice {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        match text.trim_ascii().to_ascii_lowercase().as_str() {
            "auto" => Ok(TransportChoice::Auto),
            "streamable-http" | "streamable" | "http" => Ok(TransportChoice::StreamableHttp),
            "sse" | "legacy" | "http+sse" => Ok(TransportChoice::Sse),
            _ => Err(format!("unknown transport {text}: expected auto, streamable-http or sse", text = Quoted(text))),
        }
    }
}

/// What a URL was found to speak.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Verdict {
    /// Streamable HTTP.
    StreamableHttp,
    /// The legacy HTTP+SSE transport.
    Sse,
}

impl Verdict {
    /// The verdict a forced choice stands for; `None` for `Auto`.
    pub fn forced(choice: TransportChoice) -> Option<Verdict> {
        match choice {
            TransportChoice::Auto => None,
            TransportChoice::StreamableHttp => Some(Verdict::StreamableHttp),
            TransportChoice::Sse => Some(Verdict::Sse),
        }
    }
}

/// Whether an HTTP status answering the first `initialize` POST means
/// "try the legacy transport": any 4xx but 401 and 403.
pub fn probe_legacy_after(status: u16) -> bool {
    (400..500).contains(&status) && status != 401 && status != 403
}

/// The status of a failed `initialize` POST, when it is a reason to try
/// the legacy transport.
pub fn legacy_signal(error: &TransportError) -> Option<u16> {
    match error {
        TransportError::Http { status, .. } if probe_legacy_after(*status) => Some(*status),
        _ => None,
    }
}

/// The first attempt, for "what was tried" messages.
pub fn post_attempt(url: &str, status: u16) -> String {
    format!("POST {url} answered {status}")
}

impl cache::Verdict for Verdict {
    /// The legacy transport is the older one: a server may have moved on.
    fn expires(&self) -> bool {
        *self == Verdict::Sse
    }
}

/// Verdicts by URL.
static VERDICTS: VerdictCache<Verdict> = VerdictCache::new();

fn key(url: &str) -> String {
    url.trim_ascii().to_owned()
}

/// Every transport verdict still trusted, with when it was reached.
pub(crate) fn trusted() -> Vec<(String, Verdict, f64)> {
    VERDICTS.trusted()
}

/// Remembers a verdict reached at `at` (milliseconds since the epoch).
pub(crate) fn remember_at(url: &str, verdict: Verdict, at: f64) {
    VERDICTS.put_at(&key(url), verdict, at.min(crate::runtime::now_millis()));
}

/// What `url` was found to speak earlier in this process, if it was
/// probed and the verdict is still trusted.
pub fn remembered(url: &str) -> Option<Verdict> {
    VERDICTS.get(&key(url))
}

/// The transport `url` was found to speak earlier in this process
/// ([`TransportChoice::StreamableHttp`] or [`TransportChoice::Sse`], never
/// `Auto`), if it was probed and the verdict is still trusted. A forced
/// choice is not a verdict and is not remembered.
pub fn remembered_transport(url: &str) -> Option<TransportChoice> {
    remembered(url).map(|verdict| match verdict {
        Verdict::StreamableHttp => TransportChoice::StreamableHttp,
        Verdict::Sse => TransportChoice::Sse,
    })
}

/// Remembers what `url` speaks.
pub fn remember(url: &str, verdict: Verdict) {
    VERDICTS.put(&key(url), verdict);
}

/// Forgets what `url` speaks: the next `Auto` connection probes again.
pub fn forget(url: &str) {
    VERDICTS.forget(&key(url));
}

/// What to do to connect with `choice` to `url`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Plan {
    /// Use this transport and nothing else (forced, or remembered).
    Use {
        /// The transport.
        verdict: Verdict,
        /// It was remembered from an earlier probe (forget it if it fails).
        remembered: bool,
    },
    /// Probe: Streamable HTTP first, then legacy.
    Probe,
}

/// The plan for `choice` on `url`, given what is remembered.
pub fn plan(choice: TransportChoice, url: &str) -> Plan {
    match Verdict::forced(choice) {
        Some(verdict) => Plan::Use { verdict, remembered: false },
        None => match remembered(url) {
            Some(verdict) => Plan::Use { verdict, remembered: true },
            None => Plan::Probe,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn which_statuses_lead_to_the_legacy_probe() {
        for status in [400, 404, 405, 406, 410, 415, 422, 499] {
            assert!(probe_legacy_after(status), "{status}");
        }
        for status in [200, 202, 301, 401, 403, 500, 502, 503] {
            assert!(!probe_legacy_after(status), "{status}");
        }
        let http = |status| TransportError::Http { status, message: String::new() };
        assert_eq!(legacy_signal(&http(405)), Some(405));
        assert_eq!(legacy_signal(&http(401)), None);
        assert_eq!(legacy_signal(&http(403)), None);
        assert_eq!(legacy_signal(&TransportError::Io("refused".into())), None);
        assert_eq!(legacy_signal(&TransportError::SessionExpired), None);
    }

    #[test]
    fn choices_parse_and_print() {
        for choice in [TransportChoice::Auto, TransportChoice::StreamableHttp, TransportChoice::Sse] {
            assert_eq!(choice.as_str().parse::<TransportChoice>(), Ok(choice));
        }
        assert_eq!(" SSE ".parse::<TransportChoice>(), Ok(TransportChoice::Sse));
        assert!("websocket".parse::<TransportChoice>().is_err());
        assert_eq!(TransportChoice::default(), TransportChoice::Auto);
    }

    #[test]
    fn verdicts_are_remembered_per_url_and_forced_choices_win() {
        let url = "http://detect.test.invalid:1/only-this-test";
        assert_eq!(plan(TransportChoice::Auto, url), Plan::Probe);
        remember(url, Verdict::Sse);
        assert_eq!(
            plan(TransportChoice::Auto, &format!(" {url} ")),
            Plan::Use { verdict: Verdict::Sse, remembered: true }
        );
        assert_eq!(plan(TransportChoice::Auto, "http://detect.test.invalid:1/other"), Plan::Probe);
        assert_eq!(
            plan(TransportChoice::StreamableHttp, url),
            Plan::Use { verdict: Verdict::StreamableHttp, remembered: false }
        );
        forget(url);
        assert_eq!(plan(TransportChoice::Auto, url), Plan::Probe);
        assert_eq!(plan(TransportChoice::Sse, url), Plan::Use { verdict: Verdict::Sse, remembered: false });
    }
}
