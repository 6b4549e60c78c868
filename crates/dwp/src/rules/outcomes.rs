//! Outcome records of finished plans as the next plan's memory (seed 002: "outcome records
//! feed the next plan"; DESIGN §14): what each task of a completed plan tried, what failed
//! and what worked, newest plan first, as one text capped in bytes. Pure.

use std::fmt::Write;

use crate::rules::documents::PlanState;

/// One finished plan as read from its folder: the folder's name and its state.
pub struct FinishedPlan {
    pub folder: String,
    pub state: PlanState,
}

/// The records of `plans` (any order) as Markdown, newest first (`updated_at`), with no more
/// than `max_bytes` bytes: a plan that does not fit is left out whole, and a last line says
/// how many were. Plans that are not completed, and tasks with nothing recorded, are skipped.
/// Empty when nothing was recorded.
pub fn outcome_text(mut plans: Vec<FinishedPlan>, max_bytes: usize) -> String {
    plans.retain(|plan| plan.state.all_done());
    plans.sort_by(|a, b| b.state.updated_at.cmp(&a.state.updated_at));
    let mut text = String::new();
    let mut left_out = 0;
    for plan in &plans {
        let Some(section) = plan_section(plan) else { continue };
        if text.len() + section.len() > max_bytes {
            left_out += 1;
            continue;
        }
        text.push_str(&section);
    }
    if left_out > 0 {
        let _ = writeln!(text, "({left_out} older finished plan(s) left out to keep this short.)");
    }
    text
}

/// "### PLAN_x (finished …)" and a line per task with a record; `None` when no task has one.
fn plan_section(plan: &FinishedPlan) -> Option<String> {
    let mut lines = Vec::new();
    for task in &plan.state.tasks {
        let Some(outcome) = &task.outcome else { continue };
        let mut parts = Vec::new();
        if !outcome.tried.is_empty() {
            parts.push(format!("tried: {}", outcome.tried.join("; ")));
        }
        if !outcome.failed.is_empty() {
            parts.push(format!("failed: {}", outcome.failed.join("; ")));
        }
        if let Some(worked) = &outcome.worked {
            parts.push(format!("worked: {worked}"));
        }
        if let Some(notes) = &outcome.notes {
            parts.push(format!("notes: {notes}"));
        }
        if !parts.is_empty() {
            let title = one_line(&task.title);
            lines.push(format!("- task {} “{title}”: {}", task.id, one_line(&parts.join(" · "))));
        }
    }
    if lines.is_empty() {
        return None;
    }
    let head = format!("### {} (finished {})\n", plan.folder, plan.state.updated_at);
    Some(format!("{head}{}\n\n", lines.join("\n")))
}

/// Text from a workspace file on one line, so that it cannot pass for a heading of its own.
fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}
