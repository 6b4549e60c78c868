//! The engine calls the keys ask for, carried out: the same `Engine` methods the window's
//! commands and the HTTP routes call. A refusal becomes the notice line and changes nothing.

use preflight_engine::ids::ChatId;
use preflight_engine::lifecycle::{ApiError, ApproveChoice, Engine, PlanReview};

use crate::app::command::Command;
use crate::app::state::{App, ListRow};
use crate::run::checkpoints::{preview_restore, restore, show_diff};
use crate::run::models::choose_model;
use crate::run::offers::list_offers;
use crate::run::open_chat::{load, open_new_chat, reload, Events};
use crate::run::worktree::{refresh_worktree, said, worktree_action};
use crate::sanitize::one_line;

/// Chats and hits the chat list shows at most.
const LIST_ROWS: u32 = 100;

/// Carries out `command`; an error is shown (in words), not returned. The open chat's
/// worktree line is read again after anything but a search or an older page.
pub async fn perform(engine: &Engine, app: &mut App, command: Command, events: &mut Events) {
    let worktree_may_change = !matches!(command, Command::Search(_) | Command::LoadOlder);
    let result = run_command(engine, app, command, events).await;
    if let Err(error) = result {
        app.notice = Some(said(app.words, &error));
    }
    if worktree_may_change {
        refresh_worktree(engine, app).await;
    }
}

async fn run_command(
    engine: &Engine,
    app: &mut App,
    command: Command,
    events: &mut Events,
) -> Result<(), ApiError> {
    match command {
        Command::Search(query) => fill_chat_list(engine, app, &query),
        Command::Open(chat_id) => open_chat(engine, app, &chat_id, events),
        Command::DeleteChat(chat_id) => delete_chat(engine, app, &chat_id, events).await,
        Command::NewChat => {
            app.chat_list = None;
            app.clear_chat();
            *events = None;
            Ok(())
        }
        Command::Send(text) => {
            send(engine, app, &text, events).await.and_then(|()| reload(engine, app))
        }
        Command::ListOffers { resources } => list_offers(engine, app, resources, events).await,
        Command::LoadOlder => load_older(engine, app),
        Command::ShowDiff(index) => show_diff(engine, app, index).await,
        Command::PreviewRestore => preview_restore(engine, app).await,
        Command::Restore => restore(engine, app).await.and_then(|()| reload(engine, app)),
        Command::ChooseModel { planner, name } => {
            choose_model(engine, app, planner, &name, events).await
        }
        command @ (Command::WorktreeDiff
        | Command::PreviewMerge(_)
        | Command::Merge(_)
        | Command::KeepBranch
        | Command::RecreateWorktree) => {
            worktree_action(engine, app, command).await.and_then(|()| reload(engine, app))
        }
        command => match app.chat_id().cloned() {
            Some(chat_id) => {
                chat_action(engine, &chat_id, command).await.and_then(|_| reload(engine, app))
            }
            None => Ok(()),
        },
    }
}

/// The actions on the open chat.
async fn chat_action(engine: &Engine, chat_id: &ChatId, command: Command) -> Result<(), ApiError> {
    match command {
        Command::Answer { question, text } => engine.answer(chat_id, &question, &text).map(drop),
        Command::Approve { run_unconfined } => {
            engine.approve_plan_as(chat_id, ApproveChoice { run_unconfined }).map(drop)
        }
        Command::Revise { feedback, comments } => {
            engine.reject_plan(chat_id, &PlanReview { feedback, comments }).map(drop)
        }
        Command::CancelPlan => engine.cancel_plan(chat_id).await.map(drop),
        Command::Stop => engine.stop(chat_id).await.map(drop),
        Command::AnswerChange { change, approve } => {
            engine.answer_plan_change(chat_id, &change, approve).await.map(drop)
        }
        Command::AnswerElicitation { id, answer } => {
            engine.answer_elicitation(chat_id, &id, answer)
        }
        Command::Continue => engine.continue_work(chat_id).map(drop),
        Command::VerifyPlan => engine.verify_plan(chat_id).await.map(drop),
        Command::AcceptPlan => engine.accept_plan(chat_id).await.map(drop),
        Command::Send(_)
        | Command::Search(_)
        | Command::Open(_)
        | Command::DeleteChat(_)
        | Command::NewChat
        | Command::LoadOlder
        | Command::ShowDiff(_)
        | Command::PreviewRestore
        | Command::Restore
        | Command::ChooseModel { .. }
        | Command::ListOffers { .. }
        | Command::WorktreeDiff
        | Command::PreviewMerge(_)
        | Command::Merge(_)
        | Command::KeepBranch
        | Command::RecreateWorktree => Ok(()),
    }
}

