//! The keys: what each does to the state, and which engine call it asks for. Keyboard only;
//! the footer shows the keys that work at the moment (`view/footer.rs`).
//!
//! Enter sends or confirms, arrows choose a card's row, typing on a question card is your own
//! answer and on a plan card revision feedback (or, with Alt+↑↓ on a step, a comment on that
//! step, sent with the next revise), Esc stops the running turn (or backs out of
//! an answer being typed), Ctrl+L the chat list and search, Ctrl+N a new chat, Ctrl+T opens
//! or folds tool calls, Ctrl+X cancels plan mode, Ctrl+G shows a task's diff (and restores
//! to before it, asked first), PgUp/PgDn scroll (a card taller than its room first),
//! Ctrl+C quits. Alt+Enter
//! (or Ctrl+J, what most terminals send for Ctrl+Enter) starts a new line in what is typed;
//! ← → Home End and the line-editing keys of `app/input.rs` edit it where the cursor is.

use crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};
use preflight_engine::chat::Phase;
use preflight_engine::mcp::Answer;
use preflight_engine::planner::{CommentAnchor, CommentDraft};

use crate::app::card::{unverified_actions, Card, UnverifiedAction};
use crate::app::command::Command;
use crate::app::form::{parse_value, shown_value, Field};
use crate::app::input::Edit;
use crate::app::state::{App, ChatList, Entry};
use crate::app::worktree::{panel_key, worktree_command};
use crate::locale::fill;

/// Lines one PgUp/PgDn moves.
const PAGE: usize = 10;

/// Applies one key; returns the engine call it asks for, if any.
pub fn handle_key(app: &mut App, key: KeyEvent) -> Option<Command> {
    if key.kind == KeyEventKind::Release {
        return None;
    }
    app.notice = None;
    app.info = None;
    let enter = key.code == KeyCode::Enter && key.modifiers.is_empty();
    if std::mem::take(&mut app.unconfined_armed) && enter {
        return Some(Command::Approve { run_unconfined: true });
    }
    if std::mem::take(&mut app.accept_armed) && enter {
        return Some(Command::AcceptPlan);
    }
    if new_line(key) {
        if app.chat_list.is_none() && !matches!(app.entry, Entry::Field(_)) {
            type_char(app, '\n');
        }
        return None;
    }
    if key.modifiers.contains(KeyModifiers::CONTROL) {
        return control_key(app, key.code);
    }
    if key.modifiers.contains(KeyModifiers::ALT) && matches!(key.code, KeyCode::Up | KeyCode::Down)
    {
        move_step_cursor(app, key.code == KeyCode::Down);
        return None;
    }
    if app.chat_list.is_some() {
        return list_key(app, key.code);
    }
    if app.diff.is_some() {
        return diff_key(app, key.code);
    }
    if app.worktree_panel.is_some() {
        return panel_key(app, key.code);
    }
    let card_overflow = if app.card().is_some() { app.card_overflow.get() } else { 0 };
    match key.code {
        KeyCode::Esc => escape(app),
        KeyCode::PageUp if card_overflow > 0 => {
            app.card_scroll = app.card_scroll.min(card_overflow).saturating_sub(PAGE);
            None
        }
        KeyCode::PageDown if card_overflow > 0 => {
            app.card_scroll = (app.card_scroll + PAGE).min(card_overflow);
            None
        }
        KeyCode::PageUp => {
            app.scroll += PAGE;
            let older = app.chat.as_ref().is_some_and(|view| view.messages_cursor.is_some());
            older.then_some(Command::LoadOlder)
        }
        KeyCode::PageDown => {
            app.scroll = app.scroll.saturating_sub(PAGE);
            None
        }
        code => chat_key(app, code),
    }
}

