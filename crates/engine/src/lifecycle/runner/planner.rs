//! The planner turn (DESIGN §2, §3): quiet, on the planning profile, ending in a question
//! card, a plan card, or "neither", which the runner hands over to the executor. It never
//! starts the executor itself.

use std::path::Path;
use std::time::Duration;

use preflight_agent::events::Event;
use preflight_agent::skills::{skills_prompt, SkillSet};
use preflight_agent::{
    load_workspace_instructions, run_turn, Agent, AgentError, ImageLoader, OfferedTools, RoundRule,
    Turn, TurnEnd, TurnMode, TurnScope, PLANNER_MAX_ROUNDS,
};
use preflight_dwp::now_rfc3339;
use preflight_llm::{Constrained, LlmError, ModelMessage, OutputConstraint, Provider};
use preflight_mcp::{Profile, ServerClass};
use preflight_protocol::chat::{Chat, Message, MessageBody, Notice, Phase, PlanPending};
use preflight_protocol::error_code::ErrorCode;
use preflight_protocol::ids::ChatId;
use preflight_protocol::planner::{
    build_plan_document, parse_planner_reply, plan_limits_request, planner_system_prompt,
    questions_markdown, repair_request, Approval, Plan, PlanFacts, PlannerFacts, PlannerReply,
    Question, ReplyKind, SANDBOX_DIR,
};
use preflight_store::StoreError;
use tokio_util::sync::CancellationToken;

use crate::config::OnPlannerFailure;
use crate::lifecycle::engine::Inner;
use crate::lifecycle::messages::{assistant_message, is_model_switch, notice_message};
use crate::lifecycle::metering::Metered;
use crate::lifecycle::notify::phase_event;
use crate::lifecycle::providers::Role;
use crate::lifecycle::runner::drafting::Drafting;
use crate::lifecycle::runner::outcome::{Closing, Planned};
use crate::lifecycle::runner::turn_tools::{
    class_prefixes, image_loader, offer_tools, registry_with_skills,
};
use crate::lifecycle::transitions::{approved_tasks, check_steps, may_ask, MAX_QUESTION_ROUNDS};
use crate::lifecycle::unconfined::needs_consent;
use crate::paths::ensure_planner_prompt;

/// The longest a planner turn may take, tool calls included, before execution takes over.
const PLANNER_DEADLINE: Duration = Duration::from_secs(600);
/// The most of the finished plans' outcome records the planner is given, in bytes (about a
/// thousand tokens): the newest plans first, older ones left out whole.
const MAX_OUTCOME_BYTES: usize = 4096;

/// One planner turn; how it ended, for the runner to decide what runs next. A planner
/// that fails is said in the chat, never silently: the executor goes on without a plan
/// (seed 003), or with `[plan_mode] on_planner_failure = "stop"` nothing runs.
pub(super) async fn run(inner: &Inner, chat_id: &ChatId, cancel: &CancellationToken) -> Planned {
    match plan(inner, chat_id, cancel).await {
        Ok(outcome) => outcome,
        Err(PlanError::Provider(error))
            if error.refuses_everyone() && one_server(inner, chat_id) =>
        {
            // The executor would meet the same refusal: said once, now, and nothing runs.
            tracing::warn!(%chat_id, %error, "the provider refuses every request; nothing runs");
            let notice = Notice::ProviderRefused { code: error.code(), detail: error.to_string() };
            inner.hub.emit(chat_id, Event::Error { code: error.code(), message: notice.text() });
            Planned::Failed(notice)
        }
        Err(error) => {
            let choice = inner.defaults.on_planner_failure;
            tracing::warn!(%chat_id, %error, ?choice, "planning failed");
            let went_on = choice == OnPlannerFailure::Execute;
            let notice =
                Notice::PlannerFailed { went_on, code: error.code(), detail: error.to_string() };
            if went_on {
                Planned::HandOver(Some(notice))
            } else {
                Planned::Failed(notice)
            }
        }
    }
}

