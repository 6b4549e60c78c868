//! README.md, the human source of truth: rendered at materialisation, its task block
//! re-rendered at each protocol point, and read back (checkboxes, each task's `Status:`
//! line, the Approval line) by the verifier and the reconciler. Pure.
//!
//! Each task is a Lite inline record: a checkbox line ending in its anchor `{#task-N}`,
//! then indented detail lines. Only the block between the `dwp:tasks` markers is ever
//! rewritten; everything else in the file belongs to whoever edits it.

use std::fmt::Write;

use super::documents::{
    Amendment, ApprovalState, GateRecord, PlanState, Status, TaskBlock, TaskEntry, SPEC_VERSION,
};
use super::plan_text::{code, plan_sections, MAX_ITEM_CHARS, MAX_PARAGRAPH_CHARS};
use super::task_helpers::describe_run;
use super::text::inert_line;
use crate::rules::input::PlanInput;

pub(crate) const TASKS_BEGIN: &str =
    "<!-- dwp:tasks:begin (Preflight rewrites this block at each protocol point) -->";
pub(crate) const TASKS_END: &str = "<!-- dwp:tasks:end -->";
const BEGIN_PREFIX: &str = "<!-- dwp:tasks:begin";

/// What README.md says, as far as the state layer is concerned.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct ReadmeView {
    pub tasks: Vec<ReadmeTask>,
    /// The Approval line's word, when there is one and it is one of the seed's values.
    pub approval: Option<ApprovalState>,
    /// 1-based line numbers of checkboxes without a `{#task-N}` anchor.
    pub unanchored: Vec<usize>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ReadmeTask {
    pub id: u32,
    pub checked: bool,
    pub title: String,
    /// The first word of the task record's `Status:` line, if it has one.
    pub status: Option<String>,
    pub line: usize,
}

/// The whole README of a newly materialised plan: its title, Approval and aim, the task
/// block, then the plan as approved (`plan_text.rs`), every field made inert.
pub(crate) fn render_readme(
    plan: &PlanInput,
    state: &PlanState,
    approval: ApprovalState,
    now: &str,
) -> String {
    let title = inert_line(&plan.title, MAX_ITEM_CHARS);
    let mut text = format!("# {title}\n\n**Approval:** {} — {now}\n\n", approval.as_str());
    if !plan.aim.trim().is_empty() {
        let _ = write!(text, "**Aim:** {}\n\n", inert_line(&plan.aim, MAX_PARAGRAPH_CHARS));
    }
    text.push_str("## Tasks\n\nA box is ticked when the task's check has passed; `state.json` mirrors this list, and each task's own file (`N.task_….md`) holds its step, checks and outcome.\n\n");
    text.push_str(&render_task_block(state));
    text.push_str(&plan_sections(plan));
    let _ = write!(
        text,
        "\n---\nDeep Work Plan {} (Full). Files: `PROGRESS.md` (log), `PROMPTS.md` (the request), \
         `manifest.json` (identity), `state.json` (live state), one `N.task_….md` per task, \
         `analysis_results/` (evidence). Check with `preflight dwp verify {}`.\n",
        SPEC_VERSION, state.plan
    );
    text
}

/// The task block, markers included, ending with a newline.
pub(crate) fn render_task_block(state: &PlanState) -> String {
    render_block(state, &[])
}

/// The block with the boxes of `ticked_by_hand` left ticked as a person ticked them, though
/// `state.json` does not say completed: an update never silently unticks someone's box
/// (the disagreement stays for the verifier and the chat to report).
fn render_block(state: &PlanState, ticked_by_hand: &[u32]) -> String {
    let mut block = format!("{TASKS_BEGIN}\n");
    let mut phase: Option<&str> = None;
    for task in &state.tasks {
        if task.phase.is_some() && task.phase.as_deref() != phase {
            let _ = write!(block, "\n### {}\n\n", task.phase.as_deref().unwrap_or_default());
        }
        phase = task.phase.as_deref();
        push_task(&mut block, task, ticked_by_hand.contains(&task.id));
    }
    push_amendments(&mut block, state);
    block.push_str(TASKS_END);
    block.push('\n');
    block
}

