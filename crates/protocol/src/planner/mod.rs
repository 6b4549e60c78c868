//! The planner protocol: its system prompt, the fence parser, the plan document. Pure.

mod builder;
mod comment;
mod document;
mod fence;
mod json_text;
mod judgement;
mod lenient_json;
mod markdown;
mod normalize;
mod parse;
mod paths;
mod plan_rules;
mod prompt;
mod review;

pub use builder::{
    build_plan_document, edited_plan_document, executor_revision, sandbox_dir, PlanEdit,
    PlanEditError, PlanFacts, SANDBOX_DIR,
};
pub use comment::{CommentAnchor, CommentDraft, PlanComment, PlanField};
pub use document::{
    Approval, Complexity, Library, Plan, PlanContext, PlanDocument, PlanJudgement, PlanStep,
    PlannedFiles, Question, RevisionAuthor, Sandbox, SandboxPolicy, SandboxSpec,
};
pub use markdown::{plan_markdown, questions_markdown};
pub use normalize::{MAX_OPTIONS, MAX_QUESTIONS};
pub use parse::{parse_planner_reply, PlannerReply, ReplyKind};
pub use plan_rules::{
    MAX_CHECK_CHARS, MAX_ITEM_CHARS, MAX_NOTES, MAX_PATH_CHARS, MAX_PLAN_ITEMS, MAX_PLAN_PATHS,
};
pub use prompt::{
    plan_limits_request, planner_system_prompt, repair_request, PlannerFacts,
    DEFAULT_PLANNER_PROMPT,
};
pub use review::{review_comments, revision_request, ReviewError, MAX_COMMENTS, MAX_COMMENT_CHARS};

#[cfg(test)]
mod builder_tests;
#[cfg(test)]
mod parse_tests;
