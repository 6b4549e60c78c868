//! Amendments (seed 002, "Prawdziwość dowodów i poprawki"): an approved change of a task's
//! scope written as one durable record — the original wording verbatim, what was observed,
//! the resolution and its reason, the authority, the tasks touched and what became of their
//! evidence — and applied to the state in the same protocol point. Pure.
//!
//! - a drop or a replacement takes its tasks out of scope (`skipped`); a rewording renames
//!   its task;
//! - a task taken out of scope has its live gate records invalidated (kept as history: they
//!   no longer prove anything the plan asks for); a rewording keeps the task's status and
//!   records, and says so in the record;
//! - a deferral moves the criterion to its target task and closes the source; a closing
//!   investigation completes its task against the changed criterion; a reopen on the
//!   command line is recorded before the reopen invalidates the task's evidence (the rules
//!   of these three are `evidence_states.rs`' and `refinement.rs`');
//! - records are appended, numbered in order, never rewritten.

use crate::rules::documents::{
    AmendKind, Amendment, Authority, Outcome, PlanState, Status, TaskEntry,
};
use crate::rules::evidence_states::{
    check_deferral, close_by_investigation, defer_source, named_investigation,
};
use crate::rules::input::AmendmentInput;
use crate::rules::refinement::reopen;
use crate::rules::refusal::Refusal;
use crate::rules::task_helpers::{task_in, task_in_mut, MAX_NOTE_CHARS, MAX_TITLE_CHARS};

/// A check command in an amendment, as the engine's plan keeps it.
const MAX_CHECK_CHARS: usize = 500;
use crate::rules::text::{check_length, checked_text, one_line};

pub(crate) fn amend(
    state: &mut PlanState,
    input: &AmendmentInput,
    now: &str,
    log: &mut Vec<String>,
) -> Result<(), Refusal> {
    if input.tasks.is_empty() {
        return Err(Refusal::Empty { what: "the amendment's list of tasks" });
    }
    let observed = one_line(&input.observed);
    check_length("what was observed", &observed, MAX_NOTE_CHARS, "say it in one line")?;
    let new_text = new_text(input)?;
    let original = original_titles(state, &input.tasks, input.kind)?;
    let id = state.amendments.len() as u32 + 1;
    let named = match input.kind {
        AmendKind::Investigation => Some(named_investigation(state, &input.tasks)?),
        _ => None,
    };
    let evidence = apply_kind(state, input, new_text.as_deref(), id, &observed, now)?;
    let record = Amendment {
        id,
        at: now.to_owned(),
        kind: input.kind,
        tasks: input.tasks.clone(),
        original,
        observed: if observed.is_empty() { "(no reason given)".to_owned() } else { observed },
        resolution: resolution(input, new_text.as_deref().or(named.as_deref())),
        reason: format!("approved by {}", input.authority.words()),
        authority: input.authority,
        evidence: evidence.join("; "),
        change: input.change.clone(),
        target: input.target.filter(|_| input.kind == AmendKind::Defer),
        investigation: named,
    };
    // The seed: the amendment, and the evidence it invalidates, are recorded first.
    log.push(describe(&record));
    if state.blocked.as_ref().is_some_and(|blocked| input.tasks.contains(&blocked.task)) {
        state.blocked = None;
    }
    state.amendments.push(record);
    if input.kind == AmendKind::Reopen {
        for task in &input.tasks {
            reopen(state, *task, &input.observed, now, log)?;
        }
    }
    Ok(())
}

/// A rewording's new title or a check change's new command, checked.
fn new_text(input: &AmendmentInput) -> Result<Option<String>, Refusal> {
    Ok(match input.kind {
        AmendKind::Modify => {
            let title = input.new_title.as_deref().unwrap_or_default();
            Some(checked_text("the new title", title, MAX_TITLE_CHARS)?)
        }
        AmendKind::Check => {
            let check = input.new_check.as_deref().unwrap_or_default();
            Some(checked_text("the new check", check, MAX_CHECK_CHARS)?)
        }
        _ => None,
    })
}

