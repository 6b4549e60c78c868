//! The planning and execution profiles of DESIGN §4, as pure functions: which servers and
//! which tools a turn may see and call. No I/O; the host applies these to live tool lists.
//!
//! **Invariant:** the planning profile is written down here, never derived from what the
//! execution profile had: the filesystem server's read-only allowlist, every Context7 tool,
//! nothing else. A tool a server adds later (a new write tool, say) stays out of planning
//! until someone adds it to the allowlist by hand.

use serde::Serialize;

use crate::classify::ServerClass;

/// The tool set a turn runs with. It belongs to the turn (DESIGN §9): two chats with
/// different profiles at the same moment each see their own.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "lowercase")]
pub enum Profile {
    /// The read-only planner turn.
    Planning,
    /// The managed profile of normal execution: every configured tool.
    Execution,
}

impl Profile {
    /// The name shown by `GET /v1/chats/{id}/profile`.
    pub fn name(self) -> &'static str {
        match self {
            Profile::Planning => "planning",
            Profile::Execution => "execution",
        }
    }
}

/// The filesystem server's tools that read and never write (DESIGN §4).
pub const READ_ONLY_ALLOWLIST: [&str; 8] = [
    "read_text_file",
    "read_media_file",
    "read_multiple_files",
    "list_directory",
    "list_directory_with_sizes",
    "search_files",
    "directory_tree",
    "get_file_info",
];

/// Whether a turn with `profile` uses servers of `class` at all (the table of DESIGN §4).
pub fn server_in_profile(profile: Profile, class: ServerClass) -> bool {
    match profile {
        Profile::Execution => true,
        Profile::Planning => matches!(class, ServerClass::Filesystem | ServerClass::Context7),
    }
}

/// Whether a turn with `profile` may see and call `tool` of a server of `class`.
pub fn tool_in_profile(profile: Profile, class: ServerClass, tool: &str) -> bool {
    match (profile, class) {
        (Profile::Execution, _) => true,
        (Profile::Planning, ServerClass::Filesystem) => READ_ONLY_ALLOWLIST.contains(&tool),
        (Profile::Planning, ServerClass::Context7) => true,
        (Profile::Planning, ServerClass::CodeSandbox | ServerClass::Other) => false,
    }
}

/// One server's tools, as the profile computation reads them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerTools<'a> {
    pub server: &'a str,
    pub class: ServerClass,
    pub tools: Vec<&'a str>,
    /// The user marked the server "may be read while planning" (`readWhilePlanning`).
    pub marked: bool,
    /// Its tools the server annotates `readOnlyHint: true` and not `destructiveHint`.
    pub read_only: Vec<&'a str>,
}

/// Whether a planning turn uses a server of `class` the user may have `marked` readable.
pub fn planning_uses(class: ServerClass, marked: bool) -> bool {
    server_in_profile(Profile::Planning, class) || marked
}

/// Whether `profile` sees `tool` of `server`: the class's rule, and while planning also a
/// marked server's read-only tools (DESIGN §4 stands for every unmarked server).
fn sees(profile: Profile, server: &ServerTools<'_>, tool: &str) -> bool {
    tool_in_profile(profile, server.class, tool)
        || (profile == Profile::Planning && server.marked && server.read_only.contains(&tool))
}

/// A tool of a server, by their own names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ToolRef<'a> {
    pub server: &'a str,
    pub tool: &'a str,
}

