//! The YAML front matter of a `SKILL.md`, read as far as the Agent Skills convention needs:
//! top-level `key: value` pairs between `---` lines, a value plain, quoted (`'…'`, `"…"`)
//! or a folded/literal block (`>`, `|`) of the indented lines after it. Nested maps (e.g.
//! `metadata:`) are skipped. Never panics on any input.

use std::collections::BTreeMap;

/// The front matter's top-level strings and the Markdown body after it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct FrontMatter {
    pub(crate) fields: BTreeMap<String, String>,
    pub(crate) body: String,
}

/// Reads `text`; `None` when it does not open with a `---` line closed by another.
pub(crate) fn front_matter(text: &str) -> Option<FrontMatter> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut lines = text.lines();
    if lines.next()?.trim_end() != "---" {
        return None;
    }
    let mut header = Vec::new();
    let mut closed = false;
    for line in lines.by_ref() {
        if line.trim_end() == "---" {
            closed = true;
            break;
        }
        header.push(line);
    }
    if !closed {
        return None;
    }
    let body = lines.collect::<Vec<_>>().join("\n").trim().to_owned();
    Some(FrontMatter { fields: fields(&header), body })
}

fn fields(header: &[&str]) -> BTreeMap<String, String> {
    let mut fields = BTreeMap::new();
    let mut at = 0;
    while at < header.len() {
        let line = header[at];
        at += 1;
        if line.starts_with([' ', '\t']) || line.trim_start().starts_with('#') {
            continue;
        }
        let Some((key, value)) = line.split_once(':') else { continue };
        let (key, value) = (key.trim(), value.trim());
        let indented = |l: &&str| l.starts_with([' ', '\t']) || l.trim().is_empty();
        let block: Vec<&str> = header[at..].iter().copied().take_while(indented).collect();
        let value = match value.chars().next() {
            Some('>') => folded(&block),
            Some('|') => block.iter().map(|l| l.trim()).collect::<Vec<_>>().join("\n"),
            // A plain value wrapped onto indented lines goes on there.
            Some(c) if !block.is_empty() && c != '"' && c != '\'' => {
                format!("{} {}", scalar(value), folded(&block)).trim().to_owned()
            }
            _ => scalar(value),
        };
        at += block.len();
        if value.trim().is_empty() && !block.is_empty() {
            continue;
        }
        fields.insert(key.to_owned(), value.trim().to_owned());
    }
    fields
}

/// A folded block: its lines joined by spaces, blank lines kept as line breaks.
fn folded(block: &[&str]) -> String {
    let mut out = String::new();
    for line in block {
        let line = line.trim();
        if line.is_empty() {
            out.push('\n');
        } else {
            if !out.is_empty() && !out.ends_with('\n') {
                out.push(' ');
            }
            out.push_str(line);
        }
    }
    out
}

/// A plain or quoted scalar; a comment after either is dropped.
fn scalar(value: &str) -> String {
    let mut chars = value.char_indices();
    match chars.next() {
        Some((_, '"')) => {
            let mut escaped = false;
            for (at, c) in chars {
                match c {
                    '"' if !escaped => {
                        return value[1..at].replace("\\\"", "\"").replace("\\n", "\n")
                    }
                    '\\' => escaped = !escaped,
                    _ => escaped = false,
                }
            }
            value.to_owned()
        }
        Some((_, '\'')) => {
            let inner = &value[1..];
            let mut at = 0;
            while let Some(found) = inner[at..].find('\'') {
                let end = at + found;
                if inner[end + 1..].starts_with('\'') {
                    at = end + 2;
                    continue;
                }
                return inner[..end].replace("''", "'");
            }
            value.to_owned()
        }
        _ => match value.find(" #") {
            Some(cut) => value[..cut].to_owned(),
            None => value.to_owned(),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A front matter's name, description and body.
    type Read<'a> = Option<(&'a str, &'a str, &'a str)>;

    #[test]
    fn table_of_front_matters() {
        let cases: [(&str, Read); 7] = [
            (
                "---\nname: pdf\ndescription: Fill PDF forms\n---\nBody",
                Some(("pdf", "Fill PDF forms", "Body")),
            ),
            ("---\nname: \"quoted\"\ndescription: 'it''s'\n---\n", Some(("quoted", "it's", ""))),
            (
                "---\nname: a # note\ndescription: >\n  one\n  two\nmetadata:\n  x: y\n---\n\n# T",
                Some(("a", "one two", "# T")),
            ),
            ("---\nname: b\ndescription: |\n  l1\n  l2\n---\nx", Some(("b", "l1\nl2", "x"))),
            (
                "---\nname: \"pdf\" # n\ndescription: Use when\n  asking for PDFs.\n---\n",
                Some(("pdf", "Use when asking for PDFs.", "")),
            ),
            ("no front matter", None),
            ("---\nname: unclosed\n", None),
        ];
        for (text, expected) in cases {
            let got = front_matter(text).map(|fm| {
                let field = |key: &str| fm.fields.get(key).cloned().unwrap_or_default();
                (field("name"), field("description"), fm.body)
            });
            let expected = expected.map(|(n, d, b)| (n.to_owned(), d.to_owned(), b.to_owned()));
            assert_eq!(got, expected, "{text:?}");
        }
    }
}
