//! The header's account of what the chat's model calls used (DESIGN §15): planning's and
//! execution's tokens apart, the cost where the user set prices, and how full the context
//! was at the last call, e.g. `plan 1.2k · run 8.4k tok · $0.021 · ctx 16%`.

use preflight_engine::usage::ChatUsage;

use crate::locale::Words;

/// The line, or None before the chat's first model call.
pub fn usage_text(words: &Words, usage: &ChatUsage) -> Option<String> {
    let (planning, execution) = (&usage.planning, &usage.execution);
    if planning.calls + execution.calls == 0 {
        return None;
    }
    let tokens = |phase: &preflight_engine::usage::PhaseUsage| {
        compact(phase.input_tokens + phase.output_tokens)
    };
    let mut parts = vec![format!(
        "{} {} · {} {} {}",
        words.usage_planning,
        tokens(planning),
        words.usage_execution,
        tokens(execution),
        words.usage_tokens
    )];
    let costs = [planning.cost, execution.cost];
    if costs.iter().any(Option::is_some) {
        parts.push(dollars(costs.iter().flatten().sum()));
    }
    let context = usage.context;
    if context.window > 0 {
        let percent = context.used.saturating_mul(100) / u64::from(context.window);
        parts.push(format!("ctx {percent}%"));
    }
    Some(parts.join(" · "))
}

/// 950, 1.2k, 34k, 1.5M.
pub fn compact(tokens: u64) -> String {
    match tokens {
        0..=999 => tokens.to_string(),
        1_000..=9_999 => format!("{:.1}k", tokens as f64 / 1_000.0),
        10_000..=999_999 => format!("{}k", tokens / 1_000),
        _ => format!("{:.1}M", tokens as f64 / 1_000_000.0),
    }
}

/// Cents where they matter, a tenth of a cent below them.
fn dollars(cost: f64) -> String {
    if cost < 0.1 {
        format!("${cost:.3}")
    } else {
        format!("${cost:.2}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::locale::EN;
    use preflight_engine::usage::{ContextMeter, PhaseUsage};

    fn phase(calls: u32, input: u64, output: u64, cost: Option<f64>) -> PhaseUsage {
        PhaseUsage {
            calls,
            input_tokens: input,
            output_tokens: output,
            cost,
            ..PhaseUsage::default()
        }
    }

    #[test]
    fn the_line_says_each_phase_the_cost_where_priced_and_the_context() {
        let cases = [
            (phase(0, 0, 0, None), phase(0, 0, 0, None), 0, None),
            (
                phase(1, 1_000, 200, Some(0.004)),
                phase(2, 8_000, 160, Some(0.0176)),
                5_060,
                Some("plan 1.2k · run 8.2k tok · $0.022 · ctx 15%"),
            ),
            (
                phase(1, 900, 40, None),
                phase(0, 0, 0, None),
                940,
                Some("plan 940 · run 0 tok · ctx 2%"),
            ),
            (
                phase(0, 0, 0, None),
                phase(40, 2_000_000, 500_000, Some(12.5)),
                30_000,
                Some("plan 0 · run 2.5M tok · $12.50 · ctx 91%"),
            ),
        ];
        for (planning, execution, used, expected) in cases {
            let usage =
                ChatUsage { planning, execution, context: ContextMeter { used, window: 32_768 } };
            assert_eq!(usage_text(&EN, &usage).as_deref(), expected);
        }
    }

    #[test]
    fn tokens_read_short() {
        let cases = [(0, "0"), (999, "999"), (1_000, "1.0k"), (12_345, "12k"), (1_500_000, "1.5M")];
        for (tokens, text) in cases {
            assert_eq!(compact(tokens), text);
        }
    }
}
