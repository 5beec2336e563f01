//! Splitting a stream into lines and events: chunk boundaries, line
//! endings, the byte-order mark and UTF-8.

use super::*;

// ---- basics -------------------------------------------------------

#[test]
fn single_event() {
    assert_eq!(parse_both("data: hello\n\n"), vec![msg("hello")]);
}

#[test]
fn several_events_in_one_chunk() {
    assert_eq!(parse_both("data: a\n\ndata: b\n\nevent: x\ndata: c\n\n"), vec![msg("a"), msg("b"), ev("x", "c", "")]);
}

#[test]
fn events_come_out_as_soon_as_complete() {
    let mut parser = SseParser::new();
    let mut out = Vec::new();
    parser.feed(b"data: a\n", &mut out).unwrap();
    assert!(out.is_empty());
    parser.feed(b"\ndata: b", &mut out).unwrap();
    assert_eq!(out, vec![msg("a")]);
    parser.feed(b"\n", &mut out).unwrap();
    assert_eq!(out, vec![msg("a")]);
    parser.feed(b"\n", &mut out).unwrap();
    assert_eq!(out, vec![msg("a"), msg("b")]);
}

#[test]
fn feed_appends_to_out_without_clearing() {
    let mut parser = SseParser::new();
    let mut out = vec![msg("earlier")];
    parser.feed(b"data: new\n\n", &mut out).unwrap();
    assert_eq!(out, vec![msg("earlier"), msg("new")]);
}

#[test]
fn empty_chunks_and_empty_stream() {
    let mut parser = SseParser::new();
    assert!(feed_chunks(&mut parser, &[b"", b"", b""]).is_empty());
    assert_eq!(feed_chunks(&mut parser, &[b"", b"data: x", b"", b"\n", b"", b"\n"]), vec![msg("x")]);
}

#[test]
fn default_new_and_with_limit() {
    assert_eq!(SseParser::new().max_bytes(), DEFAULT_MAX_BYTES);
    assert_eq!(DEFAULT_MAX_BYTES, 16 * 1024 * 1024);
    assert_eq!(SseParser::default().max_bytes(), DEFAULT_MAX_BYTES);
    assert_eq!(SseParser::with_limit(10).max_bytes(), 10);
    let parser = SseParser::new();
    assert_eq!(parser.last_event_id(), "");
    assert_eq!(parser.retry(), None);
    let debug = format!("{parser:?}");
    assert!(debug.contains("SseParser"), "{debug}");
}

#[test]
fn clone_keeps_partial_state() {
    let mut parser = SseParser::new();
    feed_chunks(&mut parser, &[b"id: 3\ndata: a\ndata: b"]);
    let mut copy = parser.clone();
    assert_eq!(feed_chunks(&mut copy, &[b"c\n\n"]), vec![ev("message", "a\nbc", "3")]);
    assert_eq!(feed_chunks(&mut parser, &[b"\n\n"]), vec![ev("message", "a\nb", "3")]);
}

// ---- line endings -------------------------------------------------

#[test]
fn lf_line_endings() {
    assert_eq!(parse_both("event: e\ndata: a\ndata: b\n\n"), vec![ev("e", "a\nb", "")]);
}

#[test]
fn cr_line_endings() {
    assert_eq!(parse_both("event: e\rdata: a\rdata: b\r\r"), vec![ev("e", "a\nb", "")]);
}

#[test]
fn crlf_line_endings() {
    assert_eq!(parse_both("event: e\r\ndata: a\r\ndata: b\r\n\r\n"), vec![ev("e", "a\nb", "")]);
}

#[test]
fn mixed_line_endings() {
    assert_eq!(parse_both("data: a\r\ndata: b\rdata: c\n\r"), vec![msg("a\nb\nc")]);
    assert_eq!(parse_both("data: a\n\r\ndata: b\r\n\ndata: c\r\r\n"), vec![msg("a"), msg("b"), msg("c")]);
    // LF CR is two line ends; CR LF is one.
    assert_eq!(parse_both("data: a\n\rdata: b\r\n\r\n"), vec![msg("a"), msg("b")]);
}