/// Keys over a task's diff: ←→ another task, ↑↓ PgUp PgDn scroll, R asks to restore to
/// before the task (y restores; any other key keeps), Esc closes.
fn diff_key(app: &mut App, code: KeyCode) -> Option<Command> {
    let diff = app.diff.as_mut()?;
    if diff.confirm.is_some() {
        if matches!(code, KeyCode::Char('y' | 'Y' | 'д' | 'Д')) {
            return Some(Command::Restore);
        }
        diff.confirm = None;
        return None;
    }
    let most = diff.overflow.get();
    match code {
        KeyCode::Esc => app.diff = None,
        KeyCode::Up => diff.scroll = diff.scroll.min(most).saturating_sub(1),
        KeyCode::Down => diff.scroll = (diff.scroll + 1).min(most),
        KeyCode::PageUp => diff.scroll = diff.scroll.min(most).saturating_sub(PAGE),
        KeyCode::PageDown => diff.scroll = (diff.scroll + PAGE).min(most),
        KeyCode::Left if diff.index > 0 => return Some(Command::ShowDiff(Some(diff.index - 1))),
        KeyCode::Right if diff.index + 1 < diff.spans.len() => {
            return Some(Command::ShowDiff(Some(diff.index + 1)));
        }
        KeyCode::Char('r' | 'R' | 'к' | 'К') if diff.span().is_some() => {
            return Some(Command::PreviewRestore);
        }
        _ => {}
    }
    None
}

/// Alt+Enter, or Ctrl+J (a line feed: what a terminal in raw mode sends for Ctrl+Enter).
fn new_line(key: KeyEvent) -> bool {
    match key.code {
        KeyCode::Enter => key.modifiers.contains(KeyModifiers::ALT),
        KeyCode::Char('j') => key.modifiers.contains(KeyModifiers::CONTROL),
        _ => false,
    }
}

fn control_key(app: &mut App, code: KeyCode) -> Option<Command> {
    match code {
        KeyCode::Char('c' | 'q' | 'd') => {
            app.quit = true;
            None
        }
        KeyCode::Char('l') => {
            app.chat_list = Some(ChatList::default());
            Some(Command::Search(String::new()))
        }
        KeyCode::Char('n') => Some(Command::NewChat),
        KeyCode::Char('t') => {
            app.tools_open = !app.tools_open;
            None
        }
        KeyCode::Char('x') if in_plan_mode(app.phase) => Some(Command::CancelPlan),
        KeyCode::Char('g') if app.diff.is_some() => {
            app.diff = None;
            None
        }
        KeyCode::Char('g') => app.chat.is_some().then_some(Command::ShowDiff(None)),
        KeyCode::Char(key @ ('a' | 'e' | 'w' | 'u' | 'k')) if app.chat_list.is_none() => {
            app.edit(match key {
                'a' => Edit::Home,
                'e' => Edit::End,
                'w' => Edit::WordBefore,
                'u' => Edit::AllBefore,
                _ => Edit::AllAfter,
            });
            None
        }
        _ => None,
    }
}

fn in_plan_mode(phase: Phase) -> bool {
    matches!(phase, Phase::Planning | Phase::Questions | Phase::AwaitingApproval)
}

fn list_key(app: &mut App, code: KeyCode) -> Option<Command> {
    let list = app.chat_list.as_mut()?;
    if list.deleting {
        list.deleting = false;
        let row = list.rows.get(list.selected)?;
        return (code == KeyCode::Enter).then(|| Command::DeleteChat(row.chat_id.clone()));
    }
    match code {
        KeyCode::Delete if !list.rows.is_empty() => {
            list.deleting = true;
            None
        }
        KeyCode::Esc => {
            app.chat_list = None;
            None
        }
        KeyCode::Up => {
            list.selected = list.selected.saturating_sub(1);
            None
        }
        KeyCode::Down => {
            list.selected = (list.selected + 1).min(list.rows.len().saturating_sub(1));
            None
        }
        KeyCode::Enter => {
            let row = list.rows.get(list.selected)?;
            Some(Command::Open(row.chat_id.clone()))
        }
        KeyCode::Backspace => {
            list.query.pop();
            Some(Command::Search(list.query.clone()))
        }
        KeyCode::Char(ch) => {
            list.query.push(ch);
            Some(Command::Search(list.query.clone()))
        }
        _ => None,
    }
}

fn escape(app: &mut App) -> Option<Command> {
    if app.entry != Entry::Message {
        app.entry = Entry::Message;
        app.clear_input();
        return None;
    }
    if app.step_cursor.take().is_some() {
        return None;
    }
    if app.running() {
        return Some(Command::Stop);
    }
    app.scroll = 0;
    None
}

