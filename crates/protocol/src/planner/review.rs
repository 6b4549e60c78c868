//! Comments on a plan, anchored to a step or a field (DESIGN §16): checked against the plan
//! they were made on, quoted with what the user saw there, and written into the one request
//! that asks the planner for the next revision. Pure.

use super::comment::{CommentAnchor, CommentDraft, PlanComment, PlanField};
use super::document::{Library, PlanDocument};

/// At most this many comments go with one revision request.
pub const MAX_COMMENTS: usize = 30;
/// A comment's text, in characters.
pub const MAX_COMMENT_CHARS: usize = 2000;
/// What a comment quotes of its anchor is cut to this many characters.
pub const MAX_QUOTE_CHARS: usize = 400;

/// Why a set of comments cannot go with a rejection.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ReviewError {
    #[error("comment {index}: the plan has no step {step} (it has {steps})")]
    NoSuchStep { index: usize, step: u32, steps: usize },
    #[error("comment {index}: the plan has nothing in {}", .field.name())]
    EmptyField { index: usize, field: PlanField },
    #[error("comment {index}: step {step} of the plan says nothing to comment on")]
    BlankStep { index: usize, step: u32 },
    #[error("comment {index} is empty")]
    EmptyText { index: usize },
    #[error("comment {index} is longer than {MAX_COMMENT_CHARS} characters")]
    TooLong { index: usize },
    #[error("at most {MAX_COMMENTS} comments go with one revision request")]
    TooMany,
}

/// Checks `drafts` against `plan` (the revision the user saw) and quotes each anchor.
/// Comment numbers in errors are 1-based, as the user counts them.
pub fn review_comments(
    plan: &PlanDocument,
    drafts: &[CommentDraft],
) -> Result<Vec<PlanComment>, ReviewError> {
    if drafts.len() > MAX_COMMENTS {
        return Err(ReviewError::TooMany);
    }
    let comment = |(position, draft): (usize, &CommentDraft)| {
        let index = position + 1;
        let text = draft.text.trim();
        if text.is_empty() {
            return Err(ReviewError::EmptyText { index });
        }
        if text.chars().count() > MAX_COMMENT_CHARS {
            return Err(ReviewError::TooLong { index });
        }
        let quote = quote(plan, draft.anchor, index)?;
        Ok(PlanComment { anchor: draft.anchor, text: text.to_owned(), quote })
    };
    drafts.iter().enumerate().map(comment).collect()
}

/// What `anchor` shows in `plan`, cut to [`MAX_QUOTE_CHARS`].
fn quote(plan: &PlanDocument, anchor: CommentAnchor, index: usize) -> Result<String, ReviewError> {
    let shown = match anchor {
        CommentAnchor::Step(step) => {
            let found = usize::try_from(step).ok().and_then(|n| n.checked_sub(1));
            let Some(step_doc) = found.and_then(|n| plan.steps.get(n)) else {
                return Err(ReviewError::NoSuchStep { index, step, steps: plan.steps.len() });
            };
            match step_doc.expected.trim() {
                "" => step_doc.action.trim().to_owned(),
                expected => format!("{} (expected: {expected})", step_doc.action.trim()),
            }
        }
        CommentAnchor::Field(field) => field_text(plan, field),
    };
    if shown.trim().is_empty() {
        // A step is never blank as the planner and the editor leave it; an imported plan's may be.
        return Err(match anchor {
            CommentAnchor::Field(field) => ReviewError::EmptyField { index, field },
            CommentAnchor::Step(step) => ReviewError::BlankStep { index, step },
        });
    }
    Ok(cut(shown.trim(), MAX_QUOTE_CHARS))
}

fn field_text(plan: &PlanDocument, field: PlanField) -> String {
    let judgement = &plan.judgement;
    match field {
        PlanField::Aim => plan.aim.clone(),
        PlanField::Approach => judgement.approach.clone().unwrap_or_default(),
        PlanField::Risks => judgement.risks.join("; "),
        PlanField::Tests => judgement.tests.join("; "),
        PlanField::Files => {
            let files = &judgement.planned_files;
            let mut parts = Vec::new();
            if !files.create.is_empty() {
                parts.push(format!("create {}", files.create.join(", ")));
            }
            if !files.modify.is_empty() {
                parts.push(format!("modify {}", files.modify.join(", ")));
            }
            parts.join("; ")
        }
        PlanField::Libraries => {
            let name = |l: &Library| format!("{} ({})", l.name, l.purpose);
            plan.libraries.iter().map(name).collect::<Vec<_>>().join("; ")
        }
        PlanField::Sandbox => {
            let policy = serde_json::to_value(plan.sandbox.policy).unwrap_or_default();
            let policy = policy.as_str().unwrap_or_default().to_owned();
            match plan.sandbox.notes.trim() {
                "" => policy,
                notes => format!("{policy}: {notes}"),
            }
        }
    }
}

fn cut(text: &str, limit: usize) -> String {
    match text.char_indices().nth(limit) {
        Some((end, _)) => format!("{}…", &text[..end]),
        None => text.to_owned(),
    }
}

/// The one message that asks the planner for the next revision: the user's general
/// feedback, then every comment quoted with what it is anchored to, in the plan's order.
pub fn revision_request(revision: u32, feedback: Option<&str>, comments: &[PlanComment]) -> String {
    let mut text = String::from("What should change in the plan?\nUser's answer: ");
    match feedback.map(str::trim).filter(|f| !f.is_empty()) {
        Some(feedback) => text.push_str(feedback),
        None => text.push_str("see my comments on the plan below."),
    }
    if comments.is_empty() {
        return text;
    }
    let mut ordered: Vec<&PlanComment> = comments.iter().collect();
    ordered.sort_by_key(|comment| order(comment.anchor));
    text.push_str(&format!("\n\nMy comments on revision {revision} of the plan:"));
    for (n, comment) in ordered.iter().enumerate() {
        let on = match comment.anchor {
            CommentAnchor::Step(step) => format!("step {step}"),
            CommentAnchor::Field(field) => field.name().to_owned(),
        };
        let body = comment.text.replace('\n', "\n   ");
        text.push_str(&format!(
            "\n{}. On {on}, which says \"{}\":\n   {body}",
            n + 1,
            comment.quote
        ));
    }
    text.push_str("\n\nRevise the plan so that it answers every comment.");
    text
}

/// The card's order: the aim and the approach, the steps by number, then the other fields.
fn order(anchor: CommentAnchor) -> (u8, u32) {
    match anchor {
        CommentAnchor::Field(PlanField::Aim) => (0, 0),
        CommentAnchor::Field(PlanField::Approach) => (1, 0),
        CommentAnchor::Step(step) => (2, step),
        CommentAnchor::Field(field) => (3, field as u32),
    }
}

#[cfg(test)]
#[path = "review_tests.rs"]
mod tests;
