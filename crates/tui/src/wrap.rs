//! Styled lines wrapped to a width at word boundaries (a word longer than the width is cut),
//! so the chat can be laid out, counted and scrolled from its last line. Pure.

use ratatui::text::{Line, Span};
use unicode_width::UnicodeWidthStr;

/// Every line of `lines` wrapped to `width` columns (at least one).
pub fn wrap_all(lines: &[Line<'static>], width: usize) -> Vec<Line<'static>> {
    lines.iter().flat_map(|line| wrap(line, width)).collect()
}

/// Collects the rows of one wrapped line.
struct Rows {
    width: usize,
    done: Vec<Line<'static>>,
    current: Vec<Span<'static>>,
    used: usize,
}

impl Rows {
    fn push(&mut self, text: &str, style: ratatui::style::Style) {
        let width = text.width();
        let blank = text.trim().is_empty();
        if self.used + width > self.width && self.used > 0 {
            self.finish_row();
            if blank {
                return;
            }
        }
        if blank && self.used == 0 && !self.done.is_empty() {
            return;
        }
        if width <= self.width {
            self.current.push(Span::styled(text.to_owned(), style));
            self.used += width;
            return;
        }
        for ch in text.chars() {
            let char_width = ch.to_string().width();
            if self.used + char_width > self.width && self.used > 0 {
                self.finish_row();
            }
            self.current.push(Span::styled(ch.to_string(), style));
            self.used += char_width;
        }
    }

    fn finish_row(&mut self) {
        self.done.push(Line::from(std::mem::take(&mut self.current)));
        self.used = 0;
    }
}

/// One line wrapped: its words in order, each row at most `width` columns.
pub fn wrap(line: &Line<'static>, width: usize) -> Vec<Line<'static>> {
    let mut rows = Rows { width: width.max(1), done: Vec::new(), current: Vec::new(), used: 0 };
    for span in &line.spans {
        for token in tokens(&span.content) {
            rows.push(token, span.style);
        }
    }
    if !rows.current.is_empty() || rows.done.is_empty() {
        rows.finish_row();
    }
    rows.done
}

/// `text` cut into runs of whitespace and runs of anything else.
fn tokens(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut blank = None;
    for (index, ch) in text.char_indices() {
        let is_blank = ch.is_whitespace();
        if blank.is_some_and(|was| was != is_blank) {
            out.push(&text[start..index]);
            start = index;
        }
        blank = Some(is_blank);
    }
    if start < text.len() {
        out.push(&text[start..]);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(lines: &[Line<'static>]) -> Vec<String> {
        lines.iter().map(|line| line.to_string()).collect()
    }

    #[test]
    fn lines_wrap_at_words_and_long_words_are_cut() {
        let cases: &[(&str, usize, &[&str])] = &[
            ("short", 10, &["short"]),
            ("", 10, &[""]),
            ("one two three", 7, &["one two", "three"]),
            ("  indented code", 40, &["  indented code"]),
            ("abcdefghij", 4, &["abcd", "efgh", "ij"]),
            ("Готово 1 из 3", 8, &["Готово 1", "из 3"]),
        ];
        for (text, width, expected) in cases {
            let wrapped = wrap(&Line::from(text.to_string()), *width);
            assert_eq!(texts(&wrapped), *expected, "{text:?} at {width}");
        }
    }
}