/// The amendment applied to its tasks; returns what became of each task's evidence.
fn apply_kind(
    state: &mut PlanState,
    input: &AmendmentInput,
    new_title: Option<&str>,
    id: u32,
    observed: &str,
    now: &str,
) -> Result<Vec<String>, Refusal> {
    let each = |state: &PlanState, describe: fn(&TaskEntry) -> String| {
        input.tasks.iter().map(|task| task_in(state, *task).map(describe)).collect()
    };
    match input.kind {
        AmendKind::Check => each(state, kept_evidence),
        // Described before the reopen that invalidates it, which follows the record.
        AmendKind::Reopen => each(state, reopened_evidence),
        AmendKind::Defer => {
            let target = check_deferral(state, input)?;
            let mut evidence = Vec::new();
            for task in &input.tasks {
                let entry = task_in_mut(state, *task)?;
                evidence.push(invalidate_evidence(entry, id, now));
                defer_source(entry, target, id, observed);
            }
            Ok(evidence)
        }
        AmendKind::Investigation => {
            let mut evidence = Vec::new();
            for task in &input.tasks {
                let entry = task_in_mut(state, *task)?;
                evidence.push(format!(
                    "{}; closed by its investigation",
                    invalidate_evidence(entry, id, now)
                ));
                close_by_investigation(entry, now);
            }
            if state.checkpoint.as_ref().is_some_and(|c| input.tasks.contains(&c.task)) {
                state.checkpoint = None;
            }
            Ok(evidence)
        }
        AmendKind::Drop | AmendKind::Modify | AmendKind::Replace => {
            apply_to_tasks(state, input, new_title, id, observed, now)
        }
    }
}

/// The amended tasks' titles before the amendment; a skipped task cannot be amended, but
/// for a reopen, which brings it back.
fn original_titles(
    state: &PlanState,
    tasks: &[u32],
    kind: AmendKind,
) -> Result<Vec<String>, Refusal> {
    tasks
        .iter()
        .map(|id| {
            let task = task_in(state, *id)?;
            match task.status == Status::Skipped && kind != AmendKind::Reopen {
                true => Err(Refusal::TaskSkipped { task: *id }),
                false => Ok(task.title.clone()),
            }
        })
        .collect()
}

/// Rewords each task (its evidence kept) or takes it out of scope (its evidence
/// invalidated by amendment `id`); returns what happened to each task's evidence.
fn apply_to_tasks(
    state: &mut PlanState,
    input: &AmendmentInput,
    new_title: Option<&str>,
    id: u32,
    observed: &str,
    now: &str,
) -> Result<Vec<String>, Refusal> {
    let mut evidence = Vec::new();
    for task in &input.tasks {
        let entry = task_in_mut(state, *task)?;
        match new_title {
            Some(title) => {
                evidence.push(kept_evidence(entry));
                entry.title = title.to_owned();
            }
            None => {
                evidence.push(invalidate_evidence(entry, id, now));
                take_out_of_scope(entry, id, observed);
            }
        }
    }
    Ok(evidence)
}

/// The record of a skip the user made on the command line (`--skip-reason`), appended after
/// the skip itself: a task out of scope always has an amendment that says who took it out.
pub(crate) fn record_user_skip(state: &mut PlanState, id: u32, reason: &str, now: &str) {
    let Some(task) = state.task(id) else { return };
    let record = Amendment {
        id: state.amendments.len() as u32 + 1,
        at: now.to_owned(),
        kind: AmendKind::Drop,
        tasks: vec![id],
        original: vec![task.title.clone()],
        observed: one_line(reason),
        resolution: format!("task {id} taken out of the plan (skipped)"),
        reason: "skipped by the user with preflight dwp update --skip-reason".to_owned(),
        authority: Authority::User,
        evidence: format!("task {id}: its records kept as history"),
        change: None,
        target: None,
        investigation: None,
    };
    state.amendments.push(record);
}

