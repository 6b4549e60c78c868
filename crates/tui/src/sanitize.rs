//! Text from the model, tools and the store made inert for a terminal: no control character
//! (escape sequences above all) reaches the screen. Tabs become spaces, carriage returns go.

/// `text` with every control character but the line break removed; a tab is four spaces.
pub fn inert(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for ch in text.chars() {
        match ch {
            '\n' => out.push('\n'),
            '\t' => out.push_str("    "),
            ch if ch.is_control() => {}
            // Bidirectional overrides can reorder what the user reads.
            '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' => {}
            ch => out.push(ch),
        }
    }
    out
}

/// [`inert`] on one line: line breaks become spaces.
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
            ("\u{202e}evil", "evil"),
            ("\u{9b}31m", "31m"),
        ];
        for (input, expected) in cases {
            assert_eq!(inert(input), expected, "{input:?}");
        }
        assert_eq!(one_line("a\nb"), "a b");
    }
}
