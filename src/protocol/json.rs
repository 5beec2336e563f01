//! JSON text read by hand into serde_json's `Value`, or only checked.
//!
//! Every JSON document the client reads on its own is read here: messages
//! and their members, OAuth documents and records, JS options handed over
//! as text. serde_json's reader is generic over serde's visitors and
//! compiled once per type it reads (the message's members, `Value`, a
//! span skipper, a nesting checker), with its own error machinery and
//! a 2.5 KB table of powers of ten. This reader is one loop with an
//! explicit stack, so no input nests it deeper than the heap allows (a
//! megabyte of `[` is a megabyte of stack entries, not a stack overflow),
//! and it reads the same values: the same numbers (`u64`, then `i64`,
//! then `f64`; `-0` is a float), the last of a member given twice, and
//! serde_json's limit of 128 levels for a `Value`. Its floats are
//! serde_json's too (without `float_roundtrip`), bit for bit: the digits as
//! an `f64` times or divided by the nearest `f64` to the power of ten, whose
//! table is computed once rather than kept in the module. The typed
//! readers of the Rust API keep serde.
//!
//! The fuzz target `raw` checks it against serde_json on every input.
//!
//! [`write`] is the way back, compact JSON as serde_json writes it, for the
//! same reason: serde's `Serialize` of a `Value` drives a generic
//! serializer through a dozen trait methods, where writing the seven kinds
//! of value is one short recursive function.

use std::borrow::Cow;
use std::fmt;
use std::sync::OnceLock;

