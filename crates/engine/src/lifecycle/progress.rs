//! The completion record as PROGRESS.md says it (DESIGN §12, seed 002): adherence, stops
//! and continues, restores, each deviation, the summary. Pure text; the plan folder's
//! projection writes it.

use preflight_protocol::tasks::{continues, Completion, WorkEvent};

/// The record as PROGRESS.md lines.
pub(super) fn completion_lines(completion: &Completion) -> Vec<String> {
    let a = &completion.adherence;
    let mut lines = vec![format!(
        "Plan completed: {} of {} steps done as planned, {} reworded, {} dropped, {} added; {}.",
        a.done_as_planned,
        a.steps,
        a.modified,
        a.dropped,
        a.added,
        if a.in_order { "in the planned order" } else { "not in the planned order" }
    )];
    if let Some(line) = stops_line(&completion.stops_and_continues) {
        lines.push(line);
    }
    lines.extend(restores_lines(&completion.stops_and_continues));
    for deviation in &completion.deviations {
        let kind = serde_json::to_value(deviation.kind).unwrap_or_default();
        let kind = kind.as_str().unwrap_or("deviation").replace('_', " ");
        lines.push(format!(
            "- {kind}: task {} “{}” — {}",
            deviation.task, deviation.title, deviation.detail
        ));
    }
    let summary = completion.summary.split_whitespace().collect::<Vec<_>>().join(" ");
    if !summary.is_empty() {
        lines.push(format!("Summary: {summary}"));
    }
    lines
}

/// Each restore of the workspace to a checkpoint, one PROGRESS.md line apiece.
fn restores_lines(events: &[WorkEvent]) -> impl Iterator<Item = String> + '_ {
    events.iter().filter_map(|event| match event {
        WorkEvent::Restored { checkpoint, reopened, at } => Some(format!(
            "Restored by the user at {at} to checkpoint {checkpoint}; {reopened} task(s) reopened."
        )),
        _ => None,
    })
}

/// The stops and continues in one PROGRESS.md line; none when the work ran through.
fn stops_line(events: &[WorkEvent]) -> Option<String> {
    let reasons: Vec<String> = events
        .iter()
        .filter_map(|event| match event {
            WorkEvent::Stopped { reason, .. } => Some(reason.words().to_owned()),
            WorkEvent::Continued { .. } | WorkEvent::Restored { .. } => None,
        })
        .collect();
    if reasons.is_empty() {
        return None;
    }
    let (continues, auto) = continues(events);
    Some(format!(
        "Stopped {} time(s) with tasks left ({}); continued {continues} time(s), {auto} of them by itself.",
        reasons.len(),
        reasons.join("; ")
    ))
}
