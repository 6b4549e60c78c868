//! Fuzzes the `turn_plan` tracker with sequences of tool calls: each input line is parsed as
//! JSON, then by `Operation::from_value`, then applied with `TaskList::apply`. Nothing may
//! panic; a refused call leaves the list as it was; after every accepted call the tracker
//! invariant of DESIGN §5 holds — exactly one active task while any is pending or active,
//! at most 40 tasks, titles of one line and at most 120 characters, phases at most 40,
//! un-phased tasks first and each phase contiguous, ids unique and never reused while the
//! list lives (`init` restarts them at 1) — and the call did what it says.

#![no_main]

use std::collections::HashSet;

use libfuzzer_sys::fuzz_target;
use preflight_protocol::tasks::{
    Operation, TaskList, TaskStatus, MAX_PHASE_CHARS, MAX_TASKS, MAX_TITLE_CHARS,
};
use serde_json::Value;

fuzz_target!(|data: &[u8]| {
    let mut session = Session::default();
    for line in data.split(|byte| *byte == b'\n').take(MAX_CALLS) {
        let Ok(arguments) = serde_json::from_slice::<Value>(line) else { continue };
        let Ok(op) = Operation::from_value(&arguments) else { continue };
        session.call(&op);
    }
});

/// Longer inputs add nothing a shorter one could not reach, only time per run.
const MAX_CALLS: usize = 200;

/// The list as the chat holds it, and every id it has handed out since its last `init`.
#[derive(Default)]
struct Session {
    list: TaskList,
    ids_handed_out: HashSet<u32>,
}

impl Session {
    fn call(&mut self, op: &Operation) {
        let before = self.list.clone();
        let Ok(next) = self.list.apply(op) else {
            assert_eq!(self.list, before, "a refused {op:?} changed the list");
            return;
        };
        let restarted = matches!(op, Operation::Init { .. });
        if restarted {
            self.ids_handed_out.clear();
        }
        for task in &next.tasks {
            let known = !restarted && before.get(task.id).is_some();
            assert!(known || self.ids_handed_out.insert(task.id), "id {} reused", task.id);
        }
        check_effect(&before, op, &next);
        check_invariant(&next);
        let _ = next.render();
        self.list = next;
    }
}

/// What the accepted call promises about the list it leaves.
fn check_effect(before: &TaskList, op: &Operation, after: &TaskList) {
    let status_of = |id: u32| after.get(id).map(|task| task.status);
    match op {
        Operation::Init { tasks } => {
            let mut sorted: Vec<u32> = after.tasks.iter().map(|task| task.id).collect();
            sorted.sort_unstable();
            assert_eq!(sorted, (1..=tasks.len() as u32).collect::<Vec<_>>(), "init ids");
        }
        Operation::Add { tasks } => {
            assert_eq!(after.tasks.len(), before.tasks.len() + tasks.len(), "add count");
        }
        Operation::Start { id } => assert_eq!(status_of(*id), Some(TaskStatus::Active)),
        Operation::Done { id, .. } => assert_eq!(status_of(*id), Some(TaskStatus::Done)),
        Operation::Drop { id, .. } => assert_eq!(status_of(*id), Some(TaskStatus::Dropped)),
        Operation::Modify { id, title, .. } => {
            let folded = title.split_whitespace().collect::<Vec<_>>().join(" ");
            assert_eq!(after.get(*id).map(|task| task.title.as_str()), Some(folded.as_str()));
        }
    }
    if !matches!(op, Operation::Init { .. } | Operation::Add { .. }) {
        assert_eq!(after.tasks.len(), before.tasks.len(), "{} changed the count", op.name());
    }
}

/// The tracker invariant of DESIGN §5 and ARCHITECTURE's `tasks/` paragraph.
fn check_invariant(list: &TaskList) {
    let active = list.tasks.iter().filter(|task| task.status == TaskStatus::Active).count();
    let expected_active = usize::from(list.has_work_left());
    assert_eq!(active, expected_active, "active tasks in {list:?}");
    assert!(list.tasks.len() <= MAX_TASKS, "{} tasks", list.tasks.len());
    let mut ids = HashSet::new();
    for task in &list.tasks {
        assert!(ids.insert(task.id), "id {} twice in {list:?}", task.id);
        assert!(task.id < list.next_id, "id {} not below next_id {}", task.id, list.next_id);
        assert!(is_one_line(&task.title), "title {:?}", task.title);
        assert!(task.title.chars().count() <= MAX_TITLE_CHARS, "title {:?}", task.title);
        if let Some(phase) = &task.phase {
            assert!(is_one_line(phase), "phase {phase:?}");
            assert!(phase.chars().count() <= MAX_PHASE_CHARS, "phase {phase:?}");
        }
    }
    check_phases_contiguous(list);
}

/// Un-phased tasks lead; then each phase (compared without case) is one unbroken run.
fn check_phases_contiguous(list: &TaskList) {
    let mut closed: Vec<String> = Vec::new();
    let mut current: Option<String> = None;
    for task in &list.tasks {
        let phase = task.phase.as_deref().map(lower);
        if phase == current {
            continue;
        }
        let phase = phase.unwrap_or_else(|| panic!("an un-phased task after a phase: {list:?}"));
        assert!(!closed.contains(&phase), "phase {phase:?} split in {list:?}");
        closed.extend(current.replace(phase));
    }
}

/// Trimmed, non-empty, no line break, no run of whitespace: how the tracker stores text.
fn is_one_line(text: &str) -> bool {
    text.split_whitespace().collect::<Vec<_>>().join(" ") == text && !text.is_empty()
}

fn lower(text: &str) -> String {
    text.chars().flat_map(char::to_lowercase).collect()
}
