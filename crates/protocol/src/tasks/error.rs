//! Why a `turn_plan` call was refused. Each message is read by a model: short, saying what to do.

use thiserror::Error;

/// The six operations, in the order the messages list them.
pub(crate) const OP_NAMES: &str = "init, add, start, done, drop, modify";

/// A refused `turn_plan` call. The task list is never changed by a refused call.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum TrackerError {
    #[error(
        "turn_plan arguments are not valid JSON ({detail}); \
         send one object such as {{\"op\":\"start\",\"id\":2}}"
    )]
    InvalidJson { detail: String },

    #[error("turn_plan arguments must be a JSON object such as {{\"op\":\"start\",\"id\":2}}")]
    NotAnObject,

    #[error("missing \"op\"; use one of: {OP_NAMES}")]
    MissingOp,

    #[error("unknown op {op:?}; use one of: {OP_NAMES}")]
    UnknownOp { op: String },

    /// The op is known but its arguments have the wrong shape; `usage` shows the right one.
    #[error("bad arguments for \"{op}\": {detail}. Use {usage}")]
    BadArguments { op: &'static str, detail: String, usage: &'static str },

    #[error("\"{op}\" needs at least one task in \"tasks\"")]
    NoTasksGiven { op: &'static str },

    #[error("no task {id}; {}", live_summary(.live_ids, .phases))]
    NoSuchTask { id: u32, live_ids: Vec<u32>, phases: Vec<String> },

    #[error(
        "the plan would have {would_have} tasks; the limit is {limit}. \
         Merge tasks, or start over with init"
    )]
    TooManyTasks { would_have: usize, limit: usize },

    /// `index` counts from 1 in the order the tasks were sent.
    #[error("task {index} of \"tasks\" has an empty title")]
    EmptyTitle { index: usize },

    #[error(
        "title of task {index} of \"tasks\" has {chars} characters; the limit is {limit}. \
         Shorten it"
    )]
    TitleTooLong { index: usize, chars: usize, limit: usize },

    #[error(
        "phase of task {index} of \"tasks\" has {chars} characters; the limit is {limit}. \
         Shorten it"
    )]
    PhaseTooLong { index: usize, chars: usize, limit: usize },

    /// `start` of a task whose dependencies (DESIGN §14) are not done.
    #[error("task {id} cannot start yet: {}", waiting_text(.waiting))]
    DependenciesOpen { id: u32, waiting: Vec<String> },

    #[error(
        "a plan of {given} task(s) is not made: plan only work of {least} or more distinct \
         steps. For one or two steps, do the work (no turn_plan needed)"
    )]
    TooFewTasks { given: usize, least: usize },

    #[error("a gate needs a command to run, such as {{\"command\":\"cargo test\"}}")]
    EmptyCheck,

    #[error("the gate's command has {chars} characters; the limit is {limit}")]
    CheckTooLong { chars: usize, limit: usize },

    #[error("outcome has {chars} characters; the limit is {limit}. Say it in one short line")]
    OutcomeTooLong { chars: usize, limit: usize },
}

/// "live tasks: 1, 2, 3; phases: dig, build", or a pointer to `init` when there is nothing.
fn live_summary(live_ids: &[u32], phases: &[String]) -> String {
    if live_ids.is_empty() {
        return "the plan is empty; make one with init".to_owned();
    }
    let ids: Vec<String> = live_ids.iter().map(u32::to_string).collect();
    let phases = if phases.is_empty() { "none".to_owned() } else { phases.join(", ") };
    format!("live tasks: {}; phases: {phases}", ids.join(", "))
}

/// "it depends on task 2 “Write it”, not done yet. Finish it first".
fn waiting_text(waiting: &[String]) -> String {
    let them = if waiting.len() == 1 { "it" } else { "them" };
    format!("it depends on {}, not done yet. Finish {them} first", waiting.join(" and "))
}
