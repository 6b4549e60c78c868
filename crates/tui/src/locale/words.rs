//! Every word the terminal shows, as one struct each language fills (`en`, `ru`), and
//! [`fill`] for the words with a `{name}` slot.

use preflight_engine::chat::Phase;
use preflight_engine::lifecycle::Waiting;
use preflight_engine::tasks::{ChangeKind, ChangeRequest, StopReason};

/// `template` with each `{name}` replaced by its value.
pub fn fill(template: &str, values: &[(&str, &dyn std::fmt::Display)]) -> String {
    let mut out = template.to_owned();
    for (name, value) in values {
        out = out.replace(&format!("{{{name}}}"), &value.to_string());
    }
    out
}

/// Every word the terminal shows.
#[derive(Debug)]
pub struct Words {
    pub new_chat: &'static str,
    pub you: &'static str,
    pub planning: &'static str,
    pub questions: &'static str,
    pub awaiting_approval: &'static str,
    pub executing: &'static str,
    pub input_placeholder: &'static str,
    pub input_locked: &'static str,
    pub feedback_prompt: &'static str,
    pub own_answer: &'static str,
    pub own_placeholder: &'static str,
    pub planner_asks: &'static str,
    pub planner_asked: &'static str,
    pub question_of: &'static str,
    pub your_answer: &'static str,
    pub plan_label: &'static str,
    pub revision: &'static str,
    pub aim: &'static str,
    pub approach: &'static str,
    pub risks: &'static str,
    pub steps: &'static str,
    pub check: &'static str,
    pub libraries: &'static str,
    pub sandbox: &'static str,
    pub sandbox_create: &'static str,
    pub sandbox_reuse: &'static str,
    pub approve: &'static str,
    pub approve_unconfined: &'static str,
    /// Asked after the first Enter on "Approve, run unconfined".
    pub confirm_unconfined: &'static str,
    pub revise: &'static str,
    /// The Revise action with `{n}` comments on steps waiting to go with it.
    pub revise_with: &'static str,
    /// Marks a comment under the step it is on.
    pub comment_mark: &'static str,
    /// The input's prompt while a comment on step `{n}` is typed.
    pub comment_prompt: &'static str,
    /// Said when a comment on step `{n}` was kept (`{count}` in all).
    pub comment_kept: &'static str,
    /// After a plan sent back: `{n}` comments went with the user's words.
    pub sent_with_comments: &'static str,
    pub key_step_comment: &'static str,
    pub cancel_plan: &'static str,
    pub approved: &'static str,
    pub no_tools: &'static str,
    pub tasks_label: &'static str,
    pub tasks_done: &'static str,
    pub tasks_dropped: &'static str,
    pub plan_completed: &'static str,
    pub change_asks: &'static str,
    pub change_approve: &'static str,
    pub change_keep: &'static str,
    pub change_why: &'static str,
    pub change_drop: &'static str,
    pub change_modify: &'static str,
    pub change_check: &'static str,
    pub change_replace: &'static str,
    pub mcp_label: &'static str,
    pub mcp_open: &'static str,
    pub mcp_accept: &'static str,
    pub mcp_decline: &'static str,
    pub mcp_cancel: &'static str,
    pub stopped_label: &'static str,
    pub continue_work: &'static str,
    /// A plan finished but not verified: the card's title, its lead, its actions.
    pub unverified_label: &'static str,
    pub unverified_why: &'static str,
    pub check_again: &'static str,
    pub accept_as_is: &'static str,
    pub confirm_accept: &'static str,
    /// `{tasks}`: the ids of the tasks open again.
    pub open_again: &'static str,
    /// `{n}` of `{total}` planned steps auto-approve dropped.
    pub auto_dropped: &'static str,
    /// Why the executor stopped, one sentence a reason, in [`StopReason`]'s order.
    pub stop_reasons: [&'static str; 9],
    /// What waits, for the terminal's notification (`Waiting`, in its order).
    pub attention: [&'static str; 9],
    pub tool_running: &'static str,
    pub tool_failed: &'static str,
    pub lines: &'static str,
    pub summarised: &'static str,
    /// Preflight's own notices (a planner that failed, a provider that refused, questions
    /// left): their heading, what happened next, and how to go on.
    pub notice_planner_failed: &'static str,
    pub notice_went_on: &'static str,
    pub notice_nothing_ran: &'static str,
    pub notice_provider_refused: &'static str,
    pub notice_questions_left: &'static str,
    /// A switch of the chat's model: `{model}`.
    pub notice_model: &'static str,
    pub notice_planner_model: &'static str,
    /// `/model` without a name: `{models}`, then how to choose.
    pub models_list: &'static str,
    /// Providers whose servers did not list their models: `{providers}`.
    pub models_unreachable: &'static str,
    pub model_unknown: &'static str,
    pub model_ambiguous: &'static str,
    /// `/prompts`: `{prompts}` (each `/COMMAND args`), then how to use one.
    pub prompts_list: &'static str,
    /// `/resources`: `{resources}` (each `@server:uri`), then how to attach one.
    pub resources_list: &'static str,
    pub prompts_none: &'static str,
    pub resources_none: &'static str,
    /// Servers that did not answer: `{servers}`.
    pub offers_failed: &'static str,
    /// The header's usage: planning's and execution's tokens.
    pub usage_planning: &'static str,
    pub usage_execution: &'static str,
    pub usage_tokens: &'static str,
    pub notice_again: &'static str,
    pub chats_label: &'static str,
    pub search_prompt: &'static str,
    pub no_chats: &'static str,
    pub nothing_found: &'static str,
    pub key_send: &'static str,
    pub key_stop: &'static str,
    pub key_choose: &'static str,
    pub key_confirm: &'static str,
    pub key_chats: &'static str,
    pub key_new: &'static str,
    pub key_tools: &'static str,
    pub key_cancel_plan: &'static str,
    pub key_scroll: &'static str,
    pub key_quit: &'static str,
    pub key_open: &'static str,
    pub key_close: &'static str,
    pub key_back: &'static str,
    pub key_delete: &'static str,
    /// The chat list's question before a chat is deleted.
    pub delete_confirm: &'static str,
    pub tool_read: &'static str,
    pub tool_read_many: &'static str,
    pub tool_wrote: &'static str,
    pub tool_edited: &'static str,
    pub tool_made_folder: &'static str,
    pub tool_listed: &'static str,
    pub tool_tree: &'static str,
    pub tool_moved: &'static str,
    pub tool_searched: &'static str,
    pub tool_info: &'static str,
    pub tool_allowed: &'static str,
    pub tool_ran: &'static str,
    pub tool_python: &'static str,
    pub tool_installed: &'static str,
    pub tool_sandbox: &'static str,
    pub tool_tasks: &'static str,
    pub tool_fetched: &'static str,
    /// A tool Preflight does not know, by its name in words.
    pub tool_used: &'static str,
    pub tool_used_on: &'static str,
    /// The chat's workspace folder itself, in a tool's sentence.
    pub tool_workspace: &'static str,
    pub tool_exit: &'static str,
    pub tool_exit_in: &'static str,
    pub millis: &'static str,
    pub seconds: &'static str,
    pub decimal_mark: &'static str,
    pub complexity_low: &'static str,
    pub complexity_medium: &'static str,
    pub complexity_high: &'static str,
    pub after_steps: &'static str,
    pub step_files: &'static str,
    pub planned_files: &'static str,
    pub files_create: &'static str,
    pub files_modify: &'static str,
    pub alternatives: &'static str,
    pub tests: &'static str,
    pub note: &'static str,
    pub more_below: &'static str,
    pub key_diff: &'static str,
    pub key_task: &'static str,
    pub key_restore: &'static str,
    pub key_yes: &'static str,
    pub key_no: &'static str,
    pub diff_title: &'static str,
    pub diff_stat: &'static str,
    pub diff_none: &'static str,
    pub no_task_diffs: &'static str,
    pub file_added: &'static str,
    pub file_modified: &'static str,
    pub file_deleted: &'static str,
    pub file_renamed: &'static str,
    pub file_type_changed: &'static str,
    pub diff_binary: &'static str,
    pub diff_too_large: &'static str,
    pub diff_left_out: &'static str,
    /// Asked before a restore; y restores, anything else keeps the workspace.
    pub restore_ask: &'static str,
    pub restore_keeps: &'static str,
    /// What a restore did, in the chat and the notice line.
    pub restored: &'static str,
    pub restored_before_task: &'static str,
    pub restored_earlier: &'static str,
    pub restored_kept: &'static str,
    /// A chat in its own git worktree (`worktree.rs`).
    pub worktree: &'static super::worktree::WorktreeWords,
}

impl Words {
    /// Why the executor stopped, in a sentence.
    pub fn stop_reason(&self, reason: StopReason) -> &'static str {
        let index = match reason {
            StopReason::Answered => 0,
            StopReason::GateFailed => 1,
            StopReason::NoProgress => 2,
            StopReason::Loop => 3,
            StopReason::RoundCap => 4,
            StopReason::ProviderError => 5,
            StopReason::UserStop => 6,
            StopReason::Interrupted => 7,
            StopReason::Forked => 8,
        };
        self.stop_reasons[index]
    }

    /// What waits for the user, for the terminal's notification (OSC 9).
    pub fn attention(&self, waiting: Waiting) -> &'static str {
        let index = match waiting {
            Waiting::Questions => 0,
            Waiting::Plan => 1,
            Waiting::Unconfined => 2,
            Waiting::PlanChange => 3,
            Waiting::Elicitation => 4,
            Waiting::Stopped => 5,
            Waiting::Done => 6,
            Waiting::Unverified => 7,
            Waiting::Failed => 8,
        };
        self.attention[index]
    }

