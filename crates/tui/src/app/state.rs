//! What the terminal shows and is doing: the chat as the engine last gave it, the tokens
//! streaming in, the live task list, the input line, which card row is chosen, the chat
//! list. Changed only by `events.rs` (the engine's events), `keys.rs` (the user's keys) and
//! the event loop's reloads; read by `view/`.

use preflight_engine::planner::CommentDraft;
use std::cell::Cell;

use preflight_engine::chat::Phase;
use preflight_engine::checkpoints::TaskSpan;
use preflight_engine::ids::{ChatId, MessageId};
use preflight_engine::lifecycle::{
    ChatView, CheckpointDiff, Elicitation, MergeOutcome, RestorePreview, WorktreeView,
};
use preflight_engine::tasks::Task;

use crate::locale::Words;
use crate::theme::Theme;

/// What the input line is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Entry {
    /// A task or a message (revision feedback while a plan waits: the engine's rule).
    Message,
    /// The user's own answer to the question on the card.
    OwnAnswer,
    /// What should change in the waiting plan.
    Feedback,
    /// A comment on step N (0-based) of the waiting plan, the step under the cursor.
    StepComment(usize),
    /// The value of field N of an MCP server's form.
    Field(usize),
}

/// A tool call of the running turn, before its stored result arrives.
#[derive(Debug, Clone, PartialEq)]
pub struct LiveTool {
    pub name: String,
    pub args: String,
    pub result: Option<String>,
    pub error: Option<String>,
}

/// The chat list overlay: every chat, or the search's hits while a query is typed.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ChatList {
    pub query: String,
    pub rows: Vec<ListRow>,
    pub selected: usize,
    /// Delete was pressed on the chosen row: Enter deletes the chat, anything else keeps it.
    pub deleting: bool,
}

#[derive(Debug, Clone, PartialEq)]
pub struct ListRow {
    pub chat_id: ChatId,
    pub title: String,
    /// The matched words of a search hit, or the chat's last change.
    pub detail: String,
}

/// A task's changes over the chat (Ctrl+G): the tasks that have a span of checkpoints, the
/// one shown and its diff, scrolled; and the restore to before it, once asked for.
#[derive(Debug, Clone, Default)]
pub struct DiffView {
    /// Each task with a span, in the order the tasks started, with its title.
    pub spans: Vec<(TaskSpan, String)>,
    pub index: usize,
    pub diff: Option<CheckpointDiff>,
    /// Lines scrolled down from the diff's top.
    pub scroll: usize,
    /// The most `scroll` can be, as the last drawing found it.
    pub overflow: Cell<usize>,
    /// R was pressed: what the restore would do; y restores, any other key keeps.
    pub confirm: Option<RestorePreview>,
}

impl DiffView {
    /// The span shown.
    pub fn span(&self) -> Option<&(TaskSpan, String)> {
        self.spans.get(self.index)
    }
}

/// What the worktree panel shows over the chat: `/diff`, or `/merge`'s preview (y merges as
/// it said when it can; any other key but the scrolling ones closes it).
#[derive(Debug, Clone)]
pub enum PanelShows {
    Diff(Box<WorktreeView>),
    Merge(Box<MergeOutcome>),
}

/// The worktree panel (DESIGN §18), scrolled.
#[derive(Debug, Clone)]
pub struct WorktreePanel {
    pub shows: PanelShows,
    /// Lines scrolled down from the panel's top.
    pub scroll: usize,
    /// The most `scroll` can be, as the last drawing found it.
    pub overflow: Cell<usize>,
}

impl WorktreePanel {
    pub fn new(shows: PanelShows) -> WorktreePanel {
        WorktreePanel { shows, scroll: 0, overflow: Cell::new(0) }
    }
}

