//! The terminal's notice (DESIGN §15 "Notice"): when a card starts waiting or a run ends in
//! any chat (the engine's `attention`), the terminal's bell rings, and a terminal known to
//! turn OSC 9 (`ESC ] 9 ; text BEL`) into a desktop notification is sent the chat's title and
//! what waits. Off with `--no-bell`.
//!
//! OSC 9 goes only to the terminals that take it (iTerm2, WezTerm, Ghostty, told by
//! `TERM_PROGRAM` or, over ssh, iTerm2's `LC_TERMINAL`): others may print it, or read it as
//! one of their own OSC 9 commands (ConEmu's). Inside tmux `TERM_PROGRAM` is tmux's, so the
//! bell alone goes, which tmux passes on.

use std::io::Write;

use preflight_engine::lifecycle::Attended;

use crate::locale::Words;

const BEL: u8 = 0x07;
/// The longest text an OSC 9 carries, in characters; the title is cut first.
const MAX_TEXT: usize = 200;

/// How the terminal is told.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Bell {
    /// The terminal takes OSC 9.
    pub osc9: bool,
}

impl Bell {
    /// The bell for the terminal the environment (read through `var`) names.
    pub fn for_terminal(var: impl Fn(&str) -> Option<String>) -> Bell {
        let program = var("TERM_PROGRAM").unwrap_or_default();
        let osc9 = matches!(program.as_str(), "iTerm.app" | "WezTerm" | "ghostty")
            || (program.is_empty() && var("LC_TERMINAL").as_deref() == Some("iTerm2"));
        Bell { osc9 }
    }

    /// The bytes that tell the terminal `attended`: the bell, then the OSC 9 where taken.
    pub fn bytes(self, attended: &Attended, words: &Words) -> Vec<u8> {
        let mut bytes = vec![BEL];
        if self.osc9 {
            let text = text(&attended.title, words.attention(attended.waiting));
            bytes.extend_from_slice(b"\x1b]9;");
            bytes.extend_from_slice(text.as_bytes());
            bytes.push(BEL);
        }
        bytes
    }

    /// Writes them out at once (they move nothing on the screen).
    pub fn ring(self, out: &mut impl Write, attended: &Attended, words: &Words) {
        let _ = out.write_all(&self.bytes(attended, words)).and_then(|()| out.flush());
    }
}

/// "Title: what waits", without a control character that could end the sequence early or
/// start another (a title is the model's or the user's words), at most [`MAX_TEXT`] long.
fn text(title: &str, what: &str) -> String {
    let clean = |text: &str| -> String {
        text.chars().map(|c| if c.is_control() { ' ' } else { c }).collect()
    };
    let what = clean(what);
    let room = MAX_TEXT.saturating_sub(what.chars().count() + 2);
    let mut title = clean(title).trim().to_owned();
    if title.is_empty() {
        title = "Preflight".to_owned();
    }
    // A text that opens with a number and `;` is a ConEmu subcommand to some terminals (a
    // tab's title, a progress bar), not a notification.
    if title.starts_with(|c: char| c.is_ascii_digit()) {
        title = format!("Preflight: {title}");
    }
    let title: String = title.chars().take(room).collect();
    format!("{title}: {what}")
}

#[cfg(test)]
mod tests {
    use preflight_engine::lifecycle::Waiting;

    use super::*;
    use crate::locale::{EN, RU};

    fn attended(title: &str, waiting: Waiting) -> Attended {
        Attended { chat_id: "c".into(), title: title.into(), waiting }
    }

    fn terminal(vars: &[(&str, &str)]) -> Bell {
        Bell::for_terminal(|name| {
            vars.iter().find(|(key, _)| *key == name).map(|(_, value)| value.to_string())
        })
    }

    #[test]
    fn the_bell_always_and_osc_9_where_the_terminal_takes_it() {
        let plan = attended("Export orders", Waiting::Plan);
        let osc9 = b"\x07\x1b]9;Export orders: The plan waits for your approval\x07".to_vec();
        for vars in [
            &[("TERM_PROGRAM", "iTerm.app")][..],
            &[("TERM_PROGRAM", "WezTerm")],
            &[("TERM_PROGRAM", "ghostty")],
        ] {
            assert_eq!(terminal(vars).bytes(&plan, &EN), osc9, "{vars:?}");
        }
        assert_eq!(terminal(&[("LC_TERMINAL", "iTerm2")]).bytes(&plan, &EN), osc9, "over ssh");
        for vars in [
            &[("TERM", "xterm-256color")][..],
            &[("TERM_PROGRAM", "tmux"), ("LC_TERMINAL", "iTerm2")],
            &[("TERM_PROGRAM", "Apple_Terminal")],
            &[],
        ] {
            assert_eq!(terminal(vars).bytes(&plan, &EN), b"\x07", "{vars:?}: the bell alone");
        }
    }

    #[test]
    fn the_text_cannot_break_out_of_the_sequence_and_keeps_its_language() {
        let bell = Bell { osc9: true };
        let sneaky = attended("Fix\x07\x1b]0;owned\x1b\\ it\u{9c}", Waiting::Stopped);
        let bytes = bell.bytes(&sneaky, &EN);
        assert_eq!(bytes.iter().filter(|&&byte| byte == BEL).count(), 2, "{bytes:?}");
        assert_eq!(bytes.iter().filter(|&&byte| byte == 0x1b).count(), 1, "{bytes:?}");
        assert!(bytes.ends_with(b"Fix  ]0;owned \\ it: Stopped with tasks left\x07"), "{bytes:?}");
        let russian = bell.bytes(&attended("Экспорт", Waiting::Done), &RU);
        assert_eq!(russian, "\x07\x1b]9;Экспорт: Готово\x07".as_bytes());
        let long = bell.bytes(&attended(&"x".repeat(500), Waiting::Failed), &EN);
        let text = String::from_utf8(long[5..long.len() - 1].to_vec()).unwrap();
        assert_eq!(text.chars().count(), MAX_TEXT);
        assert!(text.ends_with(": The run failed"), "{text}");
        let untitled = bell.bytes(&attended(" ", Waiting::Questions), &EN);
        assert!(untitled.starts_with(b"\x07\x1b]9;Preflight: "), "{untitled:?}");
        let numbered = bell.bytes(&attended("4;1;50", Waiting::Plan), &EN);
        assert!(numbered.starts_with(b"\x07\x1b]9;Preflight: 4;1;50: "), "{numbered:?}");
    }
}
