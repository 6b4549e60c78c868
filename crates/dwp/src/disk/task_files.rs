//! The task files a write changes (`{N}.task_{slug}.md`, `rules/task_file.rs`), computed
//! under the writer's lock so that they join the same journal change as `state.json`,
//! README.md and PROGRESS.md: a crash leaves every file of a protocol point old or every
//! file new, never a task file that disagrees with the state.

use super::error::DwpError;
use super::folder::{read_optional, PlanFolder};
use crate::rules::documents::{LocatorKind, PlanState};
use crate::rules::input::StepInput;
use crate::rules::task_file::{
    is_task_file_name, render_task_file, replace_task_file_block, TaskOrigin,
};

/// `(file name, new text)` for each task file of `after` whose text changes. A task new in
/// this write (absent from `before`; every task when `before` is `None`, at materialisation)
/// gets its file, with its step from `steps` (step `n` is task `n`, as the tracker makes
/// the list from the plan); an existing file is rewritten in its block only. Left alone:
/// Lite tasks (their record is README.md's), a locator not named as Preflight names task
/// files, a file without the block markers (another tool's log), and a missing file of a
/// task that existed before — the verifier reports it; nothing repairs it by guess.
pub(crate) fn task_file_changes(
    dir: &PlanFolder,
    before: Option<&PlanState>,
    after: &PlanState,
    steps: &[StepInput],
) -> Result<Vec<(String, String)>, DwpError> {
    let mut changes = Vec::new();
    for task in &after.tasks {
        let name = &task.locator.value;
        if task.locator.kind != LocatorKind::File || !is_task_file_name(task.id, name) {
            continue;
        }
        let is_new = before.is_none_or(|before| before.task(task.id).is_none());
        let text = match read_optional(&dir.file(name))? {
            Some(existing) => {
                replace_task_file_block(&existing, task, after).filter(|text| *text != existing)
            }
            None if is_new => {
                let step = task.id.checked_sub(1).and_then(|index| steps.get(index as usize));
                let origin = step.map_or(TaskOrigin::AddedLater, TaskOrigin::Step);
                Some(render_task_file(task, after, origin))
            }
            None => None,
        };
        changes.extend(text.map(|text| (name.clone(), text)));
    }
    Ok(changes)
}
