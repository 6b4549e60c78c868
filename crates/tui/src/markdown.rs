//! The model's Markdown as styled terminal lines (pulldown-cmark): headings, bold, italic,
//! code spans, fenced code blocks, lists, quotes, links with their address. The text is made
//! inert first (`sanitize`), and each piece again after the parser (which decodes entities
//! such as `&#27;`), so nothing the model writes becomes a terminal control. Pure.

use pulldown_cmark::{Event, HeadingLevel, Parser, Tag, TagEnd};
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};

use crate::sanitize::inert;
use crate::theme::Theme;

/// `markdown` as lines (no trailing blank line), unwrapped.
pub fn markdown_lines(markdown: &str, theme: Theme) -> Vec<Line<'static>> {
    let text = inert(markdown);
    let mut writer = Writer {
        theme,
        lines: Vec::new(),
        current: Vec::new(),
        styles: Vec::new(),
        lists: Vec::new(),
        links: Vec::new(),
        in_code_block: false,
        quotes: 0,
    };
    for event in Parser::new(&text) {
        writer.event(event);
    }
    writer.flush();
    while writer.lines.last().is_some_and(|line| line.spans.is_empty()) {
        writer.lines.pop();
    }
    writer.lines
}

struct Writer {
    theme: Theme,
    lines: Vec<Line<'static>>,
    current: Vec<Span<'static>>,
    styles: Vec<Style>,
    /// Each open list: the next number, or None for bullets.
    lists: Vec<Option<u64>>,
    links: Vec<String>,
    in_code_block: bool,
    quotes: usize,
}

impl Writer {
    fn style(&self) -> Style {
        self.styles.iter().fold(Style::new(), |all, style| all.patch(*style))
    }

    fn event(&mut self, event: Event<'_>) {
        match event {
            Event::Start(tag) => self.start(tag),
            Event::End(tag) => self.end(tag),
            Event::Text(text) if self.in_code_block => self.code_block_text(&text),
            Event::Text(text) | Event::Html(text) | Event::InlineHtml(text) => {
                let style = self.style();
                self.current.push(Span::styled(inert(&text), style));
            }
            Event::Code(code) => {
                let style = self.style().patch(self.theme.code());
                self.current.push(Span::styled(inert(&code), style));
            }
            Event::SoftBreak => self.current.push(Span::raw(" ")),
            Event::HardBreak => self.flush(),
            Event::Rule => {
                self.flush();
                self.lines.push(Line::styled("─".repeat(24), self.theme.dim()));
                self.blank();
            }
            _ => {}
        }
    }

    fn start(&mut self, tag: Tag<'_>) {
        match tag {
            Tag::Heading { level, .. } => {
                self.flush();
                let mut style = self.theme.accent();
                if level == HeadingLevel::H1 {
                    style = style.add_modifier(Modifier::UNDERLINED);
                }
                self.styles.push(style);
            }
            Tag::Strong => self.styles.push(self.theme.bold()),
            Tag::Emphasis => self.styles.push(Style::new().add_modifier(Modifier::ITALIC)),
            Tag::Strikethrough => {
                self.styles.push(Style::new().add_modifier(Modifier::CROSSED_OUT))
            }
            Tag::Link { dest_url, .. } => {
                self.links.push(inert(&dest_url));
                self.styles.push(Style::new().add_modifier(Modifier::UNDERLINED));
            }
            Tag::CodeBlock(_) => {
                self.flush();
                self.in_code_block = true;
            }
            Tag::List(first) => {
                self.flush();
                self.lists.push(first);
            }
            Tag::Item => self.item(),
            Tag::BlockQuote(_) => {
                self.flush();
                self.quotes += 1;
            }
            _ => {}
        }
    }