fn chat_key(app: &mut App, code: KeyCode) -> Option<Command> {
    let choices = app.card().map(|card| card.choices(app.words, &app.form).len()).unwrap_or(0);
    let choosing = choices > 0 && app.entry == Entry::Message;
    match code {
        KeyCode::Up | KeyCode::Left | KeyCode::BackTab if choosing => {
            app.selection = app.selection.saturating_sub(1);
        }
        KeyCode::Down | KeyCode::Right | KeyCode::Tab if choosing => {
            app.selection = (app.selection + 1).min(choices - 1);
        }
        KeyCode::Up => app.scroll += 1,
        KeyCode::Down => app.scroll = app.scroll.saturating_sub(1),
        KeyCode::Enter => return enter(app),
        KeyCode::Left => app.edit(Edit::Left),
        KeyCode::Right => app.edit(Edit::Right),
        KeyCode::Home => app.edit(Edit::Home),
        KeyCode::End => app.edit(Edit::End),
        KeyCode::Backspace => app.edit(Edit::Backspace),
        KeyCode::Delete => app.edit(Edit::Delete),
        KeyCode::Char(ch) => type_char(app, ch),
        _ => {}
    }
    None
}

/// Alt+↓ / Alt+↑ on a plan card: the step a typed comment goes on (from the first step).
fn move_step_cursor(app: &mut App, down: bool) {
    let Some(Card::Plan { plan, .. }) = app.card() else { return };
    let last = plan.steps.len().saturating_sub(1);
    app.step_cursor = Some(match (app.step_cursor, down) {
        (None, _) => 0,
        (Some(step), true) => (step + 1).min(last),
        (Some(step), false) => step.saturating_sub(1),
    });
}

fn type_char(app: &mut App, ch: char) {
    begin_typing(app);
    app.insert_text(ch.encode_utf8(&mut [0; 4]));
}

/// Typing on a question card is an own answer; on a plan card, revision feedback.
fn begin_typing(app: &mut App) {
    if app.entry == Entry::Message {
        match app.card() {
            Some(Card::Questions { question, .. }) => {
                let own = question.options.len();
                app.entry = Entry::OwnAnswer;
                app.selection = own;
            }
            Some(Card::Plan { .. }) => {
                app.entry = match app.step_cursor {
                    Some(step) => Entry::StepComment(step),
                    None => Entry::Feedback,
                };
                app.selection = 1;
            }
            _ => {}
        }
    }
}

fn enter(app: &mut App) -> Option<Command> {
    let text = app.input.trim().to_owned();
    match app.entry {
        Entry::OwnAnswer | Entry::Feedback | Entry::StepComment(_) if text.is_empty() => None,
        Entry::OwnAnswer => {
            let Some(Card::Questions { question, .. }) = app.card() else { return None };
            let question = question.id.clone();
            app.clear_input();
            app.entry = Entry::Message;
            Some(Command::Answer { question, text })
        }
        Entry::Feedback => {
            app.clear_input();
            app.entry = Entry::Message;
            let comments = std::mem::take(&mut app.plan_comments);
            Some(Command::Revise { feedback: Some(text), comments })
        }
        Entry::StepComment(step) => {
            app.clear_input();
            app.entry = Entry::Message;
            let anchor = CommentAnchor::Step(u32::try_from(step + 1).unwrap_or(u32::MAX));
            app.plan_comments.push(CommentDraft { anchor, text });
            let kept = app.plan_comments.len();
            app.info = Some(fill(app.words.comment_kept, &[("n", &(step + 1)), ("count", &kept)]));
            None
        }
        Entry::Field(index) => {
            set_field(app, index, &text);
            None
        }
        // Text typed (or pasted) before a question card showed is an own answer, shown as
        // one for the next Enter to send; never dropped for the first option.
        Entry::Message
            if !text.is_empty() && matches!(app.card(), Some(Card::Questions { .. })) =>
        {
            begin_typing(app);
            None
        }
        Entry::Message if !text.is_empty() => {
            app.clear_input();
            app.scroll = 0;
            Some(model_command(&text).unwrap_or(Command::Send(text)))
        }
        Entry::Message => choose(app),
    }
}

