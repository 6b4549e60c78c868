//! The two v2 documents of seed 002: `manifest.json` (the plan's identity, written once) and
//! `state.json` (the live state of every task, rewritten at each protocol point).
//!
//! Field order follows the seed's examples. Unknown fields are kept (`extra`) because the
//! seed allows additive fields within a schema version: a writer that drops another
//! writer's fields would be rewriting the document, not updating it. Enumerations are
//! closed: a value outside the seed's list fails to parse, so malformed state is refused
//! before anything is computed from it.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

pub use super::verification::{Acceptance, Verdict, Verification};

/// The schema URL of `manifest.json` (seed 002, "Wersjonowanie schematów": `/v2.json`).
pub(crate) const MANIFEST_SCHEMA: &str = "https://deepworkplan.com/schema/plan-manifest/v2.json";
/// The schema URL of `state.json`.
pub(crate) const STATE_SCHEMA: &str = "https://deepworkplan.com/schema/plan-state/v2.json";
/// The DWP specification these files are written under: the seed's own "Wersja 5.0.0"
/// (its example's `2.4.0` contradicts its prose, and the prose wins).
pub(crate) const SPEC_VERSION: &str = "5.0.0";
/// A timestamp for verdicts that do not depend on time (no record is stamped with it).
pub(crate) const EPOCH: &str = "1970-01-01T00:00:00Z";

/// `manifest.json`: who made the plan, when, in which shape. Never rewritten.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct Manifest {
    pub schema: String,
    pub spec_version: String,
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    pub archetype: Archetype,
    pub rigor: Rigor,
    pub plan_format: PlanFormat,
    pub created_at: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub created_by: Option<Author>,
    #[serde(default)]
    pub tags: Vec<String>,
    pub task_count: u32,
    #[serde(default)]
    pub parent_plan: Option<String>,
    /// Additive: which Preflight chat materialised the plan (found again by `locate`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub origin: Option<Origin>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Origin {
    pub client: String,
    pub chat_id: String,
}

/// `created_by` / `updated_by`: the agent and model, never a secret or a user id.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Author {
    pub agent: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum Archetype {
    Individual,
    OrchestratorHub,
    AgentWorkspace,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum Rigor {
    Micro,
    Standard,
    Deep,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PlanFormat {
    Lite,
    Full,
}

/// `state.json`: the live state. `status`, the counts and `blocked` are derived from the
/// tasks by [`PlanState::refresh_derived`] before every write.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PlanState {
    pub schema: String,
    pub plan: String,
    pub updated_at: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub updated_by: Option<Author>,
    pub status: Status,
    pub completed_count: u32,
    pub task_count: u32,
    pub format: PlanFormat,
    pub materialization: Materialization,
    /// Optional in the schema; absent means the README's Approval line, then `pending`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub approval: Option<ApprovalState>,
    /// Null except while a Lite plan is being promoted to Full.
    #[serde(default)]
    pub promotion: Option<Value>,
    pub tasks: Vec<TaskEntry>,
    #[serde(default)]
    pub checkpoint: Option<Checkpoint>,
    #[serde(default)]
    pub blocked: Option<Blocked>,
    /// Additive: every approved change of the plan's scope, oldest first, never rewritten
    /// (seed 002, "Prawdziwość dowodów i poprawki": amendments are appended, never backdated).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub amendments: Vec<Amendment>,
    /// Additive: the finaliser's verdict over the plan as it stands (seed 002: the last
    /// task closes through the finaliser). The plan is `completed` only while it says
    /// VERIFIED, or the user accepted it as is; it is withdrawn when a task opens again.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verification: Option<Verification>,
    /// Additive: verdicts withdrawn since (a restore, a reopen, a check failing again),
    /// oldest first: kept as history, never as proof.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub withdrawn_verifications: Vec<Verification>,
    /// Additive: the chat set this plan aside (its request was edited, so it planned
    /// again): the folder is a record from then on, and the chat's next plan gets its own.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub superseded: Option<Superseded>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// When and why a plan was set aside.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Superseded {
    pub at: String,
    pub why: String,
}

/// One durable amendment record: the original criterion verbatim, what was observed, the
/// resolution and its reason, the authority behind it, the tasks it touches and what became
/// of their evidence.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Amendment {
    /// 1, 2, … in the order they were made.
    pub id: u32,
    pub at: String,
    pub kind: AmendKind,
    pub tasks: Vec<u32>,
    /// Each affected task's wording before the change, verbatim.
    pub original: Vec<String>,
    /// What the executor found that made it ask (its reason, in its words).
    pub observed: String,
    /// What was decided, e.g. "task 2 reworded as “…”".
    pub resolution: String,
    /// Why the change was accepted, and by what.
    pub reason: String,
    pub authority: Authority,
    /// Which evidence the change invalidated or kept.
    pub evidence: String,
    /// The chat's change request it records, when it came from one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub change: Option<String>,
    /// Additive, a deferral's: the task the criterion moved to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target: Option<u32>,
    /// Additive, a closing investigation's: the investigation it names (its `at`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub investigation: Option<String>,
}

