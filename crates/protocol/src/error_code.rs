//! The stable `ERR_*` codes of every error the engine shows (DESIGN §9): an adapter's
//! answer, a chat's `error` event, a provider's failure. This file is the one place that
//! spells them; the HTTP adapter gives each a status, the UI gets them as a generated type.

use serde::{Deserialize, Serialize};

/// Declares `ErrorCode` with each variant's wire spelling once: the serde name, `as_str`
/// and `ALL` are generated from the same list, so they cannot drift apart.
macro_rules! error_codes {
    ($($(#[doc = $doc:tt])* $variant:ident => $code:tt,)+) => {
        /// The stable codes of DESIGN §9, the provider's failures, what a turn reports in
        /// the chat, and `ERR_INTERNAL` for what no caller can fix.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
        #[cfg_attr(feature = "ts", derive(ts_rs::TS))]
        #[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
        pub enum ErrorCode {
            $($(#[doc = $doc])* #[serde(rename = $code)] $variant,)+
        }

        impl ErrorCode {
            /// Every code, in declaration order.
            pub const ALL: &'static [ErrorCode] = &[$(ErrorCode::$variant,)+];

            /// The code as it travels: `ERR_…`.
            pub fn as_str(self) -> &'static str {
                match self {
                    $(ErrorCode::$variant => $code,)+
                }
            }
        }
    };
}

error_codes! {
    /// A request without the API token.
    Unauthorized => "ERR_UNAUTHORIZED",
    /// Malformed JSON, a missing or mistyped field, a value that cannot apply.
    BadRequest => "ERR_BAD_REQUEST",
    EmptyAnswer => "ERR_EMPTY_ANSWER",
    /// The waiting question card has no such question.
    UnknownQuestion => "ERR_UNKNOWN_QUESTION",
    /// No such chat, message or route.
    NotFound => "ERR_NOT_FOUND",
    /// A question card waits for answers.
    PlanPending => "ERR_PLAN_PENDING",
    /// A turn runs in the chat (or the chat is in a phase that refuses the request).
    TurnActive => "ERR_TURN_ACTIVE",
    /// No question card waits for answers.
    NoQuestions => "ERR_NO_QUESTIONS",
    /// No plan card waits for approval.
    NoPlan => "ERR_NO_PLAN",
    /// Continue was asked for, but no task is left to continue with.
    NothingLeft => "ERR_NOTHING_LEFT",
    /// The plan change was approved or rejected already.
    ChangeAnswered => "ERR_CHANGE_ANSWERED",
    /// The plan change no longer fits the task list (what it is about is gone or finished).
    ChangeStale => "ERR_CHANGE_STALE",
    /// The code sandbox cannot confine runs here, and the approval did not allow it to run
    /// unconfined (`{"unconfined": true}`, or `[sandbox] confinement = "off"`).
    Unconfined => "ERR_UNCONFINED",
    /// The workspace's `.sandbox/venv` was not recorded by the sandbox but looks like one an
    /// earlier Preflight made: it is not used until the user adopts it
    /// (`POST /v1/chats/{id}/sandbox/venv/adopt`).
    VenvAdoptable => "ERR_VENV_ADOPTABLE",
    /// The workspace's `.sandbox/venv` was not made by Preflight (it came with the workspace)
    /// and cannot be adopted: it is never used; the user moves it away or deletes it.
    VenvForeign => "ERR_VENV_FOREIGN",
    /// No model provider could be built from the settings: the turn cannot start.
    ProviderSetup => "ERR_PROVIDER",
    ProviderRateLimited => "ERR_PROVIDER_RATE_LIMITED",
    /// The prompt (history plus tools) does not fit the model's context window.
    ContextTooLong => "ERR_CONTEXT_TOO_LONG",
    /// The provider refused the API key.
    ProviderUnauthorized => "ERR_PROVIDER_UNAUTHORIZED",
    /// The provider is unreachable, overloaded or failing on its side.
    ProviderUnavailable => "ERR_PROVIDER_UNAVAILABLE",
    /// The provider sent nothing for too long.
    ProviderTimeout => "ERR_PROVIDER_TIMEOUT",
    /// The answer stream ended before its final event.
    ProviderStreamCut => "ERR_PROVIDER_STREAM_CUT",
    /// The provider will not serve the request as sent (unknown model, no quota).
    ProviderRejected => "ERR_PROVIDER_REJECTED",
    /// The provider answered something that is not its wire format.
    ProviderBadResponse => "ERR_PROVIDER_BAD_RESPONSE",
    /// The model call was stopped.
    Cancelled => "ERR_CANCELLED",
    /// An executor turn ran out of tool rounds without a final answer.
    StepLimit => "ERR_STEP_LIMIT",
    /// An MCP server the turn needs is not installed (the filesystem server above all).
    McpNotInstalled => "ERR_MCP_NOT_INSTALLED",
    /// A remote MCP server the turn would use needs the user to sign in (Settings).
    McpSignIn => "ERR_MCP_SIGN_IN",
    /// The chat's plan folder (`.dwp/plans/…`) could not be written; the turn went on.
    PlanFiles => "ERR_PLAN_FILES",
    /// A checkpoint of the workspace could not be taken, read or restored (issue 31); a
    /// turn goes on without it.
    Checkpoint => "ERR_CHECKPOINT",
    /// A checkpoint does not fit the workspace as it is now: the restore's plan changed since
    /// its preview (the preview's `digest` is another), or the checkpoint is of another folder
    /// (the chat's workspace moved). Nothing was changed.
    CheckpointConflict => "ERR_CHECKPOINT_CONFLICT",
    /// A fork's copy cannot go into the folder chosen: it is not empty (or filled meanwhile),
    /// lies in the original's workspace, or is not a folder. Nothing was written.
    ForkFolder => "ERR_FORK_FOLDER",
    /// Preflight has no record of how the chat stood at that message or checkpoint (stored
    /// by an older version, imported, or edited since): fork the whole chat, or later.
    ForkUnrecorded => "ERR_FORK_UNRECORDED",
    /// Something no caller can fix (a store failure, a task that died).
    Internal => "ERR_INTERNAL",
    /// `/server:NAME` named a server of the chat that has no prompt NAME, or a bare `/NAME`
    /// that several servers have (DESIGN §17). Nothing was stored.
    PromptUnknown => "ERR_PROMPT_UNKNOWN",
    /// A prompt's required argument is missing, or more values were given than it takes.
    PromptArguments => "ERR_PROMPT_ARGUMENTS",
    /// The server failed to give the prompt (an error, no answer in time, down).
    PromptFailed => "ERR_PROMPT_FAILED",
    /// `@server:uri` named a server whose resources the chat's next turn may not read (a
    /// writing server while planning, the code sandbox), or a resource too large to attach.
    ResourceUnavailable => "ERR_RESOURCE_UNAVAILABLE",
    /// The server failed to read the resource (an error, no answer in time, down).
    ResourceFailed => "ERR_RESOURCE_FAILED",
    /// The user's `UserPromptSubmit` hook blocked the message (its reason in the message);
    /// nothing was stored (DESIGN §17).
    HookBlocked => "ERR_HOOK_BLOCKED",
    /// The chat works in its folder itself: it has no worktree of its own to show, merge,
    /// keep or recreate (DESIGN §18).
    NoWorktree => "ERR_NO_WORKTREE",
    /// The chat's own worktree folder is gone (DESIGN §18): recreate it from its branch
    /// (`POST …/worktree/recreate`). Nothing ran.
    WorktreeMissing => "ERR_WORKTREE_MISSING",
    /// Merging the chat's branch would conflict; the files are named. Nothing was changed.
    MergeConflicts => "ERR_MERGE_CONFLICTS",
    /// The user's checkout has uncommitted changes to files the merge would write; they are
    /// named. Nothing was changed.
    CheckoutChanged => "ERR_CHECKOUT_CHANGED",
    /// The merge cannot be done as asked: nothing to merge, the branch it came from is gone,
    /// or it started from a detached HEAD (keep it as a branch). Nothing was changed.
    MergeRefused => "ERR_MERGE_REFUSED",
    /// git failed on the chat's worktree (its words in the message).
    Worktree => "ERR_WORKTREE",
}

impl std::fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// So that a test reads `assert_eq!(error.code(), "ERR_…")`, the way the code travels.
impl PartialEq<&str> for ErrorCode {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;

    use super::*;

    #[test]
    fn every_code_serialises_as_it_is_spelled_and_is_unique() {
        let mut seen = HashSet::new();
        for &code in ErrorCode::ALL {
            assert_eq!(serde_json::to_value(code).unwrap(), code.as_str(), "{code:?}");
            assert!(code.as_str().starts_with("ERR_"), "{code:?}");
            assert!(seen.insert(code.as_str()), "{code:?} is spelled twice");
        }
    }
}
