//! The card waiting for the user, drawn: its title, its body (the question; the whole plan
//! as the window's card shows it: complexity, aim, approach, steps with their expected
//! results, order, files and checks, libraries, sandbox, risks, alternatives, tests, planned
//! files and notes; the change asked, the server's question, the stop) and its rows to
//! choose from, the chosen one in reverse video.

use preflight_engine::lifecycle::Elicitation;
use preflight_engine::mcp::Question;
use preflight_engine::planner::{
    CommentAnchor, Complexity, Library, PlanDocument, PlanStep, SandboxPolicy,
};
use preflight_engine::tasks::{ExecutorStop, FinalizationNote, PlanChange};
use ratatui::style::Style;
use ratatui::text::{Line, Span};

use crate::app::card::Card;
use crate::app::form::form_fields;
use crate::app::state::{App, Entry};
use crate::locale::fill;
use crate::sanitize::one_line;

/// The card's title line.
pub fn card_title(app: &App, card: &Card<'_>) -> String {
    let words = app.words;
    match card {
        Card::Elicitation(_) => words.mcp_label.to_owned(),
        Card::Questions { number, total, .. } => {
            let of = fill(words.question_of, &[("n", number), ("total", total)]);
            format!("{} · {of}", words.planner_asks)
        }
        Card::Plan { plan, .. } => {
            let revision = fill(words.revision, &[("n", &plan.revision)]);
            format!("{} · {revision}", words.plan_label)
        }
        Card::Change(_) => words.change_asks.to_owned(),
        Card::Stopped(_) => words.stopped_label.to_owned(),
        Card::Unverified(_) => words.unverified_label.to_owned(),
    }
}

