//! Property test of the `turn_plan` tracker: long random sessions against a reference model.
//!
//! Each session runs 200 calls, valid and invalid (missing ids, over-long or blank titles,
//! long phases, too many tasks, phases in random case, mangled JSON). After every call:
//! the refusal or acceptance matches the reference model, an accepted list equals the
//! model's list task for task, and the invariants hold (one active task while work is left,
//! limits, unique and never reused ids, phases contiguous with un-phased tasks leading,
//! the rendered tree agreeing with the list).
//!
//! The reference model inserts each new task at its place directly, where the tracker
//! appends and regroups: two ways to the same order, so a mistake in either shows.

use std::collections::HashSet;

use preflight_protocol::tasks::{
    Gate, GateRequest, NewTask, Operation, Priority, Task, TaskList, TaskOrigin, TaskStatus,
    MAX_OUTCOME_CHARS, MAX_PHASE_CHARS, MAX_TASKS, MAX_TITLE_CHARS,
};
use proptest::prelude::*;
use serde_json::{json, Value};

// ---------------------------------------------------------------- generated calls

/// A call as generated: an operation plus how its JSON is mangled before parsing.
#[derive(Debug, Clone)]
struct Call {
    op: Operation,
    mangle: Mangle,
}

#[derive(Debug, Clone, Copy)]
enum Mangle {
    None,
    /// `"id": "3"` and `"op": "DONE"`: tolerated.
    Tolerated,
    /// An extra field the op does not take: refused.
    ExtraField,
    /// An op name that does not exist: refused.
    UnknownOp,
}

impl Call {
    fn arguments(&self) -> Value {
        let mut value = serde_json::to_value(&self.op).unwrap();
        let object = value.as_object_mut().unwrap();
        match self.mangle {
            Mangle::None => {}
            Mangle::Tolerated => {
                if let Some(id) = object.get("id").cloned() {
                    object.insert("id".into(), json!(id.to_string()));
                }
                object.insert("op".into(), json!(self.op.name().to_uppercase()));
            }
            Mangle::ExtraField => {
                object.insert("status".into(), json!("done"));
            }
            Mangle::UnknownOp => {
                object.insert("op".into(), json!(format!("{}_all", self.op.name())));
            }
        }
        value
    }
}

fn random_case(word: &str, mask: u32) -> String {
    word.chars()
        .enumerate()
        .map(
            |(i, c)| {
                if mask >> (i % 32) & 1 == 1 {
                    c.to_uppercase().collect()
                } else {
                    c.to_string()
                }
            },
        )
        .collect()
}

fn title() -> impl Strategy<Value = String> {
    prop_oneof![
        16 => "[a-z]{1,8}( [a-z]{1,8}){0,3}",
        1 => Just(" \n\t ".to_owned()),
        1 => "[a-z]{1,5}\n +[a-z]{1,5}",
        2 => (MAX_TITLE_CHARS - 2..=MAX_TITLE_CHARS + 2).prop_map(|n| "я".repeat(n)),
    ]
}

fn phase() -> impl Strategy<Value = Option<String>> {
    let names = ["dig", "build", "release", "Ωmega", "сборка"];
    prop_oneof![
        3 => Just(None),
        6 => (0..names.len(), any::<u32>())
            .prop_map(move |(i, mask)| Some(random_case(names[i], mask))),
        1 => Just(Some("  ".to_owned())),
        1 => (MAX_PHASE_CHARS - 1..=MAX_PHASE_CHARS + 1).prop_map(|n| Some("ф".repeat(n))),
    ]
}

fn new_tasks(sizes: std::ops::RangeInclusive<usize>) -> impl Strategy<Value = Vec<NewTask>> {
    prop::collection::vec(
        (
            title(),
            phase(),
            proptest::option::of(prop_oneof![Just(Priority::High), Just(Priority::Low)]),
        )
            .prop_map(|(title, phase, priority)| NewTask { title, phase, priority }),
        sizes,
    )
}

fn outcome() -> impl Strategy<Value = Option<String>> {
    prop_oneof![
        3 => Just(None),
        3 => "[a-z]{1,10}( [a-z]{1,10}){0,3}".prop_map(Some),
        1 => (MAX_OUTCOME_CHARS..=MAX_OUTCOME_CHARS + 1).prop_map(|n| Some("o".repeat(n))),
    ]
}

