//! The rules a plan's optional fields (DESIGN §14) are held to after they are read: limits
//! on lengths and counts, plain paths inside the workspace, dependencies on earlier steps
//! only. Nothing the user must read is cut short: what breaks a rule is dropped whole, and
//! each drop leaves a note in the plan for the card to show.

use super::document::{Plan, PlanJudgement, PlanStep};
use super::json_text::same_text;
use super::paths::{inside_workspace, is_absolute, plain_path, PathRefusal};

/// At most this many alternatives, risks and tests each.
pub const MAX_PLAN_ITEMS: usize = 12;
/// At most this many paths in each list (files to create, to modify, a step's files).
pub const MAX_PLAN_PATHS: usize = 40;
/// The approach, and each alternative, risk and test, in characters.
pub const MAX_ITEM_CHARS: usize = 1000;
pub const MAX_PATH_CHARS: usize = 260;
/// A step's check: the task list keeps it as its gate command, by the same limit.
pub use crate::tasks::MAX_CHECK_CHARS;
/// Notes past this many are summed up in one last note.
pub const MAX_NOTES: usize = 20;

/// Applies every rule to `plan`, adding a note for each drop. `renumber` maps a step number
/// as written to the step's number now (repeated and unreadable steps were dropped).
pub(super) fn apply_plan_rules(plan: &mut Plan, renumber: &dyn Fn(u32) -> Option<u32>) {
    let mut notes = std::mem::take(&mut plan.notes);
    limit_judgement(&mut plan.judgement, &mut notes);
    for (index, step) in plan.steps.iter_mut().enumerate() {
        limit_step(index as u32 + 1, step, renumber, &mut notes);
    }
    plan.notes = notes;
}

/// Makes absolute paths relative to `workspace`, dropping (with a note) those outside it.
/// Without a workspace there is nothing to judge them against and they are kept.
pub(super) fn anchor_paths(plan: &mut Plan, workspace: Option<&str>) {
    let Some(workspace) = workspace else { return };
    let mut notes = std::mem::take(&mut plan.notes);
    let files = &mut plan.judgement.planned_files;
    anchor_list("files.create", &mut files.create, workspace, &mut notes);
    anchor_list("files.modify", &mut files.modify, workspace, &mut notes);
    for (index, step) in plan.steps.iter_mut().enumerate() {
        anchor_list(&format!("step {}: files", index + 1), &mut step.files, workspace, &mut notes);
    }
    plan.notes = notes;
}

fn anchor_list(label: &str, paths: &mut Vec<String>, workspace: &str, notes: &mut Vec<String>) {
    let written = std::mem::take(paths);
    for path in written {
        match is_absolute(&path).then(|| inside_workspace(&path, workspace)) {
            None => push_unique(paths, path),
            Some(Ok(relative)) => push_unique(paths, relative),
            Some(Err(refusal)) => note(notes, dropped_path(label, &path, refusal)),
        }
    }
}

fn limit_judgement(judgement: &mut PlanJudgement, notes: &mut Vec<String>) {
    if judgement.approach.as_ref().is_some_and(|text| too_long(text, MAX_ITEM_CHARS)) {
        judgement.approach = None;
        note(notes, format!("approach dropped: longer than {MAX_ITEM_CHARS} characters"));
    }
    limit_texts("alternatives", &mut judgement.alternatives, notes);
    limit_texts("risks", &mut judgement.risks, notes);
    limit_texts("tests", &mut judgement.tests, notes);
    limit_paths("files.create", &mut judgement.planned_files.create, notes);
    limit_paths("files.modify", &mut judgement.planned_files.modify, notes);
}

fn limit_step(
    number: u32,
    step: &mut PlanStep,
    renumber: &dyn Fn(u32) -> Option<u32>,
    notes: &mut Vec<String>,
) {
    limit_paths(&format!("step {number}: files"), &mut step.files, notes);
    if step.check.as_ref().is_some_and(|check| too_long(check, MAX_CHECK_CHARS)) {
        step.check = None;
        note(
            notes,
            format!("step {number}: check dropped: longer than {MAX_CHECK_CHARS} characters"),
        );
    }
    link_dependencies(number, step, renumber, notes);
}

