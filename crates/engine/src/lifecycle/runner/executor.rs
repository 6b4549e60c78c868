//! The executor turn: streaming, on the managed profile, with `turn_plan` where a plan makes
//! sense and the approved plan as its directive. Every round is stored whole; the runner
//! then ends the turn (the chat `idle`, a finished task list closed).

use std::sync::Arc;

use preflight_agent::events::Event;
use preflight_agent::skills::{skills_prompt, SkillSet};
use preflight_agent::WorkChange;
use preflight_agent::{
    executor_system_prompt, load_workspace_instructions, run_turn, Agent, AgentError, ChatLedger,
    ImageLoader, RoundRule, Turn, TurnEnd, TurnMode, TurnOutcome, TurnScope,
    DEFAULT_EXECUTOR_PROMPT, LOOP_REPEATS,
};
use preflight_llm::{ModelMessage, Provider};
use preflight_mcp::Profile;
use preflight_protocol::chat::{Chat, Message, MessageBody};
use preflight_protocol::error_code::ErrorCode;
use preflight_protocol::ids::{ChatId, MessageId};
use preflight_protocol::planner::{Approval, PlanDocument};
use preflight_protocol::tasks::StopReason;
use preflight_store::StoreError;
use tokio_util::sync::CancellationToken;

use crate::lifecycle::attachments::attachments_dir;
use crate::lifecycle::engine::Inner;
use crate::lifecycle::messages::{assistant_message, is_model_switch};
use crate::lifecycle::metering::Metered;
use crate::lifecycle::plan_folders::plan_folder_of;
use crate::lifecycle::providers::Role;
use crate::lifecycle::runner::outcome::Executed;
use crate::lifecycle::runner::turn_tools::{
    image_loader, offer_tools, registry_with_skills, ChatEvents,
};
use crate::lifecycle::transitions::offers_turn_plan;

/// One executor turn, its failure said in the chat, and a checkpoint in the plan folder
/// when work is left; the runner completes the plan and ends the turn from its outcome.
pub(super) async fn run(inner: &Inner, chat_id: &ChatId, cancel: &CancellationToken) -> Executed {
    let executed = match execute(inner, chat_id, cancel).await {
        Ok(outcome) => executed(outcome, cancel.is_cancelled(), inner.executor_settings.max_rounds),
        Err(failure) => {
            report_failure(inner, chat_id, &failure);
            let detail = Some(failure.message.clone());
            Executed { answer: None, reason: StopReason::ProviderError, detail, progressed: false }
        }
    };
    if executed.answer.is_none() && executed.reason != StopReason::ProviderError {
        report_halt(inner, chat_id, &executed);
    }
    let why = match (&executed.answer, &executed.detail) {
        (Some(_), _) => "the executor answered".to_owned(),
        (None, Some(detail)) => detail.clone(),
        (None, None) => executed.reason.words().to_owned(),
    };
    inner.tell_work(chat_id, WorkChange::TurnEnded { why: &why }, cancel).await;
    executed
}

/// How the model's turn ended, read as a stop reason (one only counts when tasks are left).
fn executed(outcome: TurnOutcome, cancelled: bool, max_rounds: u32) -> Executed {
    let (reason, answer, detail) = match outcome.end {
        _ if cancelled => (StopReason::UserStop, None, None),
        TurnEnd::Answered => (StopReason::Answered, Some(outcome.text), None),
        TurnEnd::Stopped => (StopReason::UserStop, None, None),
        TurnEnd::StepLimit => (
            StopReason::RoundCap,
            None,
            Some(format!("Stopped after {max_rounds} tool rounds without a final answer.")),
        ),
        TurnEnd::NoProgress => (
            StopReason::NoProgress,
            None,
            Some(format!(
                "Stopped after {} tool rounds: the last ones changed neither the task list \
                 nor the workspace, and looked at nothing new.",
                outcome.rounds
            )),
        ),
        TurnEnd::Loop => (
            StopReason::Loop,
            None,
            Some(format!(
                "Stopped as a loop: `{}` was asked for with the same arguments {LOOP_REPEATS} \
                 times in a row.",
                outcome.looped.as_deref().unwrap_or("a tool")
            )),
        ),
    };
    Executed { answer, reason, detail, progressed: outcome.progressed }
}

