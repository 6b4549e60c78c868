//! Applying operations: the whole new list is computed in memory, so a refusal changes nothing.
//!
//! Order rules (the `tasks` vector is display order):
//! - tasks without a phase form one leading group with no heading; were they placed after
//!   a phase they would render under its heading and read as part of it;
//! - each phase is one contiguous group, in order of first appearance; its spelling is the
//!   first one seen, later spellings of the same phase (any case) are rewritten to it;
//! - a new task goes to the end of its group; a new phase opens a group at the end.
//!
//! Ids are handed out in the order tasks are sent, never reused while the list lives
//! (`init` restarts them at 1). Finished tasks may be finished again (the outcome and gate
//! are replaced when given, kept otherwise) and may be started again (reopened: their
//! outcome and gate are cleared, since they no longer describe the task).

use serde_json::Value;

use super::limits::{
    checked_outcome, checked_phase, checked_title, same_phase, MAX_TASKS, MIN_OWN_TASKS,
};
use super::{
    Gate, NewTask, Operation, PlannedTask, Task, TaskList, TaskOrigin, TaskStatus, TrackerError,
};

impl TaskList {
    /// The list as it is after `op`, or the refusal; `self` is never changed. A `done`'s
    /// gate request records nothing here: the gate is the run Preflight makes
    /// ([`TaskList::apply_measured`]).
    pub fn apply(&self, op: &Operation) -> Result<TaskList, TrackerError> {
        self.apply_measured(op, None)
    }

    /// [`TaskList::apply`] with the gate Preflight ran for a `done` recorded on its task.
    pub fn apply_measured(
        &self,
        op: &Operation,
        measured: Option<&Gate>,
    ) -> Result<TaskList, TrackerError> {
        let mut next = match op {
            Operation::Init { tasks } => TaskList::empty().with_added(tasks)?,
            Operation::Add { tasks } if tasks.is_empty() => {
                return Err(TrackerError::NoTasksGiven { op: "add" })
            }
            Operation::Add { tasks } => self.with_added(tasks)?,
            Operation::Start { id } => self.with_started(*id)?,
            Operation::Done { id, outcome, .. } => {
                self.with_finished(*id, TaskStatus::Done, outcome.as_deref(), measured)?
            }
            Operation::Drop { id, outcome } => {
                self.with_finished(*id, TaskStatus::Dropped, outcome.as_deref(), None)?
            }
            Operation::Modify { id, title, .. } => self.with_title(*id, title)?,
        };
        next.hold_invariants();
        Ok(next)
    }

    /// The list with a failing gate run recorded on task `id`, which stays as it was: the
    /// task shows its last check, and the `done` it was for is refused.
    pub fn with_gate_run(&self, id: u32, gate: &Gate) -> Result<TaskList, TrackerError> {
        let index = self.position_of(id)?;
        let mut next = self.clone();
        next.tasks[index].gate = Some(gate.clone());
        Ok(next)
    }

    /// Seed 001's "plan only 3+ distinct steps" (DESIGN §14), for the executor's own list:
    /// an `init` of one or two tasks over a list that holds no step of an approved plan is
    /// refused (one over plan steps is a plan change, asked of the user). Clearing is free.
    pub fn check_own_plan_size(&self, op: &Operation) -> Result<(), TrackerError> {
        match op {
            Operation::Init { tasks }
                if !tasks.is_empty() && tasks.len() < MIN_OWN_TASKS && !self.holds_plan_steps() =>
            {
                Err(TrackerError::TooFewTasks { given: tasks.len(), least: MIN_OWN_TASKS })
            }
            _ => Ok(()),
        }
    }

    /// Parses a tool call's arguments and applies them: what `turn_plan` does.
    pub fn apply_tool_call(&self, arguments: &Value) -> Result<TaskList, TrackerError> {
        self.apply(&Operation::from_value(arguments)?)
    }