/// A gate request: the tracker records no gate for it (Preflight's measured run does).
fn gate() -> impl Strategy<Value = Option<GateRequest>> {
    prop_oneof![2 => Just(None), 1 => Just(Some(GateRequest::new("cargo test")))]
}

/// Mostly ids that exist in a list of a dozen tasks, sometimes any id (missing ones too).
fn task_id() -> impl Strategy<Value = u32> {
    prop_oneof![4 => 1u32..=12, 1 => 0u32..=45]
}

fn operation() -> impl Strategy<Value = Operation> {
    let init_tasks = prop_oneof![new_tasks(0..=12), new_tasks(38..=42)];
    let add_tasks = prop_oneof![8 => new_tasks(1..=4), 1 => new_tasks(0..=0)];
    let done = (task_id(), outcome(), gate());
    prop_oneof![
        1 => init_tasks.prop_map(|tasks| Operation::Init { tasks }),
        6 => add_tasks.prop_map(|tasks| Operation::Add { tasks }),
        4 => task_id().prop_map(|id| Operation::Start { id }),
        5 => done.prop_map(|(id, outcome, gate)| Operation::Done { id, outcome, gate }),
        3 => (task_id(), outcome()).prop_map(|(id, outcome)| Operation::Drop { id, outcome }),
        2 => (task_id(), title(), outcome())
            .prop_map(|(id, title, reason)| Operation::Modify { id, title, reason }),
    ]
}

fn call() -> impl Strategy<Value = Call> {
    let mangle = prop_oneof![
        12 => Just(Mangle::None),
        2 => Just(Mangle::Tolerated),
        1 => Just(Mangle::ExtraField),
        1 => Just(Mangle::UnknownOp),
    ];
    (operation(), mangle).prop_map(|(op, mangle)| Call { op, mangle })
}

// ---------------------------------------------------------------- the reference model

/// What the model tracks beside the list: the highest id ever handed out since `init`.
struct Reference {
    list: Vec<Task>,
    highest_id: u32,
}

fn fold(text: &str) -> Option<String> {
    let folded = text.split_whitespace().collect::<Vec<_>>().join(" ");
    (!folded.is_empty()).then_some(folded)
}

fn key(phase: &Option<String>) -> Option<String> {
    phase.as_ref().map(|p| p.to_lowercase())
}

impl Reference {
    /// The reference's answer: `None` for a refusal, else the expected tasks.
    fn apply(&self, call: &Call) -> Option<(Vec<Task>, u32)> {
        if matches!(call.mangle, Mangle::ExtraField | Mangle::UnknownOp) {
            return None;
        }
        let (mut tasks, highest) = match &call.op {
            Operation::Init { tasks } => self.added(Vec::new(), 0, tasks)?,
            Operation::Add { tasks } if tasks.is_empty() => return None,
            Operation::Add { tasks } => self.added(self.list.clone(), self.highest_id, tasks)?,
            Operation::Start { id } => (self.started(*id)?, self.highest_id),
            Operation::Done { id, outcome, .. } => {
                (self.finished(*id, TaskStatus::Done, outcome, &None)?, self.highest_id)
            }
            Operation::Drop { id, outcome } => {
                (self.finished(*id, TaskStatus::Dropped, outcome, &None)?, self.highest_id)
            }
            Operation::Modify { id, title, .. } => (self.retitled(*id, title)?, self.highest_id),
        };
        let any_active = tasks.iter().any(|t| t.status == TaskStatus::Active);
        if let Some(first) = tasks.iter_mut().find(|t| t.status == TaskStatus::Pending) {
            if !any_active {
                first.status = TaskStatus::Active;
            }
        }
        Some((tasks, highest))
    }