/// What the card says, above its choices.
pub fn card_body(app: &App, card: &Card<'_>) -> Vec<Line<'static>> {
    match card {
        Card::Elicitation(open) => elicitation_body(app, open),
        Card::Questions { question, .. } => {
            vec![Line::styled(one_line(&question.question), app.theme.bold())]
        }
        Card::Plan { plan, calls_tools, unconfined, .. } => {
            let mut lines = plan_body(app, plan, *calls_tools);
            if let Some(notice) = unconfined {
                lines.push(Line::styled(one_line(&notice.reason), app.theme.bad()));
            }
            lines
        }
        Card::Change(change) => change_body(app, change),
        Card::Stopped(stop) => stop_body(app, stop),
        Card::Unverified(note) => unverified_body(app, note),
    }
}

/// The choices: a column of a question's options, or one row of actions.
pub fn card_choices(app: &App, card: &Card<'_>) -> Vec<Line<'static>> {
    let theme = app.theme;
    let choices = card.choices(app.words, &app.form);
    if !card.vertical() {
        let mut spans = Vec::new();
        for (index, choice) in choices.iter().enumerate() {
            let style = if index == app.selection { theme.selected() } else { theme.bold() };
            spans.push(Span::styled(format!(" {choice} "), style));
            spans.push(Span::raw("  "));
        }
        return vec![Line::from(spans)];
    }
    let own = match card {
        Card::Questions { .. } => choices.len() - 1,
        _ => usize::MAX,
    };
    choices
        .iter()
        .enumerate()
        .map(|(index, choice)| {
            let chosen = index == app.selection;
            let marker = if chosen { "› " } else { "  " };
            let style = if chosen { theme.selected() } else { Style::new() };
            let mut spans = vec![Span::raw(marker), Span::styled(choice.clone(), style)];
            if index == own && (app.entry == Entry::OwnAnswer || chosen) {
                spans.push(Span::raw(": "));
                if app.input.is_empty() {
                    spans.push(Span::styled(app.words.own_placeholder, theme.dim()));
                } else {
                    spans.push(Span::raw(one_line(&app.input)));
                }
            }
            Line::from(spans)
        })
        .collect()
}

fn plan_body(app: &App, plan: &PlanDocument, calls_tools: bool) -> Vec<Line<'static>> {
    let words = app.words;
    let theme = app.theme;
    let judgement = &plan.judgement;
    let mut title = vec![Span::styled(one_line(&plan.title), theme.bold())];
    if let Some(complexity) = judgement.complexity {
        let said = match complexity {
            Complexity::Low => words.complexity_low,
            Complexity::Medium => words.complexity_medium,
            Complexity::High => words.complexity_high,
        };
        title.push(Span::styled(format!(" · {said}"), theme.dim()));
    }
    let mut lines = vec![Line::from(title)];
    if !plan.aim.trim().is_empty() {
        lines.push(labelled(words.aim, theme.dim(), one_line(&plan.aim)));
    }
    if let Some(approach) = judgement.approach.as_deref().filter(|a| !a.trim().is_empty()) {
        lines.push(labelled(words.approach, theme.dim(), one_line(approach)));
    }
    lines.push(Line::styled(words.steps, theme.accent()));
    for (number, step) in plan.steps.iter().enumerate() {
        lines.extend(step_lines(app, number + 1, step));
    }
    if !plan.libraries.is_empty() {
        let names: Vec<String> = plan.libraries.iter().map(library).collect();
        lines.push(labelled(&format!("{}:", words.libraries), theme.accent(), names.join(", ")));
    }
    lines.push(sandbox_line(app, plan));
    lines.extend(judgement_lines(app, plan));
    if !calls_tools {
        lines.push(Line::styled(words.no_tools, theme.bad()));
    }
    lines
}

/// Risks, alternatives, tests, the files the plan creates and changes, and its notes.
fn judgement_lines(app: &App, plan: &PlanDocument) -> Vec<Line<'static>> {
    let words = app.words;
    let theme = app.theme;
    let judgement = &plan.judgement;
    let mut lines = Vec::new();
    let listed = |items: &[String]| items.iter().map(|item| one_line(item)).collect::<Vec<_>>();
    for (label, style, items) in [
        (words.risks, theme.warn(), &judgement.risks),
        (words.alternatives, theme.accent(), &judgement.alternatives),
        (words.tests, theme.accent(), &judgement.tests),
    ] {
        if !items.is_empty() {
            lines.push(labelled(label, style, listed(items).join("; ")));
        }
    }
    let files = &judgement.planned_files;
    let mut planned = Vec::new();
    for (verb, paths) in [(words.files_create, &files.create), (words.files_modify, &files.modify)]
    {
        if !paths.is_empty() {
            planned.push(format!("{verb} {}", listed(paths).join(", ")));
        }
    }
    if !planned.is_empty() {
        lines.push(labelled(words.planned_files, theme.accent(), planned.join("; ")));
    }
    for note in &plan.notes {
        lines.push(labelled(words.note, theme.dim(), one_line(note)));
    }
    lines
}

/// "Risks: …": a label in its style, then the text.
fn labelled(label: &str, style: Style, text: String) -> Line<'static> {
    Line::from(vec![Span::styled(format!("{label} "), style), Span::raw(text)])
}

/// "1. Add the route → the route answers", then its order, files and check, dimmed.
fn step_lines(app: &App, number: usize, step: &PlanStep) -> Vec<Line<'static>> {
    let words = app.words;
    let dim = app.theme.dim();
    let cursor = if app.step_cursor == Some(number - 1) { "▸" } else { " " };
    let mut head = vec![Span::raw(format!("{cursor}{number:>2}. {}", one_line(&step.action)))];
    if !step.expected.trim().is_empty() {
        head.push(Span::styled(format!(" → {}", one_line(&step.expected)), dim));
    }
    let mut lines = vec![Line::from(head)];
    let mut details = Vec::new();
    if !step.depends_on.is_empty() {
        let steps: Vec<String> = step.depends_on.iter().map(u32::to_string).collect();
        details.push(fill(words.after_steps, &[("steps", &steps.join(", "))]));
    }
    if !step.files.is_empty() {
        let files: Vec<String> = step.files.iter().map(|file| one_line(file)).collect();
        details.push(format!("{} {}", words.step_files, files.join(", ")));
    }
    if let Some(check) = &step.check {
        details.push(format!("{}: {}", words.check, one_line(check)));
    }
    if !details.is_empty() {
        lines.push(Line::styled(format!("    {}", details.join(" · ")), dim));
    }
    let on_step = |anchor: &CommentAnchor| *anchor == CommentAnchor::Step(number as u32);
    for comment in app.plan_comments.iter().filter(|comment| on_step(&comment.anchor)) {
        let said = format!("    {} {}", words.comment_mark, one_line(&comment.text));
        lines.push(Line::styled(said, app.theme.accent()));
    }
    lines
}

