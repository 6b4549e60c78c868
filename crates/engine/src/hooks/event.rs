//! The points of a turn where hooks run (DESIGN §17), under the names the shared shape uses.

use serde::Serialize;

/// An event hooks may run at.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub enum HookEvent {
    /// A chat's first message is sent (its first turn starts).
    SessionStart,
    /// A user message, before it is stored and sent; may block it.
    UserPromptSubmit,
    /// Before a tool call of the planner or the executor; may block it.
    PreToolUse,
    /// After a tool call, with its result.
    PostToolUse,
    /// Before earlier rounds of a turn are summarised.
    PreCompact,
    /// A turn ended (the chat left `planning` or `executing`).
    Stop,
    /// Something needs the user (what the desktop notification says).
    Notification,
    /// A plan card waits for approval.
    PlanReady,
    /// The user (or auto-approve) approved the plan.
    PlanApproved,
    /// A task of the list is done.
    TaskDone,
    /// A task's check failed.
    GateFailed,
    /// No step of the plan is left: the completion record.
    PlanCompleted,
}

impl HookEvent {
    pub const ALL: [HookEvent; 12] = [
        HookEvent::SessionStart,
        HookEvent::UserPromptSubmit,
        HookEvent::PreToolUse,
        HookEvent::PostToolUse,
        HookEvent::PreCompact,
        HookEvent::Stop,
        HookEvent::Notification,
        HookEvent::PlanReady,
        HookEvent::PlanApproved,
        HookEvent::TaskDone,
        HookEvent::GateFailed,
        HookEvent::PlanCompleted,
    ];

    /// The event's name in `hooks.json` and in `hook_event_name`.
    pub fn name(self) -> &'static str {
        match self {
            HookEvent::SessionStart => "SessionStart",
            HookEvent::UserPromptSubmit => "UserPromptSubmit",
            HookEvent::PreToolUse => "PreToolUse",
            HookEvent::PostToolUse => "PostToolUse",
            HookEvent::PreCompact => "PreCompact",
            HookEvent::Stop => "Stop",
            HookEvent::Notification => "Notification",
            HookEvent::PlanReady => "PlanReady",
            HookEvent::PlanApproved => "PlanApproved",
            HookEvent::TaskDone => "TaskDone",
            HookEvent::GateFailed => "GateFailed",
            HookEvent::PlanCompleted => "PlanCompleted",
        }
    }

    pub fn from_name(name: &str) -> Option<HookEvent> {
        HookEvent::ALL.into_iter().find(|event| event.name() == name)
    }

    /// Whether a hook of this event may block what it is about (exit 2 or a `block`).
    pub fn may_block(self) -> bool {
        matches!(self, HookEvent::PreToolUse | HookEvent::UserPromptSubmit)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_name_reads_back_and_serialises_as_written() {
        for event in HookEvent::ALL {
            assert_eq!(HookEvent::from_name(event.name()), Some(event));
            assert_eq!(serde_json::to_value(event).unwrap(), event.name());
        }
        assert_eq!(HookEvent::from_name("preToolUse"), None);
    }
}
