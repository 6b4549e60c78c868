//! The tools a turn may use. Tools and tool sources (the MCP host) are registered with an
//! [`Availability`]; a turn gets an [`OfferedTools`] computed once from its [`TurnScope`],
//! and every call is checked against it again at dispatch, so a tool the model was not shown
//! but names anyway is refused with an error result and the loop goes on.
//!
//! **Invariant:** what a model may call is what the turn was offered, and nothing else. Where
//! tool search defers tools (`tool_search.rs`), a deferred tool is not shown until a
//! `tool_search` call of the turn finds it, or the model calls it by its exact name (it knew
//! it); from then on it is shown too.

use std::collections::HashMap;
use std::sync::Arc;

use preflight_protocol::chat::ToolCall;
use preflight_protocol::ids::ChatId;
use preflight_protocol::tool::{ToolOutput, ToolSpec};
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use super::tool_search::{deferred_names, ToolSearch, TOOL_SEARCH};
use super::EventSink;

/// Which agent runs a turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Agent {
    /// The read-only, quiet planner (DESIGN §2).
    Planner,
    Executor,
}

/// What a turn may use, decided by the lifecycle before the turn starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TurnScope {
    pub agent: Agent,
    /// A task list makes sense in this turn: a plan-mode chat, or a task list already open.
    pub task_list: bool,
}

/// When a registered tool is offered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Availability {
    pub planner: bool,
    pub executor: bool,
    /// Only in turns where a task list makes sense (`TurnScope::task_list`): `turn_plan`.
    pub task_list_only: bool,
}

impl Availability {
    /// Offered to the executor only (built-in tools: the planner gets none).
    pub const EXECUTOR: Availability =
        Availability { planner: false, executor: true, task_list_only: false };
    /// Offered to both agents (a profile's tool source, which filters itself).
    pub const BOTH: Availability =
        Availability { planner: true, executor: true, task_list_only: false };
    /// The executor, and only where a task list makes sense: `turn_plan`.
    pub const EXECUTOR_WITH_TASK_LIST: Availability =
        Availability { planner: false, executor: true, task_list_only: true };

    pub fn admits(&self, scope: &TurnScope) -> bool {
        let agent = match scope.agent {
            Agent::Planner => self.planner,
            Agent::Executor => self.executor,
        };
        agent && (scope.task_list || !self.task_list_only)
    }
}

/// What a tool call may reach besides its arguments.
pub struct ToolContext<'a> {
    pub chat_id: &'a ChatId,
    pub cancel: &'a CancellationToken,
    pub events: &'a dyn EventSink,
}

/// A tool the engine implements itself (e.g. `turn_plan`).
#[async_trait::async_trait]
pub trait Tool: Send + Sync {
    fn spec(&self) -> ToolSpec;
    /// Runs the call. Failures the model should read are `ToolOutput::error`.
    async fn call(&self, arguments: Value, context: &ToolContext<'_>) -> ToolOutput;
}

/// A set of tools served elsewhere: the seam for the MCP host. `tools` is what it offers
/// now (names as models see them, e.g. `mcp_filesystem_read_text_file`); `call` runs one.
#[async_trait::async_trait]
pub trait ToolSource: Send + Sync {
    async fn tools(&self) -> Vec<ToolSpec>;
    async fn call(&self, name: &str, arguments: Value, cancel: &CancellationToken) -> ToolOutput;
}

enum Registrant {
    Tool(Arc<dyn Tool>),
    Source(Arc<dyn ToolSource>),
}

struct Registered {
    registrant: Registrant,
    availability: Availability,
}

/// Every tool and tool source with its availability. Register built-in tools first: on a name
/// clash the first registration wins.
#[derive(Default)]
pub struct ToolRegistry {
    registered: Vec<Registered>,
}

impl ToolRegistry {
    pub fn new() -> ToolRegistry {
        ToolRegistry::default()
    }

    pub fn register(
        &mut self,
        tool: Arc<dyn Tool>,
        availability: Availability,
    ) -> &mut ToolRegistry {
        self.registered.push(Registered { registrant: Registrant::Tool(tool), availability });
        self
    }

    pub fn register_source(
        &mut self,
        source: Arc<dyn ToolSource>,
        availability: Availability,
    ) -> &mut ToolRegistry {
        self.registered.push(Registered { registrant: Registrant::Source(source), availability });
        self
    }

    /// The tools of one turn: those whose availability admits `scope`, in registration order.
    pub async fn offer(&self, scope: &TurnScope) -> OfferedTools {
        let mut offered = OfferedTools::none(scope.agent);
        for registered in self.registered.iter().filter(|r| r.availability.admits(scope)) {
            match &registered.registrant {
                Registrant::Tool(tool) => offered.add(tool.spec(), Route::Tool(tool.clone())),
                Registrant::Source(source) => {
                    for spec in source.tools().await {
                        offered.add(spec, Route::Source(source.clone()));
                    }
                }
            }
        }
        offered
    }
}

#[derive(Clone)]
enum Route {
    Tool(Arc<dyn Tool>),
    Source(Arc<dyn ToolSource>),
}

/// The tools a turn was offered, and the only ones it can call.
pub struct OfferedTools {
    specs: Vec<ToolSpec>,
    routes: HashMap<String, Route>,
    agent: Agent,
    /// Set when tool sources' tools are deferred behind `tool_search`.
    search: Option<ToolSearch>,
}

impl OfferedTools {
    /// No tools at all.
    pub fn none(agent: Agent) -> OfferedTools {
        OfferedTools { specs: Vec::new(), routes: HashMap::new(), agent, search: None }
    }

