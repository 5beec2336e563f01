//! Any chunking gives the same events, checked against a reference model.

use super::*;

// ---- chunking equivalence and a reference model ----------------------

/// A tiny deterministic PRNG (xorshift64*).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// What a parse produced: the events, then the parser's state.
#[derive(Debug, PartialEq)]
struct Outcome {
    events: Vec<SseEvent>,
    last_event_id: String,
    retry: Option<Duration>,
    any_error: bool,
}

fn run(limit: usize, chunks: &[&[u8]]) -> Outcome {
    let mut parser = SseParser::with_limit(limit);
    let mut events = Vec::new();
    let mut any_error = false;
    for chunk in chunks {
        any_error |= parser.feed(chunk, &mut events).is_err();
    }
    Outcome { events, last_event_id: parser.last_event_id().to_owned(), retry: parser.retry(), any_error }
}

fn random_chunks<'a>(stream: &'a [u8], rng: &mut Rng, max_chunk: usize) -> Vec<&'a [u8]> {
    let mut chunks = Vec::new();
    let mut rest = stream;
    while !rest.is_empty() {
        let len = rng.below(max_chunk + 1).min(rest.len()); // 0 makes an empty chunk
        let (chunk, tail) = rest.split_at(len);
        chunks.push(chunk);
        rest = tail;
    }
    chunks
}

/// A straightforward reading of the spec, with no chunking and no limits:
/// decode the whole stream, drop one BOM, split into lines, interpret.
fn reference(stream: &[u8]) -> Outcome {
    let text = String::from_utf8_lossy(stream);
    let text = text.strip_prefix('\u{FEFF}').unwrap_or(&text);
    let mut lines = Vec::new();
    let mut current = String::new();
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\r' => {
                if chars.peek() == Some(&'\n') {
                    chars.next();
                }
                lines.push(std::mem::take(&mut current));
            }
            '\n' => lines.push(std::mem::take(&mut current)),
            c => current.push(c),
        }
    }
    // `current` is an unterminated last line: never interpreted.
    let (mut data, mut event_type, mut id_buffer) = (String::new(), String::new(), String::new());
    let mut last_event_id = String::new();
    let mut retry = None;
    let mut events = Vec::new();
    for line in lines {
        if line.is_empty() {
            last_event_id = id_buffer.clone();
            if data.is_empty() {
                event_type.clear();
                continue;
            }
            if data.ends_with('\n') {
                data.pop();
            }
            let event = if event_type.is_empty() { "message".to_owned() } else { event_type.clone() };
            events.push(SseEvent { event, data: data.clone(), id: last_event_id.clone() });
            data.clear();
            event_type.clear();
            continue;
        }
        if line.starts_with(':') {
            continue;
        }
        let (field, value) = match line.find(':') {
            Some(i) => {
                let value = &line[i + 1..];
                (&line[..i], value.strip_prefix(' ').unwrap_or(value))
            }
            None => (&line[..], ""),
        };
        match field {
            "event" => event_type = value.to_owned(),
            "data" => {
                data.push_str(value);
                data.push('\n');
            }
            "id" if !value.contains('\u{0}') => id_buffer = value.to_owned(),
            "retry" if !value.is_empty() && value.chars().all(|c| c.is_ascii_digit()) => {
                retry = Some(Duration::from_millis(value.parse().unwrap_or(u64::MAX)));
            }
            _ => {}
        }
    }
    Outcome { events, last_event_id, retry, any_error: false }
}

fn corpus() -> Vec<Vec<u8>> {
    let mut corpus: Vec<Vec<u8>> = [
        "data: hello\n\n",
        "\u{FEFF}event: greet\r\ndata: h\u{e9}llo\r\ndata: w\u{f6}rld \u{1F30D}\r\n\r\n",
        "id: 1\rdata: a\r\rid: 2\ndata: b\r\n\n: comment\ndata\n\nid: \u{0}\ndata: c\n\n",
        "retry: 1500\nretry: 1x\nevent: e\n\nevent: f\ndata:  two spaces\ndata:x\n\n",
        "\u{FEFF}\u{FEFF}data: not data\n\ndata: \u{FEFF}is data\n\nfield\nid\ndata: z\n\r\n\r",
        ":only comments\r\n:\r\n\r\n",
        "data: unterminated event\ndata: still going",
        "data: multi\ndata:\ndata: line\n\nevent: end\ndata: \u{4E2D}\u{6587}\n\nid: last\n\n",
        "\n\r\n\r\rdata: after blanks\r\r",
    ]
    .iter()
    .map(|s| s.as_bytes().to_vec())
    .collect();
    corpus.push(b"data: bad \xFF\xFE byte\n\ndata: cut \xE2\x82\r\ndata: \xF0\x9F\x98\n\n\xEF\xBBdata: x\n\n".to_vec());
    corpus.push(b"\xEF\xBB\xBF\xEF\xBB\xBF\ndata: a\r\n\r\nid: \xC3\xA9\xFF\ndata: b\n\n".to_vec());
    corpus
}