/// Why a turn could not do its work, said in the chat.
struct Failure {
    code: ErrorCode,
    message: String,
}

/// Runs the turn to its end; a failure that kept it from its work.
async fn execute(
    inner: &Inner,
    chat_id: &ChatId,
    cancel: &CancellationToken,
) -> Result<TurnOutcome, Failure> {
    let chat = inner.store.get_chat(chat_id).map_err(store_failure)?;
    let provider = executor_model(inner, &chat).await?;
    let state = inner.store.state(chat_id).map_err(store_failure)?;
    let list = inner.store.task_list(chat_id).map_err(store_failure)?;
    let messages = inner.store.messages(chat_id).map_err(store_failure)?;
    let plan = state.plan.as_ref().filter(|plan| carried_out(plan) && list.has_work_left());
    let directive = directive_text(plan, &messages);
    if let Some(plan) = state.plan.as_ref().filter(|plan| carried_out(plan)) {
        let why = turn_cause(&messages);
        let executing = WorkChange::Executing { plan, list: &list, why };
        inner.tell_work(chat_id, executing, cancel).await;
    }
    // The `.dwp` rules hold in a chat whose plan has its folder.
    let rules = carried_out_plan(state.plan.as_ref()) && plan_folder_of(&chat).await.is_some();
    let (registry, skills) =
        registry_with_skills(inner, chat_id, Profile::Execution, chat.workspace.as_deref(), rules)
            .await;
    let system = executor_system(&chat, directive.as_deref(), &skills).await;
    let scope =
        TurnScope { agent: Agent::Executor, task_list: offers_turn_plan(chat.plan_mode, &list) };
    let tools = offer_tools(inner, &registry, &scope, provider.budget().window, &messages).await;
    let mut images = image_loader(inner, chat_id, &provider);
    let (history, history_ids) = executor_history(&messages, &mut images);
    let ledger = ChatLedger::new(Arc::clone(&inner.store), chat_id.clone())
        .with_images(attachments_dir(&inner.home, chat_id));
    let settings = inner.executor_settings;
    let events = ChatEvents { hub: Arc::clone(&inner.hub), chat_id: chat_id.to_owned() };
    let turn = Turn {
        chat_id,
        provider: &provider,
        system: &system,
        history,
        history_ids,
        tools: &tools,
        mode: TurnMode::Streaming,
        rule: RoundRule::progress(settings.max_rounds, settings.no_progress_rounds),
        workspace: chat.workspace.as_deref().map(std::path::Path::new),
        task_list: Some(&ledger),
        recorder: Some(&ledger),
        events: &events,
        hooks: crate::lifecycle::hooks::turn_hooks(inner, &chat),
    };
    let outcome = run_turn(turn, cancel).await.map_err(|error| Failure {
        code: agent_error_code(&error),
        message: format!("The model could not finish this turn: {error}"),
    })?;
    Ok(outcome)
}

/// The executor's stable prefix in `chat`: the prompt, the workspace's instructions, the
/// skills it may read and the plan it carries out.
async fn executor_system(chat: &Chat, directive: Option<&str>, skills: &SkillSet) -> String {
    let instructions = load_workspace_instructions(chat.workspace.as_deref()).await;
    let skills = skills_prompt(skills);
    executor_system_prompt(
        DEFAULT_EXECUTOR_PROMPT,
        instructions.as_deref(),
        skills.as_deref(),
        directive,
    )
}

/// The chat's executor model, counted; why there is none, for the chat.
async fn executor_model(inner: &Inner, chat: &Chat) -> Result<Metered, Failure> {
    Metered::for_chat(&inner.store, &inner.providers, chat, Role::Executor).await.map_err(|error| {
        Failure {
            code: ErrorCode::ProviderSetup,
            message: format!("No model is available: {error}"),
        }
    })
}

fn store_failure(error: StoreError) -> Failure {
    Failure { code: ErrorCode::Internal, message: format!("The chat could not be read: {error}") }
}

