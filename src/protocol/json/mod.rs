//! JSON text read by hand into serde_json's `Value`, or only checked.
//!
//! Every JSON document the client reads on its own is read here: messages
//! and their members, OAuth documents and records, JS options handed over
//! as text. serde_json's reader is generic over serde's visitors and
//! compiled once per type it reads (the message's members, `Value`, a
//! span skipper, a nesting checker), with its own error machinery and
//! a 2.5 KB table of powers of ten. This reader builds a `Value` by one
//! call per level, held to serde_json's limit before each call, and checks
//! a value it does not build by one loop with a stack of its own, so no
//! text nests it deeper than the heap allows (a megabyte of `[` is a
//! megabyte of bits on the heap, not a stack overflow). It reads the same
//! values: the same numbers (`u64`, then `i64`,
//! then `f64`; `-0` is a float), the last of a member given twice, and
//! serde_json's limit of 128 levels for a `Value`. Its floats are the
//! nearest `f64` to the text, ties to even, as serde_json reads them with
//! `float_roundtrip` and `JSON.parse` does: the digits as an `f64` times or
//! divided by the nearest `f64` to the power of ten (a table computed once
//! rather than kept in the module), exact when both are, else corrected by
//! exact integers (`number.rs`). So a float passes through unchanged: a JS
//! argument read from `JSON.stringify`'s text is written out as the same
//! number. The typed readers of the Rust API keep serde.
//!
//! The fuzz target `raw` checks it against serde_json (with
//! `float_roundtrip`) on every input.
//!
//! [`write`] is the way back, compact JSON as serde_json writes it, for the
//! same reason: serde's `Serialize` of a `Value` drives a generic
//! serializer through a dozen trait methods, where writing the seven kinds
//! of value is one short recursive function.

use std::fmt;

use serde_json::Value;

pub(crate) use self::write::{Shown, write, write_string};

mod number;
mod read;
mod write;

/// serde_json's nesting limit: a `Value` holds arrays and objects nested
/// up to one level less (127), and so does every `Value` read here.
pub(crate) const MAX_DEPTH: usize = 128;

/// Why a text is not the JSON asked for, and where (serde_json's words).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct JsonError {
    what: &'static str,
    /// The byte offset of the character that was not expected.
    at: usize,
    line: usize,
    column: usize,
}

impl JsonError {
    /// The byte offset at which the text stopped being what was expected.
    pub(crate) fn offset(&self) -> usize {
        self.at
    }
}

impl fmt::Display for JsonError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} at line {} column {}", self.what, self.line, self.column)
    }
}

impl From<JsonError> for serde_json::Error {
    fn from(error: JsonError) -> Self {
        serde::de::Error::custom(error)
    }
}

/// The JSON value `text` holds (whitespace around it allowed, nothing else).
pub(crate) fn parse(text: &str) -> Result<Value, JsonError> {
    let mut reader = Reader::new(text);
    let value = reader.value()?;
    reader.end()?;
    Ok(value)
}

/// [`parse`] of bytes, which must be UTF-8.
pub(crate) fn parse_bytes(bytes: &[u8]) -> Result<Value, JsonError> {
    match std::str::from_utf8(bytes) {
        Ok(text) => parse(text),
        Err(e) => Err(JsonError { what: "not UTF-8", at: e.valid_up_to(), line: 1, column: e.valid_up_to() + 1 }),
    }
}

/// `text` checked to be one JSON value, of any depth, nothing built.
pub(crate) fn check(text: &str) -> Result<(), JsonError> {
    let mut reader = Reader::new(text);
    reader.walk(Walk::Skip)?;
    reader.end()
}

/// What a walk over a value does with what it reads.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Walk {
    /// Builds the `Value`, held to [`MAX_DEPTH`].
    Build,
    /// Checks that a `Value` could hold it (depth, numbers), builds nothing.
    Hold,
    /// Checks the syntax only: any depth, any number.
    Skip,
}

/// A cursor over JSON text.
pub(crate) struct Reader<'a> {
    text: &'a str,
    at: usize,
}

impl<'a> Reader<'a> {
    pub(crate) fn new(text: &'a str) -> Self {
        Reader { text, at: 0 }
    }

    fn peek(&self) -> Option<u8> {
        self.text.as_bytes().get(self.at).copied()
    }

    /// JSON's four whitespace bytes skipped.
    fn space(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.peek() {
            self.at += 1;
        }
    }

    /// An error at the current byte, with serde_json's line and column.
    #[inline(never)]
    fn fail(&self, what: &'static str) -> JsonError {
        let before = self.text.as_bytes().get(..self.at).unwrap_or_default();
        let line = 1 + before.iter().filter(|b| **b == b'\n').count();
        let column = before.iter().rev().take_while(|b| **b != b'\n').count() + 1;
        JsonError { what, at: self.at, line, column }
    }

    /// Only whitespace left.
    pub(crate) fn end(&mut self) -> Result<(), JsonError> {
        self.space();
        match self.peek() {
            None => Ok(()),
            Some(_) => Err(self.fail("trailing characters")),
        }
    }
}

/// How many bytes at the start of `bytes` stand for themselves in a JSON
/// string (not `"`, `\` or a control character), eight at a time while
/// none of the eight is one: a result's long strings are most of its
/// bytes, and a byte at a time took serde_json's word at a time 3x as long.
fn plain_run(bytes: &[u8]) -> usize {
    const ONES: u64 = u64::from_ne_bytes([0x01; 8]);
    const HIGH: u64 = u64::from_ne_bytes([0x80; 8]);
    // A high bit where a byte of `word` is below `n` (a byte >= 0x80 never
    // is): the classic test for a byte less than n, n <= 128.
    let below = |word: u64, n: u64| word.wrapping_sub(ONES * n) & !word & HIGH;
    let mut run = 0;
    for chunk in bytes.chunks_exact(8) {
        let word = u64::from_ne_bytes(chunk.try_into().unwrap_or([0; 8]));
        if below(word ^ (ONES * u64::from(b'"')), 1) | below(word ^ (ONES * u64::from(b'\\')), 1) | below(word, 0x20)
            != 0
        {
            break;
        }
        run += 8;
    }
    let rest = bytes.get(run..).unwrap_or_default();
    run + rest.iter().take_while(|&&b| !matches!(b, b'"' | b'\\' | 0..0x20)).count()
}

#[cfg(test)]
mod tests;
