//! An incremental parser for `text/event-stream` (Server-Sent Events).
//!
//! Shared by every HTTP transport: browser fetch streams, native reqwest
//! streams and the legacy HTTP+SSE transport. It is pure: it does no I/O,
//! needs no runtime and never blocks. Feed it the response body's bytes as
//! they arrive, in chunks of any size, and it hands back each event as soon as
//! the blank line that ends it has arrived.
//!
//! It follows the WHATWG HTML "Server-sent events" event-stream
//! interpretation rules
//! (<https://html.spec.whatwg.org/multipage/server-sent-events.html#event-stream-interpretation>):
//!
//! - Lines end with LF, CR or CRLF, in any mix; a CRLF split between two
//!   chunks is one line end.
//! - The stream is UTF-8; invalid sequences become U+FFFD. Bytes are decoded a
//!   whole line at a time, so a character split between chunks decodes
//!   correctly.
//! - One U+FEFF BOM at the very start of the stream is skipped; anywhere else
//!   it is an ordinary character.
//! - Lines starting with `:` are comments. Otherwise the field name is
//!   everything before the first `:` and the value everything after it, less
//!   one leading space; a line with no `:` is a field with an empty value.
//! - `event` sets the event type, `data` appends a line of data, `id` sets the
//!   last event id (unless the value contains U+0000), `retry` sets the
//!   reconnection time (only if the value is all ASCII digits); any other
//!   field is ignored.
//! - A blank line dispatches the event: the id becomes the stream's last event
//!   id whether or not an event is dispatched; an event with no `data` line is
//!   not dispatched; the event type defaults to `message`.
//! - At the end of the stream an event with no terminating blank line is
//!   discarded.
//!
//! One addition to the spec bounds memory: a single line, and the data of a
//! single event, may not exceed a limit (16 MiB unless set with
//! [`SseParser::with_limit`]). Going over it is an [`SseError`]; the parser
//! drops the rest of that event and carries on with the next one.
//!
//! The work is linear in the input whatever the chunking: every byte is
//! scanned once, only the unterminated tail of a chunk is copied, and a
//! complete line inside a chunk is parsed in place.

use std::borrow::Cow;
use std::time::Duration;

/// The default limit for one line and for one event's data: 16 MiB.
pub const DEFAULT_MAX_BYTES: usize = 16 * 1024 * 1024;

/// The UTF-8 encoding of U+FEFF.
const BOM: &[u8] = b"\xEF\xBB\xBF";

/// A line buffer that grew beyond this is freed once its line is done, so one
/// huge line does not pin its memory for the life of the stream.
const RETAINED_LINE_CAPACITY: usize = 64 * 1024;

/// One dispatched event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SseEvent {
    /// The event type: the last `event` field's value, or `message` if there
    /// was none (or it was empty).
    pub event: String,
    /// The `data` lines, joined with `\n`. May be empty (`data` with no value).
    pub data: String,
    /// The stream's last event id as of this dispatch (`id` persists from
    /// event to event until the server changes it); empty if none.
    pub id: String,
}

/// The stream broke the parser's size limit.
///
/// The parser stays usable: it drops the rest of the offending event (up to
/// and including its terminating blank line) and parses the next one.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SseError {
    /// A single line is longer than the limit (in bytes, line end excluded).
    #[error("an event-stream line is longer than the limit of {limit} bytes{}", in_mib(*.limit))]
    LineTooLong {
        /// The limit, in bytes.
        limit: usize,
    },
    /// One event's data is larger than the limit (in bytes of UTF-8, the
    /// `\n`s between its `data` lines included).
    #[error("an event-stream event's data is larger than the limit of {limit} bytes{}", in_mib(*.limit))]
    EventTooLarge {
        /// The limit, in bytes.
        limit: usize,
    },
}

/// A limit of whole mebibytes, also in that unit (" (16 MiB)"), as users set it.
fn in_mib(limit: usize) -> String {
    const MIB: usize = 1024 * 1024;
    if limit >= MIB && limit.is_multiple_of(MIB) { format!(" ({} MiB)", limit / MIB) } else { String::new() }
}

/// An incremental `text/event-stream` parser. See the [module docs](self).
///
/// One parser reads one stream at a time. After [`finish`](Self::finish) it
/// may read the next stream of the same source (after a reconnect): the last
/// event id and the reconnection time carry over, everything else starts
/// afresh.
#[derive(Clone)]
pub struct SseParser {
    /// The limit for one line and for one event's data, in bytes.
    max_bytes: usize,
    /// The bytes of the current line seen so far, when it began in an earlier
    /// chunk (a line complete within one chunk is parsed in place).
    line: Vec<u8>,
    /// The current line is non-blank and is being dropped: it is too long, or
    /// it belongs to an event being discarded. Its bytes are not kept.
    skipping_line: bool,
    /// The last byte fed was a CR: a LF at the start of the next chunk
    /// belongs to the same line end.
    pending_cr: bool,
    /// No line of this stream has been completed yet (a BOM may come).
    at_stream_start: bool,
    /// The current event broke a limit: its lines are ignored up to the blank
    /// line that ends it.
    discarding: bool,
    /// The spec's data buffer.
    data: String,
    /// The spec's event type buffer.
    event_type: String,
    /// The spec's last event ID buffer.
    id_buffer: String,
    /// The last event id committed by a blank line.
    last_event_id: String,
    /// The reconnection time, in milliseconds.
    retry_ms: Option<u64>,
}

