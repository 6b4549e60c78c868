//! The `[plan]` tree: the tool's result and the `[state]` tail of every executor prompt.

use std::fmt::Write;

use super::limits::same_phase;
use super::{Task, TaskList, TaskStatus};

/// What an empty list renders: short, and telling the model how to start one.
const NO_PLAN: &str =
    "[plan] No plan. For work of several steps, make one with {\"op\":\"init\",\"tasks\":[…]}.";

impl TaskList {
    /// The tree of DESIGN §5, lines joined by `\n`, no trailing newline.
    pub fn render(&self) -> String {
        if self.tasks.is_empty() {
            return NO_PLAN.to_owned();
        }
        let mut tree = self.header();
        let mut previous_phase: Option<&str> = None;
        for task in &self.tasks {
            let phase = task.phase.as_deref();
            if let Some(heading) = opened_phase(previous_phase, phase) {
                let _ = write!(tree, "\n## {heading}");
            }
            previous_phase = phase;
            tree.push('\n');
            push_task_line(&mut tree, task);
        }
        tree
    }

    /// "[plan] Your plan for the work at hand — 4 tasks: 1 done, 0 dropped, 3 left."
    fn header(&self) -> String {
        let count = |status: TaskStatus| self.tasks.iter().filter(|t| t.status == status).count();
        let (done, dropped) = (count(TaskStatus::Done), count(TaskStatus::Dropped));
        let total = self.tasks.len();
        let left = total - done - dropped;
        let noun = if total == 1 { "task" } else { "tasks" };
        format!(
            "[plan] Your plan for the work at hand — {total} {noun}: \
             {done} done, {dropped} dropped, {left} left."
        )
    }
}

/// The heading to print before a task of `phase` following one of `previous`, if any.
fn opened_phase<'a>(previous: Option<&str>, phase: Option<&'a str>) -> Option<&'a str> {
    match (previous, phase) {
        (Some(previous), Some(phase)) if same_phase(previous, phase) => None,
        (_, phase) => phase,
    }
}

/// "1 [x] find every call site — all in agent.rs"
fn push_task_line(tree: &mut String, task: &Task) {
    let mark = match task.status {
        TaskStatus::Pending => "[ ]",
        TaskStatus::Active => "[>]",
        TaskStatus::Done => "[x]",
        TaskStatus::Dropped => "[~]",
    };
    let _ = write!(tree, "{} {mark} {}", task.id, task.title);
    if let Some(outcome) = &task.outcome {
        let _ = write!(tree, " — {outcome}");
    }
    if !task.status.is_open() {
        return;
    }
    let mut bindings = Vec::new();
    if !task.depends_on.is_empty() {
        let ids: Vec<String> = task.depends_on.iter().map(u32::to_string).collect();
        bindings.push(format!("after {}", ids.join(", ")));
    }
    if let Some(check) = &task.check {
        bindings.push(format!("check: `{check}`"));
    }
    if !bindings.is_empty() {
        let _ = write!(tree, " ({})", bindings.join("; "));
    }
}
