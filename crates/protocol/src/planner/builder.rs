//! Builds the plan document (DESIGN §3) from a parsed plan and what the engine knows of
//! the chat. Pure: whether the sandbox exists is looked up by the caller.

use super::document::{
    Approval, Complexity, Plan, PlanContext, PlanDocument, PlanJudgement, PlanStep, PlannedFiles,
    RevisionAuthor, Sandbox, SandboxPolicy, SandboxSpec,
};
use super::markdown::plan_markdown;
use super::plan_rules::{anchor_paths, apply_plan_rules};
use crate::tasks::{Task, TaskOrigin, TaskStatus};

/// The folder, under a workspace, where plans run their experiments.
pub const SANDBOX_DIR: &str = ".sandbox";

/// What the engine knows of the chat when a plan arrives.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlanFacts {
    pub workspace: Option<String>,
    /// Whether `{workspace}/.sandbox` exists (looked up by the caller).
    pub sandbox_exists: bool,
    pub context7_available: bool,
    pub files: Vec<String>,
    pub created_at: String,
    pub revision: u32,
    pub approval: Approval,
}

/// `{workspace}/.sandbox`, when the chat has a workspace.
pub fn sandbox_dir(workspace: &str) -> String {
    format!("{}/{SANDBOX_DIR}", workspace.trim_end_matches('/'))
}

/// The plan document for `plan`; `prose` is the planner's text around the fence. Paths
/// the planner wrote as absolute are made relative to the workspace, or dropped with a note.
pub fn build_plan_document(plan: &Plan, prose: &str, facts: &PlanFacts) -> PlanDocument {
    let mut plan = plan.clone();
    anchor_paths(&mut plan, facts.workspace.as_deref());
    let sandbox = Sandbox {
        // An existing sandbox is always reused: the planner was told so beforehand.
        policy: if facts.sandbox_exists { SandboxPolicy::Reuse } else { plan.sandbox.policy },
        notes: plan.sandbox.notes.clone(),
        dir: facts.workspace.as_deref().map(sandbox_dir),
        exists: facts.sandbox_exists,
    };
    PlanDocument {
        text: plan_markdown(prose, &plan, &sandbox),
        title: plan.title,
        aim: plan.aim,
        steps: plan.steps,
        libraries: plan.libraries,
        sandbox,
        judgement: plan.judgement,
        notes: plan.notes,
        questions: None,
        files: facts.files.clone(),
        context: PlanContext {
            workspace_path: facts.workspace.clone(),
            context7_available: facts.context7_available,
        },
        created_at: facts.created_at.clone(),
        approval: facts.approval,
        revision: facts.revision,
        author: RevisionAuthor::Planner,
        run_unconfined: false,
        comments: Vec::new(),
    }
}

/// A user's edit of a pending plan: the new fields, re-rendered, as the next revision. The
/// edit is held to the parser's rules; its notes replace the previous revision's.
pub fn edited_plan_document(
    current: &PlanDocument,
    edit: &PlanEdit,
    created_at: &str,
) -> Result<PlanDocument, PlanEditError> {
    let mut plan = Plan {
        title: edit.title.clone().unwrap_or_else(|| current.title.clone()),
        aim: edit.aim.clone().unwrap_or_else(|| current.aim.clone()),
        steps: edit.steps.clone().unwrap_or_else(|| current.steps.clone()),
        libraries: edit.libraries.clone().unwrap_or_else(|| current.libraries.clone()),
        sandbox: sandbox_spec(&current.sandbox),
        judgement: edit.judgement(&current.judgement),
        notes: Vec::new(),
    };
    plan.title = plan.title.trim().to_string();
    plan.steps.retain(|step| !step.action.trim().is_empty());
    if plan.title.is_empty() {
        return Err(PlanEditError::NoTitle);
    }
    if plan.steps.is_empty() {
        return Err(PlanEditError::NoSteps);
    }
    apply_plan_rules(&mut plan, &Some);
    anchor_paths(&mut plan, current.context.workspace_path.as_deref());
    let mut document = current.clone();
    document.text = plan_markdown("", &plan, &current.sandbox);
    document.title = plan.title;
    document.aim = plan.aim;
    document.steps = plan.steps;
    document.libraries = plan.libraries;
    document.judgement = plan.judgement;
    document.notes = plan.notes;
    document.created_at = created_at.to_string();
    document.revision = current.revision + 1;
    document.author = RevisionAuthor::User;
    document.comments = Vec::new();
    Ok(document)
}

