//! A list's times and history: every save compares the new list with the one it replaces,
//! stamps what changed and appends what happened to each task (DESIGN §12). The completion
//! record is computed from that history, never from what the model says it did.

use super::{Task, TaskEvent, TaskEventKind, TaskList, TaskOrigin, TaskStatus};

/// How many history entries a list keeps (40 tasks, each a handful of events, fit easily);
/// past it the oldest entries go, never the list's tasks.
pub const MAX_HISTORY: usize = 1000;

impl TaskList {
    /// This list with its times stamped against `previous` (the list it replaces): a task
    /// new since then is created and updated `now`, a changed one updated `now`, an
    /// unchanged one keeps its times. A task counts as the same when id and origin match
    /// and, for the executor's own tasks, the title too (`init` restarts ids; a plan step
    /// keeps its id when it is reworded). The history is this list's own (an operation
    /// carries it over from the list it changed; `init` starts a new one) plus what changed.
    pub fn stamped(mut self, previous: &TaskList, now: &str) -> TaskList {
        let mut events = Vec::new();
        for task in &mut self.tasks {
            let before = previous.tasks.iter().find(|old| same_task(old, task));
            match before {
                None => {
                    task.created_at = Some(now.to_owned());
                    task.updated_at = Some(now.to_owned());
                    events.push(event(now, task, TaskEventKind::Added));
                    if let Some(kind) = status_event(TaskStatus::Pending, task.status) {
                        events.push(event(now, task, kind));
                    }
                }
                Some(old) => {
                    task.created_at = old.created_at.clone().or_else(|| Some(now.to_owned()));
                    let same = old.status == task.status
                        && old.title == task.title
                        && old.phase == task.phase
                        && old.outcome == task.outcome
                        && old.gate == task.gate
                        && old.priority == task.priority;
                    task.updated_at =
                        if same { old.updated_at.clone() } else { Some(now.to_owned()) };
                    if old.title != task.title {
                        events.push(event(now, task, TaskEventKind::Modified));
                    }
                    if let Some(kind) = status_event(old.status, task.status) {
                        events.push(event(now, task, kind));
                    }
                }
            }
        }
        self.history.extend(events);
        let excess = self.history.len().saturating_sub(MAX_HISTORY);
        self.history.drain(..excess);
        self
    }
}

fn same_task(old: &Task, new: &Task) -> bool {
    old.id == new.id
        && old.origin == new.origin
        && (old.origin == TaskOrigin::Plan || old.title == new.title)
}

fn event(now: &str, task: &Task, kind: TaskEventKind) -> TaskEvent {
    TaskEvent { at: now.to_owned(), task: task.id, kind, title: task.title.clone() }
}

/// The event a status change is, if any. Going back to pending from active (another task
/// started) is no event: the task was interrupted, not undone.
fn status_event(before: TaskStatus, after: TaskStatus) -> Option<TaskEventKind> {
    use TaskStatus::*;
    match (before, after) {
        (a, b) if a == b => None,
        (_, Done) => Some(TaskEventKind::Done),
        (_, Dropped) => Some(TaskEventKind::Dropped),
        (Done | Dropped, Pending | Active) => Some(TaskEventKind::Reopened),
        (Pending, Active) => Some(TaskEventKind::Started),
        (Active, Pending) => None,
        _ => None,
    }
}
