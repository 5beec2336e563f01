//! The end of a stream and the parser's limits.

use super::*;

// ---- end of stream -------------------------------------------------

#[test]
fn finish_discards_incomplete_event() {
    let mut parser = SseParser::new();
    assert_eq!(feed_chunks(&mut parser, &[b"data: a\n\ndata: b\n"]), vec![msg("a")]);
    parser.finish();
    // The next stream starts clean: "b" is not dispatched by a blank line.
    assert!(feed_chunks(&mut parser, &[b"\n"]).is_empty());
    assert_eq!(feed_chunks(&mut parser, &[b"data: c\n\n"]), vec![msg("c")]);
}

#[test]
fn finish_discards_incomplete_line() {
    let mut parser = SseParser::new();
    feed_chunks(&mut parser, &[b"data: a\ndata: b"]);
    parser.finish();
    assert!(feed_chunks(&mut parser, &[b"\n\n"]).is_empty());
}

#[test]
fn finish_discards_event_type_and_uncommitted_id() {
    let mut parser = SseParser::new();
    feed_chunks(&mut parser, &[b"id: 1\ndata: a\n\nid: 2\nevent: e\ndata: b\n"]);
    parser.finish();
    assert_eq!(parser.last_event_id(), "1");
    assert_eq!(feed_chunks(&mut parser, &[b"data: c\n\n"]), vec![ev("message", "c", "1")]);
}

#[test]
fn finish_keeps_last_event_id_and_retry() {
    let mut parser = SseParser::new();
    feed_chunks(&mut parser, &[b"id: 9\nretry: 42\ndata: a\n\n"]);
    parser.finish();
    assert_eq!(parser.last_event_id(), "9");
    assert_eq!(parser.retry(), Some(Duration::from_millis(42)));
    assert_eq!(feed_chunks(&mut parser, &[b"data: b\n\n"]), vec![ev("message", "b", "9")]);
}

#[test]
fn finish_forgets_a_pending_cr() {
    let mut parser = SseParser::new();
    feed_chunks(&mut parser, &[b"data: a\r"]);
    parser.finish();
    // A new stream: its leading LF is a blank line of its own.
    assert!(feed_chunks(&mut parser, &[b"\ndata: b\n"]).is_empty());
    assert_eq!(feed_chunks(&mut parser, &[b"\n"]), vec![msg("b")]);
}

#[test]
fn finish_starts_a_new_stream_where_a_bom_is_skipped_again() {
    let mut parser = SseParser::new();
    assert_eq!(feed_chunks(&mut parser, &[b"\xEF\xBB\xBFdata: a\n\n"]), vec![msg("a")]);
    parser.finish();
    assert_eq!(feed_chunks(&mut parser, &[b"\xEF\xBB\xBFdata: b\n\n"]), vec![msg("b")]);
}

#[test]
fn finish_is_idempotent_and_harmless_on_a_clean_stream() {
    let mut parser = SseParser::new();
    parser.finish();
    parser.finish();
    assert_eq!(feed_chunks(&mut parser, &[b"data: a\n\n"]), vec![msg("a")]);
    parser.finish();
    parser.finish();
    assert_eq!(feed_chunks(&mut parser, &[b"data: b\n\n"]), vec![msg("b")]);
}

#[test]
fn stream_ending_without_blank_line_dispatches_nothing() {
    assert!(parse_both("data: a").is_empty());
    assert!(parse_both("data: a\n").is_empty());
    assert!(parse_both("data: a\r\n").is_empty());
}

// ---- limits --------------------------------------------------------

#[test]
fn line_at_the_limit_is_accepted() {
    // "data: " + 4 bytes = 10 bytes.
    let mut parser = SseParser::with_limit(10);
    assert_eq!(feed_chunks(&mut parser, &[b"data: abcd\n\n"]), vec![msg("abcd")]);
    let mut parser = SseParser::with_limit(10);
    assert_eq!(feed_chunks(&mut parser, &[b"data: ab", b"cd", b"\r\n\r\n"]), vec![msg("abcd")]);
}

#[test]
fn line_over_the_limit_in_one_chunk() {
    let mut parser = SseParser::with_limit(10);
    let mut out = Vec::new();
    assert_eq!(parser.feed(b"data: abcde\n\n", &mut out), Err(SseError::LineTooLong { limit: 10 }));
    assert!(out.is_empty());
    assert_eq!(feed_chunks(&mut parser, &[b"data: ok\n\n"]), vec![msg("ok")]);
}

