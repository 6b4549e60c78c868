//! Plan mode's actions: answer a question, approve, revise or cancel the plan, edit it
//! before approval, read its revisions and the `turn_plan` task list.

use preflight_engine::lifecycle::{ApiError, ChatView};
use preflight_engine::planner::{PlanDocument, PlanEdit};
use preflight_engine::tasks::Task;
use tauri::State;

use crate::shell::Shell;

type Answer<T> = Result<T, ApiError>;

#[tauri::command(rename_all = "snake_case")]
pub async fn answer_question(shell: State<'_, Shell>, chat_id: String, question_id: String, answer: String) -> Answer<ChatView> {
    shell.engine()?.answer(&chat_id, &question_id, &answer)
}

#[tauri::command(rename_all = "snake_case")]
pub async fn approve_plan(shell: State<'_, Shell>, chat_id: String) -> Answer<ChatView> {
    shell.engine()?.approve_plan(&chat_id)
}

/// With feedback the planner revises the plan; without, this cancels it.
#[tauri::command(rename_all = "snake_case")]
pub async fn reject_plan(shell: State<'_, Shell>, chat_id: String, feedback: Option<String>) -> Answer<ChatView> {
    shell.engine()?.reject_plan(&chat_id, feedback.as_deref())
}

#[tauri::command(rename_all = "snake_case")]
pub async fn cancel_plan(shell: State<'_, Shell>, chat_id: String) -> Answer<ChatView> {
    shell.engine()?.cancel_plan(&chat_id).await
}

#[tauri::command(rename_all = "snake_case")]
pub async fn edit_plan(shell: State<'_, Shell>, chat_id: String, edit: PlanEdit) -> Answer<PlanDocument> {
    shell.engine()?.edit_plan_doc(&chat_id, &edit)
}

#[tauri::command(rename_all = "snake_case")]
pub async fn plan_revisions(shell: State<'_, Shell>, chat_id: String) -> Answer<Vec<PlanDocument>> {
    shell.engine()?.plan_revisions(&chat_id)
}

#[tauri::command(rename_all = "snake_case")]
pub async fn task_list(shell: State<'_, Shell>, chat_id: String) -> Answer<Vec<Task>> {
    shell.engine()?.task_list(&chat_id)
}
