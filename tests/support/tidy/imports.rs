//! The import drawing of a crate: which of its files name which through `use` lines, and the
//! circles in it. A name imported through a facade's `pub use` counts as an import of the file
//! that defines it, so a facade re-exporting its children makes no circle by itself. Circles
//! are looked for twice: among the files, and among the rooms (a module with the files below
//! it), so that one which goes out of a room by one file and back in by another is found.
//!
//! Deliberately simple (the tidy test's own rule): `use` statements and the `crate::`,
//! `super::` and `self::` paths written out in code are read, paths are
//! resolved by the module tree the file names spell (`a.rs`, `a/mod.rs`, `a/b.rs`), inline
//! `mod x { … }` blocks shift `self` and `super`, and a glob names the module it reads.

use std::collections::{BTreeMap, BTreeSet};

use super::{keyword_positions, matching_brace, strip_code};

/// One file of a crate: its module path (`mcp::auth`, `""` for the root) and its code.
pub struct ModuleFile {
    pub module: String,
    pub code: String,
}

impl ModuleFile {
    /// The file at `relative` (to the crate's `src/`, with `/`), or `None` for a file that is
    /// not in the crate's module tree (a binary of its own under `bin/`).
    pub fn new(relative: &str, text: &str) -> Option<ModuleFile> {
        if relative.starts_with("bin/") {
            return None;
        }
        let stem = relative.strip_suffix(".rs")?;
        let stem = stem.strip_suffix("/mod").unwrap_or(stem);
        let module = match stem {
            "lib" | "main" => String::new(),
            other => other.replace('/', "::"),
        };
        Some(ModuleFile { module, code: strip_code(text) })
    }
}

/// One `use` of a file: the module it is written in and the path it names, in segments.
struct Use {
    scope: Vec<String>,
    path: Vec<String>,
    public: bool,
    alias: Option<String>,
}

/// The circles among `files` (one crate): each a sorted list of the modules that reach one
/// another through their imports, sorted.
pub fn circles(files: &[ModuleFile]) -> Vec<Vec<String>> {
    let modules: BTreeSet<String> = files.iter().map(|f| f.module.clone()).collect();
    let uses: BTreeMap<&str, Vec<Use>> =
        files.iter().map(|f| (f.module.as_str(), uses_of(&f.module, &f.code))).collect();
    let crate_tree = Tree { modules: &modules, uses: &uses };
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (from, list) in &uses {
        for item in list {
            if let Some(to) = crate_tree.target(item, 0) {
                if to != *from {
                    edges.entry(from.to_string()).or_default().insert(to);
                }
            }
        }
    }
    let mut found: Vec<Vec<String>> = strongly_connected(&modules, &edges);
    found.extend(strongly_connected(&modules, &room_edges(&edges)));
    found.retain(|group| group.len() > 1);
    found.sort();
    found.dedup();
    found
}

/// The same imports between rooms: a module with all the files below it. An import from a
/// file below room `a` of a file below its sibling room `b` is an arrow `a → b`, so a circle
/// that leaves a room by one file and comes back in by another (`runner.rs → completion.rs
/// → finalize.rs → runner/turn_tools.rs`) is found, where the files alone make no circle.
/// A facade's imports of its own children, and a child's of its parent, join no two rooms.
fn room_edges(edges: &BTreeMap<String, BTreeSet<String>>) -> BTreeMap<String, BTreeSet<String>> {
    let mut rooms: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (from, targets) in edges {
        let from_path: Vec<&str> = segments(from);
        for to in targets {
            let to_path: Vec<&str> = segments(to);
            let shared = from_path.iter().zip(&to_path).take_while(|(a, b)| a == b).count();
            if shared < from_path.len() && shared < to_path.len() {
                let room = |path: &[&str]| path[..=shared].join("::");
                rooms.entry(room(&from_path)).or_default().insert(room(&to_path));
            }
        }
    }
    rooms
}

/// A module path's segments; none for the crate root.
fn segments(module: &str) -> Vec<&str> {
    module.split("::").filter(|s| !s.is_empty()).collect()
}

struct Tree<'a> {
    modules: &'a BTreeSet<String>,
    uses: &'a BTreeMap<&'a str, Vec<Use>>,
}