/// What an amendment changes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AmendKind {
    /// A task leaves the plan's scope.
    Drop,
    /// A task is reworded.
    Modify,
    /// Open tasks are replaced by new ones.
    Replace,
    /// A task is to be proven by another command than its planned check.
    Check,
    /// Seed 002's deferred requirement: the task's criterion moves to the named `target`
    /// task; this amendment alone closes the source task (`skipped`, its records history).
    Defer,
    /// Seed 002's completed investigation: the task's criterion becomes the investigation
    /// recorded on it, which this amendment names and which then closes the task.
    Investigation,
    /// A reopen on the command line (`--reopen-reason`): the refinement the seed records
    /// before the task's evidence is invalidated.
    Reopen,
}

/// Who stood behind a change (seed 002: the user, a developer, or evidence).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Authority {
    /// The user, answering the change in the chat or on the command line.
    User,
    /// The chat's auto-approve setting, which the user turned on: a standing approval.
    AutoApprove,
}

impl Authority {
    pub fn words(self) -> &'static str {
        match self {
            Authority::User => "the user",
            Authority::AutoApprove => {
                "the chat's auto-approve setting (the user's standing approval)"
            }
        }
    }
}

/// A task's status, in the seed's words (also used for the plan's overall `status`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    Pending,
    InProgress,
    Completed,
    Blocked,
    Skipped,
}

impl Status {
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Pending => "pending",
            Status::InProgress => "in_progress",
            Status::Completed => "completed",
            Status::Blocked => "blocked",
            Status::Skipped => "skipped",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Materialization {
    Materializing,
    Ready,
    Promoting,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ApprovalState {
    Pending,
    Approved,
    PreApproved,
}

impl ApprovalState {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            ApprovalState::Pending => "pending",
            ApprovalState::Approved => "approved",
            ApprovalState::PreApproved => "pre_approved",
        }
    }

    pub(crate) fn parse(word: &str) -> Option<ApprovalState> {
        [ApprovalState::Pending, ApprovalState::Approved, ApprovalState::PreApproved]
            .into_iter()
            .find(|approval| approval.as_str() == word)
    }
}

/// One task's entry, keyed by `id` and `locator`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TaskEntry {
    pub id: u32,
    pub locator: Locator,
    pub title: String,
    /// Additive: the tracker's phase (group name), when the task has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub phase: Option<String>,
    pub status: Status,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub started_at: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub completed_at: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub commit: Option<String>,
    #[serde(default)]
    pub gates: Vec<GateRecord>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub outcome: Option<Outcome>,
    /// Additive: why this task is blocked, kept while it is (the plan's `blocked` names
    /// only the current blocker; a second blocked task must not lose its reason).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub block: Option<TaskBlock>,
    /// Additive: seed 002's completed investigation, real work recorded on the task. It
    /// closes the task only through an amendment that names it (`rules/evidence_states.rs`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub investigation: Option<Investigation>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// What an investigation found, and when it was recorded (its name in amendments).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Investigation {
    pub at: String,
    pub findings: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Locator {
    pub kind: LocatorKind,
    pub value: String,
}

