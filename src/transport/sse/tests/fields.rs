//! Reading fields: comments, values, the event type, the id and retry.

use super::*;

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
