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

mod fields;
mod limits;
mod lines;
mod model;