impl SseParser {
    /// A parser with the default limits ([`DEFAULT_MAX_BYTES`], 16 MiB).
    pub fn new() -> Self {
        Self::with_limit(DEFAULT_MAX_BYTES)
    }

    /// A parser that allows at most `max_bytes` for one line (line end
    /// excluded) and for the data of one event.
    pub fn with_limit(max_bytes: usize) -> Self {
        Self {
            max_bytes,
            line: Vec::new(),
            skipping_line: false,
            pending_cr: false,
            at_stream_start: true,
            discarding: false,
            data: String::new(),
            event_type: String::new(),
            id_buffer: String::new(),
            last_event_id: String::new(),
            retry_ms: None,
        }
    }

    /// Feeds the next bytes of the stream, and pushes the events they complete
    /// onto `out`, in order. `out` is not cleared first, so one vector can be
    /// reused from chunk to chunk.
    ///
    /// A chunk may end anywhere: inside a line, between a CR and its LF, inside
    /// a UTF-8 character. The incomplete part is kept for the next call.
    ///
    /// The whole chunk is always consumed. If part of it breaks a size limit,
    /// the offending event is dropped, parsing carries on, and the first such
    /// error in the chunk is returned once the chunk is done; every event the
    /// chunk completed, before and after the offending one, is on `out` even
    /// then.
    pub fn feed(&mut self, chunk: &[u8], out: &mut Vec<SseEvent>) -> Result<(), SseError> {
        let mut first_error = None;
        let mut rest = chunk;

        if self.pending_cr && !rest.is_empty() {
            self.pending_cr = false;
            if let [b'\n', tail @ ..] = rest {
                rest = tail;
            }
        }

        while let Some(end) = rest.iter().position(|&b| b == b'\n' || b == b'\r') {
            let after = match (rest[end], rest.get(end + 1)) {
                (b'\r', Some(b'\n')) => end + 2,
                (b'\r', None) => {
                    self.pending_cr = true;
                    end + 1
                }
                _ => end + 1,
            };
            self.end_line(&rest[..end], out, &mut first_error);
            rest = &rest[after..];
        }

        if !rest.is_empty() {
            self.extend_line(rest, &mut first_error);
        }

        match first_error {
            Some(error) => Err(error),
            None => Ok(()),
        }
    }

    /// The last event id the stream set, to send as `Last-Event-ID` when
    /// reconnecting; empty if none.
    ///
    /// This is the id as of the last blank line: an `id` field takes effect
    /// when its event ends (even an event with no data), not before.
    pub fn last_event_id(&self) -> &str {
        &self.last_event_id
    }

    /// The server's reconnection time, if a valid `retry` field arrived (the
    /// latest one wins). It takes effect as soon as its line ends.
    pub fn retry(&self) -> Option<Duration> {
        self.retry_ms.map(Duration::from_millis)
    }

    /// The limit for one line and for one event's data, in bytes.
    #[cfg(test)]
    pub fn max_bytes(&self) -> usize {
        self.max_bytes
    }

    /// The end of the stream: discards any incomplete event (and incomplete
    /// line), as the spec requires. An `id` of the discarded event is not
    /// adopted. The parser is then ready for the next stream of the same
    /// source; [`last_event_id`](Self::last_event_id) and
    /// [`retry`](Self::retry) carry over.
    pub fn finish(&mut self) {
        self.line.clear();
        if self.line.capacity() > RETAINED_LINE_CAPACITY {
            self.line = Vec::new();
        }
        self.skipping_line = false;
        self.pending_cr = false;
        self.at_stream_start = true;
        self.discarding = false;
        self.data = String::new();
        self.event_type.clear();
        self.id_buffer.clone_from(&self.last_event_id);
    }

    /// The bytes of a line whose end has not arrived yet.
    fn extend_line(&mut self, part: &[u8], first_error: &mut Option<SseError>) {
        if self.skipping_line {
            return;
        }
        if self.discarding {
            // A non-blank line of a discarded event: only its end matters.
            self.skipping_line = true;
            self.line.clear();
            return;
        }
        if self.line.len() + part.len() > self.max_bytes {
            self.skipping_line = true;
            self.line.clear();
            self.fail(SseError::LineTooLong { limit: self.max_bytes }, first_error);
            return;
        }
        self.line.extend_from_slice(part);
    }

