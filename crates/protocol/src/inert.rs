//! Text from a model, a repository or a server made inert for a terminal: the one function
//! every terminal output of Preflight passes such text through (`preflight tasks`,
//! `preflight dwp`, `preflight chat`). No control character reaches the screen, so no escape
//! sequence can recolour it, move the cursor, retitle the window or write the clipboard
//! (OSC 52). Pure.
//!
//! **Invariant:** the output holds no C0 or C1 control character but the line break (and
//! none at all from [`one_line`]), and no bidirectional override or isolate.

/// `text` with every control character but the line break removed; a tab is four spaces.
pub fn inert(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for ch in text.chars() {
        match ch {
            '\n' => out.push('\n'),
            '\t' => out.push_str("    "),
            ch if ch.is_control() => {}
            // Bidirectional overrides and isolates can reorder what the user reads.
            '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' => {}
            ch => out.push(ch),
        }
    }
    out
}

/// [`inert`] on one line: line breaks become spaces, so a title cannot fake a line of its own.
pub fn one_line(text: &str) -> String {
    inert(text).replace('\n', " ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escape_sequences_and_control_characters_are_dropped() {
        let cases = [
            ("plain", "plain"),
            ("\x1b[31mred\x1b[0m", "[31mred[0m"),
            ("a\tb", "a    b"),
            ("line\r\nnext", "line\nnext"),
            ("bell\x07 osc\x1b]0;title\x07", "bell osc]0;title"),
            ("clip\x1b]52;c;ZXZpbA==\x1b\\", "clip]52;c;ZXZpbA==\\"),
            ("\u{202e}evil", "evil"),
            ("\u{2066}iso\u{2069}", "iso"),
            ("\u{9b}31m", "31m"),
            ("ё и 日本", "ё и 日本"),
        ];
        for (input, expected) in cases {
            assert_eq!(inert(input), expected, "{input:?}");
        }
        assert_eq!(one_line("a\nb"), "a b");
    }
}
