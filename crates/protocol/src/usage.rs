//! What a chat's model calls used and cost (DESIGN §15, issue 50): one [`ModelCall`] per call
//! as its provider reported it, and [`ChatUsage`], the sums a chat view shows, planning and
//! execution apart, with the context meter. Pure: the store keeps the calls, the engine
//! prices them with the user's own prices (no built-in price list that goes stale).

use serde::{Deserialize, Serialize};

/// Which part of the work a model call served.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum UsagePhase {
    /// The planner's calls (questions, plan, revisions, repairs).
    Planning,
    /// The executor's calls (rounds, compaction summaries, the finaliser's).
    Execution,
}

impl UsagePhase {
    pub fn as_str(self) -> &'static str {
        match self {
            UsagePhase::Planning => "planning",
            UsagePhase::Execution => "execution",
        }
    }

    pub fn parse(word: &str) -> Option<UsagePhase> {
        [UsagePhase::Planning, UsagePhase::Execution].into_iter().find(|p| p.as_str() == word)
    }
}

/// One model call as stored: who answered, the tokens its provider reported, and its cost
/// at the prices set when it ran. A chat's export carries its calls.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ModelCall {
    pub phase: UsagePhase,
    pub provider: String,
    pub model: String,
    /// Every prompt token, cached ones included.
    pub input_tokens: u64,
    pub output_tokens: u64,
    /// The part of `input_tokens` the provider read from its cache.
    pub cached_input_tokens: u64,
    /// The window the call had, when known.
    pub context_window: Option<u32>,
    /// USD, when the provider's prices were set.
    pub cost_usd: Option<f64>,
}

/// A provider's prices, as the user set them in its `config.toml` section, in USD per
/// million tokens. Cached input is priced as input when its own price is not set.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Prices {
    pub input_per_mtok: Option<f64>,
    pub output_per_mtok: Option<f64>,
    pub cached_input_per_mtok: Option<f64>,
}

impl Prices {
    /// The cost of a call's tokens, or None when the prices it needs are not set.
    pub fn cost(&self, input: u64, output: u64, cached_input: u64) -> Option<f64> {
        let input_price = self.input_per_mtok?;
        let output_price = self.output_per_mtok?;
        let cached_price = self.cached_input_per_mtok.unwrap_or(input_price);
        let cached = cached_input.min(input);
        let fresh = input - cached;
        let micro = fresh as f64 * input_price
            + cached as f64 * cached_price
            + output as f64 * output_price;
        Some(micro / 1_000_000.0)
    }

    pub fn is_set(&self) -> bool {
        self.input_per_mtok.is_some() && self.output_per_mtok.is_some()
    }
}

/// The sums of one phase's calls.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct PhaseUsage {
    pub calls: u32,
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub input_tokens: u64,
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub output_tokens: u64,
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub cached_input_tokens: u64,
    /// USD over the calls that had prices; absent when none had.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub cost: Option<f64>,
    /// Calls made without prices set, so not in `cost`.
    pub unpriced_calls: u32,
}

impl PhaseUsage {
    pub fn add(&mut self, call: &ModelCall) {
        self.calls += 1;
        self.input_tokens += call.input_tokens;
        self.output_tokens += call.output_tokens;
        self.cached_input_tokens += call.cached_input_tokens;
        match call.cost_usd {
            Some(cost) => *self.cost.get_or_insert(0.0) += cost,
            None => self.unpriced_calls += 1,
        }
    }
}

/// How full the model's context was at the chat's last call.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct ContextMeter {
    /// Tokens of the last call: its prompt and its answer (0 before any call).
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub used: u64,
    /// The window of the model the chat's next request goes to.
    pub window: u32,
}

/// What a chat's calls used (`usage` of the chat view).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct ChatUsage {
    pub planning: PhaseUsage,
    pub execution: PhaseUsage,
    pub context: ContextMeter,
}

impl ChatUsage {
    /// The sums of `calls`, oldest first; the meter from the last one over `window`.
    pub fn of(calls: &[ModelCall], window: u32) -> ChatUsage {
        let mut usage = ChatUsage::default();
        for call in calls {
            match call.phase {
                UsagePhase::Planning => usage.planning.add(call),
                UsagePhase::Execution => usage.execution.add(call),
            }
        }
        let used = calls.last().map_or(0, |call| call.input_tokens + call.output_tokens);
        usage.context = ContextMeter { used, window };
        usage
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(phase: UsagePhase, tokens: (u64, u64, u64), cost: Option<f64>) -> ModelCall {
        ModelCall {
            phase,
            provider: "p".into(),
            model: "m".into(),
            input_tokens: tokens.0,
            output_tokens: tokens.1,
            cached_input_tokens: tokens.2,
            context_window: None,
            cost_usd: cost,
        }
    }

    #[test]
    fn prices_count_cached_input_at_its_own_price_or_else_as_input() {
        let cases = [
            (Prices::default(), (1_000_000, 0, 0), None),
            (
                Prices {
                    input_per_mtok: Some(3.0),
                    output_per_mtok: Some(15.0),
                    ..Prices::default()
                },
                (1_000_000, 1_000_000, 500_000),
                Some(18.0),
            ),
            (
                Prices {
                    input_per_mtok: Some(3.0),
                    output_per_mtok: Some(15.0),
                    cached_input_per_mtok: Some(0.3),
                },
                (1_000_000, 0, 500_000),
                Some(1.65),
            ),
            (Prices { input_per_mtok: Some(3.0), ..Prices::default() }, (1, 1, 0), None),
        ];
        for (prices, (input, output, cached), expected) in cases {
            let cost = prices.cost(input, output, cached);
            match (cost, expected) {
                (Some(cost), Some(expected)) => assert!((cost - expected).abs() < 1e-9, "{cost}"),
                (cost, expected) => assert_eq!(cost, expected),
            }
        }
    }

    #[test]
    fn usage_sums_each_phase_apart_and_the_meter_reads_the_last_call() {
        let calls = [
            call(UsagePhase::Planning, (100, 20, 0), Some(0.5)),
            call(UsagePhase::Execution, (300, 40, 100), None),
            call(UsagePhase::Execution, (400, 50, 0), Some(0.25)),
        ];
        let usage = ChatUsage::of(&calls, 8192);
        assert_eq!((usage.planning.calls, usage.planning.input_tokens), (1, 100));
        assert_eq!(usage.planning.cost, Some(0.5));
        let execution = &usage.execution;
        assert_eq!(
            (execution.calls, execution.input_tokens, execution.output_tokens),
            (2, 700, 90)
        );
        assert_eq!(
            (execution.cached_input_tokens, execution.cost, execution.unpriced_calls),
            (100, Some(0.25), 1)
        );
        assert_eq!(usage.context, ContextMeter { used: 450, window: 8192 });
        assert_eq!(ChatUsage::of(&[], 4096).context, ContextMeter { used: 0, window: 4096 });
    }
}
