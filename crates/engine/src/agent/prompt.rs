//! Prompt assembly. A request is a stable prefix (the system prompt, the workspace's own
//! instructions, an approved plan as directive) that stays byte-identical across the calls
//! of a chat, so providers' prompt caches hold; and a volatile tail at the very end of the
//! messages: the nag reminder and the `[state]` block with the rendered task list.
//!
//! **Invariant:** the tail never enters the system prompt. It is appended to the content of
//! the last message when that is the user's or a tool result (the usual case), otherwise
//! sent as a trailing user message; it exists only in the request, never in the store.

use std::io;
use std::path::Path;

use crate::llm::ModelMessage;
use crate::tasks::TaskList;

/// The executor's system prompt. It must never name the planner's fences: scripted test
/// servers tell the two agents apart by the word `plan-questions`.
pub const DEFAULT_EXECUTOR_PROMPT: &str = "You are Preflight, an assistant that gets work done in the user's workspace with the tools you are given.\n\
Work step by step: read before you change, check what you did, and say plainly what is done and what is not.\n\
Use only the tools you are offered. Answer in the language of the user's request.";

/// The workspace's own instructions: `AGENTS.md`, else `.preflight/instructions.md`; a file
/// that is missing or holds only whitespace counts as absent.
pub fn workspace_instructions(workspace: &Path) -> io::Result<Option<String>> {
    for candidate in [workspace.join("AGENTS.md"), workspace.join(".preflight").join("instructions.md")] {
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
pub fn executor_system_prompt(prompt: &str, instructions: Option<&str>, directive: Option<&str>) -> String {
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

/// The messages of one request: `history` with `tail` (blocks joined by blank lines) at
/// the end. `history` itself is not changed.
pub fn with_tail(history: &[ModelMessage], tail: &[String]) -> Vec<ModelMessage> {
    let mut messages = history.to_vec();
    if tail.is_empty() {
        return messages;
    }
    let text = tail.join("\n\n");
    match messages.last_mut() {
        Some(ModelMessage::User { content } | ModelMessage::Tool { content, .. }) => {
            content.push_str("\n\n");
            content.push_str(&text);
        }
        _ => messages.push(ModelMessage::user(text)),
    }
    messages
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tasks::NewTask;

    #[test]
    fn instructions_prefer_agents_md_and_skip_empty_files() {
        let workspace = tempfile::tempdir().unwrap();
        let root = workspace.path();
        assert_eq!(workspace_instructions(root).unwrap(), None);
        std::fs::create_dir(root.join(".preflight")).unwrap();
        std::fs::write(root.join(".preflight/instructions.md"), "Use tabs.\n").unwrap();
        assert_eq!(workspace_instructions(root).unwrap().as_deref(), Some("Use tabs."));
        std::fs::write(root.join("AGENTS.md"), "  \n").unwrap();
        assert_eq!(workspace_instructions(root).unwrap().as_deref(), Some("Use tabs."), "an empty AGENTS.md is absent");
        std::fs::write(root.join("AGENTS.md"), "Run cargo test.").unwrap();
        assert_eq!(workspace_instructions(root).unwrap().as_deref(), Some("Run cargo test."));
    }

    #[test]
    fn the_prefix_holds_prompt_instructions_and_directive_in_order() {
        let prompt = executor_system_prompt("P", Some("I"), Some("D"));
        assert_eq!(prompt, "P\n\n# Workspace instructions\n\nI\n\n# The approved plan you carry out\n\nD");
        assert_eq!(executor_system_prompt("P\n", Some(" "), None), "P");
        assert!(!DEFAULT_EXECUTOR_PROMPT.contains("plan-questions"));
    }

    #[test]
    fn the_tail_goes_on_the_last_user_or_tool_message_or_after_an_assistant() {
        let list = TaskList::empty().apply(&crate::tasks::Operation::Init { tasks: vec![NewTask::new("read", None)] }).unwrap();
        let tail = vec![state_tail(&list).unwrap()];
        let on_user = with_tail(&[ModelMessage::user("do it")], &tail);
        assert_eq!(on_user, [ModelMessage::user(format!("do it\n\n[state]\n{}", list.render()))]);
        let after_assistant = with_tail(&[ModelMessage::Assistant { content: "hi".into(), tool_calls: vec![] }], &tail);
        assert_eq!(after_assistant.len(), 2);
        assert_eq!(with_tail(&[ModelMessage::user("x")], &[]), [ModelMessage::user("x")]);
        assert_eq!(state_tail(&TaskList::empty()), None, "no plan, no tail");
    }
}