impl Tree<'_> {
    /// The file that defines what `item` names, following facades' `pub use`s.
    fn target(&self, item: &Use, depth: usize) -> Option<String> {
        let absolute = self.absolute(&item.scope, &item.path)?;
        self.defining_file(&absolute, depth)
    }

    fn absolute(&self, scope: &[String], path: &[String]) -> Option<Vec<String>> {
        let (first, rest) = path.split_first()?;
        let mut base: Vec<String> = match first.as_str() {
            "crate" => Vec::new(),
            "self" => scope.to_vec(),
            "super" => parent(scope)?,
            name if self.modules.contains(&join(&[scope, &[name.to_owned()]].concat())) => {
                let mut here = scope.to_vec();
                here.push(name.to_owned());
                return Some([here, rest.to_vec()].concat());
            }
            _ => return None,
        };
        let mut rest = rest;
        while let Some((next, tail)) = rest.split_first() {
            match next.as_str() {
                "super" => base = parent(&base)?,
                "self" => {}
                _ => break,
            }
            rest = tail;
        }
        Some([base, rest.to_vec()].concat())
    }

    fn defining_file(&self, absolute: &[String], depth: usize) -> Option<String> {
        let mut file = Vec::new();
        let mut k = 0;
        while k < absolute.len() && self.modules.contains(&join(&absolute[..=k])) {
            k += 1;
            file = absolute[..k].to_vec();
        }
        let file = join(&file);
        let Some(name) = absolute.get(k) else { return Some(file) };
        if depth > 8 || name == "*" {
            return Some(file);
        }
        let reexport = self.uses.get(file.as_str()).and_then(|list| {
            list.iter().find(|u| u.public && u.alias.as_ref().or(u.path.last()) == Some(name))
        });
        match reexport {
            Some(item) => self.target(item, depth + 1).or(Some(file)),
            None => Some(file),
        }
    }
}

fn parent(scope: &[String]) -> Option<Vec<String>> {
    scope.split_last().map(|(_, rest)| rest.to_vec())
}

fn join(segments: &[String]) -> String {
    segments.join("::")
}

/// Every `use` statement of a file, with braces expanded and the inline module it sits in.
fn uses_of(module: &str, code: &str) -> Vec<Use> {
    let base: Vec<String> = if module.is_empty() {
        Vec::new()
    } else {
        module.split("::").map(str::to_owned).collect()
    };
    let inline = inline_modules(code);
    let scope_at = |at: usize| {
        let mut scope = base.clone();
        scope.extend(
            inline.iter().filter(|(_, s, e)| *s < at && at < *e).map(|(name, _, _)| name.clone()),
        );
        scope
    };
    let mut found = Vec::new();
    let mut statements = Vec::new();
    for at in keyword_positions(code, "use") {
        let Some(end) = code[at..].find(';').map(|e| at + e) else { continue };
        statements.push((at, end));
        let public = is_public(code[..at].trim_end());
        let scope = scope_at(at);
        for (path, alias) in expand(&compact(&code[at + 3..end])) {
            found.push(Use { scope: scope.clone(), path, public, alias });
        }
    }
    // A path written out in the code (`crate::a::f()`) imports as much as a `use` line does.
    for (at, path) in inline_paths(code) {
        if !statements.iter().any(|(start, end)| *start < at && at < *end) {
            found.push(Use { scope: scope_at(at), path, public: false, alias: None });
        }
    }
    found
}

/// Paths written out in code, outside `use` lines: `crate::…`, `super::…`, `self::…`, with
/// where each starts. A visibility (`pub(in crate::a)`) and a macro's `$crate` are not.
fn inline_paths(code: &str) -> Vec<(usize, Vec<String>)> {
    let bytes = code.as_bytes();
    let is_ident = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
    let mut found = Vec::new();
    for word in ["crate", "super", "self"] {
        for at in keyword_positions(code, word) {
            let before = code[..at].trim_end();
            if !code[at + word.len()..].starts_with("::") || before.ends_with('$') {
                continue;
            }
            if before.ends_with("in") && before[..before.len() - 2].trim_end().ends_with('(') {
                continue;
            }
            let mut end = at;
            while end < bytes.len() && (is_ident(bytes[end]) || code[end..].starts_with("::")) {
                end += if bytes[end] == b':' { 2 } else { 1 };
            }
            let path: Vec<String> =
                code[at..end].split("::").filter(|s| !s.is_empty()).map(str::to_owned).collect();
            found.push((at, path));
        }
    }
    found
}

