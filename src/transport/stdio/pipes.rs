//! The pipes: writing lines to the server's stdin, reading its stdout as
//! newline-delimited JSON-RPC (oversized and malformed lines reported and
//! skipped) and its stderr into the caller's callback and a short tail.

use super::*;
use crate::cause::Cause;

pub(super) fn stdin_closed() -> TransportError {
    TransportError::Closed("the server's stdin is closed".into())
}

pub(super) async fn write_loop(mut stdin: ChildStdin, mut outgoing: mpsc::UnboundedReceiver<Outgoing>) {
    while let Some((line, done)) = outgoing.recv().await {
        let written = async {
            stdin.write_all(line.as_bytes()).await?;
            stdin.flush().await
        }
        .await;
        match written {
            Ok(()) => {
                let _ = done.send(Ok(()));
            }
            Err(e) => {
                let error = if e.kind() == io::ErrorKind::BrokenPipe {
                    stdin_closed()
                } else {
                    TransportError::Io(Cause::with_source(format!("writing to the server's stdin: {e}"), e))
                };
                let _ = done.send(Err(error));
                // Lines still queued fail with `stdin_closed` when their
                // senders are dropped with the receiver.
                return;
            }
        }
    }
}

/// Reads one line into `line`, keeping at most `keep` bytes of it and
/// discarding the rest as it streams by. Returns the line's full length
/// without the newline and whether it ends with `\r`, or `None` at end of input.
pub(super) async fn read_line_capped<R: AsyncBufRead + Unpin>(
    reader: &mut R,
    keep: usize,
    line: &mut Vec<u8>,
) -> io::Result<Option<(usize, bool)>> {
    line.clear();
    let mut total = 0usize;
    let mut any = false;
    let mut last_byte = None;
    loop {
        let available = reader.fill_buf().await?;
        if available.is_empty() {
            return Ok(any.then_some((total, last_byte == Some(b'\r'))));
        }
        any = true;
        let (chunk, used, complete) = match available.iter().position(|&b| b == b'\n') {
            Some(at) => (&available[..at], at + 1, true),
            None => (available, available.len(), false),
        };
        let room = keep.saturating_sub(line.len());
        line.extend_from_slice(&chunk[..chunk.len().min(room)]);
        total = total.saturating_add(chunk.len());
        if let Some(&byte) = chunk.last() {
            last_byte = Some(byte);
        }
        reader.consume(used);
        if complete {
            return Ok(Some((total, last_byte == Some(b'\r'))));
        }
    }
}

/// One line of output, with a `\r\n` ending tolerated.
pub(super) enum Line<'a> {
    Whole(&'a [u8]),
    TooLong { kept: &'a [u8], total: usize },
}

/// Reads the next line with at most `max` bytes of content.
pub(super) async fn next_line<'a, R: AsyncBufRead + Unpin>(
    reader: &mut R,
    max: usize,
    buffer: &'a mut Vec<u8>,
) -> io::Result<Option<Line<'a>>> {
    // One spare byte so that a `\r` after exactly `max` bytes is not mistaken for content.
    let Some((mut total, carriage_return)) = read_line_capped(reader, max.saturating_add(1), buffer).await? else {
        return Ok(None);
    };
    if carriage_return {
        if total == buffer.len() {
            buffer.pop();
        }
        total -= 1;
    }
    let buffer: &'a Vec<u8> = buffer;
    Ok(Some(if total > max {
        let kept = buffer.len().min(max);
        Line::TooLong { kept: &buffer[..kept], total }
    } else {
        Line::Whole(buffer)
    }))
}

pub(super) fn preview(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(bytes);
    match text.char_indices().nth(PREVIEW_CHARS) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text.into_owned(),
    }
}

/// What one stdout line yields: messages, and warnings for what was skipped.
pub(super) fn decode_line(line: &[u8]) -> Vec<Result<Message, String>> {
    let Ok(text) = std::str::from_utf8(line) else {
        return vec![Err(format!("skipping a stdout line that is not UTF-8: {}", preview(line)))];
    };
    if text.trim().is_empty() {
        return Vec::new();
    }
    match jsonrpc::decode(text) {
        Ok(items) => items
            .into_iter()
            .map(|item| {
                item.map_err(|e| format!("skipping an invalid message from the server ({e}): {}", preview(line)))
            })
            .collect(),
        Err(e) => vec![Err(format!("skipping a stdout line that is not a JSON-RPC message ({e}): {}", preview(line)))],
    }
}

pub(super) async fn read_stdout<R: AsyncBufRead + Unpin>(
    mut stdout: R,
    max_line_bytes: usize,
    events: mpsc::UnboundedSender<TransportEvent>,
) {
    let mut buffer = Vec::new();
    loop {
        match next_line(&mut stdout, max_line_bytes, &mut buffer).await {
            Ok(Some(Line::Whole(line))) => {
                for item in decode_line(line) {
                    match item {
                        Ok(message) => {
                            if events.send(TransportEvent::Message(message)).is_err() {
                                return;
                            }
                        }
                        Err(warning) => log::warn!("{warning}"),
                    }
                }
            }
            Ok(Some(Line::TooLong { kept, total })) => {
                log::warn!("skipping a stdout line of {total} bytes (the limit is {max_line_bytes}): {}", preview(kept))
            }
            Ok(None) => return,
            Err(e) => {
                log::warn!("reading the server's stdout: {e}");
                return;
            }
        }
    }
}

pub(super) async fn read_stderr<R: AsyncBufRead + Unpin>(
    mut stderr: R,
    on_line: StderrCallback,
    tail: Tail,
    keep: usize,
) {
    let mut buffer = Vec::new();
    let mut callback_failed = false;
    loop {
        let text = match next_line(&mut stderr, STDERR_LINE_MAX, &mut buffer).await {
            Ok(Some(Line::Whole(line))) => String::from_utf8_lossy(line).into_owned(),
            Ok(Some(Line::TooLong { kept, total })) => {
                format!("{}… ({total} bytes)", String::from_utf8_lossy(kept))
            }
            Ok(None) => return,
            Err(e) => {
                log::debug!("reading the server's stderr: {e}");
                return;
            }
        };
        if !callback_failed {
            // A panicking callback must not stop this loop: a server whose
            // stderr pipe fills up blocks.
            let called = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| on_line(&text)));
            if called.is_err() {
                callback_failed = true;
                log::warn!("the stderr callback panicked; later stderr lines are only kept for error messages");
            }
        }
        if keep > 0 {
            let mut tail = tail.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
            if tail.len() >= keep {
                tail.pop_front();
            }
            tail.push_back(text);
        }
    }
}
