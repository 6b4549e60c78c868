//! Whether an export's parts fit together before anything is stored: ids that are unique
//! and name what is there, revisions numbered as the store numbers them, a waiting card that
//! the phase waits on. A refusal says what does not fit. Pure.

use std::collections::HashSet;

use preflight_protocol::chat::{MessageBody, Phase};
use preflight_protocol::planner::Approval;
use preflight_protocol::tasks::TaskList;

use super::format::ChatExport;
use crate::lifecycle::error::ApiError;

/// `Ok` when the export's references hold; else what does not fit, as `ERR_BAD_REQUEST`.
pub(super) fn check_references(export: &ChatExport) -> Result<(), ApiError> {
    messages_fit(export)
        .and_then(|()| revisions_fit(export))
        .and_then(|()| changes_fit(export))
        .and_then(|()| state_fits(export))
        .and_then(|()| export.task_list.as_ref().map_or(Ok(()), task_list_fits))
        .map_err(|what| ApiError::bad_request(format!("the export does not fit together: {what}")))
}

/// Message ids are unique; a compaction record covers messages stored before it; a plan
/// card shows a revision the export holds.
fn messages_fit(export: &ChatExport) -> Result<(), String> {
    let revisions = export.plan_revisions.len() as u32;
    let mut seen = HashSet::new();
    for message in &export.messages {
        match &message.body {
            MessageBody::Compaction { covers, .. } => {
                if let Some(unknown) = covers.iter().find(|id| !seen.contains(id)) {
                    return Err(format!(
                        "the compaction record {} covers {unknown}, no message before it",
                        message.id
                    ));
                }
            }
            MessageBody::Assistant { plan: Some(plan), .. }
                if plan.revision == 0 || plan.revision > revisions =>
            {
                return Err(format!(
                    "the plan card {} shows revision {}, which the export does not hold",
                    message.id, plan.revision
                ));
            }
            _ => {}
        }
        if !seen.insert(&message.id) {
            return Err(format!("message id {} is given twice", message.id));
        }
    }
    Ok(())
}

/// Revisions are numbered 1, 2, … oldest first, as the store numbers them.
fn revisions_fit(export: &ChatExport) -> Result<(), String> {
    for (index, document) in export.plan_revisions.iter().enumerate() {
        if document.revision as usize != index + 1 {
            return Err(format!(
                "plan revision {} is number {} of the list: revisions are 1, 2, … oldest first",
                document.revision,
                index + 1
            ));
        }
    }
    Ok(())
}

/// Change ids are unique, and a change names a revision the export holds.
fn changes_fit(export: &ChatExport) -> Result<(), String> {
    let mut seen = HashSet::new();
    for change in &export.changes {
        if !seen.insert(&change.id) {
            return Err(format!("plan change id {} is given twice", change.id));
        }
        if let Some(revision) = change.revision {
            if revision == 0 || revision as usize > export.plan_revisions.len() {
                return Err(format!(
                    "plan change {} made revision {revision}, which the export does not hold",
                    change.id
                ));
            }
        }
    }
    Ok(())
}

/// A question card waits exactly while the phase is `questions` (or the planner, caught
/// running, was about to read its answers); a plan waits for approval only with its card
/// and a latest revision still pending.
fn state_fits(export: &ChatExport) -> Result<(), String> {
    let state = &export.state;
    let has = |card: fn(&MessageBody) -> bool| export.messages.iter().any(|m| card(&m.body));
    match (state.phase, &state.plan_pending) {
        (Phase::Questions, None) => return Err("the phase is questions, but none wait".into()),
        (Phase::Questions | Phase::Planning, Some(_))
            if !has(|body| matches!(body, MessageBody::Assistant { questions: Some(_), .. })) =>
        {
            return Err("questions wait, but no question card asked them".into())
        }
        (Phase::Questions | Phase::Planning, _) | (_, None) => {}
        (phase, Some(_)) => {
            return Err(format!("questions wait, but the phase is {}", phase.as_str()));
        }
    }
    if state.phase == Phase::AwaitingApproval {
        let latest = export.plan_revisions.last().map(|document| document.approval);
        let card = has(|body| matches!(body, MessageBody::Assistant { plan: Some(_), .. }));
        if latest != Some(Approval::Pending) || !card {
            return Err("the phase waits for approval, but no plan card waits for it".into());
        }
    }
    Ok(())
}

/// Task ids are unique and below `next_id`, and so are the plan's steps.
fn task_list_fits(list: &TaskList) -> Result<(), String> {
    let mut seen = HashSet::new();
    for task in &list.tasks {
        if task.id >= list.next_id || !seen.insert(task.id) {
            return Err(format!(
                "task {} is given twice or past next_id {}",
                task.id, list.next_id
            ));
        }
    }
    match list.planned.iter().find(|id| **id >= list.next_id) {
        Some(id) => Err(format!("planned step {id} is past next_id {}", list.next_id)),
        None => Ok(()),
    }
}