use serde_json::{Map, Number, Value};

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

    /// The next value, built.
    pub(crate) fn value(&mut self) -> Result<Value, JsonError> {
        self.walk(Walk::Build)
    }

    /// The text of the next value (whitespace before it skipped), checked:
    /// to the depth and numbers a `Value` holds when `hold`, else only its
    /// syntax.
    pub(crate) fn span(&mut self, hold: bool) -> Result<&'a str, JsonError> {
        self.space();
        let start = self.at;
        self.walk(if hold { Walk::Hold } else { Walk::Skip })?;
        Ok(self.text.get(start..self.at).unwrap_or_default())
    }

    /// Reads the object at the cursor, calling `each` with every member's
    /// name and this reader before the member's value, which `each` must
    /// read (with [`Reader::value`] or [`Reader::span`]).
    pub(crate) fn members(
        &mut self,
        mut each: impl FnMut(Cow<'a, str>, &mut Self) -> Result<(), JsonError>,
    ) -> Result<(), JsonError> {
        self.space();
        if self.peek() != Some(b'{') {
            return Err(self.fail("expected a JSON object"));
        }
        self.at += 1;
        self.space();
        if self.peek() == Some(b'}') {
            self.at += 1;
            return Ok(());
        }
        loop {
            let name = self.name(true)?;
            each(name, self)?;
            if self.close(true)? {
                return Ok(());
            }
        }
    }

    /// Reads the array at the cursor, calling `each` with this reader before
    /// every element, which `each` must read.
    pub(crate) fn elements(
        &mut self,
        mut each: impl FnMut(&mut Self) -> Result<(), JsonError>,
    ) -> Result<(), JsonError> {
        self.space();
        if self.peek() != Some(b'[') {
            return Err(self.fail("expected a JSON array"));
        }
        self.at += 1;
        self.space();
        if self.peek() == Some(b']') {
            self.at += 1;
            return Ok(());
        }
        loop {
            each(self)?;
            if self.close(false)? {
                return Ok(());
            }
        }
    }

    /// After a member or an element: true at the end of its object (or
    /// array), false after the comma before the next.
    fn close(&mut self, object: bool) -> Result<bool, JsonError> {
        self.space();
        match self.peek() {
            Some(b',') => {
                self.at += 1;
                Ok(false)
            }
            Some(b'}') if object => {
                self.at += 1;
                Ok(true)
            }
            Some(b']') if !object => {
                self.at += 1;
                Ok(true)
            }
            Some(_) if object => Err(self.fail("expected `,` or `}`")),
            Some(_) => Err(self.fail("expected `,` or `]`")),
            None if object => Err(self.fail("EOF while parsing an object")),
            None => Err(self.fail("EOF while parsing a list")),
        }
    }

    /// A member's name and the colon after it (`characters`: see
    /// [`Reader::string`]).
    fn name(&mut self, characters: bool) -> Result<Cow<'a, str>, JsonError> {
        self.space();
        match self.peek() {
            Some(b'"') => self.at += 1,
            Some(_) => return Err(self.fail("key must be a string")),
            None => return Err(self.fail("EOF while parsing an object")),
        }
        let name = self.string(characters)?;
        self.space();
        match self.peek() {
            Some(b':') => {
                self.at += 1;
                Ok(name)
            }
            Some(_) => Err(self.fail("expected `:`")),
            None => Err(self.fail("EOF while parsing an object")),
        }
    }

    /// One value, read by one loop: the containers open around the cursor
    /// are on a stack of their own, not the call stack. What `walk` skips
    /// builds nothing (each finished value is a `null` it drops).
    fn walk(&mut self, walk: Walk) -> Result<Value, JsonError> {
        // The containers open around the cursor, innermost last: true for
        // an object. With `Walk::Build`, `open` holds each one's value so
        // far and `names` each open object's member being read.
        let mut kinds: Vec<bool> = Vec::new();
        let mut open: Vec<Value> = Vec::new();
        let mut names: Vec<String> = Vec::new();
        let build = walk == Walk::Build;
        'value: loop {
            self.space();
            let mut done = match self.peek() {
                Some(byte @ (b'{' | b'[')) => {
                    let object = byte == b'{';
                    if walk != Walk::Skip && kinds.len() + 1 >= MAX_DEPTH {
                        return Err(self.fail("recursion limit exceeded"));
                    }
                    self.at += 1;
                    self.space();
                    if self.peek() == Some(if object { b'}' } else { b']' }) {
                        self.at += 1;
                        empty(object, build)
                    } else {
                        kinds.push(object);
                        if build {
                            open.push(empty(object, true));
                        }
                        if object {
                            let name = self.name(walk != Walk::Skip)?;
                            if build {
                                names.push(name.into_owned());
                            }
                        }
                        continue 'value;
                    }
                }
                Some(b'"') => {
                    self.at += 1;
                    let text = self.string(walk != Walk::Skip)?;
                    if build { Value::String(text.into_owned()) } else { Value::Null }
                }
                Some(b't') => self.word("true", Value::Bool(true))?,
                Some(b'f') => self.word("false", Value::Bool(false))?,
                Some(b'n') => self.word("null", Value::Null)?,
                Some(b'-' | b'0'..=b'9') => {
                    let number = self.number()?;
                    match (number, walk) {
                        (Some(number), Walk::Build) => Value::Number(number),
                        (None, Walk::Build | Walk::Hold) => return Err(self.fail("number out of range")),
                        _ => Value::Null,
                    }
                }
                Some(_) => return Err(self.fail("expected value")),
                None => return Err(self.fail("EOF while parsing a value")),
            };
            // `done` is a whole value: it goes into its container, and each
            // container it ends is in turn a whole value.
            loop {
                let Some(&object) = kinds.last() else { return Ok(done) };
                if build {
                    match open.last_mut() {
                        Some(Value::Object(members)) => {
                            let name = names.pop().unwrap_or_default();
                            members.insert(name, done);
                        }
                        Some(Value::Array(items)) => items.push(done),
                        _ => {}
                    }
                }
                if !self.close(object)? {
                    if object {
                        let name = self.name(walk != Walk::Skip)?;
                        if build {
                            names.push(name.into_owned());
                        }
                    }
                    continue 'value;
                }
                kinds.pop();
                done = open.pop().unwrap_or(Value::Null);
            }
        }
    }

    /// `true`, `false` or `null`.
    fn word(&mut self, word: &'static str, value: Value) -> Result<Value, JsonError> {
        let rest = self.text.as_bytes().get(self.at..).unwrap_or_default();
        match rest.iter().zip(word.as_bytes()).position(|(a, b)| a != b) {
            None if rest.len() >= word.len() => {
                self.at += word.len();
                Ok(value)
            }
            // The first byte that differs, or the end.
            found => {
                self.at += found.unwrap_or(rest.len());
                Err(self.fail(if self.peek().is_none() { "EOF while parsing a value" } else { "expected ident" }))
            }
        }
    }

    /// The string whose opening quote was just read, up to its closing
    /// quote; borrowed from the text when it has no escapes. Unless
    /// `characters`, a `\u` escape is only checked to be four hex digits
    /// (a surrogate may stand alone), as serde_json skips a string.
    fn string(&mut self, characters: bool) -> Result<Cow<'a, str>, JsonError> {
        let bytes = self.text.as_bytes();
        let mut owned: Option<String> = None;
        let mut start = self.at;
        loop {
            // The run of bytes that stand for themselves. The three that end
            // it are ASCII, so the run is whole characters.
            self.at += plain_run(bytes.get(self.at..).unwrap_or_default());
            let plain = self.text.get(start..self.at).unwrap_or_default();
            match self.peek() {
                Some(b'"') => {
                    self.at += 1;
                    return Ok(match owned {
                        None => Cow::Borrowed(plain),
                        Some(mut text) => {
                            text.push_str(plain);
                            Cow::Owned(text)
                        }
                    });
                }
                Some(b'\\') => {
                    self.at += 1;
                    let escaped = self.escape(characters)?;
                    let text = owned.get_or_insert_with(String::new);
                    text.push_str(plain);
                    text.push(escaped);
                    start = self.at;
                }
                Some(_) => return Err(self.fail("control character (\\u0000-\\u001F) found while parsing a string")),
                None => return Err(self.fail("EOF while parsing a string")),
            }
        }
    }

    /// The character of the escape whose backslash was just read (with
    /// `\u`, unless `characters`, any one).
    fn escape(&mut self, characters: bool) -> Result<char, JsonError> {
        let Some(byte) = self.peek() else { return Err(self.fail("EOF while parsing a string")) };
        self.at += 1;
        Ok(match byte {
            b'"' => '"',
            b'\\' => '\\',
            b'/' => '/',
            b'b' => '\u{8}',
            b'f' => '\u{c}',
            b'n' => '\n',
            b'r' => '\r',
            b't' => '\t',
            b'u' => {
                let first = self.hex()?;
                if !characters {
                    return Ok(char::REPLACEMENT_CHARACTER);
                }
                let code = match first {
                    0xDC00..=0xDFFF => return Err(self.fail("lone leading surrogate in hex escape")),
                    0xD800..=0xDBFF => {
                        // A leading surrogate: its trailing one must follow.
                        if self.text.as_bytes().get(self.at..self.at + 2) != Some(b"\\u") {
                            self.at = (self.at + 1).min(self.text.len());
                            return Err(self.fail("unexpected end of hex escape"));
                        }
                        self.at += 2;
                        let second = self.hex()?;
                        if !(0xDC00..=0xDFFF).contains(&second) {
                            return Err(self.fail("lone leading surrogate in hex escape"));
                        }
                        0x1_0000 + ((first - 0xD800) << 10) + (second - 0xDC00)
                    }
                    code => code,
                };
                char::from_u32(code).unwrap_or(char::REPLACEMENT_CHARACTER)
            }
            _ => {
                self.at -= 1;
                return Err(self.fail("invalid escape"));
            }
        })
    }

    /// The four hex digits of a `\u` escape.
    fn hex(&mut self) -> Result<u32, JsonError> {
        let mut code = 0;
        for _ in 0..4 {
            let digit = match self.peek() {
                Some(byte) => (byte as char).to_digit(16),
                None => return Err(self.fail("EOF while parsing a string")),
            };
            let Some(digit) = digit else { return Err(self.fail("invalid escape")) };
            self.at += 1;
            code = code * 16 + digit;
        }
        Ok(code)
    }

    /// A number: `None` when it is JSON but no `f64` holds it.
    fn number(&mut self) -> Result<Option<Number>, JsonError> {
        let negative = self.peek() == Some(b'-');
        if negative {
            self.at += 1;
        }
        // The digits as an integer and a power of ten: digits past what a
        // `u64` holds count only in the power (before the point) or not at
        // all (after it).
        let mut digits: u64 = 0;
        let mut exponent: i64 = 0;
        let mut full = false;
        let mut float = false;
        match self.peek() {
            Some(b'0') => {
                self.at += 1;
                if let Some(b'0'..=b'9') = self.peek() {
                    return Err(self.fail("invalid number"));
                }
            }
            Some(b'1'..=b'9') => {
                while let Some(byte @ b'0'..=b'9') = self.peek() {
                    self.at += 1;
                    match digits.checked_mul(10).and_then(|d| d.checked_add(u64::from(byte - b'0'))) {
                        Some(more) if !full => digits = more,
                        _ => {
                            full = true;
                            exponent += 1;
                        }
                    }
                }
            }
            Some(_) => return Err(self.fail("invalid number")),
            None => return Err(self.fail("EOF while parsing a value")),
        }
        if self.peek() == Some(b'.') {
            float = true;
            self.at += 1;
            let before = self.at;
            while let Some(byte @ b'0'..=b'9') = self.peek() {
                self.at += 1;
                match digits.checked_mul(10).and_then(|d| d.checked_add(u64::from(byte - b'0'))) {
                    Some(more) if !full => {
                        digits = more;
                        exponent -= 1;
                    }
                    _ => full = true,
                }
            }
            if self.at == before {
                return Err(self.fail(if self.peek().is_none() {
                    "EOF while parsing a value"
                } else {
                    "invalid number"
                }));
            }
        }
        if let Some(b'e' | b'E') = self.peek() {
            float = true;
            self.at += 1;
            let negative_power = self.peek() == Some(b'-');
            if let Some(b'+' | b'-') = self.peek() {
                self.at += 1;
            }
            let before = self.at;
            let mut power: i64 = 0;
            while let Some(byte @ b'0'..=b'9') = self.peek() {
                self.at += 1;
                // Past any exponent a float has, more digits change nothing.
                power = (power * 10 + i64::from(byte - b'0')).min(1 << 40);
            }
            if self.at == before {
                return Err(self.fail(if self.peek().is_none() {
                    "EOF while parsing a value"
                } else {
                    "invalid number"
                }));
            }
            exponent += if negative_power { -power } else { power };
        }
        if !float && !full {
            if !negative {
                return Ok(Some(Number::from(digits)));
            }
            // -0 is a float, as are integers below i64::MIN.
            let negated = (digits as i64).wrapping_neg();
            if negated < 0 {
                return Ok(Some(Number::from(negated)));
            }
        }
        let magnitude = float_of(digits, exponent);
        Ok(magnitude.and_then(|f| Number::from_f64(if negative { -f } else { f })))
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

/// `value` appended to `out` as compact JSON, byte for byte as serde_json
/// writes it: strings escaped as it escapes them, numbers as `Number`
/// shows them (integers as such, floats in their shortest form).
pub(crate) fn write(value: &Value, out: &mut String) {
    match value {
        Value::Null => out.push_str("null"),
        Value::Bool(true) => out.push_str("true"),
        Value::Bool(false) => out.push_str("false"),
        Value::Number(number) => {
            use fmt::Write as _;
            // Writing to a `String` cannot fail.
            let _ = write!(out, "{number}");
        }
        Value::String(text) => write_string(text, out),
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write(item, out);
            }
            out.push(']');
        }
        Value::Object(members) => {
            out.push('{');
            for (i, (name, member)) in members.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_string(name, out);
                out.push(':');
                write(member, out);
            }
            out.push('}');
        }
    }
}