/// `/model [NAME]` and `/planner-model [NAME]`: list the models, or switch the chat's;
/// `/prompts` and `/resources`: list what the servers offer; the worktree's commands
/// (`app/worktree.rs`). These win over a server's prompt of the same name (`/SERVER:NAME`
/// reaches that).
fn model_command(text: &str) -> Option<Command> {
    let (word, rest) = text.trim().split_once(' ').unwrap_or((text.trim(), ""));
    let planner = match word {
        "/model" => false,
        "/planner-model" => true,
        "/prompts" => return Some(Command::ListOffers { resources: false }),
        "/resources" => return Some(Command::ListOffers { resources: true }),
        _ => return worktree_command(word, rest),
    };
    Some(Command::ChooseModel { planner, name: rest.trim().to_owned() })
}

/// Enter on the card's chosen row.
fn choose(app: &mut App) -> Option<Command> {
    let selection = app.selection;
    let form = match app.card() {
        Some(card @ Card::Elicitation(open)) => Some((open.id.clone(), card.fields())),
        _ => None,
    };
    if let Some((id, fields)) = form {
        return answer_server(app, id, &fields, selection);
    }
    let command = match app.card()? {
        Card::Questions { question, .. } => match question.options.get(selection) {
            Some(option) => Command::Answer { question: question.id.clone(), text: option.clone() },
            None => {
                app.entry = Entry::OwnAnswer;
                return None;
            }
        },
        Card::Plan { unconfined, .. } => match selection {
            // Running unconfined is asked twice, as the window asks for a ticked box.
            0 if unconfined.is_some_and(|n| n.needs_consent) => {
                app.unconfined_armed = true;
                app.notice = Some(app.words.confirm_unconfined.to_owned());
                return None;
            }
            0 => Command::Approve { run_unconfined: false },
            1 if !app.plan_comments.is_empty() => {
                Command::Revise { feedback: None, comments: std::mem::take(&mut app.plan_comments) }
            }
            1 => {
                app.entry = Entry::Feedback;
                return None;
            }
            _ => Command::CancelPlan,
        },
        Card::Change(change) => {
            Command::AnswerChange { change: change.id.clone(), approve: selection == 0 }
        }
        Card::Elicitation(_) => return None,
        Card::Stopped(_) => Command::Continue,
        Card::Unverified(note) => match unverified_actions(note, app.words).get(selection) {
            Some(UnverifiedAction::CheckAgain) => Command::VerifyPlan,
            Some(UnverifiedAction::Continue) => Command::Continue,
            // Accepting is a recorded choice: asked twice, as the window asks.
            Some(UnverifiedAction::AcceptAsIs) | None => {
                app.accept_armed = true;
                app.notice = Some(app.words.confirm_accept.to_owned());
                return None;
            }
        },
    };
    Some(command)
}

/// Enter on an MCP server's card: a field opens for typing its value; the answers go.
fn answer_server(app: &mut App, id: String, fields: &[Field], selection: usize) -> Option<Command> {
    if let Some(field) = fields.get(selection) {
        app.entry = Entry::Field(selection);
        app.input = shown_value(&app.form, &field.name);
        app.back = 0;
        return None;
    }
    let answer = match selection - fields.len() {
        0 => Answer::Accept { content: app.form.clone() },
        1 => Answer::Decline,
        _ => Answer::Cancel,
    };
    Some(Command::AnswerElicitation { id, answer })
}

/// The typed value of field `index` of the open form: kept when it reads as the field's
/// type (blank removes it), otherwise the notice says why and the entry stays open.
fn set_field(app: &mut App, index: usize, text: &str) {
    let Some(field) = app.card().and_then(|card| card.fields().into_iter().nth(index)) else {
        app.entry = Entry::Message;
        return;
    };
    if text.is_empty() {
        app.form.remove(&field.name);
    } else {
        match parse_value(&field.kind, text) {
            Ok(value) => {
                app.form.insert(field.name, value);
            }
            Err(why) => {
                app.notice = Some(why);
                return;
            }
        }
    }
    app.entry = Entry::Message;
    app.clear_input();
    app.selection = index + 1;
}
