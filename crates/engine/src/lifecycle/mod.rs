//! The chat lifecycle of DESIGN §2 behind one API, [`Engine`], that both adapters call:
//! plan mode (planner turn, questions, plan card, approval), execution, events.
//!
//! **Invariant:** every user action checks the chat's state before it changes anything, so
//! a refused action changes nothing; each multi-row change is one store step. A planning
//! turn's read-only profile is a parameter of its own tool calls, so it cannot outlive the
//! turn or reach another chat.
//!
//! **Boundary:** no HTTP, no Tauri. Errors are [`ApiError`] (`{code, message}`); events go
//! to per-chat subscribers ([`Engine::subscribe`]).
//!
//! This file only names the modules and what the adapters use from them; each definition
//! lives in a file of its own, so no child reaches back up here.

mod attachments;
mod attention;
mod attention_stream;
mod chat_edit;
mod chat_input;
mod chats;
mod checkpoints;
mod completion;
mod continue_work;
mod elicitations;
mod engine;
mod error;
mod export;
mod finalize;
mod fork;
mod gates;
mod hooks;
mod hooks_follow;
mod hub;
mod mcp_settings;
mod messages;
mod metering;
mod model_list;
mod model_switch;
mod notify;
mod open_questions;
mod pages;
mod phases;
mod plan_actions;
mod plan_changes;
mod plan_files;
mod plan_folders;
mod progress;
mod provider_check;
mod provider_settings;
mod providers;
mod recovery;
mod runner;
mod search;
mod send;
mod settings;
mod tool_views;
mod transitions;
mod typed_input;
mod unconfined;
mod venv_adoption;
mod verdict;
mod view;
mod vision;
mod worktrees;

pub use attachments::shown::image_file;
pub use attachments::{
    attachments_dir, check_file, PickedFile, MAX_ATTACHMENTS, MAX_ATTACHMENT_BYTES,
};
pub use attention::{Attended, Waiting};
pub use attention_stream::AttentionStream;
pub use chat_edit::ChatPatch;
pub use chats::{NewChat, DEFAULT_TITLE};
pub use checkpoints::{
    CheckpointDiff, CheckpointList, DiffTruncated, FileChange, RestorePreview, RestoreRequest,
};
pub use engine::{Engine, EngineError, EngineOptions, DATABASE_FILE};
pub use error::{ApiError, ErrorCode};
pub use export::{
    export_chat, export_chat_to_file, import_chat, ChatExport, ExportFormat, ExportedChat,
    ExportedState, FORMAT, MAX_IMPORT_BYTES,
};
pub use fork::ForkRequest;
pub use mcp_settings::{
    McpRemote, McpServerSave, McpServerState, McpServerView, McpSettings, McpTool,
};
pub use model_list::{ModelList, ModelOption, ProviderState};
pub use notify::phase_text;
pub use pages::{ChatPage, MessagePage, CHAT_PAGE, MESSAGE_PAGE};
pub use phases::{ChatPhase, Lagged, PhaseStream};
pub use plan_actions::PlanReview;
pub use plan_files::{PlanFolderLocation, TaskPanel};
pub use preflight_agent::events::Elicitation;
pub use provider_check::{check_provider, ProviderCheck};
pub use provider_settings::{
    read_named_providers, remove_named_provider, save_named_provider, NamedProviderSave,
    NamedProviderView,
};
pub use search::{SearchHit, SearchPage, SnippetPart, MAX_SEARCH_CHARS, SEARCH_PAGE};
pub use settings::{
    read_settings, system_key_stores, write_settings, AppSettings, ProviderChoice, SettingsUpdate,
};
pub use tool_views::SandboxView;
pub use transitions::MAX_QUESTION_ROUNDS;
pub use unconfined::ApproveChoice;
pub use view::{ChatView, StateView};
pub use worktrees::{MergeOutcome, MergeRequest, WorktreeView};