#[test]
fn corpus_matches_reference_model() {
    for stream in corpus() {
        assert_eq!(run(DEFAULT_MAX_BYTES, &[&stream]), reference(&stream), "{:?}", String::from_utf8_lossy(&stream));
    }
}

#[test]
fn every_single_split_gives_the_same_result() {
    for stream in corpus() {
        let whole = run(DEFAULT_MAX_BYTES, &[&stream]);
        for at in 0..=stream.len() {
            let (a, b) = stream.split_at(at);
            assert_eq!(run(DEFAULT_MAX_BYTES, &[a, b]), whole, "split at {at} of {stream:?}");
        }
    }
}

#[test]
fn every_double_split_gives_the_same_result() {
    for stream in corpus() {
        let whole = run(DEFAULT_MAX_BYTES, &[&stream]);
        for i in 0..=stream.len() {
            for j in i..=stream.len() {
                let chunks = [&stream[..i], &stream[i..j], &stream[j..]];
                assert_eq!(run(DEFAULT_MAX_BYTES, &chunks), whole, "split at {i}, {j} of {stream:?}");
            }
        }
    }
}

#[test]
fn one_byte_chunks_give_the_same_result() {
    for stream in corpus() {
        let chunks: Vec<&[u8]> = stream.chunks(1).collect();
        assert_eq!(run(DEFAULT_MAX_BYTES, &chunks), run(DEFAULT_MAX_BYTES, &[&stream]));
    }
}

#[test]
fn random_splits_with_limits_give_the_same_result() {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    for stream in corpus() {
        for limit in [0, 1, 5, 8, 12, 20, 40, DEFAULT_MAX_BYTES] {
            let whole = run(limit, &[&stream]);
            for at in 0..=stream.len() {
                let (a, b) = stream.split_at(at);
                assert_eq!(run(limit, &[a, b]), whole, "limit {limit}, split at {at} of {stream:?}");
            }
            for _ in 0..50 {
                let chunks = random_chunks(&stream, &mut rng, 7);
                assert_eq!(run(limit, &chunks), whole, "limit {limit}, chunks {chunks:?}");
            }
        }
    }
}

#[test]
fn random_streams_match_reference_model_under_random_chunking() {
    const TOKENS: &[&[u8]] = &[
        b"data",
        b"data",
        b"data:",
        b"data: ",
        b"event",
        b"event:",
        b"id",
        b"id: ",
        b"retry",
        b"retry:",
        b"retry: ",
        b":",
        b":",
        b" ",
        b" ",
        b"\n",
        b"\n",
        b"\n",
        b"\r",
        b"\r",
        b"\r\n",
        b"x",
        b"yz",
        b"1",
        b"42",
        b"-",
        b"\0",
        b"\xEF\xBB\xBF",
        b"\xC3\xA9",
        b"\xE2\x82\xAC",
        b"\xF0\x9F\x98\x80",
        b"\xFF",
        b"\xE2\x82",
        b"\xC3",
        b"\t",
        b"message",
        b"foo",
    ];
    let mut rng = Rng(0xD1B5_4A32_D192_ED03);
    for round in 0..3000 {
        let mut stream = Vec::new();
        for _ in 0..rng.below(40) {
            stream.extend_from_slice(TOKENS[rng.below(TOKENS.len())]);
        }
        let expected = reference(&stream);
        assert_eq!(run(DEFAULT_MAX_BYTES, &[&stream]), expected, "round {round}: {stream:?}");
        let max_chunk = 1 + rng.below(8);
        let chunks = random_chunks(&stream, &mut rng, max_chunk);
        assert_eq!(run(DEFAULT_MAX_BYTES, &chunks), expected, "round {round}: {chunks:?}");
    }
}

#[test]
fn large_stream_in_small_chunks_is_linear() {
    // 1 MiB of events fed 3 bytes at a time, and one 4 MiB line fed a byte
    // at a time: quadratic behaviour would take minutes, not milliseconds.
    let mut stream = Vec::new();
    let mut expected = 0;
    while stream.len() < 1 << 20 {
        stream.extend_from_slice(b"id: 12\nevent: tick\ndata: {\"n\": 1}\ndata: more\n\n");
        expected += 1;
    }
    let mut parser = SseParser::new();
    let mut out = Vec::new();
    for chunk in stream.chunks(3) {
        parser.feed(chunk, &mut out).unwrap();
    }
    assert_eq!(out.len(), expected);
    assert!(out.iter().all(|e| *e == ev("tick", "{\"n\": 1}\nmore", "12")));

    let mut parser = SseParser::new();
    let mut out = Vec::new();
    parser.feed(b"data: ", &mut out).unwrap();
    let line = vec![b'x'; 4 << 20];
    for chunk in line.chunks(1) {
        parser.feed(chunk, &mut out).unwrap();
    }
    parser.feed(b"\n\n", &mut out).unwrap();
    assert_eq!(out.len(), 1);
    assert_eq!(out[0].data.len(), 4 << 20);
}
