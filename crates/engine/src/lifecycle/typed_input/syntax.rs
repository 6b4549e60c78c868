//! How a message names a server's prompt or resource (DESIGN §17), read without asking any
//! server: a first line `/NAME args…` and `@server:uri` words.
//!
//! The syntax is tight so that ordinary text stays text: the slash must open the message
//! and be followed at once by a name (letters, digits, `_ - . :`) and a blank, so `/usr/bin`,
//! ` / ` or `//` never are one, and `/word` that no prompt has stays text (`typed_input.rs`); a
//! resource word starts with `@` at the start of the message or after a blank and carries
//! `server:` of a configured server, so `me@example.com` or `@alice` are never one.

use serde_json::{Map, Value};

use preflight_mcp::PromptArgument;

/// The first line's `/NAME args` and the lines after it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SlashLine<'a> {
    pub name: &'a str,
    pub args: &'a str,
    /// The message's lines after the first (the user's own words), trimmed.
    pub rest: &'a str,
}

/// `/NAME args` at the very start of `content`, if it is there.
pub fn slash_line(content: &str) -> Option<SlashLine<'_>> {
    let body = content.strip_prefix('/')?;
    let (first, rest) = body.split_once('\n').unwrap_or((body, ""));
    let end = first.find(char::is_whitespace).unwrap_or(first.len());
    let name = &first[..end];
    let allowed = |c: char| c.is_alphanumeric() || matches!(c, '_' | '-' | '.' | ':');
    if name.is_empty() || !name.chars().all(allowed) || name.starts_with(':') {
        return None;
    }
    Some(SlashLine { name, args: first[end..].trim(), rest: rest.trim() })
}

/// Why the words after a prompt's name do not fill its arguments.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ArgumentError {
    Missing(Vec<String>),
    TooMany { takes: usize, extra: String },
    Unclosed,
}

/// Fills `declared` from `args`: `key=value` words for a declared key, the other words in
/// the declared order; `"…"` keeps blanks inside one value.
pub fn fill_arguments(
    declared: &[PromptArgument],
    args: &str,
) -> Result<Map<String, Value>, ArgumentError> {
    let mut filled = Map::new();
    let mut positional = Vec::new();
    for word in words(args)? {
        match word.split_once('=') {
            Some((key, value)) if declared.iter().any(|a| a.name == key) => {
                filled.insert(key.to_owned(), Value::String(value.to_owned()));
            }
            _ => positional.push(word),
        }
    }
    let open: Vec<&PromptArgument> =
        declared.iter().filter(|a| !filled.contains_key(&a.name)).collect();
    let mut open = open.into_iter();
    for value in positional {
        let Some(argument) = open.next() else {
            return Err(ArgumentError::TooMany { takes: declared.len(), extra: value });
        };
        filled.insert(argument.name.clone(), Value::String(value));
    }
    let missing: Vec<String> = declared
        .iter()
        .filter(|a| a.required && !filled.contains_key(&a.name))
        .map(|a| a.name.clone())
        .collect();
    match missing.is_empty() {
        true => Ok(filled),
        false => Err(ArgumentError::Missing(missing)),
    }
}

/// `args` split at blanks, a `"…"` run kept whole (its quotes dropped).
fn words(args: &str) -> Result<Vec<String>, ArgumentError> {
    let mut words = Vec::new();
    let mut word = String::new();
    let (mut quoted, mut started) = (false, false);
    for c in args.chars() {
        match c {
            '"' => {
                quoted = !quoted;
                started = true;
            }
            c if c.is_whitespace() && !quoted => {
                if started {
                    words.push(std::mem::take(&mut word));
                }
                started = false;
            }
            c => {
                word.push(c);
                started = true;
            }
        }
    }
    if quoted {
        return Err(ArgumentError::Unclosed);
    }
    if started {
        words.push(word);
    }
    Ok(words)
}

/// A resource named in a message: `@server:uri`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResourceRef {
    pub server: String,
    pub uri: String,
}

impl ResourceRef {
    pub fn reference(&self) -> String {
        format!("@{}:{}", self.server, self.uri)
    }
}

