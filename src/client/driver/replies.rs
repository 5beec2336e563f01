//! The client's answers to server requests on their way out. Each is a send
//! of its own (a POST over Streamable HTTP), and a server that sends pings
//! (or requests the client refuses at once) faster than their answers go
//! out would otherwise have one exchange in flight for each: without bound.
//! So at most [`MAX_IN_FLIGHT`] answers are sent at once and the rest wait
//! here, in order, up to [`MAX_HELD`]; past that an answer made at once
//! (a ping's, a refusal) is dropped, while an answer of the app's handlers
//! is always kept: those waiting here count against the running handlers'
//! limit (`MAX_RUNNING_HANDLERS`), so there are never more of them.

use std::collections::VecDeque;

use crate::protocol::Message;

/// How many answers are sent at once.
pub(super) const MAX_IN_FLIGHT: usize = 32;

/// How many answers may wait for a send before one made at once is
/// dropped.
pub(super) const MAX_HELD: usize = 1_024;

/// Where an answer came from, which says whether it may be dropped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Made {
    /// By the loop itself (a ping's answer, a refusal): the server flooding
    /// us with these loses the ones past [`MAX_HELD`].
    AtOnce,
    /// By an app's handler, which the server's request started.
    ByHandler,
}

#[derive(Debug, Default)]
pub(super) struct Replies {
    in_flight: usize,
    held: VecDeque<(Message, Made)>,
    /// How many of `held` are handlers' answers.
    held_by_handlers: usize,
    /// Answers dropped since the last warning about them.
    dropped: u64,
}

impl Replies {
    /// Takes an answer: the answer to send now, if it may go now; else it
    /// waits (or, made at once with [`MAX_HELD`] waiting, is dropped).
    pub(super) fn admit(&mut self, answer: Message, made: Made) -> Option<Message> {
        if self.in_flight < MAX_IN_FLIGHT && self.held.is_empty() {
            self.in_flight += 1;
            return Some(answer);
        }
        if made == Made::AtOnce && self.held.len() >= MAX_HELD {
            if self.dropped == 0 {
                log::warn!(
                    "the server sends requests faster than their answers go out: {MAX_HELD} answers wait, so this one and the next are dropped"
                );
            }
            self.dropped += 1;
            return None;
        }
        if made == Made::ByHandler {
            self.held_by_handlers += 1;
        }
        self.held.push_back((answer, made));
        None
    }

    /// How many handlers' answers wait for a send.
    pub(super) fn held_by_handlers(&self) -> usize {
        self.held_by_handlers
    }

    /// One answer's send ended: the next one to send, if one waits.
    pub(super) fn sent(&mut self) -> Option<Message> {
        self.in_flight = self.in_flight.saturating_sub(1);
        let (next, made) = self.held.pop_front()?;
        if made == Made::ByHandler {
            self.held_by_handlers -= 1;
        }
        self.in_flight += 1;
        if self.held.is_empty() && self.dropped > 0 {
            log::warn!("the answers caught up; {} answers to the server's requests were dropped", self.dropped);
            self.dropped = 0;
        }
        Some(next)
    }

    /// The transport is gone: nothing waiting can be sent.
    pub(super) fn clear(&mut self) {
        self.held.clear();
        self.held_by_handlers = 0;
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::protocol::RequestId;

    fn answer(id: i64) -> Message {
        Message::result(RequestId::Int(id), json!({}))
    }

    fn id_of(message: &Message) -> Option<i64> {
        match message {
            Message::Response(response) => match response.id {
                Some(RequestId::Int(id)) => Some(id),
                _ => None,
            },
            _ => None,
        }
    }

    #[test]
    fn past_the_sends_in_flight_answers_wait_in_order_and_past_the_held_ones_only_handlers_are_kept() {
        let mut replies = Replies::default();
        for id in 0..MAX_IN_FLIGHT as i64 {
            assert_eq!(replies.admit(answer(id), Made::AtOnce).as_ref().and_then(id_of), Some(id));
        }
        let held = MAX_IN_FLIGHT as i64..(MAX_IN_FLIGHT + MAX_HELD) as i64;
        for id in held.clone() {
            assert!(replies.admit(answer(id), Made::AtOnce).is_none());
        }
        // Full: one made at once is dropped, a handler's waits.
        assert!(replies.admit(answer(-1), Made::AtOnce).is_none());
        assert!(replies.admit(answer(-2), Made::ByHandler).is_none());
        assert_eq!(replies.held_by_handlers(), 1);
        let mut order = Vec::new();
        while let Some(next) = replies.sent() {
            order.extend(id_of(&next));
        }
        let expected: Vec<i64> = held.chain([-2]).collect();
        assert_eq!(order, expected);
        assert_eq!(replies.held_by_handlers(), 0);
        // Every send ended: the next answer goes at once again.
        for _ in 0..MAX_IN_FLIGHT {
            replies.sent();
        }
        assert_eq!(replies.admit(answer(7), Made::AtOnce).as_ref().and_then(id_of), Some(7));
    }
}