fn library(library: &Library) -> String {
    let mut text = format!("{} ({}", one_line(&library.name), one_line(&library.purpose));
    if !library.usage.trim().is_empty() {
        text.push_str(&format!(": {}", one_line(&library.usage)));
    }
    text.push(')');
    text
}

fn sandbox_line(app: &App, plan: &PlanDocument) -> Line<'static> {
    let words = app.words;
    let policy = match plan.sandbox.policy {
        SandboxPolicy::Create => words.sandbox_create,
        SandboxPolicy::Reuse => words.sandbox_reuse,
    };
    let mut text = policy.to_owned();
    if let Some(dir) = &plan.sandbox.dir {
        text.push_str(&format!(" ({})", one_line(dir)));
    }
    if !plan.sandbox.notes.trim().is_empty() {
        text.push_str(&format!(" — {}", one_line(&plan.sandbox.notes)));
    }
    Line::from(vec![
        Span::styled(format!("{} ", words.sandbox), app.theme.accent()),
        Span::raw(text),
    ])
}

fn change_body(app: &App, change: &PlanChange) -> Vec<Line<'static>> {
    vec![
        Line::styled(one_line(&app.words.change(&change.request)), app.theme.bold()),
        Line::from(vec![
            Span::styled(format!("{} ", app.words.change_why), app.theme.dim()),
            Span::raw(one_line(&change.request.reason)),
        ]),
    ]
}

fn stop_body(app: &App, stop: &ExecutorStop) -> Vec<Line<'static>> {
    let mut lines = vec![Line::from(app.words.stop_reason(stop.reason))];
    if let Some(gate) = &stop.gate {
        let failed = format!(
            "  `{}` → {}: {}",
            one_line(&gate.command),
            gate.exit_code,
            one_line(&gate.evidence)
        );
        lines.push(Line::styled(failed, app.theme.bad()));
    }
    for task in &stop.tasks_left {
        lines.push(Line::styled(format!("  ○ {}", one_line(&task.title)), app.theme.dim()));
    }
    lines
}

/// Why the plan is not verified (the engine's reasons, dimmed words around them), the tasks
/// open again, and planned steps auto-approve dropped.
fn unverified_body(app: &App, note: &FinalizationNote) -> Vec<Line<'static>> {
    let words = app.words;
    let mut lines = vec![Line::from(words.unverified_why)];
    for reason in &note.reasons {
        lines.push(Line::styled(format!("  ✗ {}", one_line(reason)), app.theme.bad()));
    }
    if !note.reopened.is_empty() {
        let tasks: Vec<String> = note.reopened.iter().map(u32::to_string).collect();
        let open = fill(words.open_again, &[("tasks", &tasks.join(", "))]);
        lines.push(Line::styled(open, app.theme.dim()));
    }
    if note.dropped_without_user > 0 {
        let (n, total) = (note.dropped_without_user, note.planned);
        lines.push(Line::styled(
            fill(words.auto_dropped, &[("n", &n), ("total", &total)]),
            app.theme.dim(),
        ));
    }
    lines
}

fn elicitation_body(app: &App, open: &Elicitation) -> Vec<Line<'static>> {
    let theme = app.theme;
    let question = &open.question;
    let mut lines = vec![Line::styled(one_line(question.server()), theme.dim())];
    match question {
        Question::Form { message, schema, .. } => {
            lines.push(Line::from(one_line(message)));
            for field in form_fields(schema) {
                if let Some(label) = &field.label {
                    let text = format!("  {} — {}", one_line(&field.name), one_line(label));
                    lines.push(Line::styled(text, theme.dim()));
                }
            }
        }
        Question::Url { message, url, .. } => {
            lines.push(Line::from(one_line(message)));
            lines.push(Line::styled(app.words.mcp_open, theme.dim()));
            lines.push(Line::styled(one_line(url), theme.accent()));
        }
    }
    lines
}
