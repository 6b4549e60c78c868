//! The chat as lines: the user's messages, the planner's cards as they were answered, the
//! plans, the executor's answers in Markdown, its tool calls folded to one sentence each
//! with how they went ("Ran cargo test — exit 0 in 1.2 s"; Ctrl+T opens them to their
//! arguments and results), a restore, and what streams in now. Everything stored is made
//! inert.

use preflight_engine::chat::{Message, MessageBody, Notice, Phase, Restored, ReviewNote, ToolCall};
use preflight_engine::ids::MessageId;
use preflight_engine::planner::{Approval, PlanDocument, Question};
use ratatui::text::{Line, Span};
use unicode_width::UnicodeWidthStr;

use crate::app::state::{App, LiveTool};
use crate::locale::{fill, Words};
use crate::markdown::markdown_lines;
use crate::sanitize::{inert, one_line};
use crate::view::tool_sentences::{outcome, sentence, Outcome};

/// Lines of a tool result shown when tool calls are open.
const OPEN_LINES: usize = 40;

/// The whole chat, unwrapped.
pub fn transcript_lines(app: &App) -> Vec<Line<'static>> {
    let mut lines = Vec::new();
    if let Some(view) = &app.chat {
        let on_card = waiting_card(app, &view.messages);
        for (index, message) in view.messages.iter().enumerate() {
            if on_card != Some(&message.id) {
                let tools = Calls::around(&view.messages, index);
                message_lines(app, message, &tools, &mut lines);
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

/// The tool calls around a message, so that a result is drawn with its call's sentence,
/// and a call only once (at its result, when it has one). A result answers a call of the
/// assistant message before it (call ids repeat across a chat's turns).
struct Calls<'a> {
    /// For a result: the calls of the assistant message it follows.
    calls: &'a [ToolCall],
    /// For an assistant message: the ids of the results that follow it.
    answered: Vec<&'a str>,
}

impl<'a> Calls<'a> {
    fn around(messages: &'a [Message], index: usize) -> Calls<'a> {
        let calls = messages[..index]
            .iter()
            .rev()
            .find_map(|message| match &message.body {
                MessageBody::Assistant { tool_calls, .. } => Some(tool_calls.as_slice()),
                _ => None,
            })
            .unwrap_or(&[]);
        let answered = messages[index + 1..]
            .iter()
            .map_while(|message| match &message.body {
                MessageBody::Tool { tool_call_id, .. } => Some(tool_call_id.as_str()),
                _ => None,
            })
            .collect();
        Calls { calls, answered }
    }
}

/// An answer: to a question (`question\nUser's answer: answer`), or a plan sent back, which
/// says the user's words and how many comments went along, not the request the planner read.
fn answer_line(app: &App, content: &str, review: Option<&ReviewNote>) -> Line<'static> {
    let theme = app.theme;
    let Some(review) = review else {
        let (question, answer) = content.split_once("\nUser's answer: ").unwrap_or(("", content));
        return Line::from(vec![
            Span::styled(format!("  ↳ {} ", one_line(question)), theme.dim()),
            Span::styled(one_line(answer), theme.bold()),
        ]);
    };
    let mut said = vec![
        Span::styled(format!("  ↳ {} ", app.words.feedback_prompt), theme.dim()),
        Span::styled(one_line(review.feedback.as_deref().unwrap_or("")), theme.bold()),
    ];
    if review.comments > 0 {
        let comments = fill(app.words.sent_with_comments, &[("n", &review.comments)]);
        said.push(Span::styled(format!(" {comments}"), theme.dim()));
    }
    Line::from(said)
}

fn message_lines(app: &App, message: &Message, tools: &Calls<'_>, lines: &mut Vec<Line<'static>>) {
    let theme = app.theme;
    match &message.body {
        MessageBody::User { plan_answer: true, content, review, .. } => {
            lines.push(answer_line(app, content, review.as_ref()));
        }
        MessageBody::User { resume: Some(_), .. } => {
            lines.push(Line::styled(format!("▸ {}", app.words.continue_work), theme.dim()));
        }
        MessageBody::User { restored: Some(restored), .. } => {
            lines.push(Line::styled(
                format!("↺ {}", restored_text(app.words, restored)),
                theme.ok(),
            ));
            lines.push(Line::default());
        }
        MessageBody::User { content, typed, .. } => {
            // A server's prompt shows as typed; its expansion is what the model read.
            let content = typed.as_ref().map_or(content, |typed| &typed.text);
            let label = format!("{}: ", app.words.you);
            let pad = " ".repeat(label.width());
            for (index, line) in inert(content).lines().enumerate() {
                lines.push(match index {
                    0 => Line::from(vec![
                        Span::styled(label.clone(), theme.accent()),
                        Span::raw(line.to_owned()),
                    ]),
                    _ => Line::from(format!("{pad}{line}")),
                });
            }
            lines.push(Line::default());
        }
        MessageBody::Assistant { questions: Some(qs), .. } => questions_lines(app, qs, lines),
        MessageBody::Assistant { plan: Some(plan), .. } => plan_lines(app, plan, lines),
        MessageBody::Assistant { notice: Some(notice), .. } => notice_lines(app, notice, lines),
        MessageBody::Assistant { content, tool_calls, .. } => {
            lines.extend(markdown_lines(content, theme));
            for call in tool_calls {
                if app.tools_open || !tools.answered.contains(&call.id.as_str()) {
                    tool_call_lines(app, call, lines);
                }
            }
            if tool_calls.is_empty() {
                lines.push(Line::default());
            }
        }
        MessageBody::Tool { tool_call_id, name, content, is_error, .. } => {
            let call = tools.calls.iter().find(|call| call.id == *tool_call_id);
            let arguments = call.map_or("", |call| call.arguments.as_str());
            tool_result_lines(app, (name, arguments), content, *is_error, lines);
        }
        MessageBody::Compaction { .. } => {
            lines.push(Line::styled(format!("— {} —", app.words.summarised), theme.dim()));
        }
    }
}

/// Preflight's own notice in the user's language: what failed, what happened next, the way
/// on; the engine's words (the provider's error) dimmed after it.
fn notice_lines(app: &App, notice: &Notice, lines: &mut Vec<Line<'static>>) {
    let (theme, words) = (app.theme, app.words);
    if let Notice::ModelSwitched { planner, model } = notice {
        let template = if *planner { words.notice_planner_model } else { words.notice_model };
        let text = fill(template, &[("model", &one_line(&inert(&model.to_string())))]);
        lines.push(Line::styled(format!("· {text}"), theme.dim()));
        lines.push(Line::default());
        return;
    }
    let (title, next, detail) = match notice {
        Notice::PlannerFailed { went_on, detail, .. } => {
            let next = if *went_on { words.notice_went_on } else { words.notice_nothing_ran };
            (words.notice_planner_failed.to_owned(), next.to_owned(), Some(detail))
        }
        Notice::ProviderRefused { detail, .. } => {
            let next = format!("{} {}", words.notice_nothing_ran, words.notice_again);
            (words.notice_provider_refused.to_owned(), next, Some(detail))
        }
        Notice::QuestionsLeft { rounds } => {
            let text = fill(words.notice_questions_left, &[("rounds", rounds)]);
            (text, String::new(), None)
        }
        Notice::ModelSwitched { .. } => return,
    };
    lines.push(Line::styled(format!("! {title}"), theme.warn()));
    if !next.is_empty() {
        lines.push(Line::from(format!("  {next}")));
    }
    if let Some(detail) = detail {
        lines.push(Line::styled(format!("  {}", one_line(&inert(detail))), theme.dim()));
    }
    lines.push(Line::default());
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

/// What a restore did, in a sentence.
pub fn restored_text(words: &Words, restored: &Restored) -> String {
    let when = match restored.before_task {
        Some(id) => fill(words.restored_before_task, &[("id", &id)]),
        None => words.restored_earlier.to_owned(),
    };
    let values: [(&str, &dyn std::fmt::Display); 3] = [
        ("when", &when),
        ("written", &restored.written.len()),
        ("deleted", &restored.deleted.len()),
    ];
    let mut text = fill(words.restored, &values);
    if !restored.kept.is_empty() {
        let files = one_line(&restored.kept.join(", "));
        text = format!("{text} {}", fill(words.restored_kept, &[("files", &files)]));
    }
    text
}

fn workspace(app: &App) -> Option<&str> {
    app.chat.as_ref().and_then(|view| view.chat.workspace.as_deref())
}

/// A call without a stored result (folded), or a call opened to its arguments.
fn tool_call_lines(app: &App, call: &ToolCall, lines: &mut Vec<Line<'static>>) {
    let theme = app.theme;
    let said = sentence(app.words, &call.name, &call.arguments, workspace(app));
    if app.tools_open {
        lines.push(Line::styled(format!("▾ {said}"), theme.code()));
        lines.push(Line::styled(format!("    {}", one_line(&call.name)), theme.dim()));
        for line in pretty_json(&call.arguments).lines() {
            lines.push(Line::styled(format!("    {line}"), theme.dim()));
        }
    } else {
        lines.push(Line::styled(format!("▸ {said}"), theme.code()));
    }
}

/// A stored result: folded, its call's sentence and how it went; open, its lines.
fn tool_result_lines(
    app: &App,
    (name, arguments): (&str, &str),
    content: &str,
    is_error: bool,
    lines: &mut Vec<Line<'static>>,
) {
    let theme = app.theme;
    let text = inert(content);
    let went = timed(app, name, arguments, outcome(name, &text, is_error));
    let style = if went.is_bad() { theme.bad() } else { theme.dim() };
    if app.tools_open {
        let count = text.lines().count();
        let size = fill(app.words.lines, &[("n", &count)]);
        lines.push(Line::styled(format!("  ↳ {size}{}", went.words(app.words)), style));
        for line in text.lines().take(OPEN_LINES) {
            lines.push(Line::styled(format!("    {line}"), theme.dim()));
        }
    } else {
        let said = sentence(app.words, name, arguments, workspace(app));
        lines.push(outcome_line(app, &said, &went));
    }
}

/// A command's outcome with how long it took, when this session watched it run.
fn timed(app: &App, name: &str, arguments: &str, went: Outcome) -> Outcome {
    match went {
        Outcome::Exited { code, millis: None } => {
            Outcome::Exited { code, millis: app.tool_times.millis(name, arguments) }
        }
        went => went,
    }
}

/// "▸ Ran cargo test — exit 0 in 1.2 s": the sentence, then how it went in its colour.
fn outcome_line(app: &App, said: &str, went: &Outcome) -> Line<'static> {
    let theme = app.theme;
    let style = match went {
        Outcome::Exited { code: 0, .. } => theme.ok(),
        went if went.is_bad() => theme.bad(),
        _ => theme.dim(),
    };
    Line::from(vec![
        Span::styled(format!("▸ {said}"), theme.code()),
        Span::styled(went.words(app.words), style),
    ])
}

fn live_tool_lines(app: &App, tool: &LiveTool, lines: &mut Vec<Line<'static>>) {
    let said = sentence(app.words, &tool.name, &tool.args, workspace(app));
    let line = match (&tool.result, &tool.error) {
        (_, Some(error)) => outcome_line(app, &said, &outcome(&tool.name, error, true)),
        (Some(result), None) => {
            let went = timed(app, &tool.name, &tool.args, outcome(&tool.name, result, false));
            outcome_line(app, &said, &went)
        }
        (None, None) => Line::from(vec![
            Span::styled(format!("▸ {said} "), app.theme.code()),
            Span::styled(app.words.tool_running.to_owned(), app.theme.warn()),
        ]),
    };
    lines.push(line);
}

fn pretty_json(text: &str) -> String {
    let pretty = serde_json::from_str::<serde_json::Value>(text)
        .and_then(|value| serde_json::to_string_pretty(&value));
    inert(&pretty.unwrap_or_else(|_| text.to_owned()))
}
