//! A checkpoint's record as the store keeps it and the API shows it, and the pure rules that
//! read a chat's checkpoints: which one a task started and closed at, and the one a turn
//! started from. No I/O: the files themselves are in the chat's shadow repository.

use serde::{Deserialize, Serialize};

use crate::tasks::{TaskList, TaskStatus};

/// Why Preflight took a checkpoint. Preflight takes them, never the model.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum CheckpointReason {
    /// Before the first executor turn of an approved plan: before the first change.
    Approval,
    /// Before an executor turn (the point "Undo the last turn" goes back to).
    TurnStart,
    /// A task started or was closed (done or dropped) by `turn_plan`.
    Task,
    /// An executor turn ended.
    TurnEnd,
    /// The workspace was just restored to an earlier checkpoint.
    Restore,
}

/// Files, lines added and lines removed between two checkpoints.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct ChangeStat {
    pub files: u32,
    pub additions: u32,
    pub deletions: u32,
}

/// A file a checkpoint left out, and why (too big, or the checkpoint's cap was reached).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct LeftOut {
    pub path: String,
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub bytes: u64,
    pub reason: String,
}

/// One checkpoint of a chat's workspace: numbered from 1 in the order taken.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Checkpoint {
    pub n: u32,
    pub reason: CheckpointReason,
    pub created_at: String,
    /// The shadow repository's commit (never the user's own repository).
    #[serde(skip)]
    #[cfg_attr(feature = "ts", ts(skip))]
    pub commit: String,
    /// The task that became active at this checkpoint, if one did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub started: Option<u32>,
    /// Tasks done or dropped since the checkpoint before.
    #[serde(default)]
    pub closed: Vec<u32>,
    /// What changed since the checkpoint before.
    #[serde(default)]
    pub since_previous: ChangeStat,
    /// Files this checkpoint could not keep.
    #[serde(default)]
    pub left_out: Vec<LeftOut>,
    /// For a restore: the checkpoint the workspace went back to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub restored_to: Option<u32>,
    /// The task list as it stood: what a restore to this checkpoint puts back.
    #[serde(default)]
    #[cfg_attr(feature = "openapi", schema(value_type = Object))]
    #[cfg_attr(feature = "ts", ts(skip))]
    pub tasks: TaskList,
}

/// A task's work between the checkpoint it started at and the one it was closed at.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct TaskSpan {
    pub task: u32,
    pub from: u32,
    /// `None` while the task is still open: its work so far is up to the latest checkpoint.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub to: Option<u32>,
    pub stat: ChangeStat,
}

/// Which tasks became active and which were closed between `before` and `after`.
pub fn task_moves(before: Option<&TaskList>, after: &TaskList) -> (Option<u32>, Vec<u32>) {
    let status = |list: Option<&TaskList>, id: u32| {
        list.and_then(|list| list.get(id)).map(|task| task.status)
    };
    let closed_now = |s: TaskStatus| matches!(s, TaskStatus::Done | TaskStatus::Dropped);
    let started = after
        .tasks
        .iter()
        .find(|task| task.status == TaskStatus::Active)
        .map(|task| task.id)
        .filter(|id| status(before, *id) != Some(TaskStatus::Active));
    let closed = after
        .tasks
        .iter()
        .filter(|task| closed_now(task.status) && !status(before, task.id).is_some_and(closed_now))
        .map(|task| task.id)
        .collect();
    (started, closed)
}

/// Each task's latest span: from the checkpoint it last started at to the first one after
/// that closed it (or the latest checkpoint while it is open), in the order tasks started.
/// A restore takes back the work after the checkpoint it went to: a span that began after it
/// is gone, one that ended after it is open again. The stat is filled by the caller.
pub fn task_spans(checkpoints: &[Checkpoint]) -> Vec<TaskSpan> {
    let mut spans: Vec<TaskSpan> = Vec::new();
    for checkpoint in checkpoints {
        if let Some(back_to) = checkpoint.restored_to {
            spans.retain(|span| span.from < back_to);
            for span in spans.iter_mut().filter(|span| span.to.is_some_and(|to| to > back_to)) {
                span.to = None;
            }
        }
        for id in &checkpoint.closed {
            if let Some(span) = spans.iter_mut().rev().find(|s| s.task == *id && s.to.is_none()) {
                span.to = Some(checkpoint.n);
            }
        }
        if let Some(id) = checkpoint.started {
            spans.retain(|span| span.task != id);
            spans.push(TaskSpan {
                task: id,
                from: checkpoint.n,
                to: None,
                stat: ChangeStat::default(),
            });
        }
    }
    spans
}

