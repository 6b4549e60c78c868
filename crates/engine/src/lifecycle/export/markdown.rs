//! The Markdown export, for people: the title, the conversation (what the user and the
//! assistant said, each card as text: questions, the plan with its steps and checks, plan
//! changes with their answers, stops and continues, restores), the task list as it ended
//! and the completion. Tool results and compaction records are the model's working view and
//! are left out; a round's tool calls are named. Every text Preflight did not write passes
//! through `inert_markdown`, so no model output is markup in the file.

use std::io::{BufWriter, Write};

use preflight_protocol::chat::{Message, MessageBody, Phase};
use preflight_protocol::ids::ChatId;
use preflight_protocol::inert::one_line;
use preflight_protocol::planner::{Approval, PlanDocument};
use preflight_store::Tx;

use super::format::ExportHead;
use super::markdown_parts::{code, completion_section, labelled, task_list_section, when, Cards};
use super::markdown_text::inert_markdown;
use super::reading::{each_message, head, WriteError, BUFFER};

/// Writes the chat's Markdown export, stamped `now`, to `out`.
pub(super) fn write_markdown(
    tx: &Tx<'_>,
    chat_id: &ChatId,
    now: &str,
    out: &mut dyn Write,
) -> Result<(), WriteError> {
    let mut out = BufWriter::with_capacity(BUFFER, out);
    let head = head(tx, chat_id, now)?;
    out.write_all(title_block(&head).as_bytes())?;
    out.write_all(b"\n## Conversation\n")?;
    let mut cards = Cards::of(&head);
    each_message(tx, chat_id, |message| {
        for card in cards.before(&message.created_at) {
            out.write_all(card.as_bytes())?;
        }
        if let Some(entry) = entry(message, &head.plan_revisions) {
            out.write_all(entry.as_bytes())?;
        }
        Ok(())
    })?;
    for card in cards.rest() {
        out.write_all(card.as_bytes())?;
    }
    out.write_all(task_list_section(&head).as_bytes())?;
    out.write_all(completion_section(&head).as_bytes())?;
    // Flushes the buffer, then `out` itself.
    Ok(out.flush()?)
}

/// `# Title` and what the chat is: when, where, its phase when exported.
fn title_block(head: &ExportHead) -> String {
    let chat = &head.chat;
    let workspace = match &chat.workspace {
        Some(workspace) => format!("Workspace: {}.", code(workspace)),
        None => "No workspace.".to_owned(),
    };
    let phase = match head.state.phase {
        Phase::Idle => String::new(),
        phase => format!(" Phase when exported: {}.", phase.as_str().replace('_', " ")),
    };
    format!(
        "# {}\n\nChat created {}, exported from {} on {}. {workspace}{phase}\n",
        inert_markdown(&one_line(&chat.title)),
        when(&chat.created_at),
        inert_markdown(&one_line(&head.exported_by)),
        when(&head.exported_at),
    )
}

/// One message as the conversation shows it; None for what is left out.
fn entry(message: &Message, revisions: &[PlanDocument]) -> Option<String> {
    let (label, text) = match &message.body {
        MessageBody::User { resume: Some(resume), stopped, .. } => {
            let label = if resume.auto { "Continued by Preflight" } else { "Continue" };
            let text = stopped.as_ref().map(|stop| {
                let tasks: Vec<String> = stop
                    .tasks_left
                    .iter()
                    .map(|task| format!("{} “{}”", task.id, task.title))
                    .collect();
                format!("{} Tasks still open: {}.", stop.text, tasks.join(", "))
            });
            (label.to_owned(), inert_markdown(&text.unwrap_or_default()))
        }
        MessageBody::User { restored: Some(restored), .. } => {
            let text = format!(
                "The workspace went back to checkpoint {}: {} files written, {} deleted, {} kept as you had them.",
                restored.checkpoint,
                restored.written.len(),
                restored.deleted.len(),
                restored.kept.len()
            );
            ("Restored".to_owned(), text)
        }
        MessageBody::User { plan_answer: true, content, .. } => {
            ("Your answer".to_owned(), answer_markdown(content))
        }
        MessageBody::User { content, attachments, .. } => {
            let mut text = inert_markdown(content);
            for attachment in attachments {
                text.push_str(&format!("\n\n📎 {}", code(&attachment.name)));
            }
            ("You".to_owned(), text)
        }
        MessageBody::Assistant { .. } => return assistant_entry(message, revisions),
        MessageBody::Tool { .. } | MessageBody::Compaction { .. } => return None,
    };
    Some(labelled(&label, &message.created_at, &text))
}

/// An assistant message: a card, a notice, a round that called tools, or an answer.
fn assistant_entry(message: &Message, revisions: &[PlanDocument]) -> Option<String> {
    let MessageBody::Assistant { content, questions, plan, tool_calls, notice } = &message.body
    else {
        return None;
    };
    let label = match (questions, plan, notice) {
        (Some(_), _, _) => "Planner — questions".to_owned(),
        (_, Some(plan), _) => plan_label(plan, revisions),
        (_, _, Some(_)) => "Preflight".to_owned(),
        _ => "Assistant".to_owned(),
    };
    let mut text = inert_markdown(content.trim());
    if !tool_calls.is_empty() {
        let names: Vec<String> = tool_calls.iter().map(|call| code(&call.name)).collect();
        if !text.is_empty() {
            text.push_str("\n\n");
        }
        text.push_str(&format!("_Tools called: {}_", names.join(", ")));
    }
    (!text.is_empty()).then(|| labelled(&label, &message.created_at, &text))
}

/// "Planner — plan, revision 2 (approved)": the card's revision as the chat ended.
fn plan_label(plan: &PlanDocument, revisions: &[PlanDocument]) -> String {
    let now = revisions.iter().find(|document| document.revision == plan.revision);
    let approval = match now.map_or(plan.approval, |document| document.approval) {
        Approval::Pending => "waiting for approval",
        Approval::Approved => "approved",
        Approval::PreApproved => "approved by auto-approve",
        Approval::Rejected => "rejected",
    };
    format!("Planner — plan, revision {} ({approval})", plan.revision)
}

/// A synthetic answer, `"<question>\nUser's answer: <answer>"`, as the question quoted and
/// the answer below it.
fn answer_markdown(content: &str) -> String {
    match content.rsplit_once("\nUser's answer: ") {
        Some((question, answer)) => {
            format!("> {}\n\n{}", inert_markdown(&one_line(question)), inert_markdown(answer))
        }
        None => inert_markdown(content),
    }
}
