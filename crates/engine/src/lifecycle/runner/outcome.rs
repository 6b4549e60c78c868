//! What a turn tells the runner when it ends: the planner's and the executor's outcomes, and
//! the events that close a turn. Plain data: the runner (`runner.rs`) reads it and decides
//! what runs next; neither turn starts the other.

use preflight_agent::events::Event;
use preflight_protocol::chat::Notice;
use preflight_protocol::tasks::StopReason;

/// Events sent after a turn has released its chat.
pub(super) type Closing = Vec<Event>;

/// How a planner turn ended.
pub(super) enum Planned {
    /// A card is stored and the user acts next; its events close the turn.
    Card(Closing),
    /// A pre-approved plan is stored (auto-approve): the executor carries it out now.
    PreApproved,
    /// No card: execution takes over, after the notice if there is one.
    HandOver(Option<Notice>),
    /// The planner failed and the chat stops there (`on_planner_failure = "stop"`): the
    /// notice says why, and nothing runs.
    Failed(Notice),
    Stopped,
}

/// How an executor turn ended, once its work was checkpointed in the plan folder.
pub(super) struct Executed {
    /// The turn's final answer; `None` when it was stopped or failed.
    pub(super) answer: Option<String>,
    /// Why it ended, as a stop card would say if tasks are left.
    pub(super) reason: StopReason,
    /// The turn's own words on it: the provider's error, the call that looped.
    pub(super) detail: Option<String>,
    /// Whether any of its rounds changed the task list or the workspace.
    pub(super) progressed: bool,
}