#[test]
fn cr_cr_is_two_line_ends_and_lf_cr_too() {
    assert_eq!(parse_both("data: a\r\r"), vec![msg("a")]);
    assert_eq!(parse_both("data: a\n\r"), vec![msg("a")]);
    assert_eq!(parse_both("data: a\r\n\r"), vec![msg("a")]);
    // CR LF LF: one line end then a blank line.
    assert_eq!(parse_both("data: a\r\n\n"), vec![msg("a")]);
    // CR LF alone: only one line end, no dispatch.
    assert!(parse_both("data: a\r\n").is_empty());
}

#[test]
fn crlf_split_across_chunks_is_one_line_end() {
    let mut parser = SseParser::new();
    let events = feed_chunks(&mut parser, &[b"data: a\r", b"\ndata: b\r", b"\n", b"\r", b"\n"]);
    assert_eq!(events, vec![msg("a\nb")]);
}

#[test]
fn cr_at_chunk_end_then_lf_chunk_does_not_make_a_blank_line() {
    let mut parser = SseParser::new();
    // Were the LF a second line end, "a" would be dispatched alone.
    let events = feed_chunks(&mut parser, &[b"data: a\r", b"\n", b"data: b\n\n"]);
    assert_eq!(events, vec![msg("a\nb")]);
}

#[test]
fn pending_cr_survives_empty_chunks() {
    let mut parser = SseParser::new();
    let events = feed_chunks(&mut parser, &[b"data: a\r", b"", b"", b"\ndata: b\n\n"]);
    assert_eq!(events, vec![msg("a\nb")]);
}

#[test]
fn cr_at_chunk_end_then_other_byte() {
    let mut parser = SseParser::new();
    assert_eq!(feed_chunks(&mut parser, &[b"data: a\r", b"data: b\r", b"\r"]), vec![msg("a\nb")]);
    let mut parser = SseParser::new();
    // The second chunk's CR is a blank line, not the LF half of anything.
    assert_eq!(feed_chunks(&mut parser, &[b"data: a\r", b"\r", b"\n"]), vec![msg("a")]);
}

#[test]
fn only_one_lf_is_swallowed_after_a_split_cr() {
    let mut parser = SseParser::new();
    assert_eq!(feed_chunks(&mut parser, &[b"data: a\r", b"\n\n"]), vec![msg("a")]);
}

#[test]
fn blank_lines_alone_dispatch_nothing() {
    assert!(parse_both("\n\n\r\n\r\r\n").is_empty());
}

// ---- BOM ----------------------------------------------------------

#[test]
fn leading_bom_is_skipped() {
    assert_eq!(parse_both("\u{FEFF}data: a\n\n"), vec![msg("a")]);
    assert_eq!(parse_both("\u{FEFF}\ndata: a\n\n"), vec![msg("a")]);
    assert_eq!(parse_both("\u{FEFF}: comment\ndata: a\n\n"), vec![msg("a")]);
}

#[test]
fn leading_bom_split_across_chunks_is_skipped() {
    let mut parser = SseParser::new();
    let events = feed_chunks(&mut parser, &[b"\xEF", b"\xBB", b"\xBFdata: a\n\n"]);
    assert_eq!(events, vec![msg("a")]);
}

#[test]
fn bom_only_first_line_is_a_blank_line() {
    // After the BOM is skipped the first line is empty: a (no-op) dispatch
    // that still commits the id buffer (empty here).
    assert_eq!(parse_both("\u{FEFF}\n\ndata: a\n\n"), vec![msg("a")]);
}

#[test]
fn only_one_bom_is_skipped() {
    // The second BOM is part of the field name, which is then unknown.
    assert!(parse_both("\u{FEFF}\u{FEFF}data: a\n\n").is_empty());
}

#[test]
fn bom_later_in_the_stream_is_data() {
    assert!(parse_both("\n\u{FEFF}data: a\n\n").is_empty());
    assert_eq!(parse_both("data: a\n\n\u{FEFF}data: b\n\n"), vec![msg("a")]);
    assert_eq!(parse_both("data: \u{FEFF}x\n\n"), vec![msg("\u{FEFF}x")]);
    assert_eq!(parse_both("data:\u{FEFF}\n\n"), vec![msg("\u{FEFF}")]);
}

