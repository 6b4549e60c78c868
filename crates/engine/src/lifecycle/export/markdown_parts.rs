//! The parts of the Markdown export that are not messages: the cards placed among them by
//! their time (plan changes with their answers, the executor's stops), the task list as it
//! ended and the completion record; and the small pieces every part writes (a time, a code
//! span, a labelled entry). Pure.

use preflight_protocol::inert::one_line;
use preflight_protocol::tasks::{
    continues, ChangeStatus, Completion, PlanChange, Task, TaskStatus, WorkEvent,
};

use super::format::ExportHead;
use super::markdown_text::inert_markdown;

/// The cards of the conversation that are not messages, in time order, handed out as the
/// messages reach their time.
pub(super) struct Cards {
    /// (time, entry), latest first: the next due is at the end.
    due: Vec<(String, String)>,
}

impl Cards {
    pub(super) fn of(head: &ExportHead) -> Cards {
        let mut due: Vec<(String, String)> = head
            .changes
            .iter()
            .map(|change| (change.requested_at.clone(), change_card(change)))
            .collect();
        for event in &head.stops.events {
            if let WorkEvent::Stopped { reason, tasks_left, at } = event {
                let text = format!(
                    "The executor stopped: {}. {tasks_left} task{} left.",
                    reason.words(),
                    if *tasks_left == 1 { "" } else { "s" }
                );
                due.push((at.clone(), labelled("Stopped", at, &text)));
            }
        }
        due.sort_by(|a, b| b.0.cmp(&a.0));
        Cards { due }
    }

    /// The cards dated before `time`, oldest first.
    pub(super) fn before(&mut self, time: &str) -> Vec<String> {
        let mut cards = Vec::new();
        while self.due.last().is_some_and(|(at, _)| at.as_str() < time) {
            cards.extend(self.due.pop().map(|(_, card)| card));
        }
        cards
    }

    /// The cards left after the last message, oldest first.
    pub(super) fn rest(self) -> impl Iterator<Item = String> {
        self.due.into_iter().rev().map(|(_, card)| card)
    }
}

/// A plan change as its card shows it: what, why, and the answer.
fn change_card(change: &PlanChange) -> String {
    let answered = change.answered_at.as_deref().map(when).unwrap_or_default();
    let revision =
        change.revision.map(|revision| format!(" (plan revision {revision})")).unwrap_or_default();
    let answer = match (change.status, change.auto_approved) {
        (ChangeStatus::Pending, _) => "It waits for your answer.".to_owned(),
        (ChangeStatus::Approved, true) => {
            format!("Approved by the chat's auto-approve{revision}, {answered}.")
        }
        (ChangeStatus::Approved, false) => format!("You approved it{revision}, {answered}."),
        (ChangeStatus::Rejected, _) => format!("You kept the plan, {answered}."),
    };
    let text = format!(
        "The executor asked to {}. Why: {}\n\n{answer}",
        inert_markdown(&one_line(&change.describe())),
        inert_markdown(&one_line(&change.request.reason)),
    );
    labelled("Plan change", &change.requested_at, &text)
}

/// `## Task list`: the list as it ended (the completion's, once the list was closed).
pub(super) fn task_list_section(head: &ExportHead) -> String {
    let tasks = match (&head.task_list, &head.completion) {
        (Some(list), _) => &list.tasks,
        (None, Some(completion)) => &completion.tasks,
        (None, None) => return String::new(),
    };
    let done = tasks.iter().filter(|task| task.status == TaskStatus::Done).count();
    let mut out = format!("\n## Task list\n\n{done} of {} done.\n\n", tasks.len());
    let mut phase: Option<&str> = None;
    for task in tasks {
        if task.phase.is_some() && task.phase.as_deref() != phase {
            phase = task.phase.as_deref();
            out.push_str(&format!("\n**{}**\n\n", inert_markdown(&one_line(phase.unwrap_or("")))));
        }
        out.push_str(&task_line(task));
    }
    out
}

