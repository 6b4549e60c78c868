//! The planner protocol: its system prompt, the fence parser, the plan document. Pure.

mod document;

pub use document::{
    Approval, Library, Plan, PlanContext, PlanDocument, PlanStep, Question, Sandbox,
    SandboxPolicy, SandboxSpec,
};
