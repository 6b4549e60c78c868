//! The user's answers to the executor's plan changes (DESIGN §12).
//!
//! An answer is stored with the user's decision as a message in one transaction; when the
//! task list still has work, that message resumes the executor (which reads it as the
//! user's word). When no plan step is left, the plan is complete (`completion.rs`).

use preflight_agent::events::Event;
use preflight_agent::WorkChange;
use preflight_dwp::now_rfc3339;
use preflight_protocol::chat::Phase;
use preflight_protocol::ids::{ChangeId, ChatId};
use preflight_protocol::tasks::{ChangeStatus, PlanChange};
use preflight_store::{Conflict, StoreError};

use crate::lifecycle::completion::complete_if_done;
use crate::lifecycle::engine::Engine;
use crate::lifecycle::error::ApiError;
use crate::lifecycle::hub::TurnKind;
use crate::lifecycle::messages::decision_message;
use crate::lifecycle::runner::{spawn_turn, TurnJob};
use crate::lifecycle::view::ChatView;

impl Engine {
    /// `GET /v1/chats/{id}/plan/changes`: the chat's change requests, oldest first.
    pub fn plan_changes(&self, chat_id: &ChatId) -> Result<Vec<PlanChange>, ApiError> {
        Ok(self.inner.store.plan_changes(chat_id)?)
    }

    /// Approves (or with `approve: false` rejects) a waiting change. Refused while a turn
    /// runs (`ERR_TURN_ACTIVE`), for a change answered already (`ERR_CHANGE_ANSWERED`) or
    /// one the list no longer fits (`ERR_CHANGE_STALE`); nothing changes then. With work
    /// left the executor resumes; with none the plan is complete.
    pub async fn answer_plan_change(
        &self,
        chat_id: &ChatId,
        change_id: &ChangeId,
        approve: bool,
    ) -> Result<ChatView, ApiError> {
        let (answer, guard, decision, before) = {
            let _serial = self.serialize();
            self.inner.store.get_chat(chat_id)?;
            let before = self.inner.store.task_list(chat_id)?;
            // An answered change says so even while the turn it resumed runs.
            let asked = self.inner.store.read(|tx| tx.plan_change(chat_id, change_id))?;
            if asked.status != ChangeStatus::Pending {
                let status = asked.status.as_str();
                let conflict = Conflict::ChangeAnswered { change_id: change_id.clone(), status };
                return Err(StoreError::wrong_state(chat_id, conflict).into());
            }
            let guard = self.claim_turn(chat_id, TurnKind::Executor)?;
            let now = now_rfc3339();
            self.inner.store.write(|tx| {
                let answer = tx.answer_plan_change(chat_id, change_id, approve, &now)?;
                let resumes = answer.list.has_work_left();
                let decision = decision_message(&answer.change);
                if resumes {
                    tx.begin_user_turn(chat_id, &decision, Phase::Executing)?;
                }
                Ok((answer, (guard, resumes), decision, before))
            })?
        };
        let answered = WorkChange::ChangeAnswered {
            change: &answer.change,
            before: &before,
            list: &answer.list,
        };
        self.inner.tell_work(chat_id, answered, &guard.0.cancel).await;
        self.emit(chat_id, Event::PlanChange { change: answer.change.clone() });
        match guard {
            (guard, true) => {
                self.emit(chat_id, Event::TaskList { tasks: answer.list.tasks.clone() });
                self.announce(chat_id, &decision, Phase::Executing);
                spawn_turn(&self.inner, guard, TurnJob::Execute);
            }
            // The chat's turn is held while the plan completes, so Stop ends its gates' reruns.
            (guard, false) => {
                for event in complete_if_done(&self.inner, chat_id, None, &guard.cancel).await {
                    self.emit(chat_id, event);
                }
            }
        }
        self.chat_view(chat_id)
    }
}
