//! The tools a turn may use. Tools and tool sources (the MCP host) are registered with
//! [`Gates`]; a turn gets an [`OfferedTools`] computed once from its [`TurnScope`], and every
//! call is checked against it again at dispatch, so a tool the model was not shown but names
//! anyway is refused with an error result and the loop goes on.
//!
//! **Invariant:** what a model is shown and what it may call are the same set.

use std::collections::HashMap;
use std::sync::Arc;

use serde_json::Value;
use tokio_util::sync::CancellationToken;

use super::EventSink;
use crate::chat::ToolCall;
use crate::tool::{ToolOutput, ToolSpec};

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
    /// A plan makes sense in this turn: a plan-mode chat, or a task list already open.
    pub plans: bool,
}

/// When a registered tool is offered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Gates {
    pub planner: bool,
    pub executor: bool,
    /// Only in turns where a plan makes sense (`TurnScope::plans`): `turn_plan`'s gate.
    pub planning_only: bool,
}

impl Gates {
    /// Offered to the executor only (built-in tools: the planner gets none).
    pub const EXECUTOR: Gates = Gates { planner: false, executor: true, planning_only: false };
    /// Offered to both agents (a profile's tool source, which filters itself).
    pub const BOTH: Gates = Gates { planner: true, executor: true, planning_only: false };
    /// The executor, and only where a plan makes sense: `turn_plan`.
    pub const EXECUTOR_WHERE_PLANS: Gates =
        Gates { planner: false, executor: true, planning_only: true };

    pub fn admits(&self, scope: &TurnScope) -> bool {
        let agent = match scope.agent {
            Agent::Planner => self.planner,
            Agent::Executor => self.executor,
        };
        agent && (scope.plans || !self.planning_only)
    }
}

/// What a tool call may reach besides its arguments.
pub struct ToolContext<'a> {
    pub chat_id: &'a str,
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
    gates: Gates,
}

/// Every tool and tool source with its gates. Register built-in tools first: on a name
/// clash the first registration wins.
#[derive(Default)]
pub struct ToolRegistry {
    registered: Vec<Registered>,
}

impl ToolRegistry {
    pub fn new() -> ToolRegistry {
        ToolRegistry::default()
    }

    pub fn register(&mut self, tool: Arc<dyn Tool>, gates: Gates) -> &mut ToolRegistry {
        self.registered.push(Registered { registrant: Registrant::Tool(tool), gates });
        self
    }

    pub fn register_source(
        &mut self,
        source: Arc<dyn ToolSource>,
        gates: Gates,
    ) -> &mut ToolRegistry {
        self.registered.push(Registered { registrant: Registrant::Source(source), gates });
        self
    }

    /// The tools of one turn: those whose gates admit `scope`, in registration order.
    pub async fn offer(&self, scope: &TurnScope) -> OfferedTools {
        let mut offered =
            OfferedTools { specs: Vec::new(), routes: HashMap::new(), agent: scope.agent };
        for registered in self.registered.iter().filter(|r| r.gates.admits(scope)) {
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
    fn table_of_gates() {
        let planner = TurnScope { agent: Agent::Planner, plans: true };
        let executor_with_plans = TurnScope { agent: Agent::Executor, plans: true };
        let executor_without = TurnScope { agent: Agent::Executor, plans: false };
        let cases = [
            (Gates::EXECUTOR, [false, true, true]),
            (Gates::BOTH, [true, true, true]),
            (Gates::EXECUTOR_WHERE_PLANS, [false, true, false]),
        ];
        for (gates, expected) in cases {
            let got =
                [planner, executor_with_plans, executor_without].map(|scope| gates.admits(&scope));
            assert_eq!(got, expected, "{gates:?}");
        }
    }
}
