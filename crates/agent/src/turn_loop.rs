//! The agent loop: model ↔ tools until the model answers without tool calls (DESIGN §2, §5).
//!
//! One round is a model call and, if it asked for tools, their calls (one after another, in
//! the order asked). A streaming turn (the executor) sends `delta` events as tokens arrive,
//! `tool` events around each call and a `message` event for each stored message; a quiet
//! turn (the planner) sends nothing and stores nothing. Each finished round is handed whole
//! to the [`RoundRecorder`]; a stop never leaves half a round behind:
//! - during the model's answer: the text so far is stored as the final answer (if any);
//! - during the tools: the calls not finished get "stopped" error results, then the round
//!   is stored;
//! - between rounds: nothing more is stored.
//!
//! How many rounds a turn may run is its [`RoundRule`]'s call: the executor goes on while
//! its rounds change the task list or the workspace (`round_rule.rs`).

use std::path::Path;

use preflight_llm::{LlmError, ModelMessage, ModelRequest, Provider, StreamEvent, Usage};
use preflight_protocol::chat::{ImagePart, Message, ToolCall};
use preflight_protocol::ids::{ChatId, MessageId};
use preflight_protocol::tasks::{Task, TaskList, TOOL_NAME};
use preflight_protocol::tool::ToolOutput;
use preflight_store::StoreError;
use tokio_util::sync::CancellationToken;

use super::context::ContextState;
use super::nag::{Nag, REMINDER};
use super::prompt::state_tail;
use super::round_rule::{Halt, RoundRule, RoundWatch, LOOP_REPEATS};
use super::tool_hooks::{hooked_dispatch, ToolHooks};
use super::workspace_probe::fingerprint_of;
use super::{EventSink, NoEvents, OfferedTools, RoundRecorder, TaskListSource, ToolContext};
use crate::events::Event;
use round_messages::{assistant, tool_result, ToolResult};

mod round_messages;

/// Whether a turn's progress is shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TurnMode {
    /// The executor: deltas, tool and message events.
    Streaming,
    /// The planner: no events at all.
    Quiet,
}

/// Everything one turn runs with. The caller decides the tools (see `ToolRegistry::offer`),
/// the prompt's stable prefix and the history; the loop adds the volatile tail.
pub struct Turn<'a> {
    pub chat_id: &'a ChatId,
    pub provider: &'a dyn Provider,
    /// The stable prefix: system prompt and workspace instructions.
    pub system: &'a str,
    /// The conversation so far, ending with the user's message.
    pub history: Vec<ModelMessage>,
    /// The stored id of each message of `history` (none for one that is not stored); empty
    /// when unknown. A compaction records which stored messages it covers by them.
    pub history_ids: Vec<Option<MessageId>>,
    pub tools: &'a OfferedTools,
    pub mode: TurnMode,
    /// When rounds end the turn although the model still asks for tools.
    pub rule: RoundRule,
    /// The folder whose changes count as progress; `None` when the turn has none.
    pub workspace: Option<&'a Path>,
    /// The chat's task list, for the `[state]` tail and the nag; `None` when the turn has
    /// none (the planner).
    pub task_list: Option<&'a dyn TaskListSource>,
    /// Where rounds are stored; `None` stores nothing (the planner).
    pub recorder: Option<&'a dyn RoundRecorder>,
    pub events: &'a dyn EventSink,
    /// The user's hooks around each tool call; `None`: none (DESIGN §17).
    pub hooks: Option<Box<dyn ToolHooks>>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TurnEnd {
    /// The model answered without tool calls.
    Answered,
    /// The cancellation token fired.
    Stopped,
    /// The model still asked for tools after the rule's `max_rounds` rounds.
    StepLimit,
    /// The rule's window of rounds went by with neither the task list nor the workspace
    /// changing.
    NoProgress,
    /// The model asked for the same calls round after round (see `looped`).
    Loop,
}

#[derive(Debug, Clone, PartialEq)]
pub struct TurnOutcome {
    pub end: TurnEnd,
    /// The final answer; for a stop, the text streamed before it; for the step limit, the
    /// text of the last answer.
    pub text: String,
    /// Tool rounds run.
    pub rounds: u32,
    /// Whether any round changed the task list or the workspace.
    pub progressed: bool,
    /// For a loop: the tool it called again and again.
    pub looped: Option<String>,
    pub usage: Usage,
    /// The conversation with this turn's rounds and answer appended (without the tail):
    /// what a follow-up call (e.g. the planner's repair request) continues from.
    pub history: Vec<ModelMessage>,
}