/// What became of the task's evidence: live records invalidated (they proved the wording
/// that no longer stands), or none to keep.
fn invalidate_evidence(task: &mut TaskEntry, amendment: u32, now: &str) -> String {
    let live: Vec<&mut _> = task.gates.iter_mut().filter(|gate| gate.is_live()).collect();
    if live.is_empty() {
        return format!("task {}: no evidence recorded", task.id);
    }
    let mut commands = Vec::new();
    for gate in live {
        gate.invalidated = Some(format!("amendment {amendment} at {now}"));
        commands.push(format!("`{}`", gate.command));
    }
    format!("task {}: {} invalidated (kept as history)", task.id, commands.join(", "))
}

/// What a reopen will invalidate: every live record, kept as history.
fn reopened_evidence(task: &TaskEntry) -> String {
    let live: Vec<String> = task
        .gates
        .iter()
        .filter(|gate| gate.is_live())
        .map(|gate| format!("`{}`", gate.command))
        .collect();
    match live.is_empty() {
        true => format!("task {}: no evidence recorded", task.id),
        false => format!(
            "task {}: {} invalidated by the reopen (kept as history)",
            task.id,
            live.join(", ")
        ),
    }
}

/// A rewording keeps the task where it stands: its checks ran against the work, and a task
/// completed before the new wording stays so only because its gate still passes on record.
fn kept_evidence(task: &TaskEntry) -> String {
    let live = task.gates.iter().filter(|gate| gate.is_live()).count();
    match live {
        0 => format!("task {}: no evidence recorded", task.id),
        n => format!("task {}: {n} gate record(s) kept", task.id),
    }
}

fn take_out_of_scope(task: &mut TaskEntry, amendment: u32, observed: &str) {
    task.status = Status::Skipped;
    task.completed_at = None;
    task.block = None;
    let note = format!("out of scope by amendment {amendment}: {observed}");
    let note: String = note.chars().take(MAX_NOTE_CHARS).collect();
    task.outcome.get_or_insert_with(Outcome::default).notes = Some(note);
}

/// What the amendment did; `new_text` is a rewording's title or a check change's command.
fn resolution(input: &AmendmentInput, new_text: Option<&str>) -> String {
    let tasks = input.tasks.iter().map(u32::to_string).collect::<Vec<_>>().join(", ");
    match input.kind {
        AmendKind::Drop => format!("task {tasks} taken out of the plan (skipped)"),
        AmendKind::Modify => format!("task {tasks} reworded as “{}”", new_text.unwrap_or("")),
        AmendKind::Check => {
            format!("task {tasks} is proven by `{}` from now on", new_text.unwrap_or(""))
        }
        AmendKind::Replace => format!("tasks {tasks} replaced by the approved new tasks"),
        AmendKind::Defer => format!(
            "task {tasks}'s criterion deferred to task {}; only this amendment closes task {tasks}",
            input.target.map(|target| target.to_string()).unwrap_or_default()
        ),
        AmendKind::Investigation => format!(
            "task {tasks}'s criterion becomes its investigation of {}, which closes it",
            new_text.unwrap_or("")
        ),
        AmendKind::Reopen => format!("task {tasks} reopened to be refined"),
    }
}

/// The record as one PROGRESS.md line.
fn describe(record: &Amendment) -> String {
    let originals: Vec<String> = record.original.iter().map(|title| format!("“{title}”")).collect();
    let change = record.change.as_deref().map(|id| format!(", change {id}")).unwrap_or_default();
    format!(
        "Amendment {}{change}: {} (was {}); observed: {}; {}; evidence: {}.",
        record.id,
        record.resolution,
        originals.join(", "),
        record.observed,
        record.reason,
        record.evidence
    )
}
