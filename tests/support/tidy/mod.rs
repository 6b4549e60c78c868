//! The tidy test's reading of Rust sources: a small lexer that blanks comments and literals
//! (so braces and `fn` inside them are not code), the functions with their line counts, and
//! the signatures of `pub fn`s.

pub mod imports;

use std::path::{Path, PathBuf};

/// Folders never scanned: build output, installed packages, generated code.
const SKIPPED_DIRS: &[&str] = &["target", "node_modules", ".git", "gen", "runtime", "corpus"];

pub struct SourceFile {
    /// Relative to the repository, with `/` separators.
    pub relative: String,
    pub text: String,
}

impl SourceFile {
    pub fn read(root: &Path, path: &Path) -> SourceFile {
        let text = std::fs::read_to_string(path)
            .unwrap_or_else(|error| panic!("{}: {error}", path.display()));
        let relative = path.strip_prefix(root).unwrap_or(path);
        let relative = relative.components().map(|c| c.as_os_str().to_string_lossy()).collect();
        SourceFile { relative: join_slash(relative), text }
    }

    pub fn line_count(&self) -> usize {
        self.text.lines().count()
    }
}

fn join_slash(parts: Vec<std::borrow::Cow<'_, str>>) -> String {
    parts.join("/")
}

/// The repository's root folder (this test belongs to `crates/preflight`).
pub fn repository() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").canonicalize().expect("repository root")
}

