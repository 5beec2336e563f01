//! The reader's walk over the text: values built or checked, members,
//! elements, strings and their escapes.

use std::borrow::Cow;

use serde_json::{Map, Value};

use super::{JsonError, MAX_DEPTH, Reader, Walk, plain_run};

impl<'a> Reader<'a> {
    /// The next value, built.
    pub(crate) fn value(&mut self) -> Result<Value, JsonError> {
        self.build(0)
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
        if self.open(b'{', b'}', "expected a JSON object")? {
            return Ok(());
        }
        loop {
            let name = self.name(true, true)?;
            each(name, self)?;
            if self.close(true)? {
                return Ok(());
            }
        }
    }

    /// Steps into the container that must open at the cursor (`expected`
    /// otherwise); true if it closes at once, stepped past.
    fn open(&mut self, opening: u8, closing: u8, expected: &'static str) -> Result<bool, JsonError> {
        self.space();
        if self.peek() != Some(opening) {
            return Err(self.fail(expected));
        }
        self.at += 1;
        self.space();
        let empty = self.peek() == Some(closing);
        if empty {
            self.at += 1;
        }
        Ok(empty)
    }

    /// Reads the array at the cursor, calling `each` with this reader before
    /// every element, which `each` must read.
    pub(crate) fn elements(
        &mut self,
        mut each: impl FnMut(&mut Self) -> Result<(), JsonError>,
    ) -> Result<(), JsonError> {
        if self.open(b'[', b']', "expected a JSON array")? {
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

    /// A member's name and the colon after it (`characters` and `keep`:
    /// see [`Reader::string`]).
    fn name(&mut self, characters: bool, keep: bool) -> Result<Cow<'a, str>, JsonError> {
        self.space();
        match self.peek() {
            Some(b'"') => self.at += 1,
            Some(_) => return Err(self.fail("key must be a string")),
            None => return Err(self.fail("EOF while parsing an object")),
        }
        let name = self.string(characters, keep)?;
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

    /// One value built, `depth` containers deep: one call per level, and
    /// a `Value` holds no more than [`MAX_DEPTH`] levels, so the call stack
    /// stays small whatever the text (the limit is checked before the call).
    /// Recursion rather than [`Reader::walk`]'s stacks: a message's members
    /// are small, and three stacks on the heap for each of them were a
    /// fifth of a progress notification's time in the browser.
    fn build(&mut self, depth: usize) -> Result<Value, JsonError> {
        self.space();
        let object = match self.peek() {
            Some(b'{') => true,
            Some(b'[') => false,
            _ => return self.scalar(Walk::Build),
        };
        if depth + 1 >= MAX_DEPTH {
            return Err(self.fail("recursion limit exceeded"));
        }
        self.at += 1;
        self.space();
        if object {
            let mut members = Map::new();
            if self.peek() == Some(b'}') {
                self.at += 1;
                return Ok(Value::Object(members));
            }
            loop {
                let name = self.name(true, true)?;
                let value = self.build(depth + 1)?;
                members.insert(name.into_owned(), value);
                if self.close(true)? {
                    return Ok(Value::Object(members));
                }
            }
        }
        let mut items = Vec::new();
        if self.peek() == Some(b']') {
            self.at += 1;
            return Ok(Value::Array(items));
        }
        loop {
            items.push(self.build(depth + 1)?);
            if self.close(false)? {
                return Ok(Value::Array(items));
            }
        }
    }

    /// One value checked, built not at all, by one loop: the containers
    /// open around the cursor are on a stack of their own (one bit each,
    /// true for an object), not the call stack, so no text nests it deeper
    /// than the heap allows.
    pub(super) fn walk(&mut self, walk: Walk) -> Result<(), JsonError> {
        let mut kinds = Kinds::default();
        'value: loop {
            self.space();
            match self.peek() {
                Some(byte @ (b'{' | b'[')) => {
                    let object = byte == b'{';
                    if walk != Walk::Skip && kinds.depth + 1 >= MAX_DEPTH {
                        return Err(self.fail("recursion limit exceeded"));
                    }
                    self.at += 1;
                    self.space();
                    if self.peek() == Some(if object { b'}' } else { b']' }) {
                        self.at += 1;
                    } else {
                        kinds.open(object);
                        if object {
                            self.name(walk != Walk::Skip, false)?;
                        }
                        continue 'value;
                    }
                }
                _ => {
                    self.scalar(walk)?;
                }
            }
            // A whole value: each container it ends is in turn one.
            loop {
                let Some(object) = kinds.innermost() else { return Ok(()) };
                if !self.close(object)? {
                    if object {
                        self.name(walk != Walk::Skip, false)?;
                    }
                    continue 'value;
                }
                kinds.close();
            }
        }
    }

    /// A value that is not a container (`null` unless built), or the error
    /// of what is not a value.
    fn scalar(&mut self, walk: Walk) -> Result<Value, JsonError> {
        let build = walk == Walk::Build;
        Ok(match self.peek() {
            Some(b'"') => {
                self.at += 1;
                let text = self.string(walk != Walk::Skip, build)?;
                if build { Value::String(text.into_owned()) } else { Value::Null }
            }
            Some(b't') => self.word("true", Value::Bool(true))?,
            Some(b'f') => self.word("false", Value::Bool(false))?,
            Some(b'n') => self.word("null", Value::Null)?,
            Some(b'-' | b'0'..=b'9') => match (self.number(walk == Walk::Build)?, walk) {
                (Some(number), Walk::Build) => Value::Number(number),
                (None, Walk::Build | Walk::Hold) => return Err(self.fail("number out of range")),
                _ => Value::Null,
            },
            Some(_) => return Err(self.fail("expected value")),
            None => return Err(self.fail("EOF while parsing a value")),
        })
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
    /// (a surrogate may stand alone), as serde_json skips a string. Unless
    /// `keep`, nothing is unescaped into a copy (an empty string comes
    /// back): a check of a result with a megabyte of escaped text copied it.
    fn string(&mut self, characters: bool, keep: bool) -> Result<Cow<'a, str>, JsonError> {
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
                        None if !keep => Cow::Borrowed(""),
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
                    if keep {
                        let text = owned.get_or_insert_with(String::new);
                        text.push_str(plain);
                        text.push(escaped);
                    }
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
}

/// The containers open around [`Reader::walk`]'s cursor: how many, and one
/// bit each (set for an object), the innermost lowest. The 128 innermost
/// are in one word, so a check within the depth a `Value` holds takes
/// nothing from the heap (a span of every member of every message was an
/// allocation each); deeper ones, which only a check of syntax reaches,
/// wait in `outer`, 128 to a word.
#[derive(Default)]
struct Kinds {
    depth: usize,
    bits: u128,
    outer: Vec<u128>,
}

impl Kinds {
    fn open(&mut self, object: bool) {
        if self.depth > 0 && self.depth.is_multiple_of(128) {
            self.outer.push(self.bits);
            self.bits = 0;
        }
        self.bits = self.bits << 1 | u128::from(object);
        self.depth += 1;
    }

    /// Whether the innermost open container is an object; `None` when
    /// none is open.
    fn innermost(&self) -> Option<bool> {
        (self.depth > 0).then_some(self.bits & 1 == 1)
    }

    fn close(&mut self) {
        self.bits >>= 1;
        self.depth = self.depth.saturating_sub(1);
        if self.depth > 0 && self.depth.is_multiple_of(128) {
            self.bits = self.outer.pop().unwrap_or_default();
        }
    }
}