/// A planner that failed where the chat stops: the notice stored as the chat settles (as a
/// stopped planner does), then the phase that hands control back.
pub(super) fn settle_failure(inner: &Inner, chat_id: &ChatId, notice: Notice) -> Closing {
    let notice = notice_message(notice);
    match inner.store.stop_failed_planning(chat_id, &notice) {
        Ok(phase) => {
            let tasks = inner.store.task_list(chat_id).map(|list| list.tasks).unwrap_or_default();
            vec![Event::Message { message: notice }, Event::TaskList { tasks }, phase_event(phase)]
        }
        Err(error) => {
            tracing::error!(%chat_id, %error, "cannot settle a failed planner");
            Vec::new()
        }
    }
}

/// The planner gave no card: the chat goes on in execution, after the notice if any.
pub(super) fn hand_over(
    inner: &Inner,
    chat_id: &ChatId,
    notice: Option<Notice>,
) -> Result<(), StoreError> {
    let notice = notice.map(notice_message);
    inner.store.fall_back_to_execution(chat_id, notice.as_ref())?;
    if let Some(notice) = notice {
        inner.hub.emit(chat_id, Event::Message { message: notice });
    }
    inner.emit_phase(chat_id, Phase::Executing);
    Ok(())
}

/// The read-only profile ends with the turn: the chat waits for the user again.
pub(super) fn settle_stop(inner: &Inner, chat_id: &ChatId) -> Closing {
    match inner.store.settle_interrupted_planning(chat_id) {
        Ok(phase) => {
            let tasks = inner.store.task_list(chat_id).map(|list| list.tasks).unwrap_or_default();
            vec![Event::TaskList { tasks }, phase_event(phase)]
        }
        Err(error) => {
            tracing::error!(%chat_id, %error, "cannot settle a stopped planner");
            Vec::new()
        }
    }
}

/// Whether the chat's planner and executor talk to one server (a chat gone: no).
fn one_server(inner: &Inner, chat_id: &ChatId) -> bool {
    inner.store.get_chat(chat_id).is_ok_and(|chat| inner.providers.one_server(&chat))
}

/// What a planner turn may use: no task list.
const PLANNING: TurnScope = TurnScope { agent: Agent::Planner, task_list: false };

/// One planner turn, with one repair attempt for an unreadable fence. It streams into
/// `Drafting`, which tells the chat how far the draft got (never its words).
async fn plan(
    inner: &Inner,
    chat_id: &ChatId,
    cancel: &CancellationToken,
) -> Result<Planned, PlanError> {
    let chat = inner.store.get_chat(chat_id)?;
    let provider = Metered::for_chat(&inner.store, &inner.providers, &chat, Role::Planner)
        .await
        .map_err(PlanError::Setup)?;
    let messages = inner.store.messages(chat_id)?;
    let workspace = chat.workspace.as_deref();
    let (registry, skills) =
        registry_with_skills(inner, chat_id, Profile::Planning, workspace, false).await;
    let tools = offer_tools(inner, &registry, &PLANNING, provider.budget().window, &messages).await;
    let facts = planner_facts(inner, &chat, question_rounds(&messages) + 1, &tools).await;
    let system = planner_system(inner, &chat, &facts, &skills).await?;
    let mut history = planner_history(&messages, image_loader(inner, chat_id, &provider));
    let mut repaired = false;
    let drafting = Drafting::new(&inner.hub, chat_id);
    loop {
        let turn = Turn {
            chat_id,
            provider: &Constrained::new(&provider, OutputConstraint::PlannerFence),
            system: &system,
            history: history.clone(),
            history_ids: Vec::new(),
            tools: &tools,
            mode: TurnMode::Streaming,
            rule: RoundRule::fixed(PLANNER_MAX_ROUNDS),
            workspace: None,
            task_list: None,
            recorder: None,
            events: &drafting,
            hooks: crate::lifecycle::hooks::turn_hooks(inner, &chat),
        };
        let outcome = match tokio::time::timeout(PLANNER_DEADLINE, run_turn(turn, cancel)).await {
            Ok(outcome) => outcome.map_err(PlanError::from)?,
            Err(_) => return Err(PlanError::Turn("the planner took too long".into())),
        };
        if outcome.end == TurnEnd::Stopped || cancel.is_cancelled() {
            return Ok(Planned::Stopped);
        }
        let reply = parse_planner_reply(&outcome.text);
        let repair = match (&reply.kind, &reply.error) {
            (ReplyKind::None, Some(error)) => Some(repair_request(error)),
            (ReplyKind::Plan(plan), _) => {
                check_steps(&plan.steps).err().map(|limit| plan_limits_request(&limit.to_string()))
            }
            _ => None,
        };
        match repair {
            Some(request) if !repaired => {
                repaired = true;
                history = outcome.history;
                history.push(ModelMessage::user(request));
            }
            _ => return store_reply(inner, &chat, &facts, reply),
        }
    }
}