/// `- ✓ 1. Title — outcome`, then its check.
fn task_line(task: &Task) -> String {
    let mark = match task.status {
        TaskStatus::Done => "✓",
        TaskStatus::Dropped => "✗",
        TaskStatus::Pending | TaskStatus::Active => "○",
    };
    let mut line = format!("- {mark} {}. {}", task.id, inert_markdown(&one_line(&task.title)));
    if task.status == TaskStatus::Active {
        line.push_str(" (in progress)");
    }
    if let Some(outcome) = &task.outcome {
        line.push_str(&format!(" — {}", inert_markdown(&one_line(outcome))));
    }
    line.push('\n');
    match (&task.gate, &task.check) {
        (Some(gate), _) => {
            let verdict = if gate.passes { "passed" } else { "failed" };
            let command = code(&gate.command);
            line.push_str(&format!("  - Check {command} {verdict} (exit {})\n", gate.exit_code));
        }
        (None, Some(check)) => line.push_str(&format!("  - Check: {}\n", code(check))),
        (None, None) => {}
    }
    line
}

/// `## Completion`: the summary, how the work kept to the plan, and the verdict.
pub(super) fn completion_section(head: &ExportHead) -> String {
    let Some(completion) = &head.completion else { return String::new() };
    let mut out = format!(
        "\n## Completion · {}\n\n{}\n\n",
        when(&completion.finished_at),
        inert_markdown(completion.summary.trim())
    );
    let a = &completion.adherence;
    out.push_str(&format!(
        "- Planned steps: {}; done as planned {}, modified {}, dropped {}; tasks added {}; {}.\n",
        a.steps,
        a.done_as_planned,
        a.modified,
        a.dropped,
        a.added,
        if a.in_order { "in the plan's order" } else { "not in the plan's order" }
    ));
    for deviation in &completion.deviations {
        let text = format!("{} “{}”: {}", deviation.task, deviation.title, deviation.detail);
        out.push_str(&format!("- Deviation, task {}\n", inert_markdown(&one_line(&text))));
    }
    out.push_str(&stops_line(completion));
    out.push_str(&verdict_line(completion));
    out
}

fn stops_line(completion: &Completion) -> String {
    let events = &completion.stops_and_continues;
    let stops = events.iter().filter(|event| matches!(event, WorkEvent::Stopped { .. })).count();
    let (continued, by_itself) = continues(events);
    format!("- Stops: {stops}; continues: {continued} ({by_itself} by Preflight itself).\n")
}

fn verdict_line(completion: &Completion) -> String {
    let Some(note) = &completion.finalization else { return String::new() };
    let mut line = format!("- Verdict: {}", inert_markdown(&one_line(&note.verdict)));
    if !note.reasons.is_empty() {
        let reasons = note.reasons.join("; ");
        line.push_str(&format!(" — {}", inert_markdown(&one_line(&reasons))));
    }
    if let Some(accepted) = &note.accepted_at {
        line.push_str(&format!("; accepted as is {}", when(accepted)));
    }
    line.push_str(".\n");
    line
}

/// An entry of the conversation: a bold label with its time, then its text.
pub(super) fn labelled(label: &str, at: &str, text: &str) -> String {
    let mut entry = format!("\n**{label}** · {}\n", when(at));
    if !text.is_empty() {
        entry.push('\n');
        entry.push_str(text);
        entry.push('\n');
    }
    entry
}

/// A stamp as people read it: `2026-11-30 00:21 UTC` (as stored when it is no stamp of ours).
pub(super) fn when(stamp: &str) -> String {
    let ours = stamp.len() == 24 && stamp.ends_with('Z') && stamp.as_bytes()[10] == b'T';
    match ours {
        true => format!("{} {} UTC", &stamp[..10], &stamp[11..16]),
        false => inert_markdown(&one_line(stamp)),
    }
}

/// `text` on one line as a code span, its fence longer than any run of backticks in it.
pub(super) fn code(text: &str) -> String {
    let text = one_line(text);
    let longest = text.split(|ch| ch != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat(longest + 1);
    let pad = if text.starts_with('`') || text.ends_with('`') { " " } else { "" };
    format!("{fence}{pad}{text}{pad}{fence}")
}
