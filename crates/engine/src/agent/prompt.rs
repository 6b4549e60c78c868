//! Prompt assembly. A request is a stable prefix (the system prompt, the workspace's own
//! instructions, an approved plan as directive) that stays byte-identical across the calls
//! of a chat, so providers' prompt caches hold; and a volatile tail at the very end of the
//! messages: the nag reminder and the `[state]` block with the rendered task list.
//!
//! **Invariant:** the tail never enters the system prompt. It travels as
//! `ModelRequest::tail`, which every wire format sends at the end of the conversation
//! (appended to the last user or tool message, else as a user message of its own); it
//! exists only in the request, never in the store.

use std::io;
use std::path::Path;

use crate::tasks::TaskList;

/// The executor's system prompt. It must never name the planner's fences: scripted test
/// servers tell the two agents apart by the word `plan-questions`.
pub const DEFAULT_EXECUTOR_PROMPT: &str = "You are Preflight, an assistant that gets work done in the user's workspace with the tools you are given.\n\
Work step by step: read before you change, check what you did, and say plainly what is done and what is not.\n\
Use only the tools you are offered. Answer in the language of the user's request.";

/// The workspace's own instructions: `AGENTS.md`, else `.preflight/instructions.md`; a file
/// that is missing or holds only whitespace counts as absent.
pub fn workspace_instructions(workspace: &Path) -> io::Result<Option<String>> {
    for candidate in
        [workspace.join("AGENTS.md"), workspace.join(".preflight").join("instructions.md")]
    {
        match std::fs::read_to_string(&candidate) {
            Ok(text) if !text.trim().is_empty() => return Ok(Some(text.trim().to_owned())),
            Ok(_) => {}
            Err(error) if error.kind() == io::ErrorKind::NotFound => {}
            Err(error) => return Err(error),
        }
    }
    Ok(None)
}

/// The executor's stable prefix: `prompt`, then the workspace's instructions, then the
/// approved plan it works to (as readable markdown).
pub fn executor_system_prompt(
    prompt: &str,
    instructions: Option<&str>,
    directive: Option<&str>,
) -> String {
    let mut out = prompt.trim_end().to_owned();
    if let Some(instructions) = instructions.map(str::trim).filter(|text| !text.is_empty()) {
        out.push_str("\n\n# Workspace instructions\n\n");
        out.push_str(instructions);
    }
    if let Some(directive) = directive.map(str::trim).filter(|text| !text.is_empty()) {
        out.push_str("\n\n# The approved plan you carry out\n\n");
        out.push_str(directive);
    }
    out
}

/// The `[state]` block: the rendered task list, or nothing when there is no plan.
pub fn state_tail(list: &TaskList) -> Option<String> {
    (!list.is_empty()).then(|| format!("[state]\n{}", list.render()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn instructions_prefer_agents_md_and_skip_empty_files() {
        let workspace = tempfile::tempdir().unwrap();
        let root = workspace.path();
        assert_eq!(workspace_instructions(root).unwrap(), None);
        std::fs::create_dir(root.join(".preflight")).unwrap();
        std::fs::write(root.join(".preflight/instructions.md"), "Use tabs.\n").unwrap();
        assert_eq!(workspace_instructions(root).unwrap().as_deref(), Some("Use tabs."));
        std::fs::write(root.join("AGENTS.md"), "  \n").unwrap();
        assert_eq!(
            workspace_instructions(root).unwrap().as_deref(),
            Some("Use tabs."),
            "an empty AGENTS.md is absent"
        );
        std::fs::write(root.join("AGENTS.md"), "Run cargo test.").unwrap();
        assert_eq!(workspace_instructions(root).unwrap().as_deref(), Some("Run cargo test."));
    }

    #[test]
    fn the_prefix_holds_prompt_instructions_and_directive_in_order() {
        let prompt = executor_system_prompt("P", Some("I"), Some("D"));
        assert_eq!(
            prompt,
            "P\n\n# Workspace instructions\n\nI\n\n# The approved plan you carry out\n\nD"
        );
        assert_eq!(executor_system_prompt("P\n", Some(" "), None), "P");
        assert!(!DEFAULT_EXECUTOR_PROMPT.contains("plan-questions"));
    }

    #[test]
    fn the_state_block_is_the_rendered_plan_or_nothing() {
        let list = TaskList::from_steps(["read"]).unwrap();
        assert_eq!(state_tail(&list).unwrap(), format!("[state]\n{}", list.render()));
        assert_eq!(state_tail(&TaskList::empty()), None, "no plan, no tail");
    }
}