    fn end(&mut self, tag: TagEnd) {
        match tag {
            TagEnd::Heading(_) => {
                self.styles.pop();
                self.flush();
                self.blank();
            }
            TagEnd::Strong | TagEnd::Emphasis | TagEnd::Strikethrough => {
                self.styles.pop();
            }
            TagEnd::Link => {
                self.styles.pop();
                if let Some(url) = self.links.pop() {
                    self.current.push(Span::styled(format!(" <{url}>"), self.theme.dim()));
                }
            }
            TagEnd::CodeBlock => {
                self.in_code_block = false;
                self.blank();
            }
            TagEnd::List(_) => {
                self.flush();
                self.lists.pop();
                if self.lists.is_empty() {
                    self.blank();
                }
            }
            TagEnd::Item => self.flush(),
            TagEnd::Paragraph => {
                self.flush();
                if self.lists.is_empty() {
                    self.blank();
                }
            }
            TagEnd::BlockQuote(_) => {
                self.flush();
                self.quotes = self.quotes.saturating_sub(1);
                self.blank();
            }
            _ => {}
        }
    }

    fn item(&mut self) {
        self.flush();
        let depth = self.lists.len().saturating_sub(1);
        let marker = match self.lists.last_mut() {
            Some(Some(number)) => {
                *number += 1;
                format!("{}. ", *number - 1)
            }
            _ => "• ".to_owned(),
        };
        self.current.push(Span::raw(format!("{}{marker}", "  ".repeat(depth))));
    }

    fn code_block_text(&mut self, text: &str) {
        for line in text.trim_end_matches('\n').split('\n') {
            self.lines.push(Line::from(vec![
                Span::styled("  │ ", self.theme.dim()),
                Span::styled(inert(line), self.theme.code()),
            ]));
        }
    }

    fn flush(&mut self) {
        if self.current.is_empty() {
            return;
        }
        let mut spans = Vec::new();
        if self.quotes > 0 {
            spans.push(Span::styled("▏ ".repeat(self.quotes), self.theme.dim()));
        }
        spans.append(&mut self.current);
        self.lines.push(Line::from(spans));
    }

    fn blank(&mut self) {
        if self.lines.last().is_some_and(|line| !line.spans.is_empty()) {
            self.lines.push(Line::default());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plain(markdown: &str) -> Vec<String> {
        markdown_lines(markdown, Theme { colour: false }).iter().map(Line::to_string).collect()
    }

    #[test]
    fn blocks_become_lines_a_terminal_reads() {
        let cases: &[(&str, &[&str])] = &[
            ("plain text", &["plain text"]),
            ("# Title\n\nbody", &["Title", "", "body"]),
            ("- one\n- two", &["• one", "• two"]),
            ("1. one\n2. two", &["1. one", "2. two"]),
            ("- a\n  - b", &["• a", "  • b"]),
            ("```rust\nfn main() {}\n```", &["  │ fn main() {}"]),
            ("**bold** and `code`", &["bold and code"]),
            ("[docs](https://x.y)", &["docs <https://x.y>"]),
            ("> quoted", &["▏ quoted"]),
            ("one\ntwo", &["one two"]),
            ("\x1b[2Jwiped", &["[2Jwiped"]),
        ];
        for (markdown, expected) in cases {
            assert_eq!(plain(markdown), *expected, "{markdown:?}");
        }
    }

    #[test]
    fn escapes_written_as_entities_stay_inert_once_the_parser_decodes_them() {
        let hostile = "&#27;[2J&#x1b;]52;c;ZXZpbA==&#7; `&#27;` [x](http://a/&#27;[31m) &#155;31m";
        for line in plain(hostile) {
            assert!(!line.chars().any(char::is_control), "{line:?}");
            assert!(!line.contains('\u{9b}'), "{line:?}");
        }
    }

    #[test]
    fn bold_code_and_headings_are_styled() {
        let theme = Theme { colour: true };
        let lines = markdown_lines("# T\n\n**b** `c`", theme);
        assert_eq!(lines[0].spans[0].style, theme.accent().add_modifier(Modifier::UNDERLINED));
        assert_eq!(lines[2].spans[0].style, theme.bold());
        assert_eq!(lines[2].spans[2].style, theme.code());
    }
}
