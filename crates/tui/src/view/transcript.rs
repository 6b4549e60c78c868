//! The chat as lines: the user's messages, the planner's cards as they were answered, the
//! plans, the executor's answers in Markdown, its tool calls and their results folded to one
//! line each (Ctrl+T opens them), and what streams in now. Everything stored is made inert.

use preflight_engine::chat::{Message, MessageBody, Phase, ToolCall};
use preflight_engine::ids::MessageId;
use preflight_engine::planner::{Approval, PlanDocument, Question};
use ratatui::text::{Line, Span};

use crate::app::state::{App, LiveTool};
use crate::locale::fill;
use crate::markdown::markdown_lines;
use crate::sanitize::{inert, one_line};

/// Characters of a folded tool call's arguments or result.
const FOLDED_CHARS: usize = 60;
/// Lines of a tool result shown when tool calls are open.
const OPEN_LINES: usize = 40;

/// The whole chat, unwrapped.
pub fn transcript_lines(app: &App) -> Vec<Line<'static>> {
    let mut lines = Vec::new();
    if let Some(view) = &app.chat {
        let on_card = waiting_card(app, &view.messages);
        for message in &view.messages {
            if on_card != Some(&message.id) {
                message_lines(app, message, &mut lines);
            }
        }
    }
    if let Some((_, text)) = &app.streaming {
        lines.extend(markdown_lines(text, app.theme));
        lines.push(Line::styled("▌", app.theme.dim()));
    }
    for tool in &app.live_tools {
        live_tool_lines(app, tool, &mut lines);
    }
    lines
}

/// The stored card the user is answering now (questions or a plan waiting for approval): it
/// shows whole on its card, not twice.
fn waiting_card<'a>(app: &App, messages: &'a [Message]) -> Option<&'a MessageId> {
    let is_card = |message: &&Message| {
        matches!(
            (&message.body, app.phase),
            (MessageBody::Assistant { questions: Some(_), .. }, Phase::Questions)
                | (MessageBody::Assistant { plan: Some(_), .. }, Phase::AwaitingApproval)
        )
    };
    messages.iter().rev().find(is_card).map(|message| &message.id)
}

fn message_lines(app: &App, message: &Message, lines: &mut Vec<Line<'static>>) {
    let theme = app.theme;
    match &message.body {
        MessageBody::User { plan_answer: true, content, .. } => {
            let (question, answer) =
                content.split_once("\nUser's answer: ").unwrap_or(("", content));
            lines.push(Line::from(vec![
                Span::styled(format!("  ↳ {} ", one_line(question)), theme.dim()),
                Span::styled(one_line(answer), theme.bold()),
            ]));
        }
        MessageBody::User { resume: Some(_), .. } => {
            lines.push(Line::styled(format!("▸ {}", app.words.continue_work), theme.dim()));
        }
        MessageBody::User { content, .. } => {
            lines.push(Line::styled(app.words.you.to_owned(), theme.accent()));
            lines.extend(inert(content).lines().map(|line| Line::from(line.to_owned())));
            lines.push(Line::default());
        }
        MessageBody::Assistant { questions: Some(questions), .. } => {
            questions_lines(app, questions, lines);
        }
        MessageBody::Assistant { plan: Some(plan), .. } => plan_lines(app, plan, lines),
        MessageBody::Assistant { content, tool_calls, .. } => {
            lines.extend(markdown_lines(content, theme));
            for call in tool_calls {
                tool_call_lines(app, call, lines);
            }
            if tool_calls.is_empty() {
                lines.push(Line::default());
            }
        }
        MessageBody::Tool { name, content, is_error, .. } => {
            tool_result_lines(app, name, content, *is_error, lines);
        }
        MessageBody::Compaction { .. } => {
            lines.push(Line::styled(format!("— {} —", app.words.summarised), theme.dim()));
        }
    }
}

