//! The engine's events and views applied to the terminal's state. An event that stores
//! something asks for a reload of the chat (the engine's view is the truth); tokens, tool
//! progress and the task list are taken as they come.

use preflight_engine::chat::{MessageBody, Phase};
use preflight_engine::events::Event;
use preflight_engine::lifecycle::{ChatView, Elicitation};
use preflight_engine::tasks::Task;

use crate::app::state::{App, Entry, LiveTool};

/// Whether the chat should be read again from the engine after an event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum After {
    Reload,
    Redraw,
}

impl App {
    /// Takes the engine's view of the chat (after an action or a stored message).
    pub fn load(&mut self, view: ChatView, tasks: Vec<Task>, elicitations: Vec<Elicitation>) {
        self.phase = view.state.phase;
        if let Some((id, _)) = &self.streaming {
            if view.messages.iter().any(|message| message.id == *id) {
                self.streaming = None;
            }
        }
        if !self.running() {
            self.streaming = None;
            self.live_tools.clear();
        }
        self.chat = Some(view);
        self.tasks = tasks;
        self.elicitations = elicitations;
        self.sync_card();
    }

    /// Leaves the chat for another one (or a new one).
    pub fn clear_chat(&mut self) {
        self.chat = None;
        self.from = None;
        self.phase = Phase::Idle;
        self.tasks.clear();
        self.elicitations.clear();
        self.streaming = None;
        self.live_tools.clear();
        self.clear_input();
        self.entry = Entry::Message;
        self.scroll = 0;
        self.worktree = None;
        self.worktree_panel = None;
        self.sync_card();
    }

    /// Text pasted into the input (bracketed paste: it arrives whole, line breaks and all,
    /// and is never taken for keys).
    pub fn paste(&mut self, text: &str) {
        if self.chat_list.is_none() {
            self.insert_text(&crate::sanitize::inert(text));
        }
    }

    /// One event of the chat's stream.
    pub fn apply(&mut self, event: Event) -> After {
        match event {
            Event::PlanStatus { phase, .. } => {
                self.phase = phase;
                After::Reload
            }
            Event::Message { message } => {
                if matches!(message.body, MessageBody::Tool { .. }) {
                    self.live_tools.clear();
                }
                After::Reload
            }
            Event::Delta { message_id, text } => {
                match &mut self.streaming {
                    Some((id, so_far)) if *id == message_id => so_far.push_str(&text),
                    _ => self.streaming = Some((message_id, text)),
                }
                After::Redraw
            }
            Event::Tool { name, args, result, error, .. } => {
                self.tool_progress(name, args, result, error);
                After::Redraw
            }
            Event::TaskList { tasks } => {
                self.tasks = tasks;
                After::Redraw
            }
            Event::Error { message, .. } => {
                self.notice = Some(message);
                After::Reload
            }
            Event::Elicitation { elicitation } => {
                self.elicitations.retain(|open| open.id != elicitation.id);
                self.elicitations.push(elicitation);
                self.sync_card();
                After::Redraw
            }
            Event::ElicitationClosed { id, .. } => {
                self.elicitations.retain(|open| open.id != id);
                self.sync_card();
                After::Redraw
            }
            // The planner's progress: the status line already says it drafts.
            Event::Drafting { .. } => After::Redraw,
            Event::PlanChange { .. } | Event::ExecutorStopped { .. } | Event::Completion { .. } => {
                After::Reload
            }
        }
    }

    fn tool_progress(
        &mut self,
        name: String,
        args: serde_json::Value,
        result: Option<String>,
        error: Option<String>,
    ) {
        let args = args.to_string();
        let finished = result.is_some() || error.is_some();
        if finished {
            self.tool_times.finish(&name, &args);
        } else {
            self.tool_times.start(&name, &args);
        }
        let open = self
            .live_tools
            .iter_mut()
            .rev()
            .find(|tool| tool.name == name && tool.result.is_none() && tool.error.is_none());
        match open {
            Some(tool) if finished => {
                tool.result = result;
                tool.error = error;
            }
            _ => self.live_tools.push(LiveTool { name, args, result, error }),
        }
    }
}
