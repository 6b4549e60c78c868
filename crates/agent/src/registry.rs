//! The tools a turn may use. Tools and tool sources (the MCP host) are registered with an
//! [`Availability`]; a turn gets an [`OfferedTools`] computed once from its [`TurnScope`],
//! and every call is checked against it again at dispatch, so a tool the model was not shown
//! but names anyway is refused with an error result and the loop goes on.
//!
//! **Invariant:** what a model is shown and what it may call are the same set.

use std::collections::HashMap;
use std::sync::Arc;

use preflight_protocol::chat::ToolCall;
use preflight_protocol::ids::ChatId;
use preflight_protocol::tool::{ToolOutput, ToolSpec};
use serde_json::Value;
use tokio_util::sync::CancellationToken;

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
        let mut offered =
            OfferedTools { specs: Vec::new(), routes: HashMap::new(), agent: scope.agent };
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
}

impl OfferedTools {
    /// No tools at all.
    pub fn none(agent: Agent) -> OfferedTools {
        OfferedTools { specs: Vec::new(), routes: HashMap::new(), agent }
    }

    fn add(&mut self, spec: ToolSpec, route: Route) {
        if !self.routes.contains_key(&spec.name) {
            self.routes.insert(spec.name.clone(), route);
            self.specs.push(spec);
        }
    }

    pub fn specs(&self) -> &[ToolSpec] {
        &self.specs
    }

    pub fn names(&self) -> Vec<&str> {
        self.specs.iter().map(|spec| spec.name.as_str()).collect()
    }

    pub fn contains(&self, name: &str) -> bool {
        self.routes.contains_key(name)
    }

    /// Runs `call` if this turn offers its tool; otherwise, or with arguments that are not a
    /// JSON object, an error result for the model.
    pub async fn dispatch(&self, call: &ToolCall, context: &ToolContext<'_>) -> ToolOutput {
        let Some(route) = self.routes.get(&call.name) else {
            return ToolOutput::error(self.refusal(&call.name));
        };
        let arguments = match serde_json::from_str::<Value>(&call.arguments) {
            Ok(arguments @ Value::Object(_)) => arguments,
            Ok(_) => return ToolOutput::error("the arguments must be one JSON object"),
            Err(error) => {
                return ToolOutput::error(format!(
                    "the arguments are not valid JSON ({error}); send one JSON object"
                ))
            }
        };
        match route {
            Route::Tool(tool) => tool.call(arguments, context).await,
            Route::Source(source) => source.call(&call.name, arguments, context.cancel).await,
        }
    }

    fn refusal(&self, name: &str) -> String {
        let when = match self.agent {
            Agent::Planner => "while planning",
            Agent::Executor => "in this turn",
        };
        let names = self.names();
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