/// Keeps the dependencies that name an earlier step (renumbered), sorted, once each.
fn link_dependencies(
    number: u32,
    step: &mut PlanStep,
    renumber: &dyn Fn(u32) -> Option<u32>,
    notes: &mut Vec<String>,
) {
    let mut kept: Vec<u32> = Vec::new();
    let mut refused: Vec<String> = Vec::new();
    for written in std::mem::take(&mut step.depends_on) {
        match renumber(written).filter(|earlier| (1..number).contains(earlier)) {
            Some(earlier) if !kept.contains(&earlier) => kept.push(earlier),
            Some(_) => {}
            None if !refused.contains(&written.to_string()) => refused.push(written.to_string()),
            None => {}
        }
    }
    kept.sort_unstable();
    step.depends_on = kept;
    if !refused.is_empty() {
        let listed = listed(&refused);
        let steps = if refused.len() == 1 { "step" } else { "steps" };
        note(
            notes,
            format!("step {number}: depends_on {listed} dropped: no earlier {steps} {listed}"),
        );
    }
}

fn limit_texts(label: &str, items: &mut Vec<String>, notes: &mut Vec<String>) {
    let mut kept: Vec<String> = Vec::new();
    for (index, item) in std::mem::take(items).into_iter().enumerate() {
        if too_long(&item, MAX_ITEM_CHARS) {
            let why = format!("longer than {MAX_ITEM_CHARS} characters");
            note(notes, format!("{label}: item {} dropped: {why}", index + 1));
        } else if !kept.iter().any(|seen| same_text(seen, &item)) {
            kept.push(item);
        }
    }
    cap_count(label, &mut kept, MAX_PLAN_ITEMS, notes);
    *items = kept;
}

fn limit_paths(label: &str, paths: &mut Vec<String>, notes: &mut Vec<String>) {
    let mut kept: Vec<String> = Vec::new();
    for path in std::mem::take(paths) {
        if too_long(&path, MAX_PATH_CHARS) {
            let why = format!("longer than {MAX_PATH_CHARS} characters");
            note(notes, format!("{label}: {} dropped: {why}", quoted(&path)));
            continue;
        }
        match plain_path(&path) {
            Ok(plain) => push_unique(&mut kept, plain),
            Err(refusal) => note(notes, dropped_path(label, &path, refusal)),
        }
    }
    cap_count(label, &mut kept, MAX_PLAN_PATHS, notes);
    *paths = kept;
}

fn cap_count(label: &str, items: &mut Vec<String>, max: usize, notes: &mut Vec<String>) {
    if items.len() > max {
        let extra = items.len() - max;
        items.truncate(max);
        note(notes, format!("{label}: {extra} more dropped: at most {max}"));
    }
}

fn dropped_path(label: &str, path: &str, refusal: PathRefusal) -> String {
    format!("{label}: {} dropped: {}", quoted(path), refusal.reason())
}

/// Adds a note; past `MAX_NOTES` one last note says more were left out.
fn note(notes: &mut Vec<String>, text: String) {
    match notes.len() {
        count if count < MAX_NOTES => notes.push(text),
        MAX_NOTES => notes.push("more was dropped than these notes list".to_string()),
        _ => {}
    }
}

fn push_unique(items: &mut Vec<String>, item: String) {
    if !items.contains(&item) {
        items.push(item);
    }
}

fn too_long(text: &str, max: usize) -> bool {
    text.chars().count() > max
}

/// A path as a note quotes it: on one line, and short (the note is not the field itself).
fn quoted(text: &str) -> String {
    let line: String = text.chars().map(|c| if c.is_control() { ' ' } else { c }).collect();
    match line.chars().count() > 60 {
        true => format!("\"{}…\"", line.chars().take(60).collect::<String>()),
        false => format!("\"{line}\""),
    }
}

/// `5`, `4, 5`, or the first five and a count.
fn listed(numbers: &[String]) -> String {
    match numbers.len() {
        0..=5 => numbers.join(", "),
        more => format!("{} and {} more", numbers[..5].join(", "), more - 5),
    }
}