fn push_task(block: &mut String, task: &TaskEntry, ticked_by_hand: bool) {
    let mark = if task.status == Status::Completed || ticked_by_hand { "x" } else { " " };
    let label = format!("**{}.** {}", task.id, inert_line(&task.title, MAX_ITEM_CHARS));
    let label = if task.status == Status::Skipped { format!("~~{label}~~") } else { label };
    let _ = writeln!(block, "- [{mark}] {label} {{#task-{}}}", task.id);
    let when = match task.status {
        Status::Completed => task.completed_at.as_deref(),
        Status::InProgress => task.started_at.as_deref(),
        Status::Blocked => task.block.as_ref().map(|block| block.since.as_str()),
        Status::Pending | Status::Skipped => None,
    };
    let when = when.map(|at| format!(" ({at})")).unwrap_or_default();
    let _ = writeln!(block, "  - Status: {}{when}", task.status.as_str());
    for gate in &task.gates {
        let _ = writeln!(block, "  - Gate: {}", gate_line(gate));
    }
    if let Some(block_record) = &task.block {
        let _ = writeln!(block, "  - Blocked: {}", blocked_line(block_record));
    }
    if let Some(investigation) = &task.investigation {
        let findings = inert_line(&investigation.findings, MAX_PARAGRAPH_CHARS);
        let _ = writeln!(block, "  - Investigation ({}): {findings}", investigation.at);
    }
    if let Some(outcome) = &task.outcome {
        for line in outcome.worked.iter().chain(outcome.notes.iter()) {
            let _ = writeln!(block, "  - Outcome: {}", inert_line(line, MAX_PARAGRAPH_CHARS));
        }
    }
}

/// A gate record on one line: its command, its run, and its invalidation if any.
pub(crate) fn gate_line(gate: &GateRecord) -> String {
    let invalidated =
        gate.invalidated.as_deref().map(|why| format!(" — invalidated: {why}")).unwrap_or_default();
    let run = inert_line(&format!("{}{invalidated}", describe_run(gate)), MAX_PARAGRAPH_CHARS);
    format!("{} {run}", code(&gate.command))
}

/// A task's block record on one line: the reason and what it needs.
pub(crate) fn blocked_line(block: &TaskBlock) -> String {
    let needs =
        if block.needs.is_empty() { String::new() } else { format!(" (needs: {})", block.needs) };
    inert_line(&format!("{}{needs}", block.reason), MAX_PARAGRAPH_CHARS)
}

/// The plan's amendments under the tasks, one line each, so a reader of README.md sees why
/// the tasks differ from the steps as approved.
fn push_amendments(block: &mut String, state: &PlanState) {
    if state.amendments.is_empty() {
        return;
    }
    block.push_str("\n### Amendments\n\n");
    for record in &state.amendments {
        let _ = writeln!(block, "- {}", amendment_line(record));
    }
}

/// An amendment record on one line, as README.md and the task files show it.
pub(crate) fn amendment_line(record: &Amendment) -> String {
    let was: Vec<String> = record.original.iter().map(|title| format!("“{title}”")).collect();
    let line = format!(
        "Amendment {} ({}): {} (was {}); {}; observed: {}",
        record.id,
        record.at,
        record.resolution,
        was.join(", "),
        record.reason,
        record.observed
    );
    inert_line(&line, 4 * MAX_PARAGRAPH_CHARS)
}

/// `readme` with its task block replaced by the one `state` renders (boxes in
/// `ticked_by_hand` kept ticked); `None` when the markers are gone (the file is then
/// someone else's to fix, never rewritten by guess).
pub(crate) fn replace_task_block(
    readme: &str,
    state: &PlanState,
    ticked_by_hand: &[u32],
) -> Option<String> {
    let begin = readme.find(BEGIN_PREFIX)?;
    let end_marker = readme[begin..].find(TASKS_END)? + begin;
    let mut after = end_marker + TASKS_END.len();
    if readme[after..].starts_with('\n') {
        after += 1;
    }
    let block = render_block(state, ticked_by_hand);
    Some(format!("{}{}{}", &readme[..begin], block, &readme[after..]))
}

/// Reads the checkboxes, their `Status:` lines and the Approval line.
pub(crate) fn parse_readme(text: &str) -> ReadmeView {
    let mut view = ReadmeView::default();
    let mut current: Option<usize> = None;
    for (index, line) in text.lines().enumerate() {
        let trimmed = line.trim();
        if let Some((checked, rest)) = checkbox(trimmed) {
            match anchored(rest) {
                Some((id, title)) => {
                    view.tasks.push(ReadmeTask {
                        id,
                        checked,
                        title,
                        status: None,
                        line: index + 1,
                    });
                    current = Some(view.tasks.len() - 1);
                }
                None => {
                    view.unanchored.push(index + 1);
                    current = None;
                }
            }
        } else if trimmed.starts_with('#') || trimmed.starts_with("<!--") {
            current = None;
        } else if let (Some(task), Some(word)) = (current, status_word(trimmed)) {
            view.tasks[task].status.get_or_insert(word);
        } else if view.approval.is_none() {
            view.approval = approval_word(trimmed);
        }
    }
    view
}

