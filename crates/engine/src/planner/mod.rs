//! The planner protocol: its system prompt, the fence parser, the plan document. Pure.

mod builder;
mod document;
mod fence;
mod lenient_json;
mod markdown;
mod normalize;
mod parse;
mod prompt;

pub use builder::{
    build_plan_document, edited_plan_document, executor_revision, sandbox_dir, PlanEdit,
    PlanEditError, PlanFacts, SANDBOX_DIR,
};
pub use document::{
    Approval, Library, Plan, PlanContext, PlanDocument, PlanStep, Question, RevisionAuthor,
    Sandbox, SandboxPolicy, SandboxSpec,
};
pub use markdown::{plan_markdown, questions_markdown};
pub use normalize::{MAX_OPTIONS, MAX_QUESTIONS};
pub use parse::{parse_planner_reply, PlannerReply, ReplyKind};
pub use prompt::{
    plan_limits_request, planner_system_prompt, repair_request, PlannerFacts,
    DEFAULT_PLANNER_PROMPT,
};

#[cfg(test)]
mod parse_tests;
