//! A notice Preflight itself puts in a chat when something did not go as planned: typed, so
//! each client says it in its user's language with the action that fits (DESIGN §15: never
//! silent), and with an English `text` that stands in the message's content for the model,
//! the API's readers and the log.

use serde::{Deserialize, Serialize};

use crate::chat::ModelChoice;
use crate::error_code::ErrorCode;

/// What Preflight said in the chat, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Notice {
    /// The planner could not make a plan. With `went_on` the executor went ahead without one
    /// (`on_planner_failure = "execute"`, seed 003); without it nothing ran.
    PlannerFailed { went_on: bool, code: ErrorCode, detail: String },
    /// The model provider refused every request (unreachable, or a key it does not take):
    /// the executor would meet the same refusal, so nothing ran.
    ProviderRefused { code: ErrorCode, detail: String },
    /// The planner still had questions after the last round; the executor went ahead
    /// without a plan.
    QuestionsLeft { rounds: u32 },
    /// The user switched the chat's model: the requests from here on go to `model`
    /// (`planner`: the planner's model, else the executor's). Never a silent change.
    ModelSwitched { planner: bool, model: ModelChoice },
}

impl Notice {
    /// The notice in English words: the stored message's content.
    pub fn text(&self) -> String {
        match self {
            Notice::PlannerFailed { went_on: true, detail, .. } => format!(
                "The planner could not make a plan: {detail}. Going ahead without one — no \
                 plan card, no approval. (To stop instead when planning fails, set \
                 `on_planner_failure = \"stop\"` under `[plan_mode]` in config.toml.)"
            ),
            Notice::PlannerFailed { went_on: false, detail, .. } => format!(
                "The planner could not make a plan: {detail}. Nothing was run \
                 (`on_planner_failure = \"stop\"`). Send your message again to plan it again, \
                 or change the provider in Settings."
            ),
            Notice::ProviderRefused { detail, .. } => format!(
                "The model provider could not be used: {detail}. Nothing was run. Check that \
                 it is running and that its key is right (Settings), then send your message \
                 again."
            ),
            Notice::QuestionsLeft { rounds } => format!(
                "The planner still had questions after {rounds} rounds; going ahead without a \
                 plan."
            ),
            Notice::ModelSwitched { planner: false, model } => {
                format!("Model: {model} from here on.")
            }
            Notice::ModelSwitched { planner: true, model } => {
                format!("Planner model: {model} from here on.")
            }
        }
    }

    /// Whether the executor went ahead after it (the chat did not stop there).
    pub fn went_on(&self) -> bool {
        match self {
            Notice::PlannerFailed { went_on, .. } => *went_on,
            Notice::ProviderRefused { .. } => false,
            Notice::QuestionsLeft { .. } | Notice::ModelSwitched { .. } => true,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_notice_travels_tagged_by_kind_and_comes_back_the_same() {
        let notices = [
            Notice::PlannerFailed {
                went_on: true,
                code: ErrorCode::ProviderUnavailable,
                detail: "HTTP 500".into(),
            },
            Notice::ProviderRefused { code: ErrorCode::ProviderUnauthorized, detail: "key".into() },
            Notice::QuestionsLeft { rounds: 3 },
            Notice::ModelSwitched {
                planner: true,
                model: ModelChoice { provider: "cloud".into(), model: "big".into() },
            },
        ];
        let kinds = ["planner_failed", "provider_refused", "questions_left", "model_switched"];
        for (notice, kind) in notices.iter().zip(kinds) {
            let json = serde_json::to_value(notice).unwrap();
            assert_eq!(json["kind"], kind, "{json}");
            assert_eq!(&serde_json::from_value::<Notice>(json).unwrap(), notice);
        }
    }

    #[test]
    fn the_text_says_whether_anything_ran() {
        let failed = |went_on| Notice::PlannerFailed {
            went_on,
            code: ErrorCode::ProviderRejected,
            detail: "HTTP 500".into(),
        };
        assert!(failed(true).text().contains("Going ahead without one"));
        assert!(failed(false).text().contains("Nothing was run"));
        assert!(failed(true).text().contains("HTTP 500"));
        assert!(!Notice::ProviderRefused {
            code: ErrorCode::ProviderUnavailable,
            detail: "x".into()
        }
        .went_on());
    }
}