#[test]
fn line_over_the_limit_is_reported_before_its_end_arrives() {
    let mut parser = SseParser::with_limit(10);
    let mut out = Vec::new();
    assert_eq!(parser.feed(b"data: ab", &mut out), Ok(()));
    assert_eq!(parser.feed(b"cde", &mut out), Err(SseError::LineTooLong { limit: 10 }));
    // The rest of the line is dropped without being buffered or reported again.
    for _ in 0..100 {
        assert_eq!(parser.feed(b"xxxxxxxxxxxxxxxxxxxx", &mut out), Ok(()));
    }
    assert!(parser.line.is_empty());
    assert_eq!(parser.feed(b"\ndata: more\n\ndata: ok\n\n", &mut out), Ok(()));
    assert_eq!(out, vec![msg("ok")]);
}

#[test]
fn line_limit_applies_to_every_kind_of_line() {
    for line in [": a long comment", "event: long-type", "id: a-long-id!", "unknown: field!!"] {
        let mut parser = SseParser::with_limit(10);
        let mut out = Vec::new();
        let stream = format!("{line}\n\ndata: ok\n\n");
        assert_eq!(parser.feed(stream.as_bytes(), &mut out), Err(SseError::LineTooLong { limit: 10 }), "{line}");
        assert_eq!(out, vec![msg("ok")], "{line}");
    }
}

#[test]
fn line_limit_discards_the_rest_of_the_event() {
    let mut parser = SseParser::with_limit(10);
    let mut out = Vec::new();
    let stream = b"data: a\ndata: toolongline\ndata: b\nevent: e\n\ndata: c\n\n";
    assert_eq!(parser.feed(stream, &mut out), Err(SseError::LineTooLong { limit: 10 }));
    assert_eq!(out, vec![msg("c")]);
}

#[test]
fn limit_error_keeps_events_before_and_after_in_the_same_chunk() {
    let mut parser = SseParser::with_limit(10);
    let mut out = Vec::new();
    let stream = b"data: a\n\ndata: waytoolong\n\ndata: b\n\n";
    assert_eq!(parser.feed(stream, &mut out), Err(SseError::LineTooLong { limit: 10 }));
    assert_eq!(out, vec![msg("a"), msg("b")]);
}

#[test]
fn only_the_first_error_of_a_chunk_is_returned() {
    let mut parser = SseParser::with_limit(8);
    let mut out = Vec::new();
    let stream = b"data:123\ndata:456\ndata:7\n\ndata: waytoolong\n\ndata: c\n\n";
    assert_eq!(parser.feed(stream, &mut out), Err(SseError::EventTooLarge { limit: 8 }));
    assert_eq!(out, vec![msg("c")]);
    let mut parser = SseParser::with_limit(8);
    let stream = b"data: waytoolong\n\ndata:123\ndata:456\ndata:7\n\n";
    assert_eq!(parser.feed(stream, &mut out), Err(SseError::LineTooLong { limit: 8 }));
}

#[test]
fn event_data_at_the_limit_is_accepted() {
    // "ab" + "\n" + "cd" + "\n" + "ef" = 8 bytes of data.
    let mut parser = SseParser::with_limit(8);
    assert_eq!(feed_chunks(&mut parser, &[b"data:ab\ndata:cd\ndata:ef\n\n"]), vec![msg("ab\ncd\nef")]);
    // Empty data lines count their separators.
    let mut parser = SseParser::with_limit(8);
    assert_eq!(
        feed_chunks(&mut parser, &[b"data\ndata\ndata\ndata\ndata\ndata\ndata\ndata\ndata\n\n"]),
        vec![msg("\n\n\n\n\n\n\n\n")]
    );
}

#[test]
fn event_data_over_the_limit() {
    let mut parser = SseParser::with_limit(8);
    let mut out = Vec::new();
    assert_eq!(parser.feed(b"data:ab\ndata:cd\ndata:efg\n", &mut out), Err(SseError::EventTooLarge { limit: 8 }));
    // The rest of the event, up to its blank line, is dropped.
    assert_eq!(parser.feed(b"data:x\nevent: e\n\n", &mut out), Ok(()));
    assert!(out.is_empty());
    assert_eq!(parser.feed(b"data:ok\n\n", &mut out), Ok(()));
    assert_eq!(out, vec![msg("ok")]);
    let mut parser = SseParser::with_limit(8);
    assert_eq!(
        parser.feed(b"data\ndata\ndata\ndata\ndata\ndata\ndata\ndata\ndata\ndata\n\n", &mut out),
        Err(SseError::EventTooLarge { limit: 8 })
    );
}

#[test]
fn event_limit_counts_decoded_bytes() {
    // Each invalid byte becomes U+FFFD, 3 bytes of UTF-8.
    let mut parser = SseParser::with_limit(8);
    let mut out = Vec::new();
    assert_eq!(parser.feed(b"data:\xFF\xFF\n\n", &mut out), Ok(()));
    assert_eq!(parser.feed(b"data:\xFF\xFF\xFF\n\n", &mut out), Err(SseError::EventTooLarge { limit: 8 }));
    assert_eq!(out, vec![msg("\u{FFFD}\u{FFFD}")]);
}