pub struct App {
    pub words: &'static Words,
    pub theme: Theme,
    /// The workspace a new chat gets (`--workspace`).
    pub workspace: Option<String>,
    /// Whether a new chat works in a git worktree of its own (`--worktree`, `--no-worktree`;
    /// None: as `config.toml` says).
    pub new_worktree: Option<bool>,
    /// The open chat's worktree and its changes, as last read (None: the chat has none).
    pub worktree: Option<WorktreeView>,
    /// `/diff` or `/merge`'s preview, over the chat.
    pub worktree_panel: Option<WorktreePanel>,
    /// None until the first message of a new chat creates it.
    pub chat: Option<ChatView>,
    /// The first message shown, once older pages were read (PgUp); the chat is then read
    /// from it on. None: the latest page.
    pub from: Option<MessageId>,
    pub phase: Phase,
    pub tasks: Vec<Task>,
    pub elicitations: Vec<Elicitation>,
    /// Executor tokens of the message being written.
    pub streaming: Option<(MessageId, String)>,
    pub live_tools: Vec<LiveTool>,
    /// How long this session's tool calls took.
    pub tool_times: crate::app::timing::ToolTimes,
    pub input: String,
    /// Characters after the input's cursor (0: at the end; `app/input.rs`).
    pub back: usize,
    pub entry: Entry,
    /// The chosen row of the card; reset when another card shows.
    pub selection: usize,
    /// The waiting plan's step under the cursor (Alt+↑↓), 0-based: typing comments on it.
    pub step_cursor: Option<usize>,
    /// Comments on the waiting plan's steps, sent with the next revise.
    pub plan_comments: Vec<CommentDraft>,
    pub card_key: String,
    /// The values of the open MCP form so far (its defaults first).
    pub form: serde_json::Map<String, serde_json::Value>,
    /// Tool calls and their results shown whole instead of folded.
    pub tools_open: bool,
    /// Lines scrolled up from the end of the chat.
    pub scroll: usize,
    /// The last refusal or error, until the next key.
    pub notice: Option<String>,
    /// What a command had to say that is not an error (the models `/model` lists), until
    /// the next key.
    pub info: Option<String>,
    pub chat_list: Option<ChatList>,
    /// A task's diff over the chat (Ctrl+G).
    pub diff: Option<DiffView>,
    /// Lines the card's body is scrolled down when it is taller than its room.
    pub card_scroll: usize,
    /// The most `card_scroll` can be, as the last drawing found it (0: the card fits).
    pub card_overflow: Cell<usize>,
    /// Enter was pressed once on "Approve, run unconfined": the next Enter approves.
    pub unconfined_armed: bool,
    /// Enter on "Accept as is" was pressed once: the next Enter records the acceptance.
    pub accept_armed: bool,
    /// Counts the event loop's ticks while a turn runs: the status line's spinner.
    pub tick: usize,
    pub quit: bool,
}

impl App {
    pub fn new(words: &'static Words, theme: Theme, workspace: Option<String>) -> App {
        App {
            words,
            theme,
            workspace,
            new_worktree: None,
            worktree: None,
            worktree_panel: None,
            chat: None,
            from: None,
            phase: Phase::Idle,
            tasks: Vec::new(),
            elicitations: Vec::new(),
            streaming: None,
            live_tools: Vec::new(),
            tool_times: Default::default(),
            input: String::new(),
            back: 0,
            entry: Entry::Message,
            selection: 0,
            step_cursor: None,
            plan_comments: Vec::new(),
            card_key: String::new(),
            form: serde_json::Map::new(),
            tools_open: false,
            scroll: 0,
            notice: None,
            info: None,
            chat_list: None,
            diff: None,
            card_scroll: 0,
            card_overflow: Cell::new(0),
            unconfined_armed: false,
            accept_armed: false,
            tick: 0,
            quit: false,
        }
    }

    pub fn chat_id(&self) -> Option<&ChatId> {
        self.chat.as_ref().map(|view| &view.chat.id)
    }

    /// A planner or executor turn runs: Esc stops it.
    pub fn running(&self) -> bool {
        matches!(self.phase, Phase::Planning | Phase::Executing)
    }
}
