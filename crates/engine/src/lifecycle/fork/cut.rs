//! The cut a fork makes (DESIGN §15 "Fork"), pure: from what the original chat stored, the
//! new chat as the original stood at one of its points.
//!
//! "As it stood there" is a point's (`crates/store/src/points.rs`): the chat right after the
//! transaction that stored the message the fork is made at — so a round of the executor is
//! never split (its tool results were stored with it), and what came after it is not in the
//! fork: the user's decision on a plan card (the card waits again), a plan edited later (the
//! card shows the revision it showed then), plan changes answered later (they wait again),
//! stops, the completion, model calls and the task list's later states. A fork at a
//! checkpoint is the chat at the point the checkpoint was taken after, with the checkpoint's
//! task list: a checkpoint is taken only while the executor works, so its plan was approved.

use std::collections::HashMap;

use preflight_protocol::chat::{Chat, ChatSettings, Message, MessageBody, Phase};
use preflight_protocol::ids::{ChangeId, MessageId};
use preflight_protocol::planner::{Approval, PlanDocument};
use preflight_protocol::tasks::{ChangeStatus, PlanChange, TaskList};
use preflight_protocol::usage::ModelCall;
use preflight_store::{ChatImport, ChatPoint, ImportedPoint, PointState};

/// What the original stored, read in one transaction, up to the cut.
#[derive(Debug, Clone)]
pub(super) struct ForkSource {
    pub chat: Chat,
    /// The messages up to the cut's point, oldest first, each with its `seq`.
    pub messages: Vec<(i64, Message)>,
    /// Every plan revision the original has now (the cut keeps those of its point).
    pub revisions: Vec<PlanDocument>,
    /// Every plan change the original has now (the cut keeps those of its point).
    pub changes: Vec<PlanChange>,
    /// The model calls up to the point.
    pub model_calls: Vec<ModelCall>,
    pub state: PointState,
    pub task_list: TaskList,
    /// The original's points up to the cut, so that the fork can be forked again there.
    pub points: Vec<ChatPoint>,
}

/// The state and task list of a fork at a checkpoint: the point's, with the checkpoint's
/// list, the plan approved (it was, for a checkpoint to be taken) and the executor at work,
/// which the fork settles as stopped.
pub(super) fn at_checkpoint(mut state: PointState, tasks: TaskList) -> (PointState, TaskList) {
    if state.approval == Some(Approval::Pending) {
        state.approval = Some(Approval::Approved);
    }
    state.phase = Phase::Executing;
    state.plan_pending = None;
    if tasks.has_work_left() {
        state.completion = None;
    }
    (state, tasks)
}

/// The new chat: `source` cut at its point, with fresh ids and `settings`, created `now`.
pub(super) fn forked(source: ForkSource, settings: ChatSettings, now: &str) -> ChatImport {
    let ForkSource { chat, messages, revisions, changes, model_calls, state, task_list, points } =
        source;
    let revisions = revisions_then(revisions, &state);
    let message_ids: HashMap<MessageId, MessageId> =
        messages.iter().map(|(_, m)| (m.id.clone(), MessageId::new())).collect();
    let change_ids: HashMap<ChangeId, ChangeId> =
        state.changes.iter().map(|(id, _)| (id.clone(), ChangeId::new())).collect();
    let points = points_then(&points, &messages, &change_ids);
    let messages = messages
        .into_iter()
        .map(|(_, message)| message_then(message, &message_ids, &revisions))
        .collect();
    ChatImport {
        settings,
        created_at: now.to_owned(),
        phase: state.phase,
        plan_pending: state.plan_pending.clone(),
        plans_again: state.plans_again,
        messages,
        revisions,
        task_list,
        changes: changes_then(changes, &state, &change_ids),
        stops: state.stops,
        completion: state.completion,
        model: chat.model,
        planner_model: chat.planner_model,
        model_calls,
        points,
    }
}

/// The revisions there were at the point, the latest with its approval then (and with the
/// comments it was sent back with only if it had been sent back by then).
fn revisions_then(mut revisions: Vec<PlanDocument>, state: &PointState) -> Vec<PlanDocument> {
    revisions.truncate(state.revisions as usize);
    if let (Some(latest), Some(approval)) = (revisions.last_mut(), state.approval) {
        latest.approval = approval;
        if approval != Approval::Rejected {
            latest.comments.clear();
        }
    }
    revisions
}

/// A message with its fresh id; a compaction record covering the fresh ids; a plan card
/// showing its revision as it stood (one edited later shows the latest revision there was).
fn message_then(
    mut message: Message,
    ids: &HashMap<MessageId, MessageId>,
    revisions: &[PlanDocument],
) -> Message {
    let new_id = |id: &MessageId| ids.get(id).cloned().unwrap_or_else(MessageId::new);
    message.id = new_id(&message.id);
    match &mut message.body {
        MessageBody::Compaction { covers, .. } => {
            *covers = [new_id(&covers[0]), new_id(&covers[1])]
        }
        MessageBody::Assistant { plan: Some(plan), .. } => {
            let index = (plan.revision as usize).checked_sub(1);
            let shown = index.and_then(|index| revisions.get(index)).or(revisions.last());
            if let Some(document) = shown {
                **plan = document.clone();
            }
        }
        _ => {}
    }
    message
}

/// The plan changes there were at the point, with their status then and fresh ids; one
/// answered since waits again.
fn changes_then(
    changes: Vec<PlanChange>,
    state: &PointState,
    ids: &HashMap<ChangeId, ChangeId>,
) -> Vec<PlanChange> {
    let status: HashMap<&ChangeId, ChangeStatus> =
        state.changes.iter().map(|(id, status)| (id, *status)).collect();
    changes
        .into_iter()
        .filter_map(|mut change| {
            let then = *status.get(&change.id)?;
            if then == ChangeStatus::Pending && change.status != ChangeStatus::Pending {
                change.answered_at = None;
                change.auto_approved = false;
                change.revision = None;
            }
            change.status = then;
            change.id = ids.get(&change.id)?.clone();
            Some(change)
        })
        .collect()
}

/// The original's points as the fork's: their messages by place in the cut, their plan
/// changes by the fork's ids. A point none of whose messages the cut holds is left out.
fn points_then(
    points: &[ChatPoint],
    messages: &[(i64, Message)],
    ids: &HashMap<ChangeId, ChangeId>,
) -> Vec<ImportedPoint> {
    let place = |seq: i64| messages.partition_point(|(at, _)| *at < seq);
    points
        .iter()
        .filter_map(|point| {
            let last = place(point.seq);
            if messages.get(last).map(|(seq, _)| *seq) != Some(point.seq) {
                return None;
            }
            let mut state = point.state.clone();
            state.changes.retain(|(id, _)| ids.contains_key(id));
            for (id, _) in &mut state.changes {
                *id = ids[&*id].clone();
            }
            let first = place(point.first_seq).min(last);
            Some(ImportedPoint { first, last, state, task_list: point.task_list.clone() })
        })
        .collect()
}
