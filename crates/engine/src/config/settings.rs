//! What `config.toml` says, as plain values with their defaults: [`Config`] and its
//! sections. Read by `parse.rs`, written by `write.rs`.

use preflight_llm::{ProviderSettings, RetryPolicy};
use preflight_mcp::confinement::ConfinementMode;
use preflight_protocol::usage::Prices;

pub const CONFIG_FILE: &str = "config.toml";

#[derive(Debug, Clone, PartialEq)]
pub struct Config {
    pub provider: ProviderSettings,
    /// `[planner]`: a stronger or cheaper model for planning; none plans with `provider`.
    pub planner: Option<ProviderSettings>,
    pub plan_mode: PlanModeDefaults,
    pub sandbox: SandboxSettings,
    pub executor: ExecutorSettings,
    /// `[provider]`'s prices and listed models.
    pub provider_extras: ProviderExtras,
    /// `[planner]`'s (its own prices; the provider's when it has none and talks to it).
    pub planner_extras: ProviderExtras,
    /// `[providers.NAME]`, in the file's order (DESIGN §15): more providers a chat may choose.
    pub providers: Vec<NamedProvider>,
    /// `[mcp]`: when tool search defers the MCP tools (DESIGN §17).
    pub mcp: McpToolSettings,
    /// `[workspace]`: what a new chat in a git repository gets (DESIGN §18).
    pub workspace: WorkspaceDefaults,
}

/// `[workspace]`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct WorkspaceDefaults {
    /// `worktrees = true`: a new chat whose workspace is a git repository works in a
    /// worktree of its own unless it is created without one (off by default).
    pub worktrees: bool,
}

/// The name `[provider]` goes by where a chat chooses a model (`{provider: "default"}`).
pub const DEFAULT_PROVIDER: &str = "default";

/// What a provider section says beside its connection: the user's prices and the models it
/// lists as choosable without asking the server.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ProviderExtras {
    /// `price_input_per_mtok`, `price_output_per_mtok`, `price_cached_input_per_mtok` (USD).
    pub prices: Prices,
    /// `models = [...]`: more models of this provider a chat may choose (its `model` is
    /// always one).
    pub models: Vec<String>,
}

/// `[providers.NAME]`: a provider a chat may choose beside the default one.
#[derive(Debug, Clone, PartialEq)]
pub struct NamedProvider {
    pub name: String,
    pub settings: ProviderSettings,
    pub extras: ProviderExtras,
}

/// `[executor]`: how long one executor turn may work. A long run's history is kept within
/// the model's context by compaction (DESIGN §13), so the limits are about progress, cost
/// and runaway loops, not the window: a turn goes on while it changes the task list or the
/// workspace (`agent/round_rule.rs`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ExecutorSettings {
    /// The hard cap: tool rounds one turn may run, progress or not.
    pub max_rounds: u32,
    /// Rounds in a row without progress that end a turn.
    pub no_progress_rounds: u32,
    /// Times the executor continues by itself while tasks are left and its last turn made
    /// progress; 0 (the default) leaves every Continue to the user.
    pub auto_continue: u32,
}

impl Default for ExecutorSettings {
    fn default() -> ExecutorSettings {
        ExecutorSettings {
            max_rounds: preflight_agent::DEFAULT_MAX_ROUNDS,
            no_progress_rounds: preflight_agent::DEFAULT_NO_PROGRESS_ROUNDS,
            auto_continue: 0,
        }
    }
}

/// `[mcp]`: the share of the context window the MCP tools' definitions may take; over it,
/// a turn is shown the built-in tools, the recent ones and `tool_search` (DESIGN §17).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct McpToolSettings {
    /// `tool_budget`: a fraction of the window, above 0 and at most 1 (1: never defer).
    pub tool_budget: f64,
}

impl Default for McpToolSettings {
    fn default() -> McpToolSettings {
        McpToolSettings { tool_budget: 0.10 }
    }
}

impl McpToolSettings {
    /// The tokens the MCP tools' definitions may take in a window of `window` tokens.
    pub fn limit(&self, window: u32) -> u64 {
        (f64::from(window) * self.tool_budget).floor() as u64
    }
}

/// `[sandbox]` (DESIGN §11): whether chats with a workspace get Preflight's code sandbox,
/// and whether commands and Python in it may use the network (off by default: only pip's
/// installs reach it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SandboxSettings {
    pub enabled: bool,
    pub network: bool,
    /// `max_file_mib`: the largest file a run may write; `None` keeps the sandbox's own
    /// default (4096 MiB).
    pub max_file_mib: Option<u32>,
    /// `confinement`: `auto` (bubblewrap where it works, else the user allows unconfined runs
    /// on each plan), `bubblewrap` (or no sandbox), `off` (unconfined on purpose).
    pub confinement: ConfinementMode,
    /// `allow_sdists`: pip may build source distributions (their `setup.py` runs at install
    /// time, with pip's network); off by default, when installs take wheels only.
    pub allow_sdists: bool,
}

impl Default for SandboxSettings {
    fn default() -> SandboxSettings {
        SandboxSettings {
            enabled: true,
            network: false,
            max_file_mib: None,
            confinement: ConfinementMode::Auto,
            allow_sdists: false,
        }
    }
}

/// What new chats get when their own settings leave plan mode open.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PlanModeDefaults {
    pub enabled: bool,
    pub auto_approve: bool,
    /// What a chat does when its planner fails (`on_planner_failure`).
    pub on_planner_failure: OnPlannerFailure,
}

impl Default for PlanModeDefaults {
    fn default() -> PlanModeDefaults {
        PlanModeDefaults {
            enabled: true,
            auto_approve: false,
            on_planner_failure: OnPlannerFailure::Execute,
        }
    }
}

/// `[plan_mode] on_planner_failure`: what a chat does when its planner fails (the provider
/// is down, its answer cannot be read twice). Either way the chat says so.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum OnPlannerFailure {
    /// `"execute"` (seed 003): the executor goes on without a plan.
    #[default]
    Execute,
    /// `"stop"`: nothing runs; the chat waits, and the message sent again plans again.
    Stop,
}

impl OnPlannerFailure {
    /// The configuration file's spelling.
    pub fn parse(word: &str) -> Option<OnPlannerFailure> {
        match word {
            "execute" => Some(OnPlannerFailure::Execute),
            "stop" => Some(OnPlannerFailure::Stop),
            _ => None,
        }
    }
}

impl Default for Config {
    /// No file: the embedded model, plan mode on.
    fn default() -> Config {
        Config {
            provider: ProviderSettings::embedded(),
            planner: None,
            plan_mode: PlanModeDefaults::default(),
            sandbox: SandboxSettings::default(),
            executor: ExecutorSettings::default(),
            provider_extras: ProviderExtras::default(),
            planner_extras: ProviderExtras::default(),
            providers: Vec::new(),
            mcp: McpToolSettings::default(),
            workspace: WorkspaceDefaults::default(),
        }
    }
}

impl Config {
    /// The settings planner turns use: `[planner]`, else `[provider]`.
    pub fn planner_settings(&self) -> ProviderSettings {
        match &self.planner {
            Some(planner) => planner.clone(),
            None => ProviderSettings { retry: RetryPolicy::planner(), ..self.provider.clone() },
        }
    }
}
