//! The colours and marks of the terminal front end: the eight basic colours the terminal's
//! own theme defines (so they read on light and dark backgrounds alike), never yellow or blue
//! text, and with `NO_COLOR` set no colour at all: bold, dim and reverse video only.

use ratatui::style::{Color, Modifier, Style};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Theme {
    pub colour: bool,
}

impl Theme {
    /// Colour unless `NO_COLOR` is set to anything but the empty string (no-color.org).
    pub fn from_env(no_color: Option<std::ffi::OsString>) -> Theme {
        Theme { colour: no_color.is_none_or(|value| value.is_empty()) }
    }

    fn tint(self, colour: Color) -> Style {
        if self.colour {
            Style::new().fg(colour)
        } else {
            Style::new()
        }
    }

    /// Headings, the user's name for themselves, the active task.
    pub fn accent(self) -> Style {
        self.tint(Color::Cyan).add_modifier(Modifier::BOLD)
    }

    pub fn ok(self) -> Style {
        self.tint(Color::Green)
    }

    pub fn bad(self) -> Style {
        let style = self.tint(Color::Red);
        if self.colour {
            style
        } else {
            style.add_modifier(Modifier::BOLD)
        }
    }

    /// What waits for the user (a change asked, a question).
    pub fn warn(self) -> Style {
        self.tint(Color::Magenta).add_modifier(Modifier::BOLD)
    }

    pub fn dim(self) -> Style {
        Style::new().add_modifier(Modifier::DIM)
    }

    pub fn bold(self) -> Style {
        Style::new().add_modifier(Modifier::BOLD)
    }

    /// Inline code and code blocks.
    pub fn code(self) -> Style {
        self.tint(Color::Magenta)
    }

    /// The chosen row of a card or list: reverse video reads on every background.
    pub fn selected(self) -> Style {
        Style::new().add_modifier(Modifier::REVERSED)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_color_set_to_anything_but_empty_turns_colour_off() {
        assert!(Theme::from_env(None).colour);
        assert!(Theme::from_env(Some("".into())).colour);
        assert!(!Theme::from_env(Some("1".into())).colour);
        assert_eq!(Theme { colour: false }.accent().fg, None);
    }
}
