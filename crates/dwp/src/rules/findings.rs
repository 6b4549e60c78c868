//! The verifier's rules, pure: README.md's checkboxes against `state.json` (Markdown wins),
//! and the contradictions seed 002 names — a passing record whose evidence says the check
//! never ran, a completed task whose own log still says `Status: pending`, a completed
//! task without live passing evidence. The checker reports what the records say, never
//! what the prose means. Reading the folder is `disk/audit.rs`'s job.

use std::collections::{BTreeMap, HashMap};
use std::fmt;

use super::documents::{PlanState, Status, TaskEntry};
use super::evidence::admits_not_run;
use super::evidence_states::{evidence_state_problems, investigation_closes};
use super::readme::ReadmeView;

/// Which file is ahead when a checkbox and `state.json` disagree.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    /// README.md shows the box ticked; `state.json` does not say completed.
    ReadmeAhead,
    /// `state.json` says completed; README.md shows the box empty.
    StateAhead,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FindingKind {
    Disagreement(Direction),
    MissingFromState,
    MissingFromReadme,
    /// A record contradicts itself or its task's log.
    Contradiction,
    /// A completed task without the evidence completion needs.
    Evidence,
    Approval,
    /// A file is missing, unreadable or breaks its schema.
    Schema,
    /// A crashed or running writer left something behind (a `.commit` marker, a lock).
    Interrupted,
    /// The plan is newer than this tool, or in a schema version it does not check.
    Version,
}

impl FindingKind {
    /// A stable code for scripts.
    pub fn code(self) -> &'static str {
        match self {
            FindingKind::Disagreement(Direction::ReadmeAhead) => "readme_ahead",
            FindingKind::Disagreement(Direction::StateAhead) => "state_ahead",
            FindingKind::MissingFromState => "missing_from_state",
            FindingKind::MissingFromReadme => "missing_from_readme",
            FindingKind::Contradiction => "contradiction",
            FindingKind::Evidence => "evidence",
            FindingKind::Approval => "approval",
            FindingKind::Schema => "schema",
            FindingKind::Interrupted => "interrupted",
            FindingKind::Version => "version",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    pub kind: FindingKind,
    pub task: Option<u32>,
    pub message: String,
}

impl Finding {
    pub(crate) fn new(kind: FindingKind, task: Option<u32>, message: impl Into<String>) -> Finding {
        Finding { kind, task, message: message.into() }
    }
}

impl fmt::Display for Finding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.task {
            Some(task) => write!(f, "[{}] task {task}: {}", self.kind.code(), self.message),
            None => write!(f, "[{}] {}", self.kind.code(), self.message),
        }
    }
}

/// Every finding of a plan whose `state.json` parsed. `task_logs` holds the `Status:` word
/// of each task stored in its own file (Full plans), by id.
pub(crate) fn verify(
    readme: &ReadmeView,
    state: &PlanState,
    task_logs: &BTreeMap<u32, String>,
) -> Vec<Finding> {
    let mut findings = checkbox_findings(readme, state);
    if let (Some(in_readme), Some(in_state)) = (readme.approval, state.approval) {
        if in_readme != in_state {
            let message = format!(
                "README.md says Approval: {}, state.json says {}",
                in_readme.as_str(),
                in_state.as_str()
            );
            findings.push(Finding::new(FindingKind::Approval, None, message));
        }
    }
    let readme_status: HashMap<u32, &str> =
        readme.tasks.iter().filter_map(|task| Some((task.id, task.status.as_deref()?))).collect();
    for task in &state.tasks {
        gate_contradictions(task, &mut findings);
        for problem in evidence_state_problems(state, task) {
            findings.push(Finding::new(FindingKind::Evidence, Some(task.id), problem));
        }
        if task.status == Status::Completed {
            if !investigation_closes(state, task) {
                evidence_findings(task, &mut findings);
            }
            let log = task_logs
                .get(&task.id)
                .map(String::as_str)
                .or_else(|| readme_status.get(&task.id).copied());
            if let Some(log) = log.filter(|log| *log != "completed") {
                let message =
                    format!("completed in state.json, but its own log still says Status: {log}");
                findings.push(Finding::new(FindingKind::Contradiction, Some(task.id), message));
            }
        }
    }
    findings
}