    /// These tools with tool search where the tool sources' definitions take more than
    /// `limit` tokens: the built-in tools and, while they fit, the `recent` ones (most recent
    /// first) stay shown beside `tool_search`; the others wait to be found.
    pub fn with_tool_search(mut self, limit: u64, recent: &[String]) -> OfferedTools {
        let sourced: Vec<ToolSpec> = self
            .specs
            .iter()
            .filter(|spec| matches!(self.routes.get(&spec.name), Some(Route::Source(_))))
            .cloned()
            .collect();
        if let Some(names) = deferred_names(&sourced, limit, recent) {
            let deferred = sourced.into_iter().filter(|spec| names.contains(&spec.name));
            self.search = Some(ToolSearch::new(deferred.collect()));
        }
        self
    }

    /// What the model is shown now: every offered tool but those still deferred, then
    /// `tool_search` when tools are deferred.
    pub fn shown(&self) -> Vec<ToolSpec> {
        let Some(search) = &self.search else { return self.specs.clone() };
        let mut shown: Vec<ToolSpec> =
            self.specs.iter().filter(|spec| !search.hides(&spec.name)).cloned().collect();
        shown.push(search.spec());
        shown
    }

    /// The tools deferred behind `tool_search` when the turn started (none without it).
    pub fn deferred(&self) -> Vec<&str> {
        self.search.as_ref().map(|search| search.deferred().collect()).unwrap_or_default()
    }

    /// What the turn's searches have found so far.
    pub fn found(&self) -> Vec<ToolSpec> {
        self.search.as_ref().map(ToolSearch::found_specs).unwrap_or_default()
    }

    fn add(&mut self, spec: ToolSpec, route: Route) {
        if !self.routes.contains_key(&spec.name) {
            self.routes.insert(spec.name.clone(), route);
            self.specs.push(spec);
        }
    }

    /// Every tool the turn was offered, deferred or not.
    pub fn specs(&self) -> &[ToolSpec] {
        &self.specs
    }

    /// The names of every tool the turn was offered, deferred or not.
    pub fn names(&self) -> Vec<&str> {
        self.specs.iter().map(|spec| spec.name.as_str()).collect()
    }

    pub fn contains(&self, name: &str) -> bool {
        self.routes.contains_key(name)
    }

    /// Runs `call` if this turn offers its tool; otherwise, or with arguments that are not a
    /// JSON object, an error result for the model.
    pub async fn dispatch(&self, call: &ToolCall, context: &ToolContext<'_>) -> ToolOutput {
        let searching = self.search.as_ref().filter(|_| call.name == TOOL_SEARCH);
        let route = self.routes.get(&call.name);
        if searching.is_none() && route.is_none() {
            return ToolOutput::error(self.refusal(&call.name));
        }
        if let Some(search) = &self.search {
            // Named exactly, a deferred tool is as good as found: the model knew it.
            search.reveal(&call.name);
        }
        let arguments = match serde_json::from_str::<Value>(&call.arguments) {
            Ok(arguments @ Value::Object(_)) => arguments,
            Ok(_) => return ToolOutput::error("the arguments must be one JSON object"),
            Err(error) => {
                return ToolOutput::error(format!(
                    "the arguments are not valid JSON ({error}); send one JSON object"
                ))
            }
        };
        match (searching, route) {
            (Some(search), _) => search.call(&arguments),
            (None, Some(Route::Tool(tool))) => tool.call(arguments, context).await,
            (None, Some(Route::Source(source))) => {
                source.call(&call.name, arguments, context.cancel).await
            }
            (None, None) => ToolOutput::error(self.refusal(&call.name)),
        }
    }

    fn refusal(&self, name: &str) -> String {
        let when = match self.agent {
            Agent::Planner => "while planning",
            Agent::Executor => "in this turn",
        };
        let shown = self.shown();
        let names: Vec<&str> = shown.iter().map(|spec| spec.name.as_str()).collect();
        let available = if names.is_empty() { "none".to_owned() } else { names.join(", ") };
        format!("the tool {name:?} is not available {when}; available tools: {available}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_of_availability() {
        let planner = TurnScope { agent: Agent::Planner, task_list: true };
        let executor_with_task_list = TurnScope { agent: Agent::Executor, task_list: true };
        let executor_without = TurnScope { agent: Agent::Executor, task_list: false };
        let cases = [
            (Availability::EXECUTOR, [false, true, true]),
            (Availability::BOTH, [true, true, true]),
            (Availability::EXECUTOR_WITH_TASK_LIST, [false, true, false]),
        ];
        for (availability, expected) in cases {
            let got = [planner, executor_with_task_list, executor_without]
                .map(|scope| availability.admits(&scope));
            assert_eq!(got, expected, "{availability:?}");
        }
    }
}
