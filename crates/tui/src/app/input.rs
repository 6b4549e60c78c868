//! Editing the input line: the cursor, kept as the number of characters after it, so that
//! 0 is the end, where typing starts. Text set or cleared elsewhere leaves the cursor at the
//! end (each edit first clamps it to the text).
//!
//! ← → Home End move it (Ctrl+A, Ctrl+E too); Backspace and Delete remove a character;
//! Ctrl+W the word before it, Ctrl+U everything before it, Ctrl+K everything after it.

use crate::app::state::App;

/// One change to the input or its cursor.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Edit {
    Left,
    Right,
    Home,
    End,
    Backspace,
    Delete,
    WordBefore,
    AllBefore,
    AllAfter,
}

impl App {
    /// Where the cursor is, as a byte index into the input.
    pub fn cursor_byte(&self) -> usize {
        match self.back.min(self.input.chars().count()) {
            0 => self.input.len(),
            back => self.input.char_indices().rev().nth(back - 1).map_or(0, |(at, _)| at),
        }
    }

    /// `text` typed or pasted at the cursor.
    pub fn insert_text(&mut self, text: &str) {
        self.back = self.back.min(self.input.chars().count());
        let at = self.cursor_byte();
        self.input.insert_str(at, text);
    }

    /// Clears the input, the cursor at its end.
    pub fn clear_input(&mut self) {
        self.input.clear();
        self.back = 0;
    }

    pub fn edit(&mut self, edit: Edit) {
        let count = self.input.chars().count();
        self.back = self.back.min(count);
        let at = self.cursor_byte();
        match edit {
            Edit::Left => self.back = (self.back + 1).min(count),
            Edit::Right => self.back = self.back.saturating_sub(1),
            Edit::Home => self.back = count,
            Edit::End => self.back = 0,
            Edit::Backspace => {
                if let Some((start, _)) = self.input[..at].char_indices().next_back() {
                    self.input.replace_range(start..at, "");
                }
            }
            Edit::Delete => {
                if let Some(ch) = self.input[at..].chars().next() {
                    self.input.replace_range(at..at + ch.len_utf8(), "");
                    self.back -= 1;
                }
            }
            Edit::WordBefore => {
                let before = self.input[..at].trim_end_matches(char::is_whitespace);
                let start = before.trim_end_matches(|ch: char| !ch.is_whitespace()).len();
                self.input.replace_range(start..at, "");
            }
            Edit::AllBefore => self.input.replace_range(..at, ""),
            Edit::AllAfter => {
                self.input.truncate(at);
                self.back = 0;
            }
        }
    }
}