#[test]
fn oversized_event_does_not_advance_the_last_event_id() {
    let mut parser = SseParser::with_limit(10);
    let mut out = Vec::new();
    feed_chunks(&mut parser, &[b"id: 1\ndata: a\n\n"]);
    // An id before and after the offending line: neither is adopted.
    assert!(parser.feed(b"id: 2\ndata: waytoolong\nid: 3\n\n", &mut out).is_err());
    assert!(out.is_empty());
    assert_eq!(parser.last_event_id(), "1");
    assert_eq!(feed_chunks(&mut parser, &[b"data: b\n\n"]), vec![ev("message", "b", "1")]);
}

#[test]
fn lines_of_a_discarded_event_are_ignored() {
    let mut parser = SseParser::with_limit(10);
    let mut out = Vec::new();
    assert!(parser.feed(b"data: waytoolong\nretry: 5\nid: 4\nevent: e\n", &mut out).is_err());
    // A second over-long line in the discarded event is not another error.
    assert_eq!(parser.feed(b"data: also way too long\n\n", &mut out), Ok(()));
    assert!(out.is_empty());
    assert_eq!(parser.retry(), None);
    assert_eq!(parser.last_event_id(), "");
    assert_eq!(feed_chunks(&mut parser, &[b"data: x\n\n"]), vec![msg("x")]);
}

#[test]
fn retry_before_the_offending_line_stays() {
    let mut parser = SseParser::with_limit(10);
    let mut out = Vec::new();
    assert!(parser.feed(b"retry: 5\ndata: waytoolong\n\n", &mut out).is_err());
    assert_eq!(parser.retry(), Some(Duration::from_millis(5)));
}

#[test]
fn limit_error_across_cr_lf_split() {
    let mut parser = SseParser::with_limit(10);
    let mut out = Vec::new();
    assert_eq!(parser.feed(b"data: 0123456789", &mut out), Err(SseError::LineTooLong { limit: 10 }));
    assert_eq!(parser.feed(b"\r", &mut out), Ok(()));
    // This LF completes the CRLF; the next one is the blank line.
    assert_eq!(parser.feed(b"\n", &mut out), Ok(()));
    assert_eq!(parser.feed(b"data: x\n\n", &mut out), Ok(()));
    assert!(out.is_empty(), "x still belongs to the discarded event: {out:?}");
    assert_eq!(parser.feed(b"\ndata: y\n\n", &mut out), Ok(()));
    assert_eq!(out, vec![msg("y")]);
}

#[test]
fn zero_limit_allows_only_blank_lines() {
    let mut parser = SseParser::with_limit(0);
    let mut out = Vec::new();
    assert_eq!(parser.feed(b"\n\n", &mut out), Ok(()));
    assert_eq!(parser.feed(b"data\n\n", &mut out), Err(SseError::LineTooLong { limit: 0 }));
    assert!(out.is_empty());
}

#[test]
fn finish_ends_a_discarded_event() {
    let mut parser = SseParser::with_limit(10);
    let mut out = Vec::new();
    assert!(parser.feed(b"data: waytoolong\ndata: x\n", &mut out).is_err());
    parser.finish();
    assert_eq!(feed_chunks(&mut parser, &[b"data: ok\n\n"]), vec![msg("ok")]);
}

#[test]
fn error_messages() {
    assert_eq!(
        SseError::LineTooLong { limit: 5 }.to_string(),
        "an event-stream line is longer than the limit of 5 bytes"
    );
    assert_eq!(
        SseError::EventTooLarge { limit: 5 }.to_string(),
        "an event-stream event's data is larger than the limit of 5 bytes"
    );
}

#[test]
fn default_limit_allows_large_events() {
    let big = "x".repeat(1 << 20);
    let stream = format!("data: {big}\ndata: {big}\n\n");
    let events = parse(&stream);
    assert_eq!(events.len(), 1);
    assert_eq!(events[0].data.len(), 2 * (1 << 20) + 1);
}

#[test]
fn huge_line_buffer_is_released() {
    let mut parser = SseParser::new();
    let big = vec![b'x'; 1 << 20];
    let mut out = Vec::new();
    parser.feed(b"data: ", &mut out).unwrap();
    parser.feed(&big, &mut out).unwrap();
    parser.feed(b"\n\n", &mut out).unwrap();
    assert_eq!(out.len(), 1);
    assert!(parser.line.capacity() <= RETAINED_LINE_CAPACITY);
}
