use super::*;

fn ev(event: &str, data: &str, id: &str) -> SseEvent {
    SseEvent { event: event.to_owned(), data: data.to_owned(), id: id.to_owned() }
}

fn msg(data: &str) -> SseEvent {
    ev("message", data, "")
}

/// Feeds each chunk in turn; panics on an error.
fn feed_chunks(parser: &mut SseParser, chunks: &[&[u8]]) -> Vec<SseEvent> {
    let mut out = Vec::new();
    for chunk in chunks {
        parser.feed(chunk, &mut out).expect("no limit error");
    }
    out
}

fn parse(stream: &str) -> Vec<SseEvent> {
    parse_bytes(stream.as_bytes())
}

fn parse_bytes(stream: &[u8]) -> Vec<SseEvent> {
    feed_chunks(&mut SseParser::new(), &[stream])
}

/// Feeds the stream one byte at a time.
fn parse_bytewise(stream: &[u8]) -> Vec<SseEvent> {
    let mut parser = SseParser::new();
    let mut out = Vec::new();
    for byte in stream {
        parser.feed(std::slice::from_ref(byte), &mut out).expect("no limit error");
    }
    out
}

/// Parses whole and byte by byte, checks both agree, returns the events.
fn parse_both(stream: &str) -> Vec<SseEvent> {
    let whole = parse(stream);
    assert_eq!(parse_bytewise(stream.as_bytes()), whole, "bytewise differs for {stream:?}");
    whole
}

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

// ---- comments -----------------------------------------------------

#[test]
fn comments_are_ignored() {
    assert!(parse_both(": keep-alive\n\n").is_empty());
    assert!(parse_both(":\n:\n\n").is_empty());
    assert_eq!(parse_both(": hi\ndata: a\n: there\ndata: b\n:\n\n"), vec![msg("a\nb")]);
}

#[test]
fn a_comment_does_not_end_an_event() {
    assert_eq!(parse_both("data: a\n: comment\n\n"), vec![msg("a")]);
    assert_eq!(parse_both("data: a\n:\ndata: b\n\n"), vec![msg("a\nb")]);
}

#[test]
fn comment_that_looks_like_a_field_is_a_comment() {
    assert!(parse_both(":data: x\n\n").is_empty());
    assert!(parse_both(":id: 5\n\n").is_empty());
    assert!(parse_both(":retry: 5\n\n").is_empty());
    let mut parser = SseParser::new();
    feed_chunks(&mut parser, &[b":id: 5\n:retry: 5\n\n"]);
    assert_eq!(parser.last_event_id(), "");
    assert_eq!(parser.retry(), None);
}

#[test]
fn space_before_colon_is_not_a_comment() {
    // " :x" is a field named " " with value "x": unknown, ignored.
    assert!(parse_both(" : x\n\n").is_empty());
    assert_eq!(parse_both(" : x\ndata: y\n\n"), vec![msg("y")]);
}

// ---- fields and values ---------------------------------------------

#[test]
fn multi_line_data() {
    assert_eq!(parse_both("data: a\ndata: b\ndata: c\n\n"), vec![msg("a\nb\nc")]);
    assert_eq!(parse_both("data: a\ndata:\ndata: c\n\n"), vec![msg("a\n\nc")]);
    assert_eq!(parse_both("data\ndata\n\n"), vec![msg("\n")]);
}

#[test]
fn data_with_empty_value_dispatches_empty_data() {
    assert_eq!(parse_both("data:\n\n"), vec![msg("")]);
    assert_eq!(parse_both("data: \n\n"), vec![msg("")]);
    assert_eq!(parse_both("data\n\n"), vec![msg("")]);
}

#[test]
fn data_without_space() {
    assert_eq!(parse_both("data:x\n\n"), vec![msg("x")]);
}

#[test]
fn only_one_leading_space_is_removed() {
    assert_eq!(parse_both("data:  x\n\n"), vec![msg(" x")]);
    assert_eq!(parse_both("data:   x\n\n"), vec![msg("  x")]);
    assert_eq!(parse_both("event:  e\ndata: x\n\n"), vec![ev(" e", "x", "")]);
    assert_eq!(parse_both("id:  7\ndata: x\n\n"), vec![ev("message", "x", " 7")]);
}

#[test]
fn other_whitespace_and_trailing_space_are_kept() {
    assert_eq!(parse_both("data:\tx\n\n"), vec![msg("\tx")]);
    assert_eq!(parse_both("data: x \n\n"), vec![msg("x ")]);
    assert_eq!(parse_both("data: x\t\n\n"), vec![msg("x\t")]);
    assert_eq!(parse_both("event: e \ndata: x\n\n"), vec![ev("e ", "x", "")]);
}

