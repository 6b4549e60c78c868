//! The agent loop: model ↔ tools until the model answers, quiet (the planner) or streaming
//! (the executor), with the tool registry and each tool's availability, prompt assembly and the nag.
//!
//! **Invariant:** a turn only calls the tools it was offered (`registry.rs`); the volatile
//! `[state]` tail never enters the stable prefix (`prompt.rs`); a stored turn never holds
//! half a round (`turn_loop.rs`, `record.rs`).
//!
//! **Boundary:** no lifecycle here (phases, cards, profiles, the planner's fences): the
//! caller decides the prompt, the history, the offered tools and where rounds are stored.
//!
//! **What it may use:** the protocol crate, the store, the providers and the MCP host below
//! it, and the plan-folder and checkpoint crates; never the engine's lifecycle, which calls
//! it. It also holds what a turn sends (`events.rs`), the checkpoints a turn takes
//! (`checkpoints.rs`), the conversions to the plan folder's inputs (`dwp_input.rs`), and the
//! work stream (`work.rs`): where every change of a chat's task list or plan is said, and
//! where the engine's plan-folder projection listens.

mod attachment_tool;
pub mod checkpoints;
mod compact;
mod context;
mod dwp_input;
pub mod events;
mod images;
mod nag;
mod plan_change;
mod plan_folder;
mod plan_status;
mod prompt;
mod record;
mod registry;
mod round_rule;
mod sink;
pub mod skills;
mod tool_hooks;
mod tool_search;
mod turn_loop;
mod turn_plan;
mod work;
mod workspace_probe;

use std::sync::Arc;

pub use attachment_tool::{ReadAttachmentTool, PAGE_BYTES, READ_ATTACHMENT};
pub use compact::{transcript, view_of, SUMMARY_PROMPT};
pub use context::{
    compaction_span, elide_old_images, elide_old_results, rounds, Estimator, IMAGE_TOKENS,
};
pub use dwp_input::{gate_input, plan_input, tracked_task, tracked_tasks};
pub use images::{keep_tool_images, ImageLoader};
pub use nag::{Nag, REMINDER, ROUNDS_BEFORE_REMINDER};
pub use plan_folder::PlanFolderLink;
pub use plan_folder::{
    amend_plan_files, pause_for_change, pause_task, record_failing_gate, resume_paused,
    sync_plan_files, sync_restored_plan_files,
};
pub use plan_status::{plan_status, PlanStatus, PlanStatusTool, Progress, PLAN_STATUS};
pub use prompt::{
    executor_system_prompt, load_workspace_instructions, state_tail, workspace_instructions,
    DEFAULT_EXECUTOR_PROMPT, INSTRUCTIONS_CAP, TRUNCATED_NOTE,
};
pub use record::{ChatLedger, RoundRecorder, TaskListSource};
pub use registry::{
    Agent, Availability, OfferedTools, Tool, ToolContext, ToolRegistry, ToolSource, TurnScope,
};
pub use round_rule::{
    Halt, RoundRule, RoundWatch, DEFAULT_MAX_ROUNDS, DEFAULT_NO_PROGRESS_ROUNDS, LOOP_REPEATS,
};
pub use sink::{EventSink, NoEvents};
pub use tool_hooks::{HookVerdict, ToolHooks};
pub use tool_search::{deferred_names, spec_tokens, FOUND_PER_SEARCH, RECENT_TOOLS, TOOL_SEARCH};
pub use turn_loop::{run_turn, AgentError, Turn, TurnEnd, TurnMode, TurnOutcome};
pub use turn_plan::gate_record;
pub use turn_plan::{GateRunner, TurnPlanTool, GATE_TIMEOUT_S};
pub use work::{Heard, WorkChange, WorkListener, WorkStream};
pub use workspace_probe::{fingerprint, MAX_ENTRIES};

use preflight_store::Store;

/// The per-chat step limit of the planner (DESIGN §2); the executor's is the caller's call.
pub const PLANNER_MAX_ROUNDS: u32 = 12;

impl ToolRegistry {
    /// A registry holding the built-in tools: `turn_plan`, for the executor where task lists
    /// make sense. Register tool sources (the MCP host) after it.
    pub fn with_builtins(store: Arc<Store>) -> ToolRegistry {
        ToolRegistry::with_turn_plan(TurnPlanTool::new(store))
    }

    /// A registry holding `turn_plan` as given (e.g. linked to the chat's `.dwp` plan folder).
    pub fn with_turn_plan(turn_plan: TurnPlanTool) -> ToolRegistry {
        let mut registry = ToolRegistry::new();
        registry.register(Arc::new(turn_plan), Availability::EXECUTOR_WITH_TASK_LIST);
        registry
    }
}
