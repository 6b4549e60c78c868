//! The live task list as seed 001 draws it in a terminal: phases as headings, ✓ done, ▶ in
//! progress, ○ pending, ✗ dropped, "1 of 3 done"; once the plan is complete, its list as it
//! ended under "Plan completed". The engine's `draw_task_list` draws the same marks as text
//! for `preflight tasks`; here they are ratatui spans, in the user's language.

use preflight_engine::tasks::{ChangeStatus, Task, TaskStatus};
use ratatui::style::Modifier;
use ratatui::text::{Line, Span};

use crate::app::state::App;
use crate::locale::fill;
use crate::sanitize::one_line;

/// The panel's title and its lines; None when the chat has no list and no completed plan.
pub fn task_panel(app: &App) -> Option<(String, Vec<Line<'static>>)> {
    let words = app.words;
    let (tasks, completed) =
        match (&app.tasks, app.chat.as_ref().and_then(|v| v.state.completion.as_ref())) {
            (tasks, _) if !tasks.is_empty() => (tasks.as_slice(), false),
            (_, Some(completion)) => (completion.tasks.as_slice(), true),
            _ => return None,
        };
    let done = tasks.iter().filter(|task| task.status == TaskStatus::Done).count();
    let dropped = tasks.iter().filter(|task| task.status == TaskStatus::Dropped).count();
    let mut title = fill(words.tasks_done, &[("done", &done), ("total", &tasks.len())]);
    if dropped > 0 {
        title = format!("{title}, {}", fill(words.tasks_dropped, &[("n", &dropped)]));
    }
    let title = match completed {
        true => format!("{} ✓ · {title}", words.plan_completed),
        false => format!("{} · {title}", words.tasks_label),
    };
    Some((title, task_lines(app, tasks)))
}

fn task_lines(app: &App, tasks: &[Task]) -> Vec<Line<'static>> {
    let asked: Vec<u32> = app
        .chat
        .iter()
        .flat_map(|view| &view.state.changes)
        .filter(|change| change.status == ChangeStatus::Pending)
        .filter_map(|change| change.request.task)
        .collect();
    let mut lines = Vec::new();
    let mut phase: Option<String> = None;
    for task in tasks {
        let this = task.phase.as_deref().map(str::to_lowercase);
        if this.is_some() && this != phase {
            lines.push(Line::styled(
                one_line(task.phase.as_deref().unwrap_or("")),
                app.theme.bold(),
            ));
        }
        phase = this;
        lines.push(task_line(app, task, asked.contains(&task.id)));
    }
    lines
}

fn task_line(app: &App, task: &Task, asked: bool) -> Line<'static> {
    let theme = app.theme;
    let title = one_line(&task.title);
    let mut spans = match task.status {
        TaskStatus::Done => vec![
            Span::styled("✓ ", theme.ok()),
            Span::styled(title, theme.dim().add_modifier(Modifier::CROSSED_OUT)),
        ],
        TaskStatus::Active => {
            vec![Span::styled("▶ ", theme.accent()), Span::styled(title, theme.bold())]
        }
        TaskStatus::Pending => vec![Span::raw("○ "), Span::raw(title)],
        TaskStatus::Dropped => vec![
            Span::styled("✗ ", theme.bad()),
            Span::styled(title, theme.dim().add_modifier(Modifier::CROSSED_OUT)),
        ],
    };
    if let Some(outcome) = &task.outcome {
        spans.push(Span::styled(format!(" — {}", one_line(outcome)), theme.dim()));
    }
    if asked {
        spans.push(Span::styled(" ?", theme.warn()));
    }
    Line::from(spans)
}

/// The index of the task line to keep in view (the active one, else the first pending).
pub fn focus_line(lines: &[Line<'static>]) -> usize {
    let starts = |mark: &str| {
        lines.iter().position(|line| line.spans.first().is_some_and(|s| s.content == mark))
    };
    starts("▶ ").or_else(|| starts("○ ")).unwrap_or(0)
}