/// README checkboxes against `state.json`: each disagreement with its direction, and tasks
/// present on one side only. Also what the updater checks before every write.
pub(crate) fn checkbox_findings(readme: &ReadmeView, state: &PlanState) -> Vec<Finding> {
    let mut findings = Vec::new();
    let mut seen: HashMap<u32, usize> = HashMap::new();
    for task in &readme.tasks {
        *seen.entry(task.id).or_default() += 1;
        if seen[&task.id] == 2 {
            findings.push(Finding::new(
                FindingKind::Schema,
                Some(task.id),
                "README.md has more than one checkbox for it",
            ));
        }
    }
    for line in &readme.unanchored {
        let message = format!("README.md line {line} is a checkbox without a {{#task-N}} anchor");
        findings.push(Finding::new(FindingKind::MissingFromState, None, message));
    }
    for task in &readme.tasks {
        match state.task(task.id) {
            None => findings.push(Finding::new(
                FindingKind::MissingFromState,
                Some(task.id),
                "in README.md but not in state.json",
            )),
            Some(entry) => disagreement(task.checked, entry, &mut findings),
        }
    }
    for entry in state.tasks.iter().filter(|entry| !seen.contains_key(&entry.id)) {
        findings.push(Finding::new(
            FindingKind::MissingFromReadme,
            Some(entry.id),
            "in state.json but has no checkbox in README.md",
        ));
    }
    findings
}

fn disagreement(checked: bool, entry: &TaskEntry, findings: &mut Vec<Finding>) {
    let completed = entry.status == Status::Completed;
    let status = entry.status.as_str();
    let (direction, message) = match (checked, completed) {
        (true, false) => (
            Direction::ReadmeAhead,
            format!("README.md shows [x], state.json says {status}: README is ahead, state.json is stale (Markdown wins)"),
        ),
        (false, true) => (
            Direction::StateAhead,
            "state.json says completed, README.md shows [ ]: state.json is ahead and stale (Markdown wins: the task is not done)".to_owned(),
        ),
        _ => return,
    };
    findings.push(Finding::new(FindingKind::Disagreement(direction), Some(entry.id), message));
}

/// Records that contradict themselves, whatever the task's status.
fn gate_contradictions(task: &TaskEntry, findings: &mut Vec<Finding>) {
    for gate in task.gates.iter().filter(|gate| gate.passes) {
        let command = &gate.command;
        if gate.exit_code != 0 || gate.evidence.trim().is_empty() {
            let message = format!(
                "gate `{command}` says passes:true with exit code {} and evidence {:?}",
                gate.exit_code, gate.evidence
            );
            findings.push(Finding::new(FindingKind::Contradiction, Some(task.id), message));
        }
        if let Some(phrase) = admits_not_run(&gate.evidence) {
            let message = format!("gate `{command}` is a passing record whose evidence says the check never ran ({phrase:?})");
            findings.push(Finding::new(FindingKind::Contradiction, Some(task.id), message));
        }
    }
}

/// A completed task needs at least one live gate record, all passing with evidence.
fn evidence_findings(task: &TaskEntry, findings: &mut Vec<Finding>) {
    let live: Vec<_> = task.gates.iter().filter(|gate| gate.is_live()).collect();
    if live.is_empty() {
        let message = if task.gates.is_empty() {
            "completed without any gate record".to_owned()
        } else {
            "completed, but relies only on evidence invalidated by a reopen".to_owned()
        };
        findings.push(Finding::new(FindingKind::Evidence, Some(task.id), message));
    }
    for gate in live.iter().filter(|gate| !gate.passes) {
        let message = format!(
            "completed while gate `{}` fails (exit code {}) with no later passing run",
            gate.command, gate.exit_code
        );
        findings.push(Finding::new(FindingKind::Evidence, Some(task.id), message));
    }
}