    /// A line end arrived; `part` is the line's bytes in this chunk.
    fn end_line(&mut self, part: &[u8], out: &mut Vec<SseEvent>, first_error: &mut Option<SseError>) {
        if self.skipping_line {
            self.skipping_line = false;
            self.at_stream_start = false;
            return;
        }
        if self.discarding {
            if self.line.is_empty() && part.is_empty() {
                self.dispatch(out);
            }
            self.line.clear();
            self.at_stream_start = false;
            return;
        }
        if self.line.len() + part.len() > self.max_bytes {
            self.line.clear();
            self.at_stream_start = false;
            self.fail(SseError::LineTooLong { limit: self.max_bytes }, first_error);
            return;
        }
        if self.line.is_empty() {
            self.process_line(part, out, first_error);
        } else {
            let mut line = std::mem::take(&mut self.line);
            line.extend_from_slice(part);
            self.process_line(&line, out, first_error);
            line.clear();
            if line.capacity() <= RETAINED_LINE_CAPACITY {
                self.line = line;
            }
        }
    }

    /// Interprets one complete line (line end excluded).
    fn process_line(&mut self, raw: &[u8], out: &mut Vec<SseEvent>, first_error: &mut Option<SseError>) {
        let mut raw = raw;
        if std::mem::take(&mut self.at_stream_start) {
            raw = raw.strip_prefix(BOM).unwrap_or(raw);
        }
        if raw.is_empty() {
            self.dispatch(out);
            return;
        }
        if raw[0] == b':' {
            return; // A comment.
        }

        let line: Cow<'_, str> = crate::transport::utf8_text(raw);
        let (field, value) = match line.split_once(':') {
            Some((field, value)) => (field, value.strip_prefix(' ').unwrap_or(value)),
            None => (&*line, ""),
        };

        match field {
            "event" => {
                self.event_type.clear();
                self.event_type.push_str(value);
            }
            "data" => {
                // The dispatched data is the buffer plus this value (the
                // buffer's trailing `\n` stands for the one between them).
                if self.data.len() + value.len() > self.max_bytes {
                    self.fail(SseError::EventTooLarge { limit: self.max_bytes }, first_error);
                    return;
                }
                self.data.push_str(value);
                self.data.push('\n');
            }
            "id" if !value.contains('\0') => {
                self.id_buffer.clear();
                self.id_buffer.push_str(value);
            }
            "retry" if !value.is_empty() && value.bytes().all(|b| b.is_ascii_digit()) => {
                let ms = value
                    .bytes()
                    .fold(0_u64, |ms, digit| ms.saturating_mul(10).saturating_add(u64::from(digit - b'0')));
                self.retry_ms = Some(ms);
            }
            // Any other field, an `id` containing U+0000, a `retry` that is not
            // all ASCII digits: ignored.
            _ => {}
        }
    }

    /// A blank line: the spec's "dispatch the event".
    fn dispatch(&mut self, out: &mut Vec<SseEvent>) {
        if self.last_event_id != self.id_buffer {
            self.last_event_id.clone_from(&self.id_buffer);
        }
        if std::mem::take(&mut self.discarding) || self.data.is_empty() {
            self.data.clear();
            self.event_type.clear();
            return;
        }
        let mut data = std::mem::take(&mut self.data);
        if data.ends_with('\n') {
            data.pop();
        }
        let event =
            if self.event_type.is_empty() { "message".to_owned() } else { std::mem::take(&mut self.event_type) };
        out.push(SseEvent { event, data, id: self.last_event_id.clone() });
    }

    /// The current event broke a limit: drop it up to its blank line.
    ///
    /// Its data and type are gone, and so is an `id` it set, so that a
    /// reconnect's `Last-Event-ID` does not claim the lost event was received.
    fn fail(&mut self, error: SseError, first_error: &mut Option<SseError>) {
        self.discarding = true;
        self.data = String::new();
        self.event_type.clear();
        self.id_buffer.clone_from(&self.last_event_id);
        first_error.get_or_insert(error);
    }
}

impl Default for SseParser {
    fn default() -> Self {
        Self::new()
    }
}

impl std::fmt::Debug for SseParser {
    // The buffers may hold megabytes: show their sizes, not their contents.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        crate::debug::debug_struct(f, "SseParser")
            .field("max_bytes", &self.max_bytes)
            .field("buffered_line_bytes", &self.line.len())
            .field("buffered_data_bytes", &self.data.len())
            .field("event_type", &self.event_type)
            .field("discarding", &self.discarding)
            .field("last_event_id", &self.last_event_id)
            .field("retry_ms", &self.retry_ms)
            .finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests;