    fn added(
        &self,
        mut list: Vec<Task>,
        mut highest: u32,
        new: &[NewTask],
    ) -> Option<(Vec<Task>, u32)> {
        if list.len() + new.len() > MAX_TASKS {
            return None;
        }
        for task in new {
            let title = fold(&task.title).filter(|t| t.chars().count() <= MAX_TITLE_CHARS)?;
            let phase = task.phase.as_deref().and_then(fold);
            if phase.as_ref().is_some_and(|p| p.chars().count() > MAX_PHASE_CHARS) {
                return None;
            }
            let same = |t: &Task| key(&t.phase) == key(&phase);
            let kept_spelling =
                list.iter().find(|t| same(t)).map_or(phase.clone(), |t| t.phase.clone());
            let place = match (phase.is_none(), list.iter().rposition(same)) {
                (true, _) => list.iter().take_while(|t| t.phase.is_none()).count(),
                (false, Some(last)) => last + 1,
                (false, None) => list.len(),
            };
            highest += 1;
            let status = TaskStatus::Pending;
            list.insert(
                place,
                Task {
                    id: highest,
                    phase: kept_spelling,
                    title,
                    status,
                    outcome: None,
                    gate: None,
                    origin: TaskOrigin::Executor,
                    priority: task.priority,
                    check: None,
                    depends_on: Vec::new(),
                    created_at: None,
                    updated_at: None,
                },
            );
        }
        Some((list, highest))
    }

    fn started(&self, id: u32) -> Option<Vec<Task>> {
        let mut list = self.list.clone();
        list.iter().position(|t| t.id == id)?;
        for task in &mut list {
            if task.id == id {
                if matches!(task.status, TaskStatus::Done | TaskStatus::Dropped) {
                    (task.outcome, task.gate) = (None, None);
                }
                task.status = TaskStatus::Active;
            } else if task.status == TaskStatus::Active {
                task.status = TaskStatus::Pending;
            }
        }
        Some(list)
    }

    fn retitled(&self, id: u32, title: &str) -> Option<Vec<Task>> {
        let mut list = self.list.clone();
        let task = list.iter_mut().find(|t| t.id == id)?;
        task.title = fold(title).filter(|t| t.chars().count() <= MAX_TITLE_CHARS)?;
        Some(list)
    }

    fn finished(
        &self,
        id: u32,
        status: TaskStatus,
        outcome: &Option<String>,
        gate: &Option<Gate>,
    ) -> Option<Vec<Task>> {
        let mut list = self.list.clone();
        let task = list.iter_mut().find(|t| t.id == id)?;
        let outcome = outcome.as_deref().and_then(fold);
        if outcome.as_ref().is_some_and(|o| o.chars().count() > MAX_OUTCOME_CHARS) {
            return None;
        }
        task.status = status;
        task.outcome = outcome.or(task.outcome.take());
        task.gate = gate.clone().or(task.gate.take());
        Some(list)
    }
}

// ---------------------------------------------------------------- invariants

fn check_invariants(
    list: &TaskList,
    ever_issued: &HashSet<u32>,
    before: &TaskList,
    was_init: bool,
) {
    let active = list.tasks.iter().filter(|t| t.status == TaskStatus::Active).count();
    let work_left =
        list.tasks.iter().any(|t| matches!(t.status, TaskStatus::Pending | TaskStatus::Active));
    assert_eq!(active, usize::from(work_left), "one active task iff work is left");
    assert!(list.tasks.len() <= MAX_TASKS);
    for task in &list.tasks {
        assert!(!task.title.trim().is_empty() && task.title.chars().count() <= MAX_TITLE_CHARS);
        assert!(!task.title.contains('\n'));
        let phase_ok = |p: &String| !p.trim().is_empty() && p.chars().count() <= MAX_PHASE_CHARS;
        assert!(task.phase.as_ref().is_none_or(phase_ok));
    }
    let ids: HashSet<u32> = list.tasks.iter().map(|t| t.id).collect();
    assert_eq!(ids.len(), list.tasks.len(), "ids are unique");
    if !was_init {
        let old: HashSet<u32> = before.tasks.iter().map(|t| t.id).collect();
        for id in ids.difference(&old) {
            assert!(!ever_issued.contains(id), "id {id} was handed out before");
        }
    }
    check_grouping(list);
    check_render(list);
}

/// Un-phased tasks lead; each phase is one run, spelled one way.
fn check_grouping(list: &TaskList) {
    let leading = list.tasks.iter().take_while(|t| t.phase.is_none()).count();
    assert!(list.tasks[leading..].iter().all(|t| t.phase.is_some()), "un-phased tasks lead");
    let mut closed: Vec<String> = Vec::new();
    for pair in list.tasks[leading..].windows(2) {
        let (a, b) = (key(&pair[0].phase).unwrap(), key(&pair[1].phase).unwrap());
        if a == b {
            assert_eq!(pair[0].phase, pair[1].phase, "one spelling per phase");
        } else {
            closed.push(a);
            assert!(!closed.contains(&b), "phase {b} split in two");
        }
    }
}