/// The planner's system prompt: the user's `prompts/planner.md`, the workspace's
/// instructions, this turn's facts and the skills it may read.
async fn planner_system(
    inner: &Inner,
    chat: &Chat,
    facts: &PlannerFacts,
    skills: &SkillSet,
) -> Result<String, PlanError> {
    let prompt =
        ensure_planner_prompt(&inner.home).map_err(|error| PlanError::Setup(error.to_string()))?;
    let instructions = load_workspace_instructions(chat.workspace.as_deref()).await;
    let mut system = planner_system_prompt(&prompt, instructions.as_deref(), facts);
    if let Some(skills) = skills_prompt(skills) {
        system.push_str("\n\n");
        system.push_str(&skills);
    }
    Ok(system)
}

#[derive(Debug, thiserror::Error)]
enum PlanError {
    #[error("{0}")]
    Setup(String),
    #[error("{0}")]
    Turn(String),
    #[error(transparent)]
    Store(#[from] StoreError),
    /// Its provider failed.
    #[error(transparent)]
    Provider(LlmError),
    /// Its answer could not be read, even after the repair request.
    #[error("its answer could not be read, twice ({0})")]
    Unreadable(String),
}

impl PlanError {
    /// The code the chat's notice shows for this failure.
    fn code(&self) -> ErrorCode {
        match self {
            PlanError::Provider(error) => error.code(),
            PlanError::Unreadable(_) => ErrorCode::ProviderBadResponse,
            PlanError::Setup(_) | PlanError::Turn(_) | PlanError::Store(_) => ErrorCode::Internal,
        }
    }
}

impl From<AgentError> for PlanError {
    /// A provider's failure stays typed: what it was decides whether execution is tried.
    fn from(error: AgentError) -> PlanError {
        match error {
            AgentError::Provider(error) => PlanError::Provider(error),
            other => PlanError::Turn(other.to_string()),
        }
    }
}

/// Stores what the planner said: a question card, a plan card, or nothing (hand-over).
fn store_reply(
    inner: &Inner,
    chat: &Chat,
    facts: &PlannerFacts,
    reply: PlannerReply,
) -> Result<Planned, PlanError> {
    match reply.kind {
        ReplyKind::Questions(questions) if may_ask(facts.round) => {
            let card = store_questions(inner, chat, &reply.text, questions, facts.round)?;
            Ok(Planned::Card(vec![Event::Message { message: card }, phase_event(Phase::Questions)]))
        }
        ReplyKind::Questions(_) => {
            Ok(Planned::HandOver(Some(Notice::QuestionsLeft { rounds: MAX_QUESTION_ROUNDS })))
        }
        ReplyKind::Plan(plan) => store_plan(inner, chat, facts, &reply.text, &plan),
        ReplyKind::None => match reply.error {
            Some(error) => Err(PlanError::Unreadable(error.to_string())),
            None => Ok(Planned::HandOver(None)),
        },
    }
}

fn store_questions(
    inner: &Inner,
    chat: &Chat,
    prose: &str,
    questions: Vec<Question>,
    round: u32,
) -> Result<Message, StoreError> {
    let state = inner.store.state(&chat.id)?;
    let (user_text, files) = original_task(&inner.store.messages(&chat.id)?);
    let answers = state.plan_pending.map(|pending| pending.answers).unwrap_or_default();
    let pending = PlanPending { user_text, files, questions: questions.clone(), answers, round };
    let card = assistant_message(questions_markdown(prose, &questions), Some(questions));
    inner.store.record_question_card(&chat.id, &card, &pending)?;
    Ok(card)
}

fn store_plan(
    inner: &Inner,
    chat: &Chat,
    facts: &PlannerFacts,
    prose: &str,
    plan: &Plan,
) -> Result<Planned, PlanError> {
    let (_, files) = original_task(&inner.store.messages(&chat.id)?);
    // A plan that does not fit a task list waits for the user even in an auto-approve chat:
    // it is never cut to fit.
    let fits = check_steps(&plan.steps).is_ok();
    // So does a plan whose code would run unconfined: that is the user's choice to make.
    let held = needs_consent(inner.confinement.as_deref(), chat);
    let pre_approve = chat.auto_approve && fits && !held;
    let approval = if pre_approve { Approval::PreApproved } else { Approval::Pending };
    let document_facts = PlanFacts {
        workspace: facts.workspace.clone(),
        sandbox_exists: facts.sandbox_exists,
        context7_available: facts.context7_available,
        files,
        created_at: now_rfc3339(),
        revision: 0,
        approval,
    };
    let document = build_plan_document(plan, prose, &document_facts);
    let card = assistant_message(document.text.clone(), None);
    if let (true, Ok(tasks)) = (pre_approve, approved_tasks(&document.steps)) {
        let card = inner.store.record_pre_approved_plan(&chat.id, &card, document, &tasks)?;
        inner.hub.emit(&chat.id, Event::Message { message: card });
        inner.hub.emit(&chat.id, Event::TaskList { tasks: tasks.tasks });
        inner.emit_phase(&chat.id, Phase::Executing);
        return Ok(Planned::PreApproved);
    }
    let card = inner.store.record_plan_card(&chat.id, &card, document)?;
    Ok(Planned::Card(vec![Event::Message { message: card }, phase_event(Phase::AwaitingApproval)]))
}

/// The planner's facts, computed as its turn starts (DESIGN §14): from the live MCP host
/// (Context7 is available when this turn offers its tools, so a server added or removed in
/// Settings counts at once and one that cannot start is not claimed), the chat (its scope)
/// and the workspace (its sandbox, its finished plans' outcome records).
async fn planner_facts(
    inner: &Inner,
    chat: &Chat,
    round: u32,
    tools: &OfferedTools,
) -> PlannerFacts {
    let sandbox_exists =
        chat.workspace.as_deref().is_some_and(|w| Path::new(w).join(SANDBOX_DIR).is_dir());
    let prefixes = class_prefixes(inner, ServerClass::Context7);
    let context7_available =
        tools.names().iter().any(|name| prefixes.iter().any(|p| name.starts_with(p.as_str())));
    let outcomes = match chat.workspace.clone() {
        Some(workspace) => tokio::task::spawn_blocking(move || {
            preflight_dwp::finished_outcomes(Path::new(&workspace), MAX_OUTCOME_BYTES).text
        })
        .await
        .unwrap_or_default(),
        None => String::new(),
    };
    PlannerFacts {
        workspace: chat.workspace.clone(),
        sandbox_exists,
        context7_available,
        round,
        max_question_rounds: MAX_QUESTION_ROUNDS,
        scope: chat.scope.clone(),
        outcomes,
    }
}

/// Question cards asked so far in this planning.
fn question_rounds(messages: &[Message]) -> u32 {
    messages
        .iter()
        .filter(|m| matches!(&m.body, MessageBody::Assistant { questions: Some(_), .. }))
        .count() as u32
}

/// The task as the user sent it: the chat's latest message of the user's own words and its
/// files. That is its first message, unless planning was cancelled and the user wrote again
/// (the planner still reads every message of the chat).
fn original_task(messages: &[Message]) -> (String, Vec<String>) {
    messages
        .iter()
        .rev()
        .find_map(|message| match &message.body {
            MessageBody::User {
                content,
                files,
                plan_answer: false,
                resume: None,
                restored: None,
                review: None,
                ..
            } => Some((content.clone(), files.clone())),
            _ => None,
        })
        .unwrap_or_default()
}

/// The planner's conversation: the task, then every card and answer of this planning as
/// the user saw them (the planner's own tool calls are not kept between its turns), with
/// their images when `images` shows them; a switch of the chat's model is left out.
fn planner_history(messages: &[Message], mut images: ImageLoader) -> Vec<ModelMessage> {
    let shown = messages.iter().filter(|message| !is_model_switch(message));
    shown.map(|message| images.view(message)).collect()
}
