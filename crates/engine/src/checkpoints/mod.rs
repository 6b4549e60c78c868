//! Checkpoints of a chat's workspace (issue 31): Preflight, never the model, takes one when
//! a plan is approved, before and after each executor turn, and when a task starts or is
//! closed; each task's diff runs from the checkpoint it started at to the one that closed
//! it, and a restore puts the workspace's files and the task list back to a checkpoint.
//!
//! `model` is pure: the records and the rules that read them; `recorder` takes a
//! checkpoint (git on a blocking thread, then the store).

mod model;
mod recorder;

pub use model::{
    last_turn_start, task_moves, task_spans, ChangeStat, Checkpoint, CheckpointReason, LeftOut,
    TaskSpan,
};
pub use recorder::{change_stat, open_shadow, shadow_dir, CheckpointFailure, CheckpointLink};