    /// The list an approved plan card starts: one task per step, ids 1…n, task 1 active.
    /// Refused, like `init`, when the steps break a limit (more than 40, a long title).
    pub fn from_steps<I, S>(titles: I) -> Result<TaskList, TrackerError>
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        let steps = titles.into_iter().map(|title| PlannedTask::titled(title.into()));
        TaskList::from_plan(steps.collect())
    }

    /// [`TaskList::from_steps`] with each step's check and dependencies (DESIGN §14): step
    /// `n` is task `n`, so a step's `depends_on` are its task's. A dependency on a step that
    /// is not earlier is not kept (the planner's normalisation has already dropped them).
    pub fn from_plan(steps: Vec<PlannedTask>) -> Result<TaskList, TrackerError> {
        let tasks = steps.iter().map(|step| NewTask::new(step.title.clone(), None)).collect();
        let mut list = TaskList::empty().apply(&Operation::Init { tasks })?;
        for (task, step) in list.tasks.iter_mut().zip(steps) {
            task.origin = TaskOrigin::Plan;
            task.check = step.check.map(|c| c.trim().to_owned()).filter(|c| !c.is_empty());
            task.depends_on =
                step.depends_on.into_iter().filter(|&d| d >= 1 && d < task.id).collect();
        }
        list.planned = list.tasks.iter().map(|task| task.id).collect();
        Ok(list)
    }

    /// A list with no task whose first task will get id 1.
    pub fn empty() -> TaskList {
        TaskList { tasks: Vec::new(), next_id: 1, planned: Vec::new(), history: Vec::new() }
    }

    pub fn is_empty(&self) -> bool {
        self.tasks.is_empty()
    }

    /// Whether any task is pending or active: such a list stays open across turns.
    pub fn has_work_left(&self) -> bool {
        self.tasks.iter().any(|t| t.status.is_open())
    }

    /// The ids of the pending and active tasks, in list order.
    pub fn open_ids(&self) -> Vec<u32> {
        self.tasks.iter().filter(|t| t.status.is_open()).map(|t| t.id).collect()
    }

    /// A list with tasks, all done or dropped: closed (cleared) at the end of a turn.
    pub fn is_finished(&self) -> bool {
        !self.is_empty() && !self.has_work_left()
    }

    pub fn active(&self) -> Option<&Task> {
        self.tasks.iter().find(|t| t.status == TaskStatus::Active)
    }

    pub fn get(&self, id: u32) -> Option<&Task> {
        self.tasks.iter().find(|t| t.id == id)
    }

    /// Distinct phases in display order, each in its kept spelling.
    pub fn phases(&self) -> Vec<&str> {
        let mut phases: Vec<&str> = Vec::new();
        for phase in self.tasks.iter().filter_map(|t| t.phase.as_deref()) {
            if phases.last() != Some(&phase) && !phases.iter().any(|seen| same_phase(seen, phase)) {
                phases.push(phase);
            }
        }
        phases
    }

    fn with_added(&self, new_tasks: &[NewTask]) -> Result<TaskList, TrackerError> {
        let would_have = self.tasks.len() + new_tasks.len();
        if would_have > MAX_TASKS {
            return Err(TrackerError::TooManyTasks { would_have, limit: MAX_TASKS });
        }
        let mut next = self.clone();
        next.next_id = self.fresh_id();
        for (index, new_task) in new_tasks.iter().enumerate() {
            let task = Task {
                id: next.next_id,
                phase: checked_phase(index + 1, new_task.phase.as_deref())?,
                title: checked_title(index + 1, &new_task.title)?,
                status: TaskStatus::Pending,
                outcome: None,
                gate: None,
                origin: TaskOrigin::Executor,
                priority: new_task.priority,
                check: None,
                depends_on: Vec::new(),
                created_at: None,
                updated_at: None,
            };
            next.next_id += 1;
            next.tasks.push(task);
        }
        Ok(next)
    }

    fn with_title(&self, id: u32, title: &str) -> Result<TaskList, TrackerError> {
        let index = self.position_of(id)?;
        let mut next = self.clone();
        next.tasks[index].title = checked_title(1, title)?;
        Ok(next)
    }

    fn with_started(&self, id: u32) -> Result<TaskList, TrackerError> {
        let index = self.position_of(id)?;
        let waiting = self.open_dependencies(&self.tasks[index]);
        if !waiting.is_empty() {
            let waiting = waiting.iter().map(|t| format!("task {} “{}”", t.id, t.title)).collect();
            return Err(TrackerError::DependenciesOpen { id, waiting });
        }
        let mut next = self.clone();
        for task in &mut next.tasks {
            if task.id == id {
                if matches!(task.status, TaskStatus::Done | TaskStatus::Dropped) {
                    task.outcome = None;
                    task.gate = None;
                }
                task.status = TaskStatus::Active;
            } else if task.status == TaskStatus::Active {
                task.status = TaskStatus::Pending;
            }
        }
        Ok(next)
    }

    fn with_finished(
        &self,
        id: u32,
        status: TaskStatus,
        outcome: Option<&str>,
        gate: Option<&Gate>,
    ) -> Result<TaskList, TrackerError> {
        let index = self.position_of(id)?;
        let outcome = checked_outcome(outcome)?;
        let mut next = self.clone();
        let task = &mut next.tasks[index];
        task.status = status;
        if outcome.is_some() {
            task.outcome = outcome;
        }
        if gate.is_some() {
            task.gate = gate.cloned();
        }
        Ok(next)
    }

    /// Where task `id` is, or the refusal listing what does exist.
    pub(super) fn position_of(&self, id: u32) -> Result<usize, TrackerError> {
        self.tasks.iter().position(|t| t.id == id).ok_or_else(|| {
            let mut live_ids: Vec<u32> = self.tasks.iter().map(|t| t.id).collect();
            live_ids.sort_unstable();
            let phases = self.phases().into_iter().map(str::to_owned).collect();
            TrackerError::NoSuchTask { id, live_ids, phases }
        })
    }

    /// The next id to hand out; guards against a stored `next_id` behind the ids in use.
    pub(super) fn fresh_id(&self) -> u32 {
        let past_highest = self.tasks.iter().map(|t| t.id.saturating_add(1)).max().unwrap_or(1);
        self.next_id.max(past_highest).max(1)
    }

    /// Brings any list, even one stored by older code, back to a tree with one active task.
    fn hold_invariants(&mut self) {
        self.group_by_phase();
        self.keep_one_active();
    }

    /// Stable regrouping: un-phased tasks first, then phases in order of first appearance,
    /// each spelled as it first appeared. For a list that was already grouped this keeps
    /// the order, so a newly pushed task lands at the end of its phase, or at the end of
    /// the plan for a new phase.
    fn group_by_phase(&mut self) {
        let mut spellings: Vec<String> = Vec::new();
        let mut groups: Vec<usize> = Vec::with_capacity(self.tasks.len());
        for task in &mut self.tasks {
            let Some(phase) = &task.phase else {
                groups.push(0);
                continue;
            };
            // Tasks of a phase sit together, so the last phase seen is the likeliest match.
            let last = spellings.len().checked_sub(1).filter(|&i| spellings[i] == *phase);
            match last.or_else(|| spellings.iter().position(|kept| same_phase(kept, phase))) {
                Some(index) => {
                    if spellings[index] != *phase {
                        task.phase = Some(spellings[index].clone());
                    }
                    groups.push(index + 1);
                }
                None => {
                    spellings.push(phase.clone());
                    groups.push(spellings.len());
                }
            }
        }
        if groups.is_sorted() {
            return;
        }
        let mut grouped: Vec<(usize, Task)> =
            groups.into_iter().zip(self.tasks.drain(..)).collect();
        grouped.sort_by_key(|(group, _)| *group); // stable: keeps the order within a group
        self.tasks = grouped.into_iter().map(|(_, task)| task).collect();
    }

    /// Exactly one active task while any is pending or active: the first active one stays,
    /// others go back to pending; with none, the first pending one (display order) starts.
    fn keep_one_active(&mut self) {
        let mut seen_active = false;
        for task in &mut self.tasks {
            if task.status == TaskStatus::Active {
                if seen_active {
                    task.status = TaskStatus::Pending;
                }
                seen_active = true;
            }
        }
        if seen_active {
            return;
        }
        let ready = |list: &TaskList, task: &Task| {
            task.status == TaskStatus::Pending && list.open_dependencies(task).is_empty()
        };
        let next = (self.tasks.iter().position(|t| ready(self, t)))
            .or_else(|| self.tasks.iter().position(|t| t.status == TaskStatus::Pending));
        if let Some(index) = next {
            self.tasks[index].status = TaskStatus::Active;
        }
    }

    /// The tasks `task` depends on that are still pending or active (a dropped dependency
    /// no longer holds it back: the plan was changed without it).
    pub fn open_dependencies(&self, task: &Task) -> Vec<&Task> {
        let open = |id: &u32| self.get(*id).filter(|dependency| dependency.status.is_open());
        task.depends_on.iter().filter_map(open).collect()
    }
}
