//! Text someone else wrote (the model, a tool, the user) made inert for a Markdown file that
//! a person opens in any viewer. It keeps its Markdown (paragraphs, lists, emphasis, code)
//! but never becomes markup a viewer runs:
//! - no control character or bidirectional override (`inert`, as for a terminal);
//! - outside code, `<` is written `&lt;` (no tag, comment or autolink is HTML) and `&` is
//!   written `&amp;` (no entity spells a `<` or a `:` back);
//! - outside code, the schemes `javascript:` and `vbscript:` get a zero-width space before
//!   their colon, so a link to them is no link a browser follows;
//! - a code fence left open is closed, so the text cannot swallow what follows it.
//!
//! Code (fenced blocks and inline spans) is left as written: viewers show it as text. An
//! indented code block is not told from a paragraph, so a `<` in one shows as `&lt;`: the
//! safe side of the doubt. Pure.

use preflight_protocol::inert::inert;

/// `text` made inert for a Markdown file (see the module's notes).
pub(super) fn inert_markdown(text: &str) -> String {
    let text = inert(text);
    let mut out = String::with_capacity(text.len() + 16);
    let mut fence: Option<(char, usize)> = None;
    for (index, line) in text.split('\n').enumerate() {
        if index > 0 {
            out.push('\n');
        }
        match fence {
            Some((mark, length)) => {
                out.push_str(line);
                if closes_fence(line, mark, length) {
                    fence = None;
                }
            }
            None => match opens_fence(line) {
                Some(opened) => {
                    out.push_str(line);
                    fence = Some(opened);
                }
                None => out.push_str(&inert_line(line)),
            },
        }
    }
    if let Some((mark, length)) = fence {
        out.push('\n');
        out.extend(std::iter::repeat_n(mark, length));
    }
    out
}

/// A line that opens a code fence: at most three spaces, then three or more backticks or
/// tildes (a backtick fence's info string holds no backtick).
fn opens_fence(line: &str) -> Option<(char, usize)> {
    let rest = strip_indent(line)?;
    let mark = rest.chars().next().filter(|mark| *mark == '`' || *mark == '~')?;
    let length = rest.chars().take_while(|ch| *ch == mark).count();
    let info = &rest[length..];
    (length >= 3 && !(mark == '`' && info.contains('`'))).then_some((mark, length))
}

fn closes_fence(line: &str, mark: char, length: usize) -> bool {
    let Some(rest) = strip_indent(line) else { return false };
    let run = rest.chars().take_while(|ch| *ch == mark).count();
    run >= length && rest[run..].trim().is_empty()
}

/// The line without its indent of at most three spaces; None when it is indented more.
fn strip_indent(line: &str) -> Option<&str> {
    let spaces = line.len() - line.trim_start_matches(' ').len();
    (spaces <= 3).then(|| &line[spaces..])
}

/// One line outside a fence: its code spans as written, the rest escaped.
fn inert_line(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut text = String::new();
    let mut rest = line;
    while let Some(ch) = rest.chars().next() {
        if ch == '\\' && rest[1..].starts_with(|next: char| next.is_ascii_punctuation()) {
            // A backslash escape shows its character as text (`\<` is a `<`, never a tag).
            out.push_str(&escaped(&std::mem::take(&mut text)));
            out.push_str(&rest[..2]);
            rest = &rest[2..];
        } else if ch == '`' {
            let run = rest.chars().take_while(|ch| *ch == '`').count();
            match closing_run(&rest[run..], run) {
                Some(end) => {
                    out.push_str(&escaped(&std::mem::take(&mut text)));
                    out.push_str(&rest[..run + end + run]);
                    rest = &rest[run + end + run..];
                }
                None => {
                    text.push_str(&rest[..run]);
                    rest = &rest[run..];
                }
            }
        } else {
            text.push(ch);
            rest = &rest[ch.len_utf8()..];
        }
    }
    out.push_str(&escaped(&text));
    out
}

/// Where a run of exactly `run` backticks starts in `text`, if one does.
fn closing_run(text: &str, run: usize) -> Option<usize> {
    let mut at = 0;
    while let Some(found) = text[at..].find('`') {
        let start = at + found;
        let length = text[start..].chars().take_while(|ch| *ch == '`').count();
        if length == run {
            return Some(start);
        }
        at = start + length;
    }
    None
}

/// Text outside code: `&` and `<` as entities, script schemes broken.
fn escaped(text: &str) -> String {
    let mut out = text.replace('&', "&amp;").replace('<', "&lt;");
    for scheme in ["javascript:", "vbscript:"] {
        out = break_scheme(&out, scheme);
    }
    out
}

/// Every `scheme` (any case) with a zero-width space before its colon.
fn break_scheme(text: &str, scheme: &str) -> String {
    let lower = text.to_ascii_lowercase();
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    while let Some(found) = lower[at..].find(scheme) {
        let colon = at + found + scheme.len() - 1;
        out.push_str(&text[at..colon]);
        out.push_str("\u{200b}:");
        at = colon + 1;
    }
    out.push_str(&text[at..]);
    out
}

#[cfg(test)]
mod tests {
    use super::inert_markdown;

    #[test]
    fn model_text_keeps_its_markdown_and_loses_its_html() {
        let cases = [
            ("**bold** and _it_\n- a list", "**bold** and _it_\n- a list"),
            ("<script>alert(1)</script>", "&lt;script>alert(1)&lt;/script>"),
            ("<img src=x onerror=alert(1)>", "&lt;img src=x onerror=alert(1)>"),
            ("R&D &#x3C;b&#x3E;", "R&amp;D &amp;#x3C;b&amp;#x3E;"),
            ("`<b>` stays code", "`<b>` stays code"),
            ("``a ` <b>`` then <i>", "``a ` <b>`` then &lt;i>"),
            ("an ` unclosed <b>", "an ` unclosed &lt;b>"),
            ("\\`<b>\\`", "\\`&lt;b>\\`"),
            ("\\<b> and \\&amp;", "\\<b> and \\&amp;"),
            ("[x](JavaScript:alert(1))", "[x](JavaScript\u{200b}:alert(1))"),
            ("[x](vbscript:run)", "[x](vbscript\u{200b}:run)"),
            ("```html\n<b>kept</b>\n```\n<b>", "```html\n<b>kept</b>\n```\n&lt;b>"),
            ("~~~~\n<b>\n~~~\nstill code\n~~~~", "~~~~\n<b>\n~~~\nstill code\n~~~~"),
            ("```\n<b>open to the end", "```\n<b>open to the end\n```"),
            ("    ```\n<b>", "    ```\n&lt;b>"),
            ("\x1b[31mred\u{202e}txt", "[31mredtxt"),
            ("привет <мир>", "привет &lt;мир>"),
        ];
        for (text, expected) in cases {
            assert_eq!(inert_markdown(text), expected, "{text:?}");
        }
    }
}