#[derive(Debug, thiserror::Error)]
pub enum AgentError {
    #[error(transparent)]
    Provider(#[from] LlmError),
    #[error("storing the turn failed: {0}")]
    Store(#[from] StoreError),
}

/// Runs one turn to its end. Rounds stored before an error stay stored.
pub async fn run_turn(
    mut turn: Turn<'_>,
    cancel: &CancellationToken,
) -> Result<TurnOutcome, AgentError> {
    let request = ModelRequest {
        system: turn.system.to_owned(),
        messages: std::mem::take(&mut turn.history),
        tools: turn.tools.shown(),
        tail: None,
        ..ModelRequest::default()
    };
    let mut ids = std::mem::take(&mut turn.history_ids);
    ids.resize(request.messages.len(), None);
    let mark = progress_mark(&turn).await?;
    let run = Run {
        turn: &turn,
        request,
        ids,
        context: ContextState::new(turn.provider.budget()),
        usage: Usage::default(),
        watch: RoundWatch::new(turn.rule),
        mark,
        nag: Nag::default(),
        remind: false,
        list: None,
    };
    run.run(cancel).await
}

/// A model's answer of one round.
#[derive(Default)]
pub(super) struct Reply {
    pub(super) text: String,
    pub(super) calls: Vec<ToolCall>,
    pub(super) usage: Usage,
}

pub(super) enum Interrupt {
    /// Stopped while the answer streamed; the text so far.
    Stopped(String),
    Failed(AgentError),
}

pub(super) struct Run<'t, 'a> {
    pub(super) turn: &'t Turn<'a>,
    /// The request of every call: the history grows in it, the tail changes per call.
    pub(super) request: ModelRequest,
    /// The stored id of each message of `request.messages`.
    pub(super) ids: Vec<Option<MessageId>>,
    /// The budget and the estimates that keep each request within it (DESIGN §13).
    pub(super) context: ContextState,
    usage: Usage,
    watch: RoundWatch,
    /// The task list and the workspace as the last round left them.
    mark: ProgressMark,
    nag: Nag,
    /// The reminder goes with the next request.
    remind: bool,
    /// The task list as read after the last round, for the next request's tail.
    list: Option<TaskList>,
}

impl Run<'_, '_> {
    async fn run(mut self, cancel: &CancellationToken) -> Result<TurnOutcome, AgentError> {
        loop {
            if cancel.is_cancelled() {
                return Ok(self.outcome(TurnEnd::Stopped, String::new()));
            }
            self.set_tail()?;
            self.request.tools = self.turn.tools.shown();
            let id = MessageId::new();
            let reply = match self.fitted_reply(&id, cancel).await {
                Ok(reply) => reply,
                Err(Interrupt::Stopped(text)) => return self.stop_while_answering(id, text),
                Err(Interrupt::Failed(error)) => return Err(error),
            };
            self.usage.add(reply.usage);
            if reply.calls.is_empty() {
                let text = reply.text.clone();
                self.close(vec![assistant(id, reply.text, Vec::new())])?;
                return Ok(self.outcome(TurnEnd::Answered, text));
            }
            if let Some(halt) = self.watch.before_round(&reply.calls) {
                return self.refuse_round(id, reply, halt);
            }
            let (results, stopped) = self.run_tools(&id, &reply.calls, cancel).await;
            let answered: Vec<bool> = results.iter().map(ToolResult::answered_well).collect();
            let text = reply.text.clone();
            self.finish_round(id, reply, results)?;
            if stopped {
                return Ok(self.outcome(TurnEnd::Stopped, String::new()));
            }
            let progressed = self.progressed().await?;
            if let Some(Halt::NoProgress) = self.watch.after_round(progressed, &answered) {
                return Ok(self.outcome(TurnEnd::NoProgress, text));
            }
        }
    }

    pub(super) fn events(&self) -> &dyn EventSink {
        match self.turn.mode {
            TurnMode::Streaming => self.turn.events,
            TurnMode::Quiet => &NoEvents,
        }
    }

    /// This call's tail: the reminder when due, then `[state]` with the task list.
    fn set_tail(&mut self) -> Result<(), StoreError> {
        let mut tail = Vec::new();
        if std::mem::take(&mut self.remind) {
            tail.push(REMINDER.to_owned());
        }
        if let Some(source) = self.turn.task_list {
            let list = match self.list.take() {
                Some(list) => list,
                None => source.task_list()?,
            };
            tail.extend(state_tail(&list));
        }
        self.request.tail = (!tail.is_empty()).then(|| tail.join("\n\n"));
        Ok(())
    }

    /// One model call on the request as it stands. A provider's failure before anything
    /// streamed is `Failed` with the provider's error.
    pub(super) async fn model_reply(
        &self,
        id: &MessageId,
        cancel: &CancellationToken,
    ) -> Result<Reply, Interrupt> {
        let mut stream = match self.turn.provider.stream(&self.request, cancel).await {
            Ok(stream) => stream,
            Err(LlmError::Cancelled) => return Err(Interrupt::Stopped(String::new())),
            Err(error) => return Err(Interrupt::Failed(error.into())),
        };
        let mut reply = Reply::default();
        while let Some(event) = stream.next().await {
            match event {
                Ok(StreamEvent::TextDelta(text)) => {
                    self.events()
                        .emit(Event::Delta { message_id: id.to_owned(), text: text.clone() });
                    reply.text.push_str(&text);
                }
                Ok(StreamEvent::ToolCall(call)) => reply.calls.push(call),
                Ok(StreamEvent::Usage(usage)) => reply.usage.add(usage),
                Ok(StreamEvent::Finished(_)) => return Ok(reply),
                Err(LlmError::Cancelled) => return Err(Interrupt::Stopped(reply.text)),
                Err(error) => return Err(Interrupt::Failed(error.into())),
            }
        }
        Err(Interrupt::Failed(
            LlmError::StreamCut { detail: "the answer ended without finishing".into() }.into(),
        ))
    }

    /// Runs the calls in order; once stopped, the rest get "stopped" results unrun.
    async fn run_tools(
        &self,
        id: &MessageId,
        calls: &[ToolCall],
        cancel: &CancellationToken,
    ) -> (Vec<ToolResult>, bool) {
        let context = ToolContext { chat_id: self.turn.chat_id, cancel, events: self.events() };
        let mut results = Vec::with_capacity(calls.len());
        for call in calls {
            let output = if cancel.is_cancelled() {
                ToolOutput::error("not run: the user stopped the turn")
            } else {
                self.announce(id, call, None);
                let output = tokio::select! {
                    biased;
                    output = hooked_dispatch(self.turn.hooks.as_deref(), self.turn.tools, call, &context) => output,
                    _ = cancel.cancelled() => ToolOutput::error("stopped by the user while it ran"),
                };
                self.announce(id, call, Some(&output));
                output
            };
            results.push(self.result_of(call, output));
        }
        (results, cancel.is_cancelled())
    }

    /// The result of `call`: its images kept by the recorder (listed on the stored message)
    /// and shown to a model that sees images.
    fn result_of(&self, call: &ToolCall, mut output: ToolOutput) -> ToolResult {
        let id = MessageId::new();
        let images = std::mem::take(&mut output.images);
        let kept = match (self.turn.recorder, images.is_empty()) {
            (Some(recorder), false) => recorder.keep_images(&id, &call.name, &images),
            _ => Vec::new(),
        };
        let shown = if self.turn.provider.sees_images() { images } else { Vec::new() };
        ToolResult { message: tool_result(id, call, output, kept), images: shown }
    }

    /// A `tool` event: before the call (no result) and after it.
    fn announce(&self, id: &MessageId, call: &ToolCall, output: Option<&ToolOutput>) {
        let args =
            serde_json::from_str(&call.arguments).unwrap_or_else(|_| call.arguments.clone().into());
        let (result, error) = match output {
            Some(output) if output.is_error => (None, Some(output.content.clone())),
            Some(output) => (Some(output.content.clone()), None),
            None => (None, None),
        };
        self.events().emit(Event::Tool {
            message_id: id.to_owned(),
            name: call.name.clone(),
            args,
            result,
            error,
        });
    }

    /// Stores and announces the round, appends it to the history, counts it for the nag.
    fn finish_round(
        &mut self,
        id: MessageId,
        reply: Reply,
        results: Vec<ToolResult>,
    ) -> Result<(), StoreError> {
        let called_turn_plan = reply.calls.iter().any(|call| call.name == TOOL_NAME);
        let mut round = vec![assistant(id, reply.text, reply.calls)];
        let mut shown = vec![Vec::new()];
        for result in results {
            round.push(result.message);
            shown.push(result.images);
        }
        self.close_showing(round, shown)?;
        self.list = match self.turn.task_list {
            Some(source) => Some(source.task_list()?),
            None => None,
        };
        let tasks_left = self.list.as_ref().is_some_and(TaskList::has_work_left);
        self.remind = self.nag.after_round(called_turn_plan, tasks_left);
        Ok(())
    }

    /// Whether the round just stored changed the task list or the workspace; the mark
    /// moves on to what it left. A changed list is progress enough: the workspace walk is
    /// skipped and its mark kept, so a write of this round counts at the next round that
    /// looks (one round late at most, never lost).
    async fn progressed(&mut self) -> Result<bool, StoreError> {
        let list = self.list.as_ref().map(task_keys);
        if list != self.mark.list {
            self.mark.list = list;
            return Ok(true);
        }
        let workspace = fingerprint_of(self.turn.workspace).await;
        let progressed = workspace != self.mark.workspace;
        self.mark.workspace = workspace;
        Ok(progressed)
    }

    /// The rule refused the round the model asked for: the calls get error results (so the
    /// stored round is whole) and the turn ends.
    fn refuse_round(
        mut self,
        id: MessageId,
        reply: Reply,
        halt: Halt,
    ) -> Result<TurnOutcome, AgentError> {
        let (end, refusal) = match &halt {
            Halt::Loop(_) => (
                TurnEnd::Loop,
                format!(
                    "not run: the same call was asked for {LOOP_REPEATS} times in a row, so \
                     the turn ends here as a loop"
                ),
            ),
            _ => {
                let limit = self.turn.rule.max_rounds;
                (
                    TurnEnd::StepLimit,
                    format!("not run: this turn reached its limit of {limit} tool rounds"),
                )
            }
        };
        let results = reply
            .calls
            .iter()
            .map(|call| tool_result(MessageId::new(), call, ToolOutput::error(&refusal), vec![]))
            .collect();
        let text = reply.text.clone();
        let mut round = vec![assistant(id, reply.text, reply.calls)];
        round.extend::<Vec<Message>>(results);
        self.close(round)?;
        let mut outcome = self.outcome(end, text);
        if let Halt::Loop(name) = halt {
            outcome.looped = Some(name);
        }
        Ok(outcome)
    }

    /// Stopped mid-answer: what was streamed stays, as a final answer without tool calls.
    fn stop_while_answering(
        mut self,
        id: MessageId,
        text: String,
    ) -> Result<TurnOutcome, AgentError> {
        if !text.is_empty() {
            self.close(vec![assistant(id, text.clone(), Vec::new())])?;
        }
        Ok(self.outcome(TurnEnd::Stopped, text))
    }

    /// Stores a whole round (or answer), announces it, and adds it to the history.
    fn close(&mut self, messages: Vec<Message>) -> Result<(), StoreError> {
        self.close_showing(messages, Vec::new())
    }

    /// [`Run::close`], each message shown to the model with the images of `images` at its
    /// position (a tool's, as it returned them; none past the end).
    fn close_showing(
        &mut self,
        messages: Vec<Message>,
        mut images: Vec<Vec<ImagePart>>,
    ) -> Result<(), StoreError> {
        if let Some(recorder) = self.turn.recorder {
            recorder.record(&messages)?;
        }
        images.resize(messages.len(), Vec::new());
        for (message, shown) in messages.into_iter().zip(images) {
            let mut view = ModelMessage::from_stored(&message);
            if let Some(slot) = view.images_mut() {
                *slot = shown;
            }
            self.request.messages.push(view);
            self.ids.push(Some(message.id.clone()));
            self.events().emit(Event::Message { message });
        }
        Ok(())
    }

    fn outcome(self, end: TurnEnd, text: String) -> TurnOutcome {
        TurnOutcome {
            end,
            text,
            rounds: self.watch.rounds(),
            progressed: self.watch.progressed(),
            looped: None,
            usage: self.usage,
            history: self.request.messages,
        }
    }
}

/// What a round's progress is measured against: the task list's tasks (what they are and
/// where they stand, not when a check last ran) and the workspace's fingerprint.
#[derive(Debug, Clone)]
struct ProgressMark {
    list: Option<Vec<TaskKey>>,
    workspace: Option<u64>,
}

type TaskKey = (u32, String, String, Option<String>, Option<String>);

fn task_keys(list: &TaskList) -> Vec<TaskKey> {
    let key = |task: &Task| {
        let status = format!("{:?}", task.status);
        (task.id, task.title.clone(), status, task.outcome.clone(), task.phase.clone())
    };
    list.tasks.iter().map(key).collect()
}

/// The mark before the turn's first round.
async fn progress_mark(turn: &Turn<'_>) -> Result<ProgressMark, StoreError> {
    let list = match turn.task_list {
        Some(source) => Some(task_keys(&source.task_list()?)),
        None => None,
    };
    Ok(ProgressMark { list, workspace: fingerprint_of(turn.workspace).await })
}
