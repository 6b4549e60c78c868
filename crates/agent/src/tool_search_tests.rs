//! Tool search's rules as tables: when tools are deferred, which recent ones stay shown, and
//! what a query finds.

use serde_json::json;

use super::*;

/// A tool whose schema is as large as real servers' (about 150 tokens).
fn spec(name: &str, description: &str) -> ToolSpec {
    let schema = json!({"type": "object", "properties": {"path": {"type": "string", "description": "x".repeat(560)}}});
    ToolSpec { name: name.into(), description: description.into(), input_schema: schema }
}

fn tools() -> Vec<ToolSpec> {
    vec![
        spec("mcp_fs_read_text_file", "Read the complete contents of a file as text"),
        spec("mcp_fs_write_file", "Create a new file or overwrite an existing file"),
        spec("mcp_git_git_log", "Shows the commit logs"),
        spec("mcp_memory_create_entities", "Create multiple new entities in the knowledge graph"),
        spec("mcp_everything_echo", "Echoes back the input"),
    ]
}

/// The names `deferred_names` leaves shown.
fn shown(limit: u64, recent: &[String]) -> Vec<String> {
    let deferred = deferred_names(&tools(), limit, recent).expect("over the budget");
    let names = tools().into_iter().map(|spec| spec.name);
    names.filter(|name| !deferred.contains(name)).collect()
}

#[test]
fn nothing_is_deferred_while_every_tool_fits() {
    let total: u64 = tools().iter().map(spec_tokens).sum();
    assert_eq!(deferred_names(&tools(), total, &[]), None);
    assert!(deferred_names(&tools(), total - 1, &[]).is_some());
}

#[test]
fn recent_tools_stay_shown_while_they_fit() {
    let recent = ["mcp_git_git_log".to_owned(), "mcp_fs_write_file".to_owned()];
    let search = spec_tokens(&search_spec(0));
    let (write, git) = (spec_tokens(&tools()[1]), spec_tokens(&tools()[2]));
    let cases: [(u64, &[&str]); 3] = [
        (search + git + write, &["mcp_fs_write_file", "mcp_git_git_log"]),
        (search + git, &["mcp_git_git_log"]),
        (search, &[]),
    ];
    for (limit, kept) in cases {
        assert_eq!(shown(limit, &recent), kept, "limit {limit}");
    }
}

#[test]
fn no_more_than_the_recent_allowance_stays() {
    let recent: Vec<String> = tools().into_iter().map(|spec| spec.name).collect();
    let all: u64 = tools().iter().map(spec_tokens).sum();
    // Every tool would fit beside the search tool but one: still only RECENT_TOOLS stay.
    let kept = shown(all - 1, &recent);
    assert!(kept.len() <= RECENT_TOOLS, "{kept:?}");
}

#[test]
fn a_query_finds_by_name_then_description() {
    let search = ToolSearch::new(tools());
    let cases: [(&str, &[&str]); 4] = [
        ("mcp_git_git_log", &["mcp_git_git_log"]),
        ("write a file", &["mcp_fs_write_file", "mcp_fs_read_text_file"]),
        ("knowledge graph", &["mcp_memory_create_entities"]),
        ("echo", &["mcp_everything_echo"]),
    ];
    for (query, expected) in cases {
        let found: Vec<&str> =
            rank(&search.deferred, query).iter().map(|spec| spec.name.as_str()).collect();
        assert_eq!(found, expected, "{query}");
    }
}

#[test]
fn what_a_search_finds_is_no_longer_hidden() {
    let search = ToolSearch::new(tools());
    assert!(search.hides("mcp_git_git_log"));
    let output = search.call(&json!({"query": "commit logs"}));
    assert!(!output.is_error, "{}", output.content);
    assert!(output.content.contains("mcp_git_git_log"), "{}", output.content);
    assert!(!search.hides("mcp_git_git_log"));
    assert!(search.hides("mcp_fs_write_file"), "only what was found");
    assert_eq!(search.found_specs().len(), 1);
}

#[test]
fn an_empty_query_is_an_error_and_a_miss_says_so() {
    let search = ToolSearch::new(tools());
    assert!(search.call(&json!({})).is_error);
    assert!(search.call(&json!({"query": "  "})).is_error);
    let miss = search.call(&json!({"query": "zzz qqq"}));
    assert!(!miss.is_error && miss.content.starts_with("No tool matched"), "{}", miss.content);
    assert!(search.found_specs().is_empty());
}

#[test]
fn a_deferred_tool_named_exactly_is_shown_from_then_on() {
    let search = ToolSearch::new(tools());
    search.reveal("mcp_fs_write_file");
    search.reveal("mcp_fs_write_file");
    search.reveal("not_a_deferred_tool");
    assert!(!search.hides("mcp_fs_write_file"));
    let found: Vec<String> = search.found_specs().into_iter().map(|spec| spec.name).collect();
    assert_eq!(found, ["mcp_fs_write_file"], "once, and only what was deferred");
}