/// The checkpoint the latest executor turn started from: what "Undo the last turn" restores.
pub fn last_turn_start(checkpoints: &[Checkpoint]) -> Option<&Checkpoint> {
    checkpoints
        .iter()
        .rev()
        .find(|c| matches!(c.reason, CheckpointReason::TurnStart | CheckpointReason::Approval))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tasks::Operation;
    use serde_json::json;

    fn apply(list: &TaskList, op: serde_json::Value) -> TaskList {
        list.apply(&Operation::from_value(&op).unwrap()).unwrap()
    }

    fn checkpoint(n: u32, started: Option<u32>, closed: &[u32]) -> Checkpoint {
        Checkpoint {
            n,
            reason: CheckpointReason::Task,
            created_at: String::new(),
            commit: String::new(),
            started,
            closed: closed.to_vec(),
            since_previous: ChangeStat::default(),
            left_out: Vec::new(),
            restored_to: None,
            tasks: TaskList::empty(),
        }
    }

    #[test]
    fn moves_name_the_task_that_became_active_and_those_closed() {
        let approved = TaskList::from_steps(["a", "b", "c"]).unwrap();
        assert_eq!(task_moves(None, &approved), (Some(1), vec![]));
        assert_eq!(task_moves(Some(&approved), &approved), (None, vec![]));
        let one_done = apply(&approved, json!({"op": "done", "id": 1}));
        assert_eq!(task_moves(Some(&approved), &one_done), (Some(2), vec![1]));
        let dropped = apply(&one_done, json!({"op": "drop", "id": 3}));
        assert_eq!(task_moves(Some(&one_done), &dropped), (None, vec![3]));
        // Back to an earlier list (a restore): task 1 is active again, a start of its own.
        assert_eq!(task_moves(Some(&dropped), &approved), (Some(1), vec![]));
    }

    #[test]
    fn a_span_runs_from_the_latest_start_to_the_close_after_it() {
        let checkpoints = [
            checkpoint(1, Some(1), &[]),
            checkpoint(2, None, &[]),
            checkpoint(3, Some(2), &[1]),
            checkpoint(4, Some(3), &[2]),
            checkpoint(5, None, &[]),
        ];
        let spans: Vec<_> =
            task_spans(&checkpoints).iter().map(|s| (s.task, s.from, s.to)).collect();
        assert_eq!(spans, [(1, 1, Some(3)), (2, 3, Some(4)), (3, 4, None)]);
        // Task 2 restarted after a restore: only its latest span counts.
        let again =
            [checkpoints.to_vec(), vec![checkpoint(6, Some(2), &[]), checkpoint(7, None, &[2])]]
                .concat();
        let spans: Vec<_> = task_spans(&again).iter().map(|s| (s.task, s.from, s.to)).collect();
        assert_eq!(spans, [(1, 1, Some(3)), (3, 4, None), (2, 6, Some(7))]);
    }

    #[test]
    fn a_restore_takes_back_the_spans_of_the_work_it_undid() {
        let restore = |n, to, started| Checkpoint {
            restored_to: Some(to),
            reason: CheckpointReason::Restore,
            ..checkpoint(n, started, &[])
        };
        let spans_of = |list: &[Checkpoint]| -> Vec<_> {
            task_spans(list).iter().map(|s| (s.task, s.from, s.to)).collect()
        };
        let work = [
            checkpoint(1, Some(1), &[]),
            checkpoint(3, Some(2), &[1]),
            checkpoint(4, Some(3), &[2]),
            checkpoint(5, None, &[3]),
        ];
        // Back to the start of task 2: its work and task 3's are gone; task 1's stays.
        let back = [work.to_vec(), vec![restore(6, 3, Some(2))]].concat();
        assert_eq!(spans_of(&back), [(1, 1, Some(3)), (2, 6, None)]);
        // Back to the middle of task 1: it is open again, with its work so far.
        let back = [work.to_vec(), vec![restore(6, 2, None)]].concat();
        assert_eq!(spans_of(&back), [(1, 1, None)]);
        // Back to the end: nothing was undone.
        let back = [work.to_vec(), vec![restore(6, 5, None)]].concat();
        assert_eq!(spans_of(&back), [(1, 1, Some(3)), (2, 3, Some(4)), (3, 4, Some(5))]);
    }
}