#[test]
fn value_split_at_first_colon_only() {
    assert_eq!(parse_both("data: a:b: c\n\n"), vec![msg("a:b: c")]);
    assert_eq!(parse_both("data::\n\n"), vec![msg(":")]);
    assert_eq!(parse_both("data: {\"k\": \"v\"}\n\n"), vec![msg("{\"k\": \"v\"}")]);
}

#[test]
fn field_without_colon_has_empty_value() {
    assert_eq!(parse_both("event: e\nevent\ndata: x\n\n"), vec![msg("x")]);
    assert_eq!(parse_both("id: 1\ndata: a\n\nid\ndata: b\n\n"), vec![ev("message", "a", "1"), msg("b")]);
    let mut parser = SseParser::new();
    feed_chunks(&mut parser, &[b"retry\n"]);
    assert_eq!(parser.retry(), None);
}

#[test]
fn unknown_fields_are_ignored() {
    assert_eq!(parse_both("foo: bar\ndata: x\nbaz\n\n"), vec![msg("x")]);
    assert!(parse_both("foo: bar\n\n").is_empty());
}

#[test]
fn field_names_are_case_sensitive_and_exact() {
    assert_eq!(parse_both("DATA: y\nData: z\ndata: x\n\n"), vec![msg("x")]);
    assert!(parse_both("data : x\n\n").is_empty());
    assert!(parse_both(" data: x\n\n").is_empty());
    assert!(parse_both("datum: x\n\n").is_empty());
    assert_eq!(parse_both("Event: e\nID: 1\ndata: x\n\n"), vec![msg("x")]);
}

#[test]
fn nul_in_data_and_event_is_kept() {
    assert_eq!(parse_both("event: a\0b\ndata: c\0d\n\n"), vec![ev("a\0b", "c\0d", "")]);
}

// ---- event type ----------------------------------------------------

#[test]
fn event_type_defaults_to_message() {
    assert_eq!(parse_both("data: x\n\n")[0].event, "message");
    assert_eq!(parse_both("event:\ndata: x\n\n")[0].event, "message");
    assert_eq!(parse_both("event: \ndata: x\n\n")[0].event, "message");
}

#[test]
fn last_event_field_wins() {
    assert_eq!(parse_both("event: a\nevent: b\ndata: x\n\n"), vec![ev("b", "x", "")]);
    assert_eq!(parse_both("data: x\nevent: late\n\n"), vec![ev("late", "x", "")]);
}

#[test]
fn event_type_is_reset_after_dispatch() {
    assert_eq!(parse_both("event: e\ndata: a\n\ndata: b\n\n"), vec![ev("e", "a", ""), msg("b")]);
}

#[test]
fn event_type_is_reset_even_without_dispatch() {
    assert_eq!(parse_both("event: e\n\ndata: b\n\n"), vec![msg("b")]);
}

#[test]
fn explicit_message_type() {
    assert_eq!(parse_both("event: message\ndata: x\n\n"), vec![msg("x")]);
}

// ---- id ------------------------------------------------------------

#[test]
fn id_is_reported_with_event_and_persists() {
    let mut parser = SseParser::new();
    let events = feed_chunks(&mut parser, &[b"id: 1\ndata: a\n\ndata: b\n\nid: 2\ndata: c\n\n"]);
    assert_eq!(events, vec![ev("message", "a", "1"), ev("message", "b", "1"), ev("message", "c", "2")]);
    assert_eq!(parser.last_event_id(), "2");
}

#[test]
fn id_after_data_in_same_event_applies_to_it() {
    assert_eq!(parse_both("data: a\nid: 5\n\n"), vec![ev("message", "a", "5")]);
}

#[test]
fn last_id_field_of_an_event_wins() {
    assert_eq!(parse_both("id: 1\nid: 2\ndata: a\n\n"), vec![ev("message", "a", "2")]);
}

#[test]
fn empty_id_resets_last_event_id() {
    let mut parser = SseParser::new();
    let events = feed_chunks(&mut parser, &[b"id: 1\ndata: a\n\nid:\ndata: b\n\n"]);
    assert_eq!(events, vec![ev("message", "a", "1"), msg("b")]);
    assert_eq!(parser.last_event_id(), "");
}

#[test]
fn id_without_data_updates_last_event_id_but_dispatches_nothing() {
    let mut parser = SseParser::new();
    assert!(feed_chunks(&mut parser, &[b"id: 7\n\n"]).is_empty());
    assert_eq!(parser.last_event_id(), "7");
    assert_eq!(feed_chunks(&mut parser, &[b"data: x\n\n"]), vec![ev("message", "x", "7")]);
}

