//! The messages the lifecycle writes into a chat, built in one place: the user's (a task,
//! revision feedback, a decision on a plan change) and the assistant's cards and notices.
//! Plain constructors: they store and send nothing.

use preflight_dwp::now_rfc3339;
use preflight_protocol::chat::{Message, MessageBody, Notice, Resume, ReviewNote};
use preflight_protocol::ids::MessageId;
use preflight_protocol::planner::{revision_request, PlanComment, Question};
use preflight_protocol::tasks::{ChangeStatus, ExecutorStop, PlanChange};

/// A message from the user, with the files it names (copied in later by its sender).
pub(super) fn user_message(content: &str, files: Vec<String>) -> Message {
    Message {
        id: MessageId::new(),
        created_at: now_rfc3339(),
        body: MessageBody::User {
            content: content.to_owned(),
            files,
            attachments: Vec::new(),
            plan_answer: false,
            resume: None,
            stopped: None,
            restored: None,
            review: None,
            typed: None,
        },
    }
}

/// A Continue: the executor resumes after `stop`, by the user's hand or by itself (`auto`).
/// The window shows "Continue" (with `content` folded away); the model reads Preflight's
/// words and the stop as a record of data (`llm/record.rs`): the open tasks, why it stopped
/// and a failing check's output never pass for the user's words.
pub(super) fn continue_message(stop: &ExecutorStop, auto: bool) -> Message {
    Message {
        id: MessageId::new(),
        created_at: now_rfc3339(),
        body: MessageBody::User {
            content: stop.resume_text(),
            files: Vec::new(),
            attachments: Vec::new(),
            plan_answer: false,
            resume: Some(Resume { reason: stop.reason, auto }),
            stopped: Some(Box::new(stop.clone())),
            restored: None,
            review: None,
            typed: None,
        },
    }
}

/// Revision feedback and comments on revision `revision`, stored like an answer
/// (`plan_answer: true`, never a user turn): `content` is the one request the planner reads,
/// `review` what the user sent, for the window.
pub(super) fn feedback_message(
    revision: u32,
    feedback: Option<&str>,
    comments: &[PlanComment],
) -> Message {
    let feedback = feedback.map(str::trim).filter(|text| !text.is_empty());
    let review = ReviewNote {
        revision,
        feedback: feedback.map(str::to_owned),
        comments: u32::try_from(comments.len()).unwrap_or(u32::MAX),
    };
    Message {
        id: MessageId::new(),
        created_at: now_rfc3339(),
        body: MessageBody::User {
            content: revision_request(revision, feedback, comments),
            files: Vec::new(),
            attachments: Vec::new(),
            plan_answer: true,
            resume: None,
            stopped: None,
            restored: None,
            review: Some(review),
            typed: None,
        },
    }
}

/// The user's decision as the message the resumed executor reads.
pub(super) fn decision_message(change: &PlanChange) -> Message {
    let text = match change.status {
        ChangeStatus::Approved => format!(
            "I approve the plan change: {}. Go on with the plan as it now stands.",
            change.describe()
        ),
        _ => format!(
            "Keep the plan: I do not approve the change ({}). Go on with the plan as approved.",
            change.describe()
        ),
    };
    user_message(&text, Vec::new())
}

/// A card or a notice from the assistant (never a tool round).
pub(super) fn assistant_message(content: String, questions: Option<Vec<Question>>) -> Message {
    Message {
        id: MessageId::new(),
        created_at: now_rfc3339(),
        body: MessageBody::Assistant {
            content,
            questions,
            plan: None,
            tool_calls: Vec::new(),
            notice: None,
        },
    }
}

/// Preflight's own notice in the chat: its English text as the content, the notice typed.
pub(super) fn notice_message(notice: Notice) -> Message {
    Message {
        id: MessageId::new(),
        created_at: now_rfc3339(),
        body: MessageBody::Assistant {
            content: notice.text(),
            questions: None,
            plan: None,
            tool_calls: Vec::new(),
            notice: Some(notice),
        },
    }
}

/// A switch of the chat's model: news for the user, not for the model.
pub(super) fn is_model_switch(message: &Message) -> bool {
    matches!(
        &message.body,
        MessageBody::Assistant { notice: Some(Notice::ModelSwitched { .. }), .. }
    )
}
