//! Each task's own file in a Full plan, `{N}.task_{slug}.md` (seed 002's layout): its record
//! — status, title, gate records, block, outcome, evidence state and the amendments naming
//! it — in a block Preflight rewrites at every protocol point that changes the task, then
//! its step as approved, written once. Pure; `disk/task_files.rs` reads and writes them.
//!
//! Only the block between the `dwp:task` markers is ever rewritten, as in README.md: a
//! file without them (another tool's task log, a v1 plan's) is never touched. The block's
//! first line is the task's `Status:`, which the verifier reads as the task's own log.

use std::fmt::Write;

use super::documents::{Amendment, Locator, LocatorKind, PlanFormat, PlanState, Status, TaskEntry};
use super::input::StepInput;
use super::plan_text::{step_details, step_headline, MAX_ITEM_CHARS, MAX_PARAGRAPH_CHARS};
use super::readme::{amendment_line, blocked_line, gate_line};
use super::slug::slug;
use super::text::inert_line;

pub(crate) const TASK_BEGIN: &str =
    "<!-- dwp:task:begin (Preflight rewrites this block at each protocol point) -->";
pub(crate) const TASK_END: &str = "<!-- dwp:task:end -->";
const BEGIN_PREFIX: &str = "<!-- dwp:task:begin";

/// `3.task_add_retry_queue.md`: the task's number and its title's slug.
pub(crate) fn task_file_name(id: u32, title: &str) -> String {
    format!("{id}.task_{}.md", slug(title))
}

/// Whether `name` is a task file name of task `id` as [`task_file_name`] makes them: the
/// only names the writer writes, so a `state.json` whose locator names `README.md`,
/// `state.json` or `..` never gets that file overwritten.
pub(crate) fn is_task_file_name(id: u32, name: &str) -> bool {
    let Some(slug) =
        name.strip_prefix(&format!("{id}.task_")).and_then(|rest| rest.strip_suffix(".md"))
    else {
        return false;
    };
    !slug.is_empty()
        && slug.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
}

/// Where task `id` of a plan in `format` is kept: its own file (Full), or its inline record
/// in README.md (Lite: folders an earlier Preflight wrote keep their format).
pub(crate) fn task_locator(format: PlanFormat, id: u32, title: &str) -> Locator {
    match format {
        PlanFormat::Full => Locator { kind: LocatorKind::File, value: task_file_name(id, title) },
        PlanFormat::Lite => Locator::inline(id),
    }
}

/// What the file says below its block: the task's step as the user approved it, or that
/// the task came later.
#[derive(Debug, Clone, Copy)]
pub(crate) enum TaskOrigin<'a> {
    Step(&'a StepInput),
    AddedLater,
}

/// A new task file: its heading, its block, its origin.
pub(crate) fn render_task_file(task: &TaskEntry, state: &PlanState, origin: TaskOrigin) -> String {
    let mut text = format!("# Task {}\n\n", task.id);
    text.push_str(&render_block(task, state));
    match origin {
        TaskOrigin::Step(step) => {
            text.push_str("\n## The step as approved\n\n");
            let _ = writeln!(text, "- Step {}: {}", task.id, step_headline(step));
            text.push_str(&step_details(step, "- "));
        }
        TaskOrigin::AddedLater => text.push_str(
            "\n## Origin\n\nAdded while the plan was carried out, not a step of the plan as \
             first approved (README.md's amendments say who changed the plan).\n",
        ),
    }
    text
}

/// `existing` with its block replaced by the one `task` renders; `None` when the markers
/// are gone (the file is then someone else's, never rewritten by guess).
pub(crate) fn replace_task_file_block(
    existing: &str,
    task: &TaskEntry,
    state: &PlanState,
) -> Option<String> {
    let begin = existing.find(BEGIN_PREFIX)?;
    let end = existing[begin..].find(TASK_END)? + begin;
    let mut after = end + TASK_END.len();
    if existing[after..].starts_with('\n') {
        after += 1;
    }
    let block = render_block(task, state);
    Some(format!("{}{}{}", &existing[..begin], block, &existing[after..]))
}

/// The task's record, markers included, ending with a newline; `Status:` first.
fn render_block(task: &TaskEntry, state: &PlanState) -> String {
    let mut block = format!("{TASK_BEGIN}\n");
    let when = match task.status {
        Status::Completed => task.completed_at.as_deref(),
        Status::InProgress => task.started_at.as_deref(),
        Status::Blocked => task.block.as_ref().map(|block| block.since.as_str()),
        Status::Pending | Status::Skipped => None,
    };
    let when = when.map(|at| format!(" ({at})")).unwrap_or_default();
    let _ = writeln!(block, "- Status: {}{when}", task.status.as_str());
    let _ = writeln!(block, "- Title: {}", inert_line(&task.title, MAX_ITEM_CHARS));
    if let Some(phase) = &task.phase {
        let _ = writeln!(block, "- Phase: {}", inert_line(phase, MAX_ITEM_CHARS));
    }
    if let Some(commit) = &task.commit {
        let _ = writeln!(block, "- Commit: {}", inert_line(commit, MAX_ITEM_CHARS));
    }
    for gate in &task.gates {
        let _ = writeln!(block, "- Gate: {}", gate_line(gate));
    }
    if task.gates.is_empty() {
        block.push_str("- Gate: none recorded yet\n");
    }
    if let Some(record) = &task.block {
        let _ = writeln!(block, "- Blocked: {}", blocked_line(record));
    }
    push_outcome(&mut block, task);
    let names =
        |record: &&Amendment| record.tasks.contains(&task.id) || record.target == Some(task.id);
    if let Some(investigation) = &task.investigation {
        let findings = inert_line(&investigation.findings, MAX_PARAGRAPH_CHARS);
        let _ = writeln!(block, "- Investigation ({}): {findings}", investigation.at);
    }
    for record in state.amendments.iter().filter(names) {
        let _ = writeln!(block, "- {}", amendment_line(record));
    }
    block.push_str(TASK_END);
    block.push('\n');
    block
}

fn push_outcome(block: &mut String, task: &TaskEntry) {
    let Some(outcome) = &task.outcome else { return };
    let line =
        |label: &str, text: &str| format!("- {label}: {}\n", inert_line(text, MAX_PARAGRAPH_CHARS));
    let tried = outcome.tried.iter().map(|text| ("Tried", text));
    let failed = outcome.failed.iter().map(|text| ("Failed", text));
    let worked = outcome.worked.iter().map(|text| ("Worked", text));
    let notes = outcome.notes.iter().map(|text| ("Notes", text));
    for (label, text) in tried.chain(failed).chain(worked).chain(notes) {
        block.push_str(&line(label, text));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_names_the_writer_makes_are_task_file_names() {
        assert_eq!(task_file_name(3, "Add retry queue!"), "3.task_add_retry_queue.md");
        let table = [
            ("3.task_add_retry_queue.md", true),
            ("3.task_x.md", true),
            ("4.task_x.md", false),
            ("3.task_.md", false),
            ("3.task_x/../README.md", false),
            ("README.md", false),
            ("..", false),
            ("3.task_X.md", false),
        ];
        for (name, expected) in table {
            assert_eq!(is_task_file_name(3, name), expected, "{name}");
        }
    }
}