#[test]
fn id_with_event_but_no_data_updates_id_only() {
    let mut parser = SseParser::new();
    assert_eq!(feed_chunks(&mut parser, &[b"event: e\nid: 8\n\ndata: x\n\n"]), vec![ev("message", "x", "8")]);
    assert_eq!(parser.last_event_id(), "8");
}

#[test]
fn id_takes_effect_only_at_the_blank_line() {
    let mut parser = SseParser::new();
    feed_chunks(&mut parser, &[b"id: 1\n\nid: 2\ndata: x\n"]);
    assert_eq!(parser.last_event_id(), "1");
    feed_chunks(&mut parser, &[b"\n"]);
    assert_eq!(parser.last_event_id(), "2");
}

#[test]
fn id_containing_nul_is_ignored() {
    let mut parser = SseParser::new();
    let events = feed_chunks(&mut parser, &[b"id: 1\n\nid: a\0b\ndata: x\n\nid: \0\ndata: y\n\n"]);
    assert_eq!(events, vec![ev("message", "x", "1"), ev("message", "y", "1")]);
    assert_eq!(parser.last_event_id(), "1");
}

#[test]
fn id_with_nul_does_not_clear_a_valid_id_of_same_event() {
    assert_eq!(parse_both("id: 3\nid: \0\ndata: x\n\n"), vec![ev("message", "x", "3")]);
}

#[test]
fn id_keeps_spaces_and_unicode() {
    assert_eq!(parse_both("id: a b \u{e9}\ndata: x\n\n"), vec![ev("message", "x", "a b \u{e9}")]);
}

// ---- retry ---------------------------------------------------------

fn retry_after(stream: &str) -> Option<Duration> {
    let mut parser = SseParser::new();
    feed_chunks(&mut parser, &[stream.as_bytes()]);
    parser.retry()
}

#[test]
fn retry_with_digits_is_set() {
    assert_eq!(retry_after("retry: 1000\n"), Some(Duration::from_millis(1000)));
    assert_eq!(retry_after("retry:1000\n"), Some(Duration::from_millis(1000)));
    assert_eq!(retry_after("retry: 0\n"), Some(Duration::ZERO));
    assert_eq!(retry_after("retry: 007\n"), Some(Duration::from_millis(7)));
}

#[test]
fn retry_takes_effect_without_a_blank_line() {
    let mut parser = SseParser::new();
    feed_chunks(&mut parser, &[b"data: x\nretry: 250\n"]);
    assert_eq!(parser.retry(), Some(Duration::from_millis(250)));
}

#[test]
fn retry_on_an_unterminated_line_is_not_applied_yet() {
    let mut parser = SseParser::new();
    feed_chunks(&mut parser, &[b"retry: 25"]);
    assert_eq!(parser.retry(), None);
    feed_chunks(&mut parser, &[b"0\r"]);
    assert_eq!(parser.retry(), Some(Duration::from_millis(250)));
}

#[test]
fn retry_with_non_digits_is_ignored() {
    for stream in [
        "retry: 10a0\n",
        "retry: -1\n",
        "retry: +1\n",
        "retry:  1000\n", // two spaces: the value is " 1000"
        "retry: 1000 \n",
        "retry: 1.5\n",
        "retry: 1e3\n",
        "retry: 0x10\n",
        "retry: \n",
        "retry:\n",
        "retry\n",
        "retry: \u{0661}\u{0662}\n", // Arabic-Indic digits are not ASCII digits
        "retry: \u{FF11}\n",         // fullwidth 1
        "retry: 1\u{0}\n",
        "Retry: 1000\n",
    ] {
        assert_eq!(retry_after(stream), None, "{stream:?}");
    }
}

#[test]
fn invalid_retry_keeps_the_previous_value() {
    assert_eq!(retry_after("retry: 500\nretry: x\nretry: -1\n"), Some(Duration::from_millis(500)));
}

#[test]
fn latest_valid_retry_wins() {
    assert_eq!(retry_after("retry: 500\nretry: 3000\n"), Some(Duration::from_millis(3000)));
}

#[test]
fn huge_retry_saturates() {
    assert_eq!(retry_after("retry: 99999999999999999999999999\n"), Some(Duration::from_millis(u64::MAX)));
    assert_eq!(retry_after("retry: 18446744073709551615\n"), Some(Duration::from_millis(18_446_744_073_709_551_615)));
}

#[test]
fn retry_does_not_affect_dispatch() {
    assert_eq!(parse_both("retry: 10\ndata: x\n\nretry: 20\n\n"), vec![msg("x")]);
}

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
