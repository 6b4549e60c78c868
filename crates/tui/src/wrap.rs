//! Styled lines wrapped to a width at word boundaries (a word longer than the width is cut),
//! so the chat can be laid out, counted and scrolled from its last line. A wrapped line's
//! rows after the first hang under its text: past its indent and its marker (a bullet, a
//! number, `↳`, or a label such as "You:" in a span of its own). Pure.

use ratatui::text::{Line, Span};
use unicode_width::UnicodeWidthStr;

/// Every line of `lines` wrapped to `width` columns (at least one).
pub fn wrap_all(lines: &[Line<'static>], width: usize) -> Vec<Line<'static>> {
    lines.iter().flat_map(|line| wrap(line, width)).collect()
}

/// Collects the rows of one wrapped line.
struct Rows {
    width: usize,
    /// Columns a row after the first starts with.
    hang: usize,
    done: Vec<Line<'static>>,
    current: Vec<Span<'static>>,
    used: usize,
}

impl Rows {
    fn push(&mut self, text: &str, style: ratatui::style::Style) {
        let width = text.width();
        let blank = text.trim().is_empty();
        // A word no row could hold is cut where it stands; any other moves to the next row.
        let fits_a_row = width <= self.width - self.hang;
        if self.used + width > self.width && !self.at_row_start() && (blank || fits_a_row) {
            self.finish_row();
            if blank {
                return;
            }
        }
        if blank && self.at_row_start() && !self.done.is_empty() {
            return;
        }
        if self.used + width <= self.width {
            self.current.push(Span::styled(text.to_owned(), style));
            self.used += width;
            return;
        }
        for ch in text.chars() {
            let char_width = ch.to_string().width();
            if self.used + char_width > self.width && !self.at_row_start() {
                self.finish_row();
            }
            self.current.push(Span::styled(ch.to_string(), style));
            self.used += char_width;
        }
    }

    fn at_row_start(&self) -> bool {
        self.used == 0 || (!self.done.is_empty() && self.used == self.hang)
    }

    /// Ends the row; the next one starts hanging under the text.
    fn finish_row(&mut self) {
        while self.current.len() > 1
            && self.current.last().is_some_and(|s| s.content.trim().is_empty())
        {
            self.current.pop();
        }
        self.done.push(Line::from(std::mem::take(&mut self.current)));
        self.used = self.hang;
        if self.hang > 0 {
            self.current.push(Span::raw(" ".repeat(self.hang)));
        }
    }
}

/// Markers a line's text may start with (after its indent), each followed by a space.
const MARKERS: &[&str] =
    &["•", "◦", "-", "*", "›", "▸", "▾", "↳", "?", "✓", "✗", "▶", "○", "↺", ">"];

/// The columns the rows after a line's first hang by: its indent and its marker, when the
/// marker leaves at least half of `width` for the text; 0 otherwise.
fn hang(line: &Line<'static>, width: usize) -> usize {
    let text: String = line.spans.iter().map(|span| span.content.as_ref()).collect();
    let rest = text.trim_start_matches(' ');
    let indent = text.len() - rest.len();
    let word = rest.split(' ').next().unwrap_or("");
    let numbered = word.len() > 1
        && (word.ends_with('.') || word.ends_with(')'))
        && word[..word.len() - 1].chars().all(|ch| ch.is_ascii_digit());
    let label = line.spans.len() > 1
        && indent == 0
        && line.spans[0].content.ends_with(": ")
        && line.spans[0].content.width() <= 16;
    let marker = if label {
        line.spans[0].content.width()
    } else if (MARKERS.contains(&word) || numbered) && rest.len() > word.len() {
        word.width() + rest[word.len()..].len() - rest[word.len()..].trim_start_matches(' ').len()
    } else {
        0
    };
    let hang = indent + marker;
    if hang * 2 <= width {
        hang
    } else {
        0
    }
}

/// One line wrapped: its words in order, each row at most `width` columns.
pub fn wrap(line: &Line<'static>, width: usize) -> Vec<Line<'static>> {
    let width = width.max(1);
    let hang = hang(line, width);
    let mut rows = Rows { width, hang, done: Vec::new(), current: Vec::new(), used: 0 };
    for span in &line.spans {
        for token in tokens(&span.content) {
            rows.push(token, span.style);
        }
    }
    if !rows.at_row_start() || rows.done.is_empty() {
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
            ("- one two three", 9, &["- one two", "  three"]),
            ("  12. one two three", 13, &["  12. one two", "      three"]),
            ("↳ abcdefghij", 6, &["↳ abcd", "  efgh", "  ij"]),
            ("•no marker here", 8, &["•no", "marker", "here"]),
            ("- x y", 3, &["- x", "y"]),
        ];
        for (text, width, expected) in cases {
            let wrapped = wrap(&Line::from(text.to_string()), *width);
            assert_eq!(texts(&wrapped), *expected, "{text:?} at {width}");
        }
    }

    #[test]
    fn a_label_in_a_span_of_its_own_hangs_its_rows() {
        let line = Line::from(vec![Span::raw("You: "), Span::raw("one two three four")]);
        assert_eq!(texts(&wrap(&line, 14)), ["You: one two", "     three", "     four"]);
        let one_span = Line::from("Note: one two three four");
        assert_eq!(texts(&wrap(&one_span, 14)), ["Note: one two", "three four"]);
    }
}
