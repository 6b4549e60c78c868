//! The `turn_plan` task list: phases, exactly one active task, the rendered tree. Pure.

mod model;

pub use model::{Gate, Task, TaskList, TaskStatus};