/// Whether the code before a `use` ends in a visibility: `pub`, `pub(crate)`, `pub(super)`.
fn is_public(head: &str) -> bool {
    if head.ends_with("pub") {
        return true;
    }
    let Some(open) = head.rfind("pub(") else { return false };
    let tail = &head[open..];
    tail.ends_with(')') && !tail.contains([';', '{', '}', ']'])
}

/// A use tree with its whitespace gone, except the single spaces around `as`.
fn compact(tree: &str) -> String {
    let words: Vec<&str> = tree.split_whitespace().collect();
    let mut out = String::new();
    for (k, word) in words.iter().enumerate() {
        let glue = k > 0 && (*word == "as" || words[k - 1] == "as");
        if glue {
            out.push(' ');
        }
        out.push_str(word);
    }
    out
}

/// `mod name { … }` blocks: (name, open brace, close brace).
fn inline_modules(code: &str) -> Vec<(String, usize, usize)> {
    let bytes = code.as_bytes();
    let mut found = Vec::new();
    for at in keyword_positions(code, "mod") {
        let rest = &code[at + 3..];
        let name: String =
            rest.trim_start().chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
        let after = rest.trim_start()[name.len()..].trim_start();
        if name.is_empty() || !after.starts_with('{') {
            continue;
        }
        let open = code.len() - after.len();
        if let Some(close) = matching_brace(bytes, open) {
            found.push((name, open, close));
        }
    }
    found
}

/// `a::{b, c::{d as e}}` → `[a, b]`, `[a, c, d]` (aliased `e`).
fn expand(tree: &str) -> Vec<(Vec<String>, Option<String>)> {
    let tree = tree.trim_start_matches("::");
    let Some(open) = tree.find('{') else {
        let (path, alias) = match tree.split_once(" as ") {
            Some((path, alias)) => (path, Some(alias.to_owned())),
            None => (tree, None),
        };
        let segments: Vec<String> =
            path.split("::").filter(|s| !s.is_empty()).map(str::to_owned).collect();
        return vec![(segments, alias)];
    };
    let prefix: Vec<String> =
        tree[..open].split("::").filter(|s| !s.is_empty()).map(str::to_owned).collect();
    let Some(close) = matching_brace(tree.as_bytes(), open) else { return Vec::new() };
    let mut found = Vec::new();
    for part in split_top(&tree[open + 1..close]) {
        for (mut path, alias) in expand(part) {
            if path.first().map(String::as_str) == Some("self") {
                path.remove(0);
            }
            found.push(([prefix.clone(), path].concat(), alias));
        }
    }
    found
}

/// A brace group's items, split at the commas outside nested braces.
fn split_top(inside: &str) -> Vec<&str> {
    let mut parts = Vec::new();
    let (mut depth, mut start) = (0, 0);
    for (k, c) in inside.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(&inside[start..k]);
                start = k + 1;
            }
            _ => {}
        }
    }
    parts.push(&inside[start..]);
    parts.into_iter().filter(|p| !p.is_empty()).collect()
}

/// Tarjan's strongly connected components, each sorted, the list sorted.
fn strongly_connected(
    nodes: &BTreeSet<String>,
    edges: &BTreeMap<String, BTreeSet<String>>,
) -> Vec<Vec<String>> {
    struct Walk<'a> {
        edges: &'a BTreeMap<String, BTreeSet<String>>,
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        groups: Vec<Vec<String>>,
    }
    fn visit<'a>(walk: &mut Walk<'a>, node: &'a str) {
        let n = walk.index.len();
        walk.index.insert(node, n);
        walk.low.insert(node, n);
        walk.stack.push(node);
        for next in walk.edges.get(node).into_iter().flatten() {
            if !walk.index.contains_key(next.as_str()) {
                visit(walk, next);
                let low = walk.low[next.as_str()].min(walk.low[node]);
                walk.low.insert(node, low);
            } else if walk.stack.contains(&next.as_str()) {
                let low = walk.index[next.as_str()].min(walk.low[node]);
                walk.low.insert(node, low);
            }
        }
        if walk.low[node] == walk.index[node] {
            let mut group = Vec::new();
            while let Some(top) = walk.stack.pop() {
                group.push(top.to_owned());
                if top == node {
                    break;
                }
            }
            group.sort();
            walk.groups.push(group);
        }
    }
    let mut walk = Walk {
        edges,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        groups: Vec::new(),
    };
    for node in nodes {
        if !walk.index.contains_key(node.as_str()) {
            visit(&mut walk, node);
        }
    }
    walk.groups.sort();
    walk.groups
}