impl Locator {
    /// The Lite locator of task `id`: its anchor in README.md.
    pub(crate) fn inline(id: u32) -> Locator {
        Locator { kind: LocatorKind::Inline, value: format!("#task-{id}") }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LocatorKind {
    File,
    Inline,
}

/// One validation command's latest run. Retries replace the record of their own command.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GateRecord {
    pub command: String,
    pub passes: bool,
    pub exit_code: i64,
    pub last_run: String,
    pub evidence: String,
    /// Additive: set when a reopen invalidated this run; kept as history, never as proof.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub invalidated: Option<String>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Episodic memory of a finished task: one line each.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Outcome {
    #[serde(default)]
    pub tried: Vec<String>,
    #[serde(default)]
    pub failed: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub worked: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub notes: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Checkpoint {
    pub task: u32,
    pub step: String,
    pub at: String,
    pub note: String,
}

/// The plan's current stop: `{task, reason, since, needs}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Blocked {
    pub task: u32,
    pub reason: String,
    pub since: String,
    #[serde(default)]
    pub needs: String,
}

/// A blocked task's own record of its stop (the plan-level `blocked` without `task`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TaskBlock {
    pub reason: String,
    pub since: String,
    #[serde(default)]
    pub needs: String,
    /// Additive: set when Preflight itself paused the task (a stop with work left, a plan
    /// change waiting for the user), so that resuming the work resolves exactly these.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pause: Option<Pause>,
}

/// Why Preflight paused a task: what resumes it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "waits_for", rename_all = "snake_case")]
pub enum Pause {
    /// The executor stopped with work left: a Continue or the user's next message resumes.
    Continue,
    /// A change of this task waits for the user's answer.
    PlanChange { change: String },
}

impl PlanState {
    pub fn task(&self, id: u32) -> Option<&TaskEntry> {
        self.tasks.iter().find(|task| task.id == id)
    }

    pub(crate) fn task_mut(&mut self, id: u32) -> Option<&mut TaskEntry> {
        self.tasks.iter_mut().find(|task| task.id == id)
    }

    /// Recomputes `status`, `completed_count`, `task_count` and `blocked` from the tasks.
    ///
    /// The plan is `completed` only when [`all_done`](Self::all_done) and the finaliser's
    /// verdict closes it (VERIFIED, or accepted by the user as is): seed 002's last task
    /// closes through the finaliser, so finished work awaiting its verdict is `in_progress`.
    pub(crate) fn refresh_derived(&mut self) {
        self.task_count = self.tasks.len() as u32;
        self.completed_count =
            self.tasks.iter().filter(|t| t.status == Status::Completed).count() as u32;
        self.blocked = self.current_blocker();
        let all = |status: Status| self.tasks.iter().all(|t| t.status == status);
        self.status = if self.blocked.is_some() {
            Status::Blocked
        } else if self.all_done() && self.verification.as_ref().is_some_and(|v| v.closes_the_plan())
        {
            Status::Completed
        } else if all(Status::Pending) {
            Status::Pending
        } else {
            Status::InProgress
        };
    }

    /// The plan-level blocker: the current one while its task is still blocked, otherwise
    /// the blocked task blocked most recently (ties: the lowest id).
    fn current_blocker(&self) -> Option<Blocked> {
        let still_blocked = |id: u32| self.task(id).is_some_and(|t| t.status == Status::Blocked);
        if let Some(current) = self.blocked.as_ref().filter(|b| still_blocked(b.task)) {
            return Some(current.clone());
        }
        let blocked = self.tasks.iter().filter(|t| t.status == Status::Blocked);
        let latest = blocked.max_by(|a, b| {
            let since =
                |t: &TaskEntry| t.block.as_ref().map(|b| b.since.clone()).unwrap_or_default();
            since(a).cmp(&since(b)).then(b.id.cmp(&a.id))
        })?;
        let block = latest.block.clone().unwrap_or(TaskBlock {
            reason: "blocked".to_owned(),
            since: self.updated_at.clone(),
            needs: String::new(),
            pause: None,
        });
        Some(Blocked {
            task: latest.id,
            reason: block.reason,
            since: block.since,
            needs: block.needs,
        })
    }
}

impl TaskEntry {
    /// A new Lite task entry: pending, no record yet.
    pub(crate) fn pending(id: u32, title: String, phase: Option<String>) -> TaskEntry {
        TaskEntry {
            id,
            locator: Locator::inline(id),
            title,
            phase,
            status: Status::Pending,
            started_at: None,
            completed_at: None,
            commit: None,
            gates: Vec::new(),
            outcome: None,
            block: None,
            investigation: None,
            extra: Map::new(),
        }
    }
}

impl GateRecord {
    /// Counts towards completion: passing and not invalidated by a reopen.
    pub(crate) fn is_live(&self) -> bool {
        self.invalidated.is_none()
    }
}
