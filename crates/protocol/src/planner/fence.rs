//! Finds fenced blocks (```` ``` ```` or `~~~`) in a reply, tolerating what models write:
//! indented fences, an unclosed last fence, a closing fence glued to the last line.

/// A fenced block of a reply that has been normalised to `\n` line ends.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fence {
    /// The info string's first word, lower-cased, e.g. `plan-questions`; empty when absent.
    pub label: String,
    /// The text between the fence lines.
    pub body: String,
    /// Byte range of the whole block (fence lines included) in the normalised reply.
    pub span: std::ops::Range<usize>,
}

struct Opener {
    /// Spaces before the opening marker; as much is taken off each body line (CommonMark).
    indent: usize,
    marker: char,
    width: usize,
    label: String,
    /// Text after the label on the opening line (e.g. `{"questions": …` written inline).
    inline_body: String,
}

/// Every fenced block, in order of appearance. `text` must already use `\n` line ends.
pub fn find_fences(text: &str) -> Vec<Fence> {
    let mut fences = Vec::new();
    let mut open: Option<(Opener, usize, String)> = None;
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        let line_start = offset;
        offset += line.len();
        let content = line.trim_end_matches('\n');
        match open.take() {
            None => {
                if let Some(opener) = parse_opener(content) {
                    let body = opener.inline_body.clone();
                    if let Some(done) = strip_glued_closer(&body, &opener) {
                        fences.push(finish(&opener, done, line_start..offset));
                    } else {
                        open = Some((opener, line_start, body));
                    }
                }
            }
            Some((opener, start, mut body)) => {
                if is_closer(content, &opener) {
                    fences.push(finish(&opener, body, start..offset));
                } else if let Some(last_line) = strip_glued_closer(content, &opener) {
                    push_line(&mut body, dedent(&last_line, opener.indent).to_string());
                    fences.push(finish(&opener, body, start..offset));
                } else {
                    push_line(&mut body, dedent(content, opener.indent).to_string());
                    open = Some((opener, start, body));
                }
            }
        }
    }
    if let Some((opener, start, body)) = open {
        fences.push(finish(&opener, body, start..text.len()));
    }
    fences
}

fn finish(opener: &Opener, body: String, span: std::ops::Range<usize>) -> Fence {
    Fence { label: opener.label.clone(), body, span }
}

fn push_line(body: &mut String, line: String) {
    if !body.is_empty() {
        body.push('\n');
    }
    body.push_str(&line);
}

fn dedent(line: &str, indent: usize) -> &str {
    let spaces = line.chars().take(indent).take_while(|c| *c == ' ').count();
    &line[spaces..]
}

fn parse_opener(line: &str) -> Option<Opener> {
    let trimmed = line.trim_start();
    let indent = line.len() - trimmed.len();
    let marker = trimmed.chars().next().filter(|c| *c == '`' || *c == '~')?;
    let width = trimmed.chars().take_while(|c| *c == marker).count();
    if width < 3 {
        return None;
    }
    let info = trimmed[width..].trim();
    // A backtick fence's info string cannot hold backticks (CommonMark); a line of only
    // markers followed by more text such as "```` ``` ````" is prose, not a fence.
    if marker == '`' && info.starts_with('`') {
        return None;
    }
    let label_end =
        info.find(|c: char| !(c.is_alphanumeric() || c == '-' || c == '_')).unwrap_or(info.len());
    let label = info[..label_end].to_lowercase();
    let rest = info[label_end..].trim_start_matches([':', ' ', '\t']);
    let inline_body = if rest.starts_with('{') || rest.starts_with('[') {
        rest.to_string()
    } else {
        String::new()
    };
    Some(Opener { indent, marker, width, label, inline_body })
}

fn is_closer(line: &str, opener: &Opener) -> bool {
    let trimmed = line.trim();
    trimmed.len() >= opener.width && trimmed.chars().all(|c| c == opener.marker)
}

/// `}```` on one line: JSON that ends where the fence closes.
fn strip_glued_closer(line: &str, opener: &Opener) -> Option<String> {
    let trimmed = line.trim_end();
    let markers = trimmed.chars().rev().take_while(|c| *c == opener.marker).count();
    if markers < opener.width {
        return None;
    }
    let before = &trimmed[..trimmed.len() - markers * opener.marker.len_utf8()];
    let ends_json = before.trim_end().ends_with(['}', ']']);
    ends_json.then(|| before.trim_end().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn labels_and_bodies(text: &str) -> Vec<(String, String)> {
        find_fences(text).into_iter().map(|f| (f.label, f.body)).collect()
    }

    #[test]
    fn fences_are_found_in_their_many_spellings() {
        let cases: &[(&str, &[(&str, &str)])] = &[
            ("```plan\n{}\n```", &[("plan", "{}")]),
            ("~~~plan-questions\n{}\n~~~\n", &[("plan-questions", "{}")]),
            ("text\n  ```PLAN_JSON  \n{\n}\n  ```\nmore", &[("plan_json", "{\n}")]),
            ("````plan\n```\ninner\n```\n````", &[("plan", "```\ninner\n```")]),
            ("```plan\n{\"a\":1}", &[("plan", "{\"a\":1}")]),
            ("```plan\n{\"a\":1}```", &[("plan", "{\"a\":1}")]),
            ("```plan {\"a\":1}```", &[("plan", "{\"a\":1}")]),
            ("```plan: {\"a\":1}\n```", &[("plan", "{\"a\":1}")]),
            ("```\nx\n```\n```json\ny\n```", &[("", "x"), ("json", "y")]),
            ("`` not a fence ``", &[]),
            ("```\n", &[("", "")]),
        ];
        for (text, expected) in cases {
            let expected: Vec<(String, String)> =
                expected.iter().map(|(l, b)| (l.to_string(), b.to_string())).collect();
            assert_eq!(labels_and_bodies(text), expected, "input: {text:?}");
        }
    }

    #[test]
    fn a_tilde_fence_is_not_closed_by_backticks() {
        let fences = find_fences("~~~plan\n```\n{}\n~~~");
        assert_eq!(fences.len(), 1);
        assert_eq!(fences[0].body, "```\n{}");
    }

    #[test]
    fn spans_cover_the_fence_lines() {
        let text = "intro\n```plan\n{}\n```\noutro";
        let fence = &find_fences(text)[0];
        assert_eq!(&text[fence.span.clone()], "```plan\n{}\n```\n");
    }
}
