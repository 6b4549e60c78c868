//! Prompt assembly. A request is a stable prefix (the system prompt, the workspace's own
//! instructions, an approved plan as directive) that stays byte-identical across the calls
//! of a chat, so providers' prompt caches hold; and a volatile tail at the very end of the
//! messages: the nag reminder and the `[state]` block with the rendered task list.
//!
//! **Invariant:** the tail never enters the system prompt. It travels as
//! `ModelRequest::tail`, which every wire format sends at the end of the conversation
//! (appended to the last user or tool message, else as a user message of its own); it
//! exists only in the request, never in the store.
//!
//! **Invariant:** the workspace is a cloned repository. Its instructions are read only from a
//! regular file inside it (no symlink out, no FIFO or device) and at most
//! [`INSTRUCTIONS_CAP`] bytes of it, off the async runtime.

use std::io;
use std::path::Path;

use preflight_protocol::tasks::TaskList;

/// The executor's system prompt. It must never name the planner's fences: scripted test
/// servers tell the two agents apart by the word `plan-questions`.
pub const DEFAULT_EXECUTOR_PROMPT: &str = "You are Preflight, an assistant that gets work done in the user's workspace with the tools you are given.\n\
Work step by step: read before you change, check what you did, and say plainly what is done and what is not.\n\
Use only the tools you are offered. Answer in the language of the user's request.";

/// The most of a workspace's instructions file that enters the prompt.
pub const INSTRUCTIONS_CAP: usize = 64 * 1024;
/// Ends instructions cut at [`INSTRUCTIONS_CAP`].
pub const TRUNCATED_NOTE: &str = "… (truncated at 64 KiB)";

/// The workspace's own instructions: `AGENTS.md`, else `.preflight/instructions.md`; a file
/// that is missing, holds only whitespace or is refused (a symlink, not a regular file) counts
/// as absent. At most [`INSTRUCTIONS_CAP`] bytes are read; a longer file ends with
/// [`TRUNCATED_NOTE`]. Blocking: see [`load_workspace_instructions`].
pub fn workspace_instructions(workspace: &Path) -> io::Result<Option<String>> {
    for candidate in ["AGENTS.md", ".preflight/instructions.md"] {
        let read = match preflight_files::read_regular_capped(
            workspace,
            Path::new(candidate),
            INSTRUCTIONS_CAP,
        ) {
            Ok(read) => read,
            Err(error) if error.source.kind() == io::ErrorKind::NotFound => continue,
            Err(error) if error.source.kind() == io::ErrorKind::InvalidInput => {
                tracing::warn!(%error, "workspace instructions ignored");
                continue;
            }
            Err(error) => return Err(io::Error::new(error.source.kind(), error.to_string())),
        };
        let text = decode(&read.bytes, read.truncated);
        let text = text.trim();
        if text.is_empty() {
            continue;
        }
        if read.truncated {
            return Ok(Some(format!("{text}\n\n{TRUNCATED_NOTE}")));
        }
        return Ok(Some(text.to_owned()));
    }
    Ok(None)
}

/// [`workspace_instructions`] of the chat's workspace (none without one) on a blocking
/// thread; an unreadable file is logged and counts as absent.
pub async fn load_workspace_instructions(workspace: Option<&str>) -> Option<String> {
    let workspace = std::path::PathBuf::from(workspace?);
    let read = tokio::task::spawn_blocking(move || workspace_instructions(&workspace)).await;
    match read {
        Ok(Ok(instructions)) => instructions,
        Ok(Err(error)) => {
            tracing::warn!(%error, "the workspace instructions cannot be read");
            None
        }
        Err(error) => {
            tracing::warn!(%error, "reading the workspace instructions failed");
            None
        }
    }
}

/// The text of `bytes`; a cut file may end inside a character, which is dropped.
fn decode(bytes: &[u8], truncated: bool) -> String {
    match std::str::from_utf8(bytes) {
        Ok(text) => text.to_owned(),
        Err(error) if truncated && error.error_len().is_none() => {
            String::from_utf8_lossy(&bytes[..error.valid_up_to()]).into_owned()
        }
        Err(_) => String::from_utf8_lossy(bytes).into_owned(),
    }
}

/// The executor's stable prefix: `prompt`, then the workspace's instructions, the skills it
/// may read (`skills::skills_prompt`), then the approved plan it works to (as readable
/// markdown).
pub fn executor_system_prompt(
    prompt: &str,
    instructions: Option<&str>,
    skills: Option<&str>,
    directive: Option<&str>,
) -> String {
    let mut out = prompt.trim_end().to_owned();
    if let Some(instructions) = instructions.map(str::trim).filter(|text| !text.is_empty()) {
        out.push_str("\n\n# Workspace instructions\n\n");
        out.push_str(instructions);
    }
    if let Some(skills) = skills.map(str::trim).filter(|text| !text.is_empty()) {
        out.push_str("\n\n");
        out.push_str(skills);
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
    fn the_prefix_holds_prompt_instructions_skills_and_directive_in_order() {
        let prompt = executor_system_prompt("P", Some("I"), Some("# Skills"), Some("D"));
        assert_eq!(
            prompt,
            "P\n\n# Workspace instructions\n\nI\n\n# Skills\n\n# The approved plan you carry out\n\nD"
        );
        assert_eq!(executor_system_prompt("P\n", Some(" "), None, None), "P");
        assert!(!DEFAULT_EXECUTOR_PROMPT.contains("plan-questions"));
    }

    #[test]
    fn the_state_block_is_the_rendered_plan_or_nothing() {
        let list = TaskList::from_steps(["read"]).unwrap();
        assert_eq!(state_tail(&list).unwrap(), format!("[state]\n{}", list.render()));
        assert_eq!(state_tail(&TaskList::empty()), None, "no plan, no tail");
    }
}