/// `text` appended to `out` as a JSON string: `"` and `\` escaped, and the
/// control characters (`\n` and the like where JSON has a short form,
/// `\u00XX` otherwise); everything else as it is.
pub(crate) fn write_string(text: &str, out: &mut String) {
    out.push('"');
    let mut rest = text;
    loop {
        let plain = plain_run(rest.as_bytes());
        out.push_str(rest.get(..plain).unwrap_or_default());
        let Some(byte) = rest.as_bytes().get(plain).copied() else { break };
        match byte {
            b'"' => out.push_str("\\\""),
            b'\\' => out.push_str("\\\\"),
            b'\n' => out.push_str("\\n"),
            b'\r' => out.push_str("\\r"),
            b'\t' => out.push_str("\\t"),
            0x08 => out.push_str("\\b"),
            0x0c => out.push_str("\\f"),
            _ => {
                const HEX: &[u8; 16] = b"0123456789abcdef";
                out.push_str("\\u00");
                out.push(char::from(HEX[usize::from(byte >> 4)]));
                out.push(char::from(HEX[usize::from(byte & 0xf)]));
            }
        }
        // The byte written was ASCII: the rest starts at a character.
        rest = rest.get(plain + 1..).unwrap_or_default();
    }
    out.push('"');
}

/// An empty object or array (`null` when nothing is built).
fn empty(object: bool, build: bool) -> Value {
    match (build, object) {
        (false, _) => Value::Null,
        (true, true) => Value::Object(Map::new()),
        (true, false) => Value::Array(Vec::new()),
    }
}

