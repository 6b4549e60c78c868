//! The planner's progress while it drafts (issue 48): its words are not shown until they are
//! a card, so the chat is told how far it got instead — every twentieth word and every look at
//! the workspace becomes a `drafting` event, and a slow model's draft is seen moving.

use std::sync::{Mutex, PoisonError};

use preflight_agent::events::Event;
use preflight_agent::EventSink;
use preflight_protocol::ids::ChatId;

use crate::lifecycle::hub::Hub;

/// Words between two `drafting` events.
const WORDS_PER_EVENT: u32 = 20;

/// The sink a planner turn streams into: counts, and tells the chat.
pub(super) struct Drafting<'a> {
    hub: &'a Hub,
    chat_id: &'a ChatId,
    counts: Mutex<Counts>,
}

impl<'a> Drafting<'a> {
    pub(super) fn new(hub: &'a Hub, chat_id: &'a ChatId) -> Drafting<'a> {
        Drafting { hub, chat_id, counts: Mutex::new(Counts::default()) }
    }
}

impl EventSink for Drafting<'_> {
    fn emit(&self, event: Event) {
        let mut counts = self.counts.lock().unwrap_or_else(PoisonError::into_inner);
        let tell = match event {
            Event::Delta { text, .. } => counts.read(&text),
            // A call's start (its end comes again with a result or an error).
            Event::Tool { result: None, error: None, .. } => {
                counts.looked_at += 1;
                true
            }
            _ => false,
        };
        if tell {
            let (words, looked_at) = (counts.words, counts.looked_at);
            drop(counts);
            self.hub.emit(self.chat_id, Event::Drafting { words, looked_at });
        }
    }
}

#[derive(Debug, Default)]
struct Counts {
    words: u32,
    looked_at: u32,
    /// Whether the last character read was inside a word (a word may span two deltas).
    in_word: bool,
    /// The word count the chat was last told.
    told: u32,
}

impl Counts {
    /// Counts the words `text` starts; whether the chat should be told now.
    fn read(&mut self, text: &str) -> bool {
        for ch in text.chars() {
            if ch.is_whitespace() {
                self.in_word = false;
            } else if !self.in_word {
                self.in_word = true;
                self.words += 1;
            }
        }
        let due = self.words >= self.told + WORDS_PER_EVENT;
        if due {
            self.told = self.words;
        }
        due
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_are_counted_across_deltas_and_told_every_twentieth() {
        let mut counts = Counts::default();
        let told: Vec<bool> = ["The plan", "ner wri", "tes ", &"word ".repeat(16), "more"]
            .iter()
            .map(|delta| counts.read(delta))
            .collect();
        // "The", "planner", "writes" (split over deltas), 16 × "word", "more".
        assert_eq!(counts.words, 20);
        assert_eq!(told, [false, false, false, false, true]);
        assert!(!counts.read(" and"), "the next event waits for twenty more");
        assert_eq!(counts.words, 21);
    }
}