/// A provider's failure keeps its own code; a store failure during the turn is internal.
fn agent_error_code(error: &AgentError) -> ErrorCode {
    match error {
        AgentError::Provider(error) => error.code(),
        AgentError::Store(_) => ErrorCode::Internal,
    }
}

/// A turn the round rule ended, said in the chat when no stop card will say it (no task
/// is left for one): a notice and an `error` event, as before there were stop cards.
fn report_halt(inner: &Inner, chat_id: &ChatId, executed: &Executed) {
    let Some(message) = executed.detail.clone() else { return };
    if inner.store.task_list(chat_id).is_ok_and(|list| list.has_work_left()) {
        return;
    }
    report_failure(inner, chat_id, &Failure { code: ErrorCode::StepLimit, message });
}

/// The failure as an assistant message in the chat and an `error` event.
fn report_failure(inner: &Inner, chat_id: &ChatId, failure: &Failure) {
    tracing::warn!(%chat_id, code = failure.code.as_str(), message = %failure.message, "executor turn failed");
    let notice = assistant_message(failure.message.clone(), None);
    if inner.store.append_messages(chat_id, std::slice::from_ref(&notice)).is_ok() {
        inner.hub.emit(chat_id, Event::Message { message: notice });
    }
    inner.hub.emit(chat_id, Event::Error { code: failure.code, message: failure.message.clone() });
}

fn carried_out(plan: &PlanDocument) -> bool {
    matches!(plan.approval, Approval::Approved | Approval::PreApproved)
}

fn carried_out_plan(plan: Option<&PlanDocument>) -> bool {
    plan.is_some_and(carried_out)
}

/// The executor's directive: the approved plan it carries out (and how to track it), and
/// what the user told the planner, which the plan was built on.
fn directive_text(plan: Option<&PlanDocument>, messages: &[Message]) -> Option<String> {
    let mut parts = Vec::new();
    if let Some(plan) = plan {
        parts.push(format!(
            "{}\n\nWork through the steps in order. Your task list already holds one task per step: \
             mark each done with turn_plan as you finish it.",
            plan.text
        ));
    }
    let answers: Vec<String> = messages
        .iter()
        .filter_map(|message| match &message.body {
            MessageBody::User { content, plan_answer: true, .. } => {
                Some(format!("- {}", content.replace('\n', " — ")))
            }
            _ => None,
        })
        .collect();
    if !answers.is_empty() {
        parts.push(format!(
            "What the user answered while the task was planned:\n{}",
            answers.join("\n")
        ));
    }
    (!parts.is_empty()).then(|| parts.join("\n\n"))
}

/// The executor's conversation: the user's messages and the executor's own rounds. Cards
/// and answers to the planner stay out (the approved plan is in the directive).
/// Compactions stand in for the messages they cover (DESIGN §13). With each message's id;
/// `images` shows the messages' images to a model that sees them.
fn executor_history(
    messages: &[Message],
    images: &mut ImageLoader,
) -> (Vec<ModelMessage>, Vec<Option<MessageId>>) {
    let shown: Vec<&Message> = messages
        .iter()
        .filter(|message| match &message.body {
            MessageBody::User { plan_answer, .. } => !plan_answer,
            MessageBody::Assistant { questions, plan, .. } => {
                questions.is_none() && plan.is_none() && !is_model_switch(message)
            }
            MessageBody::Tool { .. } | MessageBody::Compaction { .. } => true,
        })
        .collect();
    preflight_agent::view_of(&shown, images)
}

/// What started this executor turn, in words for the plan folder: the chat's last user
/// message is a Continue (the user's, or `[executor] auto_continue`'s), an answer on the
/// plan, or a message.
fn turn_cause(messages: &[Message]) -> &'static str {
    let last = messages.iter().rev().find_map(|message| match &message.body {
        MessageBody::User { resume, plan_answer, .. } => Some((resume.as_ref(), *plan_answer)),
        _ => None,
    });
    match last {
        Some((Some(resume), _)) if resume.auto => {
            "Preflight continued by itself ([executor] auto_continue)"
        }
        Some((Some(_), _)) => "the user pressed Continue",
        Some((None, true)) => "the user answered on the plan",
        _ => "the user's message",
    }
}