/// The `@server:uri` words of `content` whose server is one of `servers`, each once, in
/// order. A word's trailing `. , ; ! ?` (the sentence's) is not part of its uri.
pub fn resource_refs(content: &str, servers: &[String]) -> Vec<ResourceRef> {
    let mut refs: Vec<ResourceRef> = Vec::new();
    for word in content.split_whitespace() {
        let Some((server, uri)) = word.strip_prefix('@').and_then(|w| w.split_once(':')) else {
            continue;
        };
        let uri = uri.trim_end_matches(['.', ',', ';', '!', '?']);
        if uri.is_empty() || !servers.iter().any(|s| s == server) {
            continue;
        }
        let found = ResourceRef { server: server.to_owned(), uri: uri.to_owned() };
        if !refs.contains(&found) {
            refs.push(found);
        }
    }
    refs
}

/// A file name for a resource's content: the uri's last segment (letters, digits, `._-`),
/// with an extension from its media type when it has none.
pub fn file_name(uri: &str, mime_type: Option<&str>) -> String {
    let path = uri.split(['?', '#']).next().unwrap_or(uri);
    let last = path.trim_end_matches('/').rsplit(['/', ':']).next().unwrap_or("");
    let clean: String = last
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') { c } else { '_' })
        .collect();
    let clean = clean.trim_matches(['.', '_']).to_owned();
    let stem = if clean.is_empty() { "resource".to_owned() } else { clean };
    if stem.contains('.') {
        return stem;
    }
    let extension = match mime_type.unwrap_or("") {
        "text/markdown" => "md",
        "application/json" => "json",
        "text/html" => "html",
        "text/csv" => "csv",
        "image/png" => "png",
        "image/jpeg" => "jpg",
        "image/gif" => "gif",
        "image/webp" => "webp",
        "application/pdf" => "pdf",
        other if other.starts_with("text/") || other.is_empty() => "txt",
        _ => "bin",
    };
    format!("{stem}.{extension}")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn argument(name: &str, required: bool) -> PromptArgument {
        PromptArgument { name: name.to_owned(), description: None, required }
    }

    #[test]
    fn only_a_name_right_after_an_opening_slash_is_a_command() {
        let line = slash_line("/args-prompt city=Paris\nAnd be brief.").unwrap();
        assert_eq!(
            (line.name, line.args, line.rest),
            ("args-prompt", "city=Paris", "And be brief.")
        );
        assert_eq!(
            slash_line("/everything:simple-prompt").unwrap().name,
            "everything:simple-prompt"
        );
        for text in ["/ x", "// comment", "see /usr", " /x", "/:x", "/a/b c", "/@x"] {
            assert_eq!(slash_line(text), None, "{text}");
        }
    }

    #[test]
    fn arguments_fill_by_key_then_in_declared_order() {
        let declared = [argument("city", true), argument("state", false)];
        let filled = fill_arguments(&declared, "state=CA \"San Francisco\"").unwrap();
        assert_eq!(filled["city"], "San Francisco");
        assert_eq!(filled["state"], "CA");
        assert_eq!(
            fill_arguments(&declared, "").unwrap_err(),
            ArgumentError::Missing(vec!["city".into()])
        );
        assert!(matches!(
            fill_arguments(&declared, "a b c"),
            Err(ArgumentError::TooMany { takes: 2, .. })
        ));
        assert_eq!(fill_arguments(&declared, "\"open"), Err(ArgumentError::Unclosed));
        // A key the prompt does not declare is a value like any other.
        assert_eq!(fill_arguments(&declared, "x=1").unwrap()["city"], "x=1");
    }

    #[test]
    fn resource_words_need_a_configured_server_and_a_word_of_their_own() {
        let servers = vec!["everything".to_owned()];
        let text = "Read @everything:demo://a/b.md. Mail me@everything:x or @alice:y, \
                    @everything:demo://a/b.md again";
        let refs = resource_refs(text, &servers);
        assert_eq!(
            refs,
            [ResourceRef { server: "everything".into(), uri: "demo://a/b.md".into() }]
        );
        assert!(resource_refs("@everything: nothing", &servers).is_empty());
    }

    #[test]
    fn a_resource_file_is_named_after_its_uri() {
        assert_eq!(
            file_name("demo://resource/static/document/architecture.md", None),
            "architecture.md"
        );
        assert_eq!(file_name("demo://resource/dynamic/text/1", Some("text/plain")), "1.txt");
        assert_eq!(file_name("test://", Some("image/png")), "resource.png");
        assert_eq!(file_name("file:///a/My%20Notes?x=1", Some("text/markdown")), "My_20Notes.md");
    }
}