/// `- [x] rest` → `(true, "rest")`; any list bullet, `x` in either case.
fn checkbox(line: &str) -> Option<(bool, &str)> {
    let rest = line
        .strip_prefix("- ")
        .or_else(|| line.strip_prefix("* "))
        .or_else(|| line.strip_prefix("+ "))?;
    let (checked, rest) = if let Some(rest) = rest.strip_prefix("[ ]") {
        (false, rest)
    } else {
        (true, rest.strip_prefix("[x]").or_else(|| rest.strip_prefix("[X]"))?)
    };
    (rest.is_empty() || rest.starts_with(' ')).then_some((checked, rest.trim()))
}

/// `**3.** title {#task-3}` → `(3, "title")`: the anchor is the last thing on the line.
fn anchored(rest: &str) -> Option<(u32, String)> {
    let body = rest.strip_suffix('}')?;
    let open = body.rfind("{#task-")?;
    let id: u32 = body[open + "{#task-".len()..].parse().ok()?;
    let title = body[..open].trim().trim_matches('~').trim();
    let title = match title.strip_prefix("**").and_then(|t| t.split_once(".**")) {
        Some((_, title)) => title.trim().trim_end_matches('~').trim(),
        None => title,
    };
    Some((id, title.to_owned()))
}

/// The first `Status:` word of a task's own file (a Full plan's task log).
pub(crate) fn first_status_word(text: &str) -> Option<String> {
    text.lines().find_map(|line| status_word(line.trim()))
}

/// `- Status: completed (…)` → `completed`; `**Status:**` is read too.
fn status_word(line: &str) -> Option<String> {
    let line = line.strip_prefix("- ").unwrap_or(line);
    let plain: String = line.chars().filter(|c| *c != '*').collect();
    let line = plain.as_str();
    let rest = strip_label(line, "status:")?;
    first_word(rest)
}

fn approval_word(line: &str) -> Option<ApprovalState> {
    let plain: String = line.chars().filter(|c| *c != '*' && *c != '_').collect();
    let rest = strip_label(plain.trim(), "approval:")?.replace('-', "_");
    let word = first_word(&rest)?;
    let word = if word == "preapproved" { "pre_approved".to_owned() } else { word };
    ApprovalState::parse(&word)
}

fn strip_label<'a>(line: &'a str, label: &str) -> Option<&'a str> {
    let head = line.get(..label.len())?;
    head.eq_ignore_ascii_case(label).then(|| &line[label.len()..])
}

fn first_word(text: &str) -> Option<String> {
    let word: String =
        text.trim().chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
    (!word.is_empty()).then(|| word.to_lowercase())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn checkbox_lines_are_read_with_their_anchor_and_status() {
        let text = "\
# Plan

**Approval:** approved — 2026-06-09T14:00:00Z

- [x] **1.** find every call site {#task-1}
  - Status: completed (2026-06-09T15:00:00Z)
- [ ] ~~**2.** read the schema~~ {#task-2}
  - Status: skipped
* [X] a task written by hand {#task-7}
- [ ] no anchor here
- [ ] **3.** title with {#task-9} inside {#task-3}
  Status: pending
## Notes
Status: completed
";
        let view = parse_readme(text);
        let shown: Vec<(u32, bool, &str, Option<&str>)> = view
            .tasks
            .iter()
            .map(|t| (t.id, t.checked, t.title.as_str(), t.status.as_deref()))
            .collect();
        assert_eq!(
            shown,
            vec![
                (1, true, "find every call site", Some("completed")),
                (2, false, "read the schema", Some("skipped")),
                (7, true, "a task written by hand", None),
                (3, false, "title with {#task-9} inside", Some("pending")),
            ]
        );
        assert_eq!(view.approval, Some(ApprovalState::Approved));
        assert_eq!(view.unanchored, vec![10]);
    }

    #[test]
    fn approval_words_in_their_spellings() {
        let table = [
            ("Approval: pre-approved", Some(ApprovalState::PreApproved)),
            ("**Approval:** pending", Some(ApprovalState::Pending)),
            ("approval: Approved.", Some(ApprovalState::Approved)),
            ("Approval: maybe", None),
            ("Approvals are pending", None),
        ];
        for (line, expected) in table {
            assert_eq!(parse_readme(line).approval, expected, "{line}");
        }
    }

    #[test]
    fn non_checkbox_brackets_are_not_tasks() {
        for line in ["- [x]{#task-1}", "- [y] x {#task-1}", "[x] x {#task-1}", "- [x] x {#task-}"] {
            assert!(parse_readme(line).tasks.is_empty(), "{line}");
        }
    }
}
