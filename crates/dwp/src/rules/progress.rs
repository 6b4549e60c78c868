//! PROGRESS.md, the narrative log: one dated entry per protocol point, appended, never
//! rewritten; and PROMPTS.md, the request the plan was made for, written once. Pure text functions; the file is written whole with the other files of a
//! protocol point (see `disk/journal.rs`), so an interrupted append never leaves half a line.

use super::input::PlanInput;
use super::plan_text::{MAX_ITEM_CHARS, MAX_PARAGRAPH_CHARS};
use super::text::inert_line;

/// The longest request PROMPTS.md keeps (a request is a message, not a file).
const MAX_PROMPT_CHARS: usize = 20_000;

/// The file as materialisation writes it, before the first entry.
pub(crate) fn render_progress_header(title: &str, plan: &str) -> String {
    format!("# Progress — {title}\n\nNarrative log of `{plan}`, oldest first: one entry per protocol point.\n\n")
}

/// PROMPTS.md (seed 002's layout): the user's request that made the plan, verbatim in a
/// fence no line of it can close, written once at materialisation and never changed. When
/// the caller did not hand the request in, the file says so rather than inventing one.
pub(crate) fn render_prompts(plan: &PlanInput, now: &str) -> String {
    let title = inert_line(&plan.title, MAX_ITEM_CHARS);
    let mut text = format!(
        "# Prompts — {title}\n\nThe request that made this plan, as Preflight received it; \
         written when the plan was materialised ({now}) and never changed afterwards.\n\n"
    );
    let Some(prompt) = plan.prompt.as_deref().filter(|prompt| !prompt.trim().is_empty()) else {
        let aim = inert_line(&plan.aim, MAX_PARAGRAPH_CHARS);
        text.push_str(&format!(
            "The request was not handed to the plan folder. The plan's aim, as the planner put \
             it: {aim}\n"
        ));
        return text;
    };
    let prompt: String = prompt
        .chars()
        .filter(|c| !c.is_control() || matches!(c, '\n' | '\t'))
        .take(MAX_PROMPT_CHARS)
        .collect();
    let longest = prompt.split(|c| c != '~').map(str::len).max().unwrap_or(0);
    let fence = "~".repeat(longest.max(2) + 1);
    text.push_str(&format!("{fence}text\n{}\n{fence}\n", prompt.trim_end()));
    text
}

/// `existing` with one `- {now} — {line}` entry per line appended.
pub(crate) fn append_entries(existing: &str, now: &str, lines: &[String]) -> String {
    let mut text = existing.to_owned();
    if !text.is_empty() && !text.ends_with('\n') {
        text.push('\n');
    }
    for line in lines {
        text.push_str(&format!("- {now} — {line}\n"));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_are_appended_one_a_line() {
        let header = render_progress_header("Webhooks", "PLAN_webhooks");
        let text = append_entries(
            &header,
            "2026-06-09T14:00:00Z",
            &["Task 1 started: a.".into(), "Task 2 paused.".into()],
        );
        assert!(text.starts_with("# Progress — Webhooks\n"));
        assert!(text.ends_with("- 2026-06-09T14:00:00Z — Task 1 started: a.\n- 2026-06-09T14:00:00Z — Task 2 paused.\n"));
        assert_eq!(append_entries("no newline", "t", &["x".into()]), "no newline\n- t — x\n");
    }
}
