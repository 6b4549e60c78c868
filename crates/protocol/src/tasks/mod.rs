//! The `turn_plan` task list: phases, exactly one active task, the rendered tree. Pure.
//!
//! `Operation::from_value` parses a tool call, `TaskList::apply` computes the whole new list
//! (a refusal leaves the old one as it was), `TaskList::render` gives the `[plan]` tree.

mod change;
mod completion;
mod error;
mod history;
mod limits;
mod model;
mod ops;
mod render;
mod schema;
mod stops;
mod terminal;
mod tracker;

pub use change::{ChangeKind, ChangeRequest, ChangeStatus, PlanChange};
pub use completion::{
    Adherence, Completion, Deviation, DeviationKind, FinalizationNote, PlannedStep,
};
pub use error::TrackerError;
pub use history::MAX_HISTORY;
pub use limits::{
    MAX_CHECK_CHARS, MAX_OUTCOME_CHARS, MAX_PHASE_CHARS, MAX_TASKS, MAX_TITLE_CHARS, MIN_OWN_TASKS,
};
pub use model::{
    Gate, PlannedTask, Priority, Task, TaskEvent, TaskEventKind, TaskList, TaskOrigin, TaskStatus,
};
pub use ops::{GateRequest, NewTask, Operation};
pub use schema::{parameters_schema, tool_description, TOOL_NAME};
pub use stops::{
    continues, ExecutorStop, FailedGate, OpenTask, StopLog, StopReason, WorkEvent, MAX_WORK_EVENTS,
};
pub use terminal::{draw_completion, draw_task_list, Style};

#[cfg(test)]
mod tests;
