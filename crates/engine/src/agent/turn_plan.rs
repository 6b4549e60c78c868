//! The built-in `turn_plan` tool: applies one operation to the chat's task list through the
//! tracker, stores the whole new list, and sends a `plan` event with it (DESIGN §5).

use std::sync::Arc;

use serde_json::Value;

use super::{Tool, ToolContext};
use crate::events::Event;
use crate::store::{Store, StoreError};
use crate::tasks::{parameters_schema, tool_description, TaskList, TrackerError, TOOL_NAME};
use crate::tool::{ToolOutput, ToolSpec};

pub struct TurnPlanTool {
    store: Arc<Store>,
}

impl TurnPlanTool {
    pub fn new(store: Arc<Store>) -> TurnPlanTool {
        TurnPlanTool { store }
    }

    /// Reads, applies and saves in one transaction: a refused operation writes nothing.
    fn apply(&self, chat_id: &str, arguments: &Value) -> Result<Result<TaskList, (TrackerError, TaskList)>, StoreError> {
        self.store.write(|tx| {
            let current = tx.task_list(chat_id)?;
            match current.apply_tool_call(arguments) {
                Ok(next) => {
                    tx.save_task_list(chat_id, &next)?;
                    Ok(Ok(next))
                }
                Err(refusal) => Ok(Err((refusal, current))),
            }
        })
    }
}

#[async_trait::async_trait]
impl Tool for TurnPlanTool {
    fn spec(&self) -> ToolSpec {
        ToolSpec { name: TOOL_NAME.to_owned(), description: tool_description(), input_schema: parameters_schema() }
    }

    /// The plan as it now stands; a refusal comes with the plan as it still is.
    async fn call(&self, arguments: Value, context: &ToolContext<'_>) -> ToolOutput {
        match self.apply(context.chat_id, &arguments) {
            Ok(Ok(next)) => {
                context.events.emit(Event::Plan { tasks: next.tasks.clone() });
                ToolOutput::ok(next.render())
            }
            Ok(Err((refusal, current))) => ToolOutput::error(format!("{refusal}\n\n{}", current.render())),
            Err(error) => ToolOutput::error(format!("the plan could not be saved: {error}")),
        }
    }
}
