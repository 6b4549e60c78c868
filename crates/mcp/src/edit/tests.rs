//! Editing `mcp.json` text: other servers and keys kept, renames in place, refusals.

use serde_json::json;

use super::*;
use crate::McpOptions;

fn config() -> McpOptions {
    McpOptions::new("/home", "/srv/fs/index.js")
}

fn put(replaces: Option<&str>, name: &str, entry: Value) -> ServerChange {
    ServerChange::Put { replaces: replaces.map(str::to_owned), name: name.into(), entry }
}

const FILE: &str = r#"{"mcpServers": {"a": {"command": "a-server"}, "b": {"command": "b-server", "args": ["--x"]}}}"#;

#[test]
fn a_put_adds_replaces_or_renames_in_place_and_keeps_everything_else() {
    let path = Path::new("/home/mcp.json");
    let added = edit_servers(path, Some(FILE), &put(None, "c", json!({"command": "c"})), &config())
        .unwrap();
    let added: Value = serde_json::from_str(&added).unwrap();
    let names: Vec<&String> = added["mcpServers"].as_object().unwrap().keys().collect();
    assert_eq!(names, ["a", "b", "c"]);

    let renamed =
        edit_servers(path, Some(FILE), &put(Some("a"), "z", json!({"command": "z"})), &config())
            .unwrap();
    let renamed: Value = serde_json::from_str(&renamed).unwrap();
    assert_eq!(
        renamed["mcpServers"],
        json!({"z": {"command": "z"}, "b": {"command": "b-server", "args": ["--x"]}})
    );

    let removed =
        edit_servers(path, Some(FILE), &ServerChange::Remove { name: "a".into() }, &config())
            .unwrap();
    assert_eq!(
        serde_json::from_str::<Value>(&removed).unwrap()["mcpServers"],
        json!({"b": {"command": "b-server", "args": ["--x"]}})
    );

    let fresh =
        edit_servers(path, None, &put(None, "a", json!({"command": "a"})), &config()).unwrap();
    assert_eq!(
        serde_json::from_str::<Value>(&fresh).unwrap(),
        json!({"mcpServers": {"a": {"command": "a"}}})
    );
}

#[test]
fn a_change_that_would_not_load_is_refused_with_the_engines_error() {
    let path = Path::new("/home/mcp.json");
    let cases = [
        (put(None, "a", json!({"command": "again"})), "already has a server `a`"),
        (put(Some("a"), "b", json!({"command": "b"})), "already has a server `b`"),
        (put(Some("gone"), "x", json!({"command": "x"})), "has no server `gone`"),
        (
            put(None, "c", json!({"args": ["no command"]})),
            "server `c`: `command` (or `url`) is missing",
        ),
        (put(None, "c", json!({"command": "c", "colour": "red"})), "unknown field `colour`"),
        (put(None, " ", json!({"command": "c"})), "needs a name"),
        (ServerChange::Remove { name: "nope".into() }, "has no server `nope`"),
    ];
    for (change, expected) in cases {
        let error = edit_servers(path, Some(FILE), &change, &config()).unwrap_err().to_string();
        assert!(
            error.starts_with("/home/mcp.json: ") && error.contains(expected),
            "{change:?}: {error}"
        );
    }
    let broken = edit_servers(
        path,
        Some("{\"mcpServers\": {"),
        &put(None, "c", json!({"command": "c"})),
        &config(),
    );
    assert!(broken.unwrap_err().to_string().contains("line 1"), "a broken file names the line");
}