/// Every `.rs` file of the repository outside the skipped folders, sorted.
pub fn rust_files(root: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut pending = vec![root.to_path_buf()];
    while let Some(dir) = pending.pop() {
        for entry in std::fs::read_dir(&dir).expect("readable folder") {
            let entry = entry.expect("folder entry");
            let path = entry.path();
            let name = entry.file_name().to_string_lossy().into_owned();
            let kind = entry.file_type().expect("file type");
            if kind.is_dir() && !SKIPPED_DIRS.contains(&name.as_str()) {
                pending.push(path);
            } else if kind.is_file() && name.ends_with(".rs") {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

#[derive(Clone, Copy, PartialEq)]
enum State {
    Code,
    LineComment,
    BlockComment(u32),
    Str,
    RawStr(usize),
    Char,
}

/// The source with comments and the insides of string and char literals replaced by spaces;
/// line breaks are kept, so line numbers stay right.
pub fn strip_code(source: &str) -> String {
    let chars: Vec<char> = source.chars().collect();
    let mut out = String::with_capacity(source.len());
    let mut state = State::Code;
    let mut i = 0;
    while i < chars.len() {
        let (next, consumed, text) = step(&chars, i, state);
        out.push_str(&text);
        state = next;
        i += consumed;
    }
    out
}

/// One lexer step from `chars[i]` in `state`: the next state, how many chars it took, and
/// what goes into the output for them.
fn step(chars: &[char], i: usize, state: State) -> (State, usize, String) {
    let c = chars[i];
    let at = |k: usize| chars.get(i + k).copied().unwrap_or('\0');
    let blank = |n: usize| chars[i..i + n].iter().map(|&c| if c == '\n' { '\n' } else { ' ' });
    match state {
        State::Code => code_step(chars, i),
        State::LineComment if c == '\n' => (State::Code, 1, "\n".into()),
        State::LineComment => (state, 1, blank(1).collect()),
        State::BlockComment(depth) if c == '*' && at(1) == '/' => {
            let next = if depth == 1 { State::Code } else { State::BlockComment(depth - 1) };
            (next, 2, "  ".into())
        }
        State::BlockComment(depth) if c == '/' && at(1) == '*' => {
            (State::BlockComment(depth + 1), 2, "  ".into())
        }
        State::BlockComment(_) => (state, 1, blank(1).collect()),
        State::Str | State::Char if c == '\\' => {
            (state, 2.min(chars.len() - i), blank(2.min(chars.len() - i)).collect())
        }
        State::Str if c == '"' => (State::Code, 1, "\"".into()),
        State::Char if c == '\'' => (State::Code, 1, "'".into()),
        State::Str | State::Char => (state, 1, blank(1).collect()),
        State::RawStr(hashes) if c == '"' && (1..=hashes).all(|k| at(k) == '#') => {
            (State::Code, 1 + hashes, "\"".to_owned() + &" ".repeat(hashes))
        }
        State::RawStr(_) => (state, 1, blank(1).collect()),
    }
}

fn code_step(chars: &[char], i: usize) -> (State, usize, String) {
    let c = chars[i];
    let at = |k: usize| chars.get(i + k).copied().unwrap_or('\0');
    let after_ident = i > 0 && (chars[i - 1].is_alphanumeric() || chars[i - 1] == '_');
    match c {
        '/' if at(1) == '/' => (State::LineComment, 2, "  ".into()),
        '/' if at(1) == '*' => (State::BlockComment(1), 2, "  ".into()),
        '"' => (State::Str, 1, "\"".into()),
        'r' | 'b' if !after_ident => raw_string_start(chars, i),
        '\'' if at(1) == '\\' || (at(1) != '\0' && at(2) == '\'') => (State::Char, 1, "'".into()),
        _ => (State::Code, 1, c.to_string()),
    }
}

/// `r"`, `r#"`, `br#"` … open a raw string; anything else is an identifier's first letter.
fn raw_string_start(chars: &[char], i: usize) -> (State, usize, String) {
    let mut k = i;
    if chars[k] == 'b' {
        k += 1;
    }
    if chars.get(k) != Some(&'r') {
        return (State::Code, 1, chars[i].to_string());
    }
    k += 1;
    let hashes = chars[k..].iter().take_while(|&&c| c == '#').count();
    if chars.get(k + hashes) != Some(&'"') {
        return (State::Code, 1, chars[i].to_string());
    }
    let taken = k + hashes + 1 - i;
    (State::RawStr(hashes), taken, " ".repeat(taken - 1) + "\"")
}

pub struct Function {
    pub name: String,
    /// The line of `fn`, 1-based.
    pub line: usize,
    /// From the line of `fn` to the line of its closing brace, both included.
    pub lines: usize,
}

/// Every function with a body in stripped code, in order.
pub fn functions(code: &str) -> Vec<Function> {
    let bytes = code.as_bytes();
    let mut found = Vec::new();
    for start in keyword_positions(code, "fn") {
        let name: String = code[start + 2..]
            .trim_start()
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        if name.is_empty() || !code[start + 2..].starts_with(char::is_whitespace) {
            continue;
        }
        let Some(open) = code[start..].find(['{', ';']).map(|k| start + k) else { continue };
        if bytes[open] == b';' {
            continue;
        }
        let Some(close) = matching_brace(bytes, open) else { continue };
        let line = line_of(code, start);
        found.push(Function { name, line, lines: line_of(code, close) - line + 1 });
    }
    found
}

pub struct Signature {
    pub line: usize,
    /// From `pub` to the body's `{` (or `;`), as written.
    pub text: String,
}

/// The signatures of `pub fn`s (not `pub(crate)` or narrower) in stripped code.
pub fn public_signatures(code: &str) -> Vec<Signature> {
    let mut found = Vec::new();
    for start in keyword_positions(code, "pub") {
        let rest = &code[start + 3..];
        if !rest.starts_with(char::is_whitespace) {
            continue; // `pub(crate)` and the like
        }
        let head: Vec<&str> = rest.split_whitespace().take(4).collect();
        let is_fn = head.iter().take_while(|w| is_fn_qualifier(w)).count() < head.len()
            && head.iter().find(|w| !is_fn_qualifier(w)).is_some_and(|w| *w == "fn");
        if !is_fn {
            continue;
        }
        let end = rest.find(['{', ';']).map_or(rest.len(), |k| k);
        found.push(Signature {
            line: line_of(code, start),
            text: code[start..start + 3 + end].split_whitespace().collect::<Vec<_>>().join(" "),
        });
    }
    found
}

fn is_fn_qualifier(word: &str) -> bool {
    matches!(word, "async" | "const" | "unsafe" | "extern")
}

/// Byte positions where `word` stands as a whole word.
fn keyword_positions<'a>(code: &'a str, word: &'a str) -> impl Iterator<Item = usize> + 'a {
    let is_ident = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
    let bytes = code.as_bytes();
    code.match_indices(word).map(|(k, _)| k).filter(move |&k| {
        let before = k == 0 || !is_ident(bytes[k - 1]);
        let after = bytes.get(k + word.len()).is_none_or(|&c| !is_ident(c));
        before && after
    })
}

fn matching_brace(bytes: &[u8], open: usize) -> Option<usize> {
    let mut depth = 0usize;
    for (k, &b) in bytes.iter().enumerate().skip(open) {
        match b {
            b'{' => depth += 1,
            b'}' => {
                depth -= 1;
                if depth == 0 {
                    return Some(k);
                }
            }
            _ => {}
        }
    }
    None
}

fn line_of(code: &str, position: usize) -> usize {
    code[..position].matches('\n').count() + 1
}
