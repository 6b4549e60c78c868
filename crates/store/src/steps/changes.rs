//! The plan as a contract (DESIGN §12): a change request waits, its answer applies it (a new
//! plan revision, the task list changed) or keeps the plan; an auto-approve chat applies it
//! at once and records it. Each step is one transaction.

use preflight_protocol::ids::{ChangeId, ChatId};
use preflight_protocol::planner::{executor_revision, Approval, PlanDocument};
use preflight_protocol::tasks::{ChangeRequest, ChangeStatus, PlanChange, TaskList};

use crate::error::{Conflict, StoreError};
use crate::tx::Tx;
use crate::Store;

/// What asking for a change did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ChangeAsked {
    /// Stored; it waits for the user.
    Waiting(PlanChange),
    /// A change of the same task already waits: nothing was stored.
    AlreadyWaiting(PlanChange),
}

/// An answered change with what it did: the task list after it and, for an approval, the
/// plan revision it made.
#[derive(Debug, Clone, PartialEq)]
pub struct ChangeAnswer {
    pub change: PlanChange,
    pub list: TaskList,
    pub revision: Option<PlanDocument>,
}

impl Tx<'_> {
    /// Stores `request` as a change waiting for the user, unless one about the same task
    /// (or a replacement, for a replacement) waits already. Refused (`ChangeStale`) when it
    /// could not apply to the list as it is.
    pub fn ask_plan_change(
        &mut self,
        chat_id: &ChatId,
        request: ChangeRequest,
        now: &str,
    ) -> Result<ChangeAsked, StoreError> {
        let waiting = self.plan_changes(chat_id)?.into_iter().find(|change| {
            change.status == ChangeStatus::Pending && change.request.task == request.task
        });
        if let Some(waiting) = waiting {
            return Ok(ChangeAsked::AlreadyWaiting(waiting));
        }
        let change = new_change(request, now);
        self.task_list(chat_id)?
            .with_change(&change.request)
            .map_err(|refusal| stale(chat_id, &change.id, refusal))?;
        self.insert_plan_change(chat_id, &change)?;
        Ok(ChangeAsked::Waiting(change))
    }

    /// The user's answer to a waiting change: approving applies it, rejecting keeps the
    /// plan. `ChangeAnswered` when it was answered already, `ChangeStale` when the list no
    /// longer has what it is about; either way nothing changes.
    pub fn answer_plan_change(
        &mut self,
        chat_id: &ChatId,
        change_id: &ChangeId,
        approve: bool,
        now: &str,
    ) -> Result<ChangeAnswer, StoreError> {
        let mut change = self.plan_change(chat_id, change_id)?;
        if change.status != ChangeStatus::Pending {
            let status = change.status.as_str();
            let conflict = Conflict::ChangeAnswered { change_id: change_id.clone(), status };
            return Err(StoreError::wrong_state(chat_id, conflict));
        }
        change.answered_at = Some(now.to_owned());
        if !approve {
            change.status = ChangeStatus::Rejected;
            self.update_plan_change(chat_id, &change)?;
            let list = self.task_list(chat_id)?;
            return Ok(ChangeAnswer { change, list, revision: None });
        }
        let (list, revision) = self.apply_change(chat_id, &mut change, now)?;
        self.update_plan_change(chat_id, &change)?;
        Ok(ChangeAnswer { change, list, revision })
    }

    /// An auto-approve chat's change: applied at once and recorded as approved.
    pub fn apply_auto_change(
        &mut self,
        chat_id: &ChatId,
        request: ChangeRequest,
        now: &str,
    ) -> Result<ChangeAnswer, StoreError> {
        let mut change = new_change(request, now);
        change.auto_approved = true;
        change.answered_at = Some(now.to_owned());
        let (list, revision) = self.apply_change(chat_id, &mut change, now)?;
        self.insert_plan_change(chat_id, &change)?;
        Ok(ChangeAnswer { change, list, revision })
    }

    /// Applies an approved change: the list changed and stamped, and a new plan revision
    /// (author: executor) when the chat carries out a plan.
    fn apply_change(
        &mut self,
        chat_id: &ChatId,
        change: &mut PlanChange,
        now: &str,
    ) -> Result<(TaskList, Option<PlanDocument>), StoreError> {
        let list = self.task_list(chat_id)?;
        let next = list.with_change(&change.request).map_err(|e| stale(chat_id, &change.id, e))?;
        let next = next.stamped(&list, now);
        self.save_task_list(chat_id, &next)?;
        let revision = match self.latest_plan(chat_id)? {
            Some(current)
                if matches!(current.approval, Approval::Approved | Approval::PreApproved) =>
            {
                let revised = executor_revision(&current, &next.tasks, now);
                Some(self.put_plan_revision(chat_id, revised)?)
            }
            _ => None,
        };
        change.status = ChangeStatus::Approved;
        change.revision = revision.as_ref().map(|document| document.revision);
        Ok((next, revision))
    }
}

fn new_change(request: ChangeRequest, now: &str) -> PlanChange {
    PlanChange {
        id: ChangeId::new(),
        request,
        status: ChangeStatus::Pending,
        requested_at: now.to_owned(),
        answered_at: None,
        auto_approved: false,
        revision: None,
    }
}

fn stale(chat_id: &ChatId, change_id: &ChangeId, refusal: impl ToString) -> StoreError {
    let detail = refusal.to_string();
    StoreError::wrong_state(chat_id, Conflict::ChangeStale { change_id: change_id.clone(), detail })
}

impl Store {
    /// See [`Tx::ask_plan_change`].
    pub fn ask_plan_change(
        &self,
        chat_id: &ChatId,
        request: ChangeRequest,
        now: &str,
    ) -> Result<ChangeAsked, StoreError> {
        self.write(|tx| tx.ask_plan_change(chat_id, request, now))
    }

    /// See [`Tx::answer_plan_change`].
    pub fn answer_plan_change(
        &self,
        chat_id: &ChatId,
        change_id: &ChangeId,
        approve: bool,
        now: &str,
    ) -> Result<ChangeAnswer, StoreError> {
        self.write(|tx| tx.answer_plan_change(chat_id, change_id, approve, now))
    }

    /// See [`Tx::apply_auto_change`].
    pub fn apply_auto_change(
        &self,
        chat_id: &ChatId,
        request: ChangeRequest,
        now: &str,
    ) -> Result<ChangeAnswer, StoreError> {
        self.write(|tx| tx.apply_auto_change(chat_id, request, now))
    }

    /// The plan is carried out: its completion record stored and the finished task list
    /// closed, in one transaction (the record is never lost with the list) — or, when the
    /// finaliser withdrew tasks, the list kept as `open` (those tasks open again). Not a
    /// turn's end: the caller ends the turn as usual.
    pub fn complete_plan(
        &self,
        chat_id: &ChatId,
        completion: &preflight_protocol::tasks::Completion,
        open: &preflight_protocol::tasks::TaskList,
    ) -> Result<(), StoreError> {
        self.write(|tx| {
            tx.set_completion(chat_id, Some(completion))?;
            tx.clear_current_stop(chat_id)?;
            match open.tasks.is_empty() {
                true => tx.delete_task_list(chat_id).map(drop),
                false => tx.save_task_list(chat_id, open),
            }
        })
    }
}
