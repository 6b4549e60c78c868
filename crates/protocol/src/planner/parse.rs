//! The tolerant planner-reply parser of DESIGN §3: finds the `plan-questions` or `plan`
//! fence a planner ended with, repairs and normalises it, and keeps the prose around it.
//! It never panics, whatever the input.

use serde::Serialize;

use super::document::{Plan, Question};
use super::fence::{find_fences, Fence};
use super::lenient_json::parse_lenient;
use super::normalize::{normalize_card, Card, Expected};

/// What a planner's reply amounts to.
#[derive(Debug, Clone, PartialEq, Eq)]
// One value per planner reply, moved once: boxing the plan would buy nothing.
#[allow(clippy::large_enum_variant)]
pub enum ReplyKind {
    Questions(Vec<Question>),
    Plan(Plan),
    /// Neither fence (or none that could be read): the "neither" path of DESIGN §2.
    None,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlannerReply {
    pub kind: ReplyKind,
    /// The reply without its planner fences: the readable prose around them.
    pub text: String,
    /// Why the last planner fence could not be read, when no fence could; shown to the
    /// planner in the repair attempt.
    pub error: Option<String>,
}

/// Parses a planner's whole reply.
pub fn parse_planner_reply(reply: &str) -> PlannerReply {
    let text = strip_reasoning(&normalize_newlines(reply));
    let fences = find_fences(&text);
    let labelled: Vec<(&Fence, Expected)> =
        fences.iter().filter_map(|fence| expected_for(&fence.label).map(|e| (fence, e))).collect();
    if !labelled.is_empty() {
        return pick_last_valid(&text, &labelled, true);
    }
    let generic: Vec<(&Fence, Expected)> = fences
        .iter()
        .filter(|fence| matches!(fence.label.as_str(), "" | "json" | "jsonc" | "json5"))
        .map(|fence| (fence, Expected::Either))
        .collect();
    let from_generic = pick_last_valid(&text, &generic, false);
    if from_generic.kind != ReplyKind::None {
        return from_generic;
    }
    parse_unfenced(&text)
}

/// The label a planner fence may carry, and the card it announces.
fn expected_for(label: &str) -> Option<Expected> {
    match label {
        "plan-questions" | "plan_questions" | "planquestions" => Some(Expected::Questions),
        "plan" | "plan_json" | "plan-json" | "planjson" => Some(Expected::Plan),
        _ => None,
    }
}

/// The last fence that reads as a card wins. Labelled fences always leave the text;
/// generic (`json`) fences only when one of them is the card.
fn pick_last_valid(text: &str, candidates: &[(&Fence, Expected)], strip_all: bool) -> PlannerReply {
    let mut winner: Option<(Card, &Fence)> = None;
    let mut error = None;
    for (fence, expected) in candidates {
        match parse_lenient(&fence.body).and_then(|value| normalize_card(&value, *expected)) {
            Ok(card) => {
                winner = Some((card, fence));
                error = None;
            }
            Err(why) => error = Some(why),
        }
    }
    let removed: Vec<&Fence> = match (&winner, strip_all) {
        (_, true) => candidates.iter().map(|(fence, _)| *fence).collect(),
        (Some((_, fence)), false) => vec![*fence],
        (None, false) => Vec::new(),
    };
    let prose = tidy(&remove_spans(text, &removed));
    match winner {
        Some((card, _)) => PlannerReply { kind: kind_of(card), text: prose, error: None },
        None => PlannerReply { kind: ReplyKind::None, text: prose, error },
    }
}

/// A card written without a fence: a label line followed by JSON, or a bare JSON reply.
fn parse_unfenced(text: &str) -> PlannerReply {
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        let label = line.trim().trim_end_matches(':').to_lowercase();
        if let Some(expected) = expected_for(&label) {
            let rest = &text[offset + line.len()..];
            if let Ok(card) = parse_lenient(rest).and_then(|v| normalize_card(&v, expected)) {
                return PlannerReply {
                    kind: kind_of(card),
                    text: tidy(&text[..offset]),
                    error: None,
                };
            }
        }
        offset += line.len();
    }
    let trimmed = text.trim();
    if trimmed.starts_with('{') && trimmed.ends_with('}') {
        if let Ok(card) = parse_lenient(trimmed).and_then(|v| normalize_card(&v, Expected::Either))
        {
            return PlannerReply { kind: kind_of(card), text: String::new(), error: None };
        }
    }
    PlannerReply { kind: ReplyKind::None, text: tidy(text), error: None }
}

fn kind_of(card: Card) -> ReplyKind {
    match card {
        Card::Questions(questions) => ReplyKind::Questions(questions),
        Card::Plan(plan) => ReplyKind::Plan(plan),
    }
}

/// `\n` line ends, no byte-order marks.
fn normalize_newlines(reply: &str) -> String {
    reply.replace('\u{FEFF}', "").replace("\r\n", "\n").replace('\r', "\n")
}

/// Drops the `<think>…</think>` blocks reasoning models emit: drafts of fences inside
/// them are not the answer. An unclosed block is kept (it may hold the only fence).
fn strip_reasoning(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    loop {
        let opened = ["<think>", "<thinking>"]
            .iter()
            .filter_map(|tag| rest.find(tag).map(|at| (at, *tag)))
            .min_by_key(|(at, _)| *at);
        let Some((at, tag)) = opened else { break };
        let close = tag.replacen('<', "</", 1);
        let Some(end) = rest[at..].find(&close) else { break };
        out.push_str(&rest[..at]);
        rest = &rest[at + end + close.len()..];
    }
    out.push_str(rest);
    out
}

fn remove_spans(text: &str, fences: &[&Fence]) -> String {
    let mut spans: Vec<_> = fences.iter().map(|fence| fence.span.clone()).collect();
    spans.sort_by_key(|span| span.start);
    let mut kept = String::with_capacity(text.len());
    let mut cursor = 0;
    for span in spans {
        if span.start >= cursor {
            kept.push_str(&text[cursor..span.start]);
            kept.push('\n');
            cursor = span.end;
        }
    }
    kept.push_str(&text[cursor.min(text.len())..]);
    kept
}

/// Trims trailing spaces and collapses runs of blank lines left where fences were.
fn tidy(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut blank_run = 0;
    for line in text.lines().map(str::trim_end) {
        if line.is_empty() {
            blank_run += 1;
            if blank_run > 1 {
                continue;
            }
        } else {
            blank_run = 0;
        }
        out.push_str(line);
        out.push('\n');
    }
    out.trim().to_string()
}

/// The JSON `preflight parse-planner-output` prints:
/// `{"kind":"questions"|"plan"|"none","questions"?,"plan"?,"text","error"?}`.
#[derive(Serialize)]
struct ReplyJson<'a> {
    kind: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    questions: Option<&'a [Question]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    plan: Option<&'a Plan>,
    text: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<&'a str>,
}

impl PlannerReply {
    pub fn to_json(&self) -> serde_json::Value {
        let (kind, questions, plan) = match &self.kind {
            ReplyKind::Questions(questions) => ("questions", Some(questions.as_slice()), None),
            ReplyKind::Plan(plan) => ("plan", None, Some(plan)),
            ReplyKind::None => ("none", None, None),
        };
        let json =
            ReplyJson { kind, questions, plan, text: &self.text, error: self.error.as_deref() };
        serde_json::to_value(json).unwrap_or(serde_json::Value::Null)
    }
}
