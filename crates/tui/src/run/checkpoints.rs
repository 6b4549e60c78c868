//! A task's diff and the restore to before it (Ctrl+G), through the engine's checkpoint
//! calls the window's dialogs make: the chat's task spans, a span's diff, what a restore
//! would do, and the restore with that preview's digest (so it does what was shown or
//! nothing). The restore's entry then shows in the chat.

use preflight_engine::lifecycle::{ApiError, Engine, RestoreRequest};
use preflight_engine::tasks::{Task, TaskStatus};

use crate::app::state::{App, DiffView};

/// Shows the diff of the task span at `index`, or of the last finished task.
pub async fn show_diff(
    engine: &Engine,
    app: &mut App,
    index: Option<usize>,
) -> Result<(), ApiError> {
    let Some(chat_id) = app.chat_id().cloned() else { return Ok(()) };
    let list = engine.checkpoints(&chat_id).await?;
    let tasks = known_tasks(app);
    let title = |id: u32| tasks.iter().find(|task| task.id == id).map(|t| t.title.clone());
    let spans: Vec<_> =
        list.tasks.into_iter().map(|span| (span, title(span.task).unwrap_or_default())).collect();
    let finished =
        |id: u32| tasks.iter().any(|task| task.id == id && task.status == TaskStatus::Done);
    let last_finished = spans.iter().rposition(|(span, _)| finished(span.task));
    let index = index.or(last_finished).unwrap_or(spans.len().saturating_sub(1));
    let index = index.min(spans.len().saturating_sub(1));
    let diff = match spans.get(index) {
        Some((span, _)) => Some(engine.checkpoint_diff(&chat_id, span.from, span.to).await?),
        None => None,
    };
    app.diff = Some(DiffView { spans, index, diff, ..DiffView::default() });
    Ok(())
}

/// The live task list, or the completed plan's.
fn known_tasks(app: &App) -> Vec<Task> {
    if !app.tasks.is_empty() {
        return app.tasks.clone();
    }
    let completion = app.chat.as_ref().and_then(|view| view.state.completion.as_ref());
    completion.map(|completion| completion.tasks.clone()).unwrap_or_default()
}

/// What a restore to before the shown task would do, for the user to confirm.
pub async fn preview_restore(engine: &Engine, app: &mut App) -> Result<(), ApiError> {
    let Some(chat_id) = app.chat_id().cloned() else { return Ok(()) };
    let Some(from) = app.diff.as_ref().and_then(|diff| diff.span()).map(|(span, _)| span.from)
    else {
        return Ok(());
    };
    let preview = engine.restore_preview(&chat_id, from).await?;
    if let Some(diff) = &mut app.diff {
        diff.confirm = Some(preview);
    }
    Ok(())
}

/// The restore the user confirmed; the diff closes (the caller reads the chat again, which
/// then shows what the restore did).
pub async fn restore(engine: &Engine, app: &mut App) -> Result<(), ApiError> {
    let Some(chat_id) = app.chat_id().cloned() else { return Ok(()) };
    let Some(preview) = app.diff.as_mut().and_then(|diff| diff.confirm.take()) else {
        return Ok(());
    };
    let request = RestoreRequest { digest: preview.digest, overwrite_user_changes: false };
    engine.restore_checkpoint(&chat_id, preview.to, request).await?;
    app.diff = None;
    app.scroll = 0;
    Ok(())
}