/// 10^`power` as the `f64` nearest to it, for `power` up to 308 (`None`
/// past): serde_json's table of powers of ten, computed once from the exact
/// integers instead of kept as 2.5 KB of data in the module. A number is
/// then read as serde_json reads it, bit for bit: its digits as an `f64`,
/// times or divided by the power (so a value read, written and read again
/// is the same value, as with serde_json; a product of two rounded powers
/// was not).
fn power_of_ten(power: usize) -> Option<f64> {
    static POWERS: OnceLock<Vec<f64>> = OnceLock::new();
    let powers = POWERS.get_or_init(|| {
        // 10^k as base-2^32 digits, least significant first.
        let mut exact: Vec<u32> = vec![1];
        let mut powers = Vec::with_capacity(309);
        for _ in 0..=308 {
            powers.push(nearest(&exact));
            let mut carry = 0;
            for digit in &mut exact {
                let product = u64::from(*digit) * 10 + carry;
                *digit = product as u32;
                carry = product >> 32;
            }
            if carry > 0 {
                exact.push(carry as u32);
            }
        }
        powers
    });
    powers.get(power).copied()
}

/// The `f64` nearest to the integer whose base-2^32 digits are `digits`
/// (least significant first, the last one not zero), ties to even: its top
/// 64 bits, the lowest of them set if any bit below them is (so that the
/// conversion of those 64 bits rounds as the whole would), scaled.
fn nearest(digits: &[u32]) -> f64 {
    let Some(&top) = digits.last() else { return 0.0 };
    let bits = digits.len() * 32 - top.leading_zeros() as usize;
    let shift = bits.saturating_sub(64);
    let (word, offset) = (shift / 32, shift % 32);
    let digit = |i: usize| u128::from(digits.get(i).copied().unwrap_or(0));
    let window = digit(word) | digit(word + 1) << 32 | digit(word + 2) << 64;
    let below =
        digits.get(..word).unwrap_or_default().iter().any(|d| *d != 0) || digit(word) & ((1 << offset) - 1) != 0;
    let high = (window >> offset) as u64 | u64::from(below);
    // 2^shift, exact: shift is at most 960 for 10^308.
    high as f64 * f64::from_bits((shift as u64 + 1023) << 52)
}

/// `digits` times 10^`exponent` as an `f64`, `None` past its range: as
/// serde_json computes it (without `float_roundtrip`), tiny values zero.
fn float_of(digits: u64, mut exponent: i64) -> Option<f64> {
    let mut f = digits as f64;
    loop {
        match power_of_ten(usize::try_from(exponent.unsigned_abs()).unwrap_or(usize::MAX)) {
            Some(power) if exponent >= 0 => {
                f *= power;
                return f.is_finite().then_some(f);
            }
            Some(power) => return Some(f / power),
            None if f == 0.0 => return Some(f),
            None if exponent >= 0 => return None,
            None => {
                f /= 1e308;
                exponent += 308;
            }
        }
    }
}

#[cfg(test)]
mod tests;
