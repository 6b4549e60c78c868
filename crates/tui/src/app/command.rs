//! What a key asks of the engine; the event loop carries it out (`run/actions.rs`).

use preflight_engine::chat::MergeMode;
use preflight_engine::ids::{ChangeId, ChatId, QuestionId};
use preflight_engine::mcp::Answer;
use preflight_engine::planner::CommentDraft;

#[derive(Debug, Clone, PartialEq)]
pub enum Command {
    /// A task or a message (creates the chat first when it is new).
    Send(String),
    Answer {
        question: QuestionId,
        text: String,
    },
    Approve {
        run_unconfined: bool,
    },
    /// Send the waiting plan back: the user's words and/or comments on its steps.
    Revise {
        feedback: Option<String>,
        comments: Vec<CommentDraft>,
    },
    CancelPlan,
    Stop,
    AnswerChange {
        change: ChangeId,
        approve: bool,
    },
    AnswerElicitation {
        id: String,
        answer: Answer,
    },
    Continue,
    /// Run the checks of a plan finished but not verified again.
    VerifyPlan,
    /// Accept a plan finished but not verified as it is (asked twice).
    AcceptPlan,
    /// Read the page of messages before the first one shown.
    LoadOlder,
    /// Fill the chat list: every chat for an empty query, else the search's hits.
    Search(String),
    Open(ChatId),
    /// Delete the chat (asked for and confirmed in the chat list).
    DeleteChat(ChatId),
    NewChat,
    /// Show the diff of the task at this index of the chat's spans (Ctrl+G: the last
    /// finished task's when None).
    ShowDiff(Option<usize>),
    /// Ask what a restore to before the shown task would do.
    PreviewRestore,
    /// Restore to before the shown task, as its preview said.
    Restore,
    /// `/model NAME` (`planner`: `/planner-model`): switch the chat's model; an empty name
    /// lists the models there are.
    ChooseModel {
        planner: bool,
        name: String,
    },
    /// `/prompts` or `/resources` (DESIGN §17): what the chat's MCP servers offer.
    ListOffers {
        resources: bool,
    },
    /// `/diff`: the chat's worktree's changes since it started (DESIGN §18).
    WorktreeDiff,
    /// `/merge` (`/merge squash`): what merging the chat's branch would do, to confirm.
    PreviewMerge(MergeMode),
    /// y on a merge preview that can merge: merge as it said.
    Merge(MergeMode),
    /// `/keep`: the chat's work left as a branch, its folder removed.
    KeepBranch,
    /// `/recreate`: the worktree's folder made again from its branch.
    RecreateWorktree,
}