fn questions_lines(app: &App, questions: &[Question], lines: &mut Vec<Line<'static>>) {
    lines.push(Line::styled(app.words.planner_asked.to_owned(), app.theme.warn()));
    for question in questions {
        lines.push(Line::from(format!("  ? {}", one_line(&question.question))));
    }
}

fn plan_lines(app: &App, plan: &PlanDocument, lines: &mut Vec<Line<'static>>) {
    let theme = app.theme;
    let revision = fill(app.words.revision, &[("n", &plan.revision)]);
    let mut title = vec![
        Span::styled(format!("{}: ", app.words.plan_label), theme.accent()),
        Span::styled(one_line(&plan.title), theme.bold()),
        Span::styled(format!(" ({revision})"), theme.dim()),
    ];
    if matches!(plan.approval, Approval::Approved | Approval::PreApproved) {
        title.push(Span::styled(format!(" ✓ {}", app.words.approved), theme.ok()));
    }
    lines.push(Line::from(title));
    for (number, step) in plan.steps.iter().enumerate() {
        lines.push(Line::from(format!("  {}. {}", number + 1, one_line(&step.action))));
    }
    lines.push(Line::default());
}

fn tool_call_lines(app: &App, call: &ToolCall, lines: &mut Vec<Line<'static>>) {
    let theme = app.theme;
    if app.tools_open {
        lines.push(Line::styled(format!("▾ {}", one_line(&call.name)), theme.code()));
        for line in pretty_json(&call.arguments).lines() {
            lines.push(Line::styled(format!("    {line}"), theme.dim()));
        }
    } else {
        lines.push(Line::from(vec![
            Span::styled(format!("▸ {} ", one_line(&call.name)), theme.code()),
            Span::styled(shorten(&one_line(&call.arguments)), theme.dim()),
        ]));
    }
}

fn tool_result_lines(
    app: &App,
    name: &str,
    content: &str,
    is_error: bool,
    lines: &mut Vec<Line<'static>>,
) {
    let theme = app.theme;
    let text = inert(content);
    let count = text.lines().count();
    let style = if is_error { theme.bad() } else { theme.dim() };
    let mark = if is_error { format!(" {}", app.words.tool_failed) } else { String::new() };
    let size = fill(app.words.lines, &[("n", &count)]);
    if app.tools_open {
        lines.push(Line::styled(format!("  ↳ {}{mark} ({size})", one_line(name)), style));
        for line in text.lines().take(OPEN_LINES) {
            lines.push(Line::styled(format!("    {line}"), theme.dim()));
        }
    } else {
        let first = text.lines().find(|line| !line.trim().is_empty()).unwrap_or("");
        lines.push(Line::styled(
            format!("  ↳ {}{mark}: {} ({size})", one_line(name), shorten(first)),
            style,
        ));
    }
}

fn live_tool_lines(app: &App, tool: &LiveTool, lines: &mut Vec<Line<'static>>) {
    let theme = app.theme;
    let state = match (&tool.result, &tool.error) {
        (_, Some(error)) => Span::styled(
            format!("{}: {}", app.words.tool_failed, shorten(&one_line(error))),
            theme.bad(),
        ),
        (Some(result), None) => Span::styled(shorten(&one_line(result)), theme.dim()),
        (None, None) => Span::styled(app.words.tool_running.to_owned(), theme.warn()),
    };
    lines.push(Line::from(vec![
        Span::styled(format!("▸ {} ", one_line(&tool.name)), theme.code()),
        Span::styled(format!("{} ", shorten(&one_line(&tool.args))), theme.dim()),
        state,
    ]));
}

fn pretty_json(text: &str) -> String {
    let pretty = serde_json::from_str::<serde_json::Value>(text)
        .and_then(|value| serde_json::to_string_pretty(&value));
    inert(&pretty.unwrap_or_else(|_| text.to_owned()))
}

/// At most [`FOLDED_CHARS`] characters, with `…` where cut.
pub fn shorten(text: &str) -> String {
    let mut out: String = text.chars().take(FOLDED_CHARS).collect();
    if text.chars().count() > FOLDED_CHARS {
        out.push('…');
    }
    out
}