    /// The change the executor asks for, in a line.
    pub fn change(&self, change: &ChangeRequest) -> String {
        let task = change.task.unwrap_or(0);
        let title = change.title.as_deref().unwrap_or("");
        let new_title = change.new_title.as_deref().unwrap_or("");
        let new_check = change.new_check.as_deref().unwrap_or("");
        let old_check = change.old_check.as_deref().unwrap_or("");
        let count = change.tasks.as_ref().map_or(0, Vec::len);
        let (template, new) = match change.kind {
            ChangeKind::Drop => (self.change_drop, ""),
            ChangeKind::Modify => (self.change_modify, new_title),
            ChangeKind::Check => (self.change_check, new_check),
            ChangeKind::Replace => (self.change_replace, ""),
        };
        let values: [(&str, &dyn std::fmt::Display); 5] =
            [("task", &task), ("title", &title), ("new", &new), ("old", &old_check), ("n", &count)];
        fill(template, &values)
    }

    /// The status line of a phase; empty when the chat is idle.
    pub fn phase(&self, phase: Phase) -> &'static str {
        match phase {
            Phase::Planning => self.planning,
            Phase::Questions => self.questions,
            Phase::AwaitingApproval => self.awaiting_approval,
            Phase::Executing => self.executing,
            Phase::Idle => "",
        }
    }
}