/// Sends a message as the window does (`/NAME args` and `@server:uri` resolved); a new
/// chat is created first (see `open_new_chat`).
async fn send(
    engine: &Engine,
    app: &mut App,
    text: &str,
    events: &mut Events,
) -> Result<(), ApiError> {
    let chat_id = open_new_chat(engine, app, events).await?;
    engine.send_typed(&chat_id, text, Vec::new(), Vec::new()).await.map(drop)
}

fn open_chat(
    engine: &Engine,
    app: &mut App,
    chat_id: &ChatId,
    events: &mut Events,
) -> Result<(), ApiError> {
    // Subscribed before the view is read: an event in between is then seen, not lost.
    let stream = engine.subscribe(chat_id)?;
    let view = engine.chat_view(chat_id)?;
    app.chat_list = None;
    app.clear_chat();
    *events = Some(stream);
    load(engine, app, view)
}

/// The page of messages before the first one shown joins the chat on screen.
fn load_older(engine: &Engine, app: &mut App) -> Result<(), ApiError> {
    let Some(view) = &app.chat else { return Ok(()) };
    let Some(cursor) = view.messages_cursor.clone() else { return Ok(()) };
    let page = engine.message_page(&view.chat.id, Some(&cursor), None)?;
    if let Some(first) = page.data.first() {
        app.from = Some(first.id.clone());
    }
    reload(engine, app)
}

/// Every chat (newest first) for an empty query, else the search's hits, one row a chat.
/// Deletes a chat from the chat list (its turn stopped first, by the engine); the list is
/// read again, and a deleted open chat leaves a new one in its place.
async fn delete_chat(
    engine: &Engine,
    app: &mut App,
    chat_id: &ChatId,
    events: &mut Events,
) -> Result<(), ApiError> {
    engine.delete_chat(chat_id).await?;
    if app.chat_id() == Some(chat_id) {
        app.clear_chat();
        *events = None;
    }
    let query = app.chat_list.as_ref().map(|list| list.query.clone()).unwrap_or_default();
    fill_chat_list(engine, app, &query)
}

fn fill_chat_list(engine: &Engine, app: &mut App, query: &str) -> Result<(), ApiError> {
    let rows = if query.trim().is_empty() {
        let page = engine.chat_page(Some(LIST_ROWS), None)?;
        page.data
            .into_iter()
            .map(|chat| {
                // "2026-12-04T11:52:36.937Z" reads as "2026-12-04 11:52".
                let when: String = chat.updated_at.chars().take(16).collect();
                ListRow { chat_id: chat.id, title: chat.title, detail: when.replacen('T', " ", 1) }
            })
            .collect()
    } else {
        let mut rows: Vec<ListRow> = Vec::new();
        for hit in engine.search(query, Some(LIST_ROWS), None)?.data {
            if rows.iter().all(|row| row.chat_id != hit.chat_id) {
                let snippet: String = hit.snippet.iter().map(|part| part.text.as_str()).collect();
                rows.push(ListRow {
                    chat_id: hit.chat_id,
                    title: hit.chat_title,
                    detail: one_line(&snippet),
                });
            }
        }
        rows
    };
    if let Some(list) = &mut app.chat_list {
        list.selected = list.selected.min(rows.len().saturating_sub(1));
        list.rows = rows;
    }
    Ok(())
}
