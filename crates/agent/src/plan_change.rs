//! `turn_plan` calls that would change the approved plan (DESIGN §12): never applied by the
//! model alone. The call becomes a change request that waits for the user (the tool says
//! so, and the model goes on with other work), or, in an auto-approve chat, is applied at
//! once and recorded.

use preflight_dwp::now_rfc3339;
use preflight_protocol::ids::ChatId;
use preflight_protocol::tasks::{ChangeRequest, Operation, PlanChange, TaskList};
use preflight_protocol::tool::ToolOutput;
use preflight_store::{ChangeAnswer, ChangeAsked};

use super::turn_plan::TurnPlanTool;
use super::ToolContext;
use crate::events::Event;
use crate::work::WorkChange;

impl TurnPlanTool {
    /// The tool's answer when `op` is a plan change (or a refused one); `None` when it is
    /// an ordinary operation that the tracker applies.
    pub(super) async fn plan_change(
        &self,
        chat_id: &ChatId,
        op: &Operation,
        context: &ToolContext<'_>,
    ) -> Option<ToolOutput> {
        let current = match self.store.task_list(chat_id) {
            Ok(list) => list,
            Err(error) => return Some(ToolOutput::error(error.to_string())),
        };
        let request = match current.plan_change(op) {
            Ok(Some(request)) => request,
            Ok(None) => return None,
            Err(refusal) => {
                return Some(ToolOutput::error(format!("{refusal}\n\n{}", current.render())))
            }
        };
        Some(match self.auto_approve {
            true => self.apply_at_once(chat_id, request, context, &current).await,
            false => self.ask_the_user(chat_id, request, context, &current.render()).await,
        })
    }

    async fn ask_the_user(
        &self,
        chat_id: &ChatId,
        request: ChangeRequest,
        context: &ToolContext<'_>,
        shown: &str,
    ) -> ToolOutput {
        match self.store.ask_plan_change(chat_id, request, &now_rfc3339()) {
            Ok(ChangeAsked::Waiting(change)) => {
                let asked = WorkChange::ChangeAsked { change: &change };
                self.work.emit_to(context.events, chat_id, asked, context.cancel).await;
                context.events.emit(Event::PlanChange { change: change.clone() });
                ToolOutput::ok(format!("{}\n\n{shown}", waiting_text(&change)))
            }
            Ok(ChangeAsked::AlreadyWaiting(change)) => ToolOutput::error(format!(
                "A change of this part of the plan already waits for the user ({}). Do not ask \
                 again: go on with other tasks, or end your turn.\n\n{shown}",
                change.describe()
            )),
            Err(error) => ToolOutput::error(format!("{error}\n\n{shown}")),
        }
    }

    async fn apply_at_once(
        &self,
        chat_id: &ChatId,
        request: ChangeRequest,
        context: &ToolContext<'_>,
        before: &TaskList,
    ) -> ToolOutput {
        let answer = match self.store.apply_auto_change(chat_id, request, &now_rfc3339()) {
            Ok(answer) => answer,
            Err(error) => {
                let shown = self.store.task_list(chat_id).unwrap_or_default().render();
                return ToolOutput::error(format!("{error}\n\n{shown}"));
            }
        };
        let ChangeAnswer { change, list, .. } = answer;
        let answered = WorkChange::ChangeAnswered { change: &change, before, list: &list };
        self.work.emit_to(context.events, chat_id, answered, context.cancel).await;
        context.events.emit(Event::TaskList { tasks: list.tasks.clone() });
        context.events.emit(Event::PlanChange { change: change.clone() });
        let revision = change.revision.map(|n| format!(" (plan revision {n})")).unwrap_or_default();
        ToolOutput::ok(format!(
            "This chat approves plan changes itself: applied and recorded{revision}: {}.\n\n{}",
            change.describe(),
            list.render()
        ))
    }
}

/// What the model reads when its change waits: not applied, and what to do meanwhile.
fn waiting_text(change: &PlanChange) -> String {
    format!(
        "Not applied: this changes the approved plan ({}), so it waits for the user's answer \
         (change {}). The task stays as it is. Do not ask again: go on with the other tasks; \
         if nothing else can be done, end your turn and say what you are waiting for.",
        change.describe(),
        change.id
    )
}
