//! Plan mode's actions: answer a question, approve, revise or cancel the plan, edit it
//! before approval, read its revisions and the `turn_plan` task list, answer the executor's
//! plan changes, run an unverified plan's checks again or accept it as is, and show the plan
//! folder in the workspace.

use preflight_engine::lifecycle::{
    ApiError, ApproveChoice, ChatView, PlanFolderLocation, PlanReview, TaskPanel,
};
use preflight_engine::planner::{CommentDraft, PlanDocument, PlanEdit};
use preflight_engine::tasks::PlanChange;
use preflight_engine::{ChangeId, ChatId, QuestionId};
use tauri::State;

use crate::shell::Shell;

type Answer<T> = Result<T, ApiError>;

#[tauri::command(rename_all = "snake_case")]
pub async fn answer_question(
    shell: State<'_, Shell>,
    chat_id: ChatId,
    question_id: QuestionId,
    answer: String,
) -> Answer<ChatView> {
    shell.engine()?.answer(&chat_id, &question_id, &answer)
}

/// `unconfined`: the user ticked "Run unconfined" on a plan whose code the sandbox cannot
/// confine on this machine (DESIGN §11).
#[tauri::command(rename_all = "snake_case")]
pub async fn approve_plan(
    shell: State<'_, Shell>,
    chat_id: ChatId,
    unconfined: Option<bool>,
) -> Answer<ChatView> {
    let choice = ApproveChoice { run_unconfined: unconfined.unwrap_or(false) };
    shell.engine()?.approve_plan_as(&chat_id, choice)
}

/// With feedback or comments on steps and fields the planner revises the plan; with
/// neither, this cancels it.
#[tauri::command(rename_all = "snake_case")]
pub async fn reject_plan(
    shell: State<'_, Shell>,
    chat_id: ChatId,
    feedback: Option<String>,
    comments: Option<Vec<CommentDraft>>,
) -> Answer<ChatView> {
    let review = PlanReview { feedback, comments: comments.unwrap_or_default() };
    shell.engine()?.reject_plan(&chat_id, &review)
}

#[tauri::command(rename_all = "snake_case")]
pub async fn cancel_plan(shell: State<'_, Shell>, chat_id: ChatId) -> Answer<ChatView> {
    shell.engine()?.cancel_plan(&chat_id).await
}

#[tauri::command(rename_all = "snake_case")]
pub async fn edit_plan(
    shell: State<'_, Shell>,
    chat_id: ChatId,
    edit: PlanEdit,
) -> Answer<PlanDocument> {
    shell.engine()?.edit_plan_doc(&chat_id, &edit)
}

#[tauri::command(rename_all = "snake_case")]
pub async fn plan_revisions(shell: State<'_, Shell>, chat_id: ChatId) -> Answer<Vec<PlanDocument>> {
    shell.engine()?.plan_revisions(&chat_id)
}

/// The task list, and the chat's `.dwp` plan folder when it writes one.
#[tauri::command(rename_all = "snake_case")]
pub async fn plan_view(shell: State<'_, Shell>, chat_id: ChatId) -> Answer<TaskPanel> {
    shell.engine()?.task_panel(&chat_id).await
}

/// The executor's requests to change the approved plan, oldest first (DESIGN §12).
#[tauri::command(rename_all = "snake_case")]
pub async fn plan_changes(shell: State<'_, Shell>, chat_id: ChatId) -> Answer<Vec<PlanChange>> {
    shell.engine()?.plan_changes(&chat_id)
}

/// The user answers a change request: approve applies it, reject keeps the plan; either
/// resumes the executor when work is left.
#[tauri::command(rename_all = "snake_case")]
pub async fn answer_plan_change(
    shell: State<'_, Shell>,
    chat_id: ChatId,
    change_id: ChangeId,
    approve: bool,
) -> Answer<ChatView> {
    shell.engine()?.answer_plan_change(&chat_id, &change_id, approve).await
}

/// A plan that finished but was not verified: its checks run again in the sandbox (issue 49).
/// The engine answers at once; the new verdict follows as a `completion` event.
#[tauri::command(rename_all = "snake_case")]
pub async fn verify_plan(shell: State<'_, Shell>, chat_id: ChatId) -> Answer<ChatView> {
    shell.engine()?.verify_plan(&chat_id).await
}

/// The user accepts a plan that finished but was not verified as it is: recorded in its plan
/// folder and on the completion record; the verdict stays UNVERIFIED.
#[tauri::command(rename_all = "snake_case")]
pub async fn accept_plan(shell: State<'_, Shell>, chat_id: ChatId) -> Answer<ChatView> {
    shell.engine()?.accept_plan(&chat_id).await
}

/// Shows the chat's plan folder in the system's file manager. The path comes from the
/// engine, never from the window, so this cannot open anything else.
#[tauri::command(rename_all = "snake_case")]
pub async fn open_plan_folder(
    shell: State<'_, Shell>,
    chat_id: ChatId,
) -> Answer<PlanFolderLocation> {
    let folder = shell.engine()?.plan_folder(&chat_id).await?;
    let folder = folder
        .ok_or_else(|| ApiError::bad_request("this chat has no plan folder in its workspace"))?;
    super::reveal::open_folder(std::path::Path::new(&folder.path))?;
    Ok(folder)
}

/// Clears the chat's task list (one that can never tick, e.g. on a model without tools).
#[tauri::command(rename_all = "snake_case")]
pub async fn clear_task_list(shell: State<'_, Shell>, chat_id: ChatId) -> Answer<bool> {
    shell.engine()?.delete_task_list(&chat_id).await
}