/// The tools a turn with `profile` sees, in server order then each server's own order.
pub fn visible_tools<'a>(profile: Profile, servers: &[ServerTools<'a>]) -> Vec<ToolRef<'a>> {
    servers
        .iter()
        .filter(|s| {
            server_in_profile(profile, s.class) || (profile == Profile::Planning && s.marked)
        })
        .flat_map(|s| {
            s.tools
                .iter()
                .filter(move |tool| sees(profile, s, tool))
                .map(move |tool| ToolRef { server: s.server, tool })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use ServerClass::*;

    /// The 14 tools of `@modelcontextprotocol/server-filesystem` 2026.8.31.
    const FS_TOOLS: [&str; 14] = [
        "read_file",
        "read_text_file",
        "read_media_file",
        "read_multiple_files",
        "write_file",
        "edit_file",
        "create_directory",
        "list_directory",
        "list_directory_with_sizes",
        "directory_tree",
        "move_file",
        "search_files",
        "get_file_info",
        "list_allowed_directories",
    ];
    const CLASSES: [ServerClass; 4] = [Filesystem, Context7, CodeSandbox, Other];
    const OTHER_TOOLS: [&str; 6] =
        ["resolve-library-id", "query-docs", "run_code", "delete_everything", "", "READ_TEXT_FILE"];

    #[test]
    fn the_allowlist_is_exactly_design_section_4() {
        let design = "read_text_file, read_media_file, read_multiple_files, list_directory, \
                      list_directory_with_sizes, search_files, directory_tree, get_file_info";
        let design: Vec<&str> = design.split(", ").collect();
        assert_eq!(READ_ONLY_ALLOWLIST.to_vec(), design);
        for name in READ_ONLY_ALLOWLIST {
            assert!(FS_TOOLS.contains(&name), "{name} is not a tool of the pinned server");
        }
    }

    /// Every (profile, class, tool) against the table of DESIGN §4, written out case by case.
    #[test]
    fn every_profile_class_and_tool_follows_the_table() {
        let writes = ["write_file", "edit_file", "create_directory", "move_file"];
        for class in CLASSES {
            for tool in FS_TOOLS.iter().chain(OTHER_TOOLS.iter()) {
                assert!(tool_in_profile(Profile::Execution, class, tool), "{class:?} {tool}");
                let planning = tool_in_profile(Profile::Planning, class, tool);
                let want = match class {
                    Filesystem => READ_ONLY_ALLOWLIST.contains(tool),
                    Context7 => true,
                    CodeSandbox | Other => false,
                };
                assert_eq!(planning, want, "planning, {class:?}, {tool:?}");
                if class == Filesystem && writes.contains(tool) {
                    assert!(!planning, "{tool} must never be visible while planning");
                }
            }
            assert!(server_in_profile(Profile::Execution, class));
            assert_eq!(
                server_in_profile(Profile::Planning, class),
                matches!(class, Filesystem | Context7)
            );
        }
        // Deprecated read_file and list_allowed_directories are not on the list.
        assert!(!tool_in_profile(Profile::Planning, Filesystem, "read_file"));
        assert!(!tool_in_profile(Profile::Planning, Filesystem, "list_allowed_directories"));
    }

    fn realistic() -> Vec<ServerTools<'static>> {
        vec![
            ServerTools {
                server: "filesystem",
                class: Filesystem,
                tools: FS_TOOLS.to_vec(),
                marked: false,
                read_only: vec![],
            },
            ServerTools {
                server: "context7",
                class: Context7,
                tools: vec!["resolve-library-id", "query-docs"],
                marked: false,
                read_only: vec![],
            },
            ServerTools {
                server: "code-sandbox",
                class: CodeSandbox,
                tools: vec!["run_code"],
                marked: false,
                read_only: vec![],
            },
            ServerTools {
                server: "github",
                class: Other,
                tools: vec!["create_issue"],
                marked: false,
                read_only: vec![],
            },
        ]
    }

    #[test]
    fn a_marked_server_offers_the_planner_its_read_only_tools_and_nothing_else() {
        let tracker = |marked| ServerTools {
            server: "tracker",
            class: Other,
            tools: vec!["list_issues", "create_issue", "get_issue"],
            marked,
            read_only: vec!["list_issues", "get_issue"],
        };
        let seen = |servers: &[ServerTools<'static>], profile| -> Vec<&'static str> {
            visible_tools(profile, servers).into_iter().map(|t| t.tool).collect()
        };
        assert_eq!(seen(&[tracker(true)], Profile::Planning), ["list_issues", "get_issue"]);
        assert!(seen(&[tracker(false)], Profile::Planning).is_empty(), "unmarked: absent");
        assert_eq!(seen(&[tracker(true)], Profile::Execution).len(), 3);
        assert!(planning_uses(Other, true) && !planning_uses(Other, false));
    }

    #[test]
    fn planning_sees_the_allowlist_and_context7_only() {
        let seen: Vec<(&str, &str)> = visible_tools(Profile::Planning, &realistic())
            .into_iter()
            .map(|t| (t.server, t.tool))
            .collect();
        let mut want: Vec<(&str, &str)> = FS_TOOLS
            .iter()
            .filter(|t| READ_ONLY_ALLOWLIST.contains(t))
            .map(|t| ("filesystem", *t))
            .collect();
        want.extend([("context7", "resolve-library-id"), ("context7", "query-docs")]);
        assert_eq!(seen, want);
    }

    #[test]
    fn execution_sees_everything_in_order() {
        let servers = realistic();
        let seen = visible_tools(Profile::Execution, &servers);
        let all: Vec<ToolRef> = servers
            .iter()
            .flat_map(|s| s.tools.iter().map(|t| ToolRef { server: s.server, tool: t }))
            .collect();
        assert_eq!(seen, all);
    }

    #[test]
    fn planning_without_a_filesystem_server_has_no_file_tools() {
        let servers: Vec<ServerTools> = realistic().into_iter().skip(1).collect();
        let seen = visible_tools(Profile::Planning, &servers);
        assert!(seen.iter().all(|t| t.server == "context7"), "{seen:?}");
        assert!(visible_tools(Profile::Planning, &[]).is_empty());
    }

    fn class_strategy() -> impl Strategy<Value = ServerClass> {
        prop::sample::select(CLASSES.to_vec())
    }

    fn tool_strategy() -> impl Strategy<Value = String> {
        prop_oneof![prop::sample::select(FS_TOOLS.to_vec()).prop_map(String::from), "[a-z_]{1,12}",]
    }

    proptest! {
        /// Planning is computed from the allowlist, not from the execution set: whatever the
        /// servers offer, planning sees a subset of (allowlisted filesystem ∪ Context7), and
        /// adding or removing tools outside that set never changes it.
        #[test]
        fn planning_is_deterministic(
            servers in prop::collection::vec((class_strategy(), prop::collection::vec(tool_strategy(), 0..20)), 0..5),
            extra in prop::collection::vec(tool_strategy(), 0..10),
        ) {
            let names: Vec<String> = (0..servers.len()).map(|i| format!("s{i}")).collect();
            let build = |with_extra: bool| -> Vec<ServerTools> {
                servers.iter().zip(&names).map(|((class, tools), name)| {
                    let mut list: Vec<&str> = tools.iter().map(String::as_str).collect();
                    if with_extra && *class != Context7 {
                        list.extend(extra.iter().map(String::as_str).filter(|t| !READ_ONLY_ALLOWLIST.contains(t)));
                    }
                    ServerTools { server: name, class: *class, tools: list, marked: false, read_only: vec![] }
                }).collect()
            };
            let plain = build(false);
            let planning = visible_tools(Profile::Planning, &plain);
            for t in &planning {
                let class = plain.iter().find(|s| s.server == t.server).unwrap().class;
                prop_assert!(class == Context7 || (class == Filesystem && READ_ONLY_ALLOWLIST.contains(&t.tool)));
            }
            prop_assert_eq!(planning, visible_tools(Profile::Planning, &build(true)));
            let all: usize = plain.iter().map(|s| s.tools.len()).sum();
            prop_assert_eq!(visible_tools(Profile::Execution, &plain).len(), all);
        }
    }
}