#[test]
fn bom_not_at_start_of_first_chunk_after_data() {
    let mut parser = SseParser::new();
    let events = feed_chunks(&mut parser, &[b"data: a\n", b"\xEF\xBB\xBFdata: b\n\n"]);
    assert_eq!(events, vec![msg("a")]);
}

#[test]
fn partial_bom_is_not_skipped() {
    // EF BB alone is an invalid sequence: one U+FFFD.
    assert!(parse_bytes(b"\xEF\xBBdata: a\n\n").is_empty());
    assert_eq!(parse_bytes(b"\xEF\xBB\ndata: a\n\n"), vec![msg("a")]);
}

// ---- UTF-8 --------------------------------------------------------

#[test]
fn multibyte_utf8_split_at_every_offset() {
    let stream = "event: ünïcödé\ndata: h\u{e9}llo \u{20ac} \u{1D11E} \u{4E2D}\u{6587}\nid: \u{1F600}\n\n";
    let expected = vec![ev("ünïcödé", "h\u{e9}llo \u{20ac} \u{1D11E} \u{4E2D}\u{6587}", "\u{1F600}")];
    assert_eq!(parse(stream), expected);
    let bytes = stream.as_bytes();
    for at in 0..=bytes.len() {
        let mut parser = SseParser::new();
        assert_eq!(feed_chunks(&mut parser, &[&bytes[..at], &bytes[at..]]), expected, "split at {at}");
    }
    assert_eq!(parse_bytewise(bytes), expected);
}

#[test]
fn four_byte_character_in_four_chunks() {
    let mut parser = SseParser::new();
    let events = feed_chunks(&mut parser, &[b"data: ", b"\xF0", b"\x9F", b"\x98", b"\x80", b"\n\n"]);
    assert_eq!(events, vec![msg("\u{1F600}")]);
}

#[test]
fn invalid_utf8_is_replaced() {
    assert_eq!(parse_bytes(b"data: a\xFFb\n\n"), vec![msg("a\u{FFFD}b")]);
    assert_eq!(parse_bytes(b"data: \xC3\x28\n\n"), vec![msg("\u{FFFD}(")]);
    // A truncated sequence before the line end is one U+FFFD.
    assert_eq!(parse_bytes(b"data: \xE2\x82\n\n"), vec![msg("\u{FFFD}")]);
    assert_eq!(parse_bytes(b"data: \xE2\x82\rdata: x\r\r"), vec![msg("\u{FFFD}\nx")]);
    // Overlong encodings and surrogates are invalid.
    assert_eq!(parse_bytes(b"data: \xC0\xAF\n\n"), vec![msg("\u{FFFD}\u{FFFD}")]);
    assert_eq!(parse_bytes(b"data: \xED\xA0\x80\n\n"), vec![msg("\u{FFFD}\u{FFFD}\u{FFFD}")]);
    assert_eq!(parse_bytes(b"event: \xFF\ndata: x\n\n"), vec![ev("\u{FFFD}", "x", "")]);
    assert_eq!(parse_bytes(b"id: \xFE\ndata: x\n\n"), vec![ev("message", "x", "\u{FFFD}")]);
}

#[test]
fn invalid_utf8_split_across_chunks_is_replaced_once() {
    let mut parser = SseParser::new();
    let events = feed_chunks(&mut parser, &[b"data: \xE2", b"\x82", b"\n\n"]);
    assert_eq!(events, vec![msg("\u{FFFD}")]);
    let mut parser = SseParser::new();
    let events = feed_chunks(&mut parser, &[b"data: a\xE2", b"\x82", b"b\n\n"]);
    assert_eq!(events, vec![msg("a\u{FFFD}b")]);
}

#[test]
fn invalid_utf8_in_field_name_makes_an_unknown_field() {
    assert!(parse_bytes(b"da\xFFta: x\n\n").is_empty());
}
