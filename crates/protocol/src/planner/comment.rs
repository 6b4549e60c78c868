//! A comment on a plan and what it is anchored to (DESIGN §16): the types the plan
//! document keeps with a revision and the rejection carries. Pure.

use serde::{Deserialize, Serialize};

/// A part of the plan a comment can be anchored to, beside its steps.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum PlanField {
    Aim,
    Approach,
    Risks,
    Files,
    Tests,
    Libraries,
    Sandbox,
}

impl PlanField {
    pub(super) fn name(self) -> &'static str {
        match self {
            PlanField::Aim => "the aim",
            PlanField::Approach => "the approach",
            PlanField::Risks => "the risks",
            PlanField::Files => "the planned files",
            PlanField::Tests => "the tests",
            PlanField::Libraries => "the libraries",
            PlanField::Sandbox => "the sandbox",
        }
    }
}

/// Where a comment points: `{"step": 2}` (1-based) or `{"field": "risks"}`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum CommentAnchor {
    /// A step by its number, 1-based.
    Step(u32),
    Field(PlanField),
}

/// A comment as the user sends it with a rejection.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(deny_unknown_fields)]
pub struct CommentDraft {
    pub anchor: CommentAnchor,
    #[cfg_attr(feature = "openapi", schema(pattern = r"\S", max_length = 2000))]
    pub text: String,
}

/// A comment kept with the revision it was made on.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct PlanComment {
    pub anchor: CommentAnchor,
    pub text: String,
    /// What the anchor showed when the comment was made (a step's action and expected
    /// result, a field's text), as the planner was given it.
    pub quote: String,
}
