//! Tool search (DESIGN §17): when the MCP tools' definitions would take more of the context
//! window than the user's budget, a turn is shown the built-in tools, the tools the chat used
//! most recently and `tool_search`; the others are *deferred*. A search finds deferred tools
//! by words of their names and descriptions, and what it finds is shown and callable for the
//! rest of the turn.
//!
//! **Invariant:** deferral only hides; it never adds. What can be found is what the turn's
//! profile offered, so the profile rules (DESIGN §4) hold for every tool a search brings in.

use std::collections::HashSet;
use std::sync::Mutex;

use preflight_protocol::tool::{ToolOutput, ToolSpec};
use serde_json::{json, Value};

/// The built-in tool that finds deferred tools.
pub const TOOL_SEARCH: &str = "tool_search";
/// How many of the chat's most recently used tools stay shown when others are deferred.
pub const RECENT_TOOLS: usize = 5;
/// The most tools one search brings in.
pub const FOUND_PER_SEARCH: usize = 5;

/// The estimated tokens of one tool's definition: its name, description and input schema,
/// at four bytes a token, as the context estimator counts a request's tools.
pub fn spec_tokens(spec: &ToolSpec) -> u64 {
    let bytes = spec.name.len() + spec.description.len() + spec.input_schema.to_string().len();
    (bytes as u64).div_ceil(4)
}

/// The names of `tools` to defer so that what stays shown fits `limit` tokens, or `None`
/// when every tool fits. `recent` (most recent first) names the tools that stay shown while
/// they fit, at most [`RECENT_TOOLS`] of them.
pub fn deferred_names(tools: &[ToolSpec], limit: u64, recent: &[String]) -> Option<Vec<String>> {
    let total: u64 = tools.iter().map(spec_tokens).sum();
    if total <= limit {
        return None;
    }
    let mut kept = HashSet::new();
    let mut used = spec_tokens(&search_spec(0));
    for name in recent.iter().take(RECENT_TOOLS) {
        let Some(spec) = tools.iter().find(|spec| &spec.name == name) else { continue };
        let cost = spec_tokens(spec);
        if used + cost <= limit {
            used += cost;
            kept.insert(name.as_str());
        }
    }
    let deferred = tools.iter().filter(|spec| !kept.contains(spec.name.as_str()));
    Some(deferred.map(|spec| spec.name.clone()).collect())
}

/// `tool_search`'s definition, saying how many tools it can find.
fn search_spec(deferred: usize) -> ToolSpec {
    ToolSpec {
        name: TOOL_SEARCH.to_owned(),
        description: format!(
            "Finds tools that are not listed yet ({deferred} more are available). Give a few \
             words of what you need (e.g. \"read file\", \"git log\"), or a tool's exact name. \
             The tools found can be called from then on."
        ),
        input_schema: json!({
            "type": "object",
            "properties": {
                "query": {"type": "string", "description": "Words of what the tool does, or its name"}
            },
            "required": ["query"],
        }),
    }
}

/// The deferred tools of one turn and what its searches found.
pub(crate) struct ToolSearch {
    deferred: Vec<ToolSpec>,
    found: Mutex<Vec<String>>,
}

impl ToolSearch {
    pub(crate) fn new(deferred: Vec<ToolSpec>) -> ToolSearch {
        ToolSearch { deferred, found: Mutex::new(Vec::new()) }
    }

    pub(crate) fn spec(&self) -> ToolSpec {
        search_spec(self.deferred.len())
    }

    /// The names deferred at the start of the turn, found since or not.
    pub(crate) fn deferred(&self) -> impl Iterator<Item = &str> {
        self.deferred.iter().map(|spec| spec.name.as_str())
    }

    /// Whether `name` is deferred and no search has found it yet.
    pub(crate) fn hides(&self, name: &str) -> bool {
        self.deferred.iter().any(|spec| spec.name == name) && !self.found_names().contains(name)
    }

    /// The definitions found so far, in the order they were found.
    pub(crate) fn found_specs(&self) -> Vec<ToolSpec> {
        let found = self.found.lock().map(|found| found.clone()).unwrap_or_default();
        let spec = |name: &String| self.deferred.iter().find(|spec| &spec.name == name).cloned();
        found.iter().filter_map(spec).collect()
    }

    fn found_names(&self) -> HashSet<String> {
        self.found.lock().map(|found| found.iter().cloned().collect()).unwrap_or_default()
    }

    /// Shows the deferred tool `name` from now on (the model called it by its exact name).
    pub(crate) fn reveal(&self, name: &str) {
        if !self.hides(name) {
            return;
        }
        if let Ok(mut found) = self.found.lock() {
            found.push(name.to_owned());
        }
    }

    /// Runs one `tool_search` call: the best matches are shown from now on.
    pub(crate) fn call(&self, arguments: &Value) -> ToolOutput {
        let query = arguments["query"].as_str().map(str::trim).unwrap_or_default();
        if query.is_empty() {
            return ToolOutput::error("give `query`: a few words of what the tool should do");
        }
        let matches = rank(&self.deferred, query);
        if matches.is_empty() {
            return ToolOutput::ok(format!(
                "No tool matched {query:?}. Try other words (what the tool acts on, or its \
                 server's name)."
            ));
        }
        if let Ok(mut found) = self.found.lock() {
            for spec in &matches {
                if !found.contains(&spec.name) {
                    found.push(spec.name.clone());
                }
            }
        }
        let lines: Vec<String> =
            matches.iter().map(|spec| format!("- {}: {}", spec.name, one_line(spec))).collect();
        ToolOutput::ok(format!(
            "Found {} tool(s); they can be called from now on:\n{}",
            matches.len(),
            lines.join("\n")
        ))
    }
}

/// The first line of a tool's description, at most 200 characters.
fn one_line(spec: &ToolSpec) -> String {
    let line = spec.description.lines().next().unwrap_or_default().trim();
    match line.char_indices().nth(200) {
        Some((cut, _)) => format!("{}…", &line[..cut]),
        None => line.to_owned(),
    }
}

/// The best [`FOUND_PER_SEARCH`] of `tools` for `query`: an exact name first, then by how
/// many of the query's words the name (3 points each) and the description (1) contain; ties
/// keep the offered order. Tools matching no word are left out.
fn rank<'a>(tools: &'a [ToolSpec], query: &str) -> Vec<&'a ToolSpec> {
    let query = query.to_lowercase();
    if let Some(exact) = tools.iter().find(|spec| spec.name.to_lowercase() == query) {
        return vec![exact];
    }
    let words: Vec<&str> =
        query.split(|c: char| !c.is_alphanumeric()).filter(|word| word.len() > 1).collect();
    let mut scored: Vec<(u32, usize, &ToolSpec)> = tools
        .iter()
        .enumerate()
        .map(|(at, spec)| (score(spec, &words), at, spec))
        .filter(|(points, _, _)| *points > 0)
        .collect();
    scored.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    scored.into_iter().take(FOUND_PER_SEARCH).map(|(_, _, spec)| spec).collect()
}

fn score(spec: &ToolSpec, words: &[&str]) -> u32 {
    let name = spec.name.to_lowercase();
    let description = spec.description.to_lowercase();
    let points =
        |word: &&str| u32::from(name.contains(*word)) * 3 + u32::from(description.contains(*word));
    words.iter().map(points).sum()
}

#[cfg(test)]
#[path = "tool_search_tests.rs"]
mod tests;