fn sandbox_spec(sandbox: &Sandbox) -> SandboxSpec {
    SandboxSpec { policy: sandbox.policy, notes: sandbox.notes.clone() }
}

/// The revision an approved change of the executor makes (DESIGN §12): the steps are the
/// plan steps of `tasks` that still stand (a dropped step is gone, a reworded one has its
/// new action), each keeping the expected result, files and check of the step it was, and
/// its dependencies on steps that still stand, renumbered; the approval carries over, since
/// the plan is being carried out.
pub fn executor_revision(current: &PlanDocument, tasks: &[Task], created_at: &str) -> PlanDocument {
    let standing: Vec<(&Task, Option<usize>)> = tasks
        .iter()
        .filter(|task| task.origin == TaskOrigin::Plan && task.status != TaskStatus::Dropped)
        .map(|task| {
            let was = current.steps.iter().position(|step| one_line(&step.action) == task.title);
            (task, was)
        })
        .collect();
    let steps = standing
        .iter()
        .map(|(task, was)| {
            let before = was.map(|index| current.steps[index].clone()).unwrap_or_default();
            // The task carries its check (an approved check change included), so a reworded
            // step keeps it too.
            let check = task.check.clone().or(before.check.clone());
            PlanStep { action: task.title.clone(), check, ..before }
        })
        .collect();
    // A step number of the current revision → its number in this one.
    let renumber = |old: u32| {
        let was = usize::try_from(old).ok()?.checked_sub(1)?;
        let position = standing.iter().position(|(_, index)| *index == Some(was))?;
        u32::try_from(position + 1).ok()
    };
    let mut plan = Plan {
        title: current.title.clone(),
        aim: current.aim.clone(),
        steps,
        libraries: current.libraries.clone(),
        sandbox: sandbox_spec(&current.sandbox),
        judgement: current.judgement.clone(),
        notes: Vec::new(),
    };
    apply_plan_rules(&mut plan, &renumber);
    let mut document = current.clone();
    document.text = plan_markdown("", &plan, &current.sandbox);
    document.steps = plan.steps;
    document.notes = plan.notes;
    document.created_at = created_at.to_string();
    document.revision = current.revision + 1;
    document.author = RevisionAuthor::Executor;
    document.comments = Vec::new();
    document
}

fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Why a user's edit of a plan was refused (the message is what the user reads).
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum PlanEditError {
    #[error("a plan needs a title")]
    NoTitle,
    #[error("a plan needs at least one step with an action")]
    NoSteps,
}

/// The fields a user may change in a pending plan; `None` keeps the current value. An
/// empty `approach` clears it; a list given empty clears that list.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "ts", ts(optional_fields))]
#[serde(deny_unknown_fields)]
pub struct PlanEdit {
    // The rules `edited_plan_document` checks, told to the OpenAPI document.
    #[cfg_attr(feature = "openapi", schema(pattern = r"\S"))]
    pub title: Option<String>,
    pub aim: Option<String>,
    #[cfg_attr(feature = "openapi", schema(min_items = 1))]
    pub steps: Option<Vec<super::PlanStep>>,
    pub libraries: Option<Vec<super::Library>>,
    pub approach: Option<String>,
    pub alternatives: Option<Vec<String>>,
    pub risks: Option<Vec<String>>,
    pub planned_files: Option<PlannedFiles>,
    pub tests: Option<Vec<String>>,
    pub complexity: Option<Complexity>,
}

impl PlanEdit {
    /// The judgement with this edit's fields in place of `current`'s.
    fn judgement(&self, current: &PlanJudgement) -> PlanJudgement {
        let approach = match &self.approach {
            Some(text) => Some(text.trim().to_string()).filter(|text| !text.is_empty()),
            None => current.approach.clone(),
        };
        let list = |edited: &Option<Vec<String>>, current: &Vec<String>| {
            let items = edited.clone().unwrap_or_else(|| current.clone());
            items
                .into_iter()
                .map(|item| item.trim().to_string())
                .filter(|i| !i.is_empty())
                .collect()
        };
        PlanJudgement {
            approach,
            alternatives: list(&self.alternatives, &current.alternatives),
            risks: list(&self.risks, &current.risks),
            planned_files: self
                .planned_files
                .clone()
                .unwrap_or_else(|| current.planned_files.clone()),
            tests: list(&self.tests, &current.tests),
            complexity: self.complexity.or(current.complexity),
        }
    }
}