fn check_render(list: &TaskList) {
    let rendered = list.render();
    let lines: Vec<&str> = rendered.lines().collect();
    assert!(lines[0].starts_with("[plan] "));
    if list.tasks.is_empty() {
        assert_eq!(lines.len(), 1);
        return;
    }
    let left = list
        .tasks
        .iter()
        .filter(|t| matches!(t.status, TaskStatus::Pending | TaskStatus::Active))
        .count();
    assert!(lines[0].ends_with(&format!(" {left} left.")), "{}", lines[0]);
    let task_lines: Vec<&str> =
        lines[1..].iter().copied().filter(|l| !l.starts_with("## ")).collect();
    assert_eq!(task_lines.len(), list.tasks.len());
    for (line, task) in task_lines.iter().zip(&list.tasks) {
        let mark = match task.status {
            TaskStatus::Pending => "[ ]",
            TaskStatus::Active => "[>]",
            TaskStatus::Done => "[x]",
            TaskStatus::Dropped => "[~]",
        };
        assert!(line.starts_with(&format!("{} {mark} {}", task.id, task.title)), "{line}");
    }
    let headings = lines.iter().filter(|l| l.starts_with("## ")).count();
    assert_eq!(headings, list.phases().len(), "one heading per phase:\n{rendered}");
}

// ---------------------------------------------------------------- the property

/// In a module named `tasks` so `cargo test -p preflight-protocol tasks` runs these too.
mod tasks {
    use super::*;

    proptest! {
        #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

        #[test]
        fn random_sessions_agree_with_the_reference_and_keep_the_invariants(
            calls in prop::collection::vec(call(), 200)
        ) {
            let mut list = TaskList::empty();
            let mut reference = Reference { list: Vec::new(), highest_id: 0 };
            let mut ever_issued: HashSet<u32> = HashSet::new();
            for call in &calls {
                let before = list.clone();
                let outcome = list.apply_tool_call(&call.arguments());
                match (outcome, reference.apply(call)) {
                    // Refused, as the reference expected; `apply` took `&list`, so it stands as it was.
                    (Err(_), None) => {}
                    (Ok(next), Some((expected, highest))) => {
                        prop_assert_eq!(&next.tasks, &expected, "after {:?}", call);
                        let was_init = matches!(call.op, Operation::Init { .. });
                        if was_init {
                            ever_issued.clear();
                        }
                        check_invariants(&next, &ever_issued, &before, was_init);
                        ever_issued.extend(next.tasks.iter().map(|t| t.id));
                        reference = Reference { list: expected, highest_id: highest };
                        list = next;
                    }
                    (Err(refusal), Some(_)) => prop_assert!(false, "refused {:?}: {}", call, refusal),
                    (Ok(next), None) => prop_assert!(false, "accepted {:?}:\n{}", call, next.render()),
                }
            }
        }

        /// A refused call's message names what exists, so the model can correct itself.
        #[test]
        fn missing_ids_are_refused_naming_every_live_id(
            setup in new_tasks(1..=10), missing in 50u32..100
        ) {
            let fits = |t: &NewTask| fold(&t.title).is_some_and(|t| t.chars().count() <= MAX_TITLE_CHARS);
            let valid: Vec<NewTask> =
                setup.into_iter().filter(fits).map(|t| NewTask { phase: None, ..t }).collect();
            let list = TaskList::empty().apply(&Operation::Init { tasks: valid }).unwrap();
            let message = list.apply(&Operation::Start { id: missing }).unwrap_err().to_string();
            prop_assert!(message.starts_with(&format!("no task {missing};")), "{}", message);
            if !list.tasks.is_empty() {
                let ids: Vec<String> = (1..=list.tasks.len()).map(|id| id.to_string()).collect();
                let named = format!("live tasks: {}; phases: none", ids.join(", "));
                prop_assert!(message.ends_with(&named), "{}", message);
            }
        }
    }
}
