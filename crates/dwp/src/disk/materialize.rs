//! Materialising an approved plan: `.dwp/plans/PLAN_<slug>/` in seed 002's full layout —
//! README.md, PROGRESS.md, PROMPTS.md, `manifest.json` (written exactly once), `state.json`,
//! one `{N}.task_{slug}.md` per task and `analysis_results/` — then finding it again.
//!
//! Order: the folder (a unique name), the lock, `manifest.json`, `state.json` saying
//! `materializing`, `analysis_results/`, then README.md, PROGRESS.md, PROMPTS.md, the task
//! files and `state.json` saying `ready` with every task pending as one change (the
//! "materialisation" protocol point). The tracker's current statuses (task 1 active) are
//! then synced as their own protocol points.
//!
//! New plans are Full: each task's locator is `{kind:"file", value:"N.task_slug.md"}`. A
//! `file` locator is what makes `preflight dwp verify` read the task file (a missing one is
//! a finding, and a completed task whose file still says otherwise a contradiction), and it
//! is the shape a migrated v1 plan already has, so the writer, the verifier and the
//! migration treat every task file alike. README.md keeps its checkbox list, the index the
//! reconciler reads (Markdown wins) in both formats; a Lite folder an earlier Preflight
//! wrote stays Lite.

use std::fs;
use std::io::ErrorKind;
use std::path::{Path, PathBuf};

use preflight_files::{write_atomic, write_new, Access};

use super::error::DwpError;
use super::finalize::ANALYSIS_DIR;
use super::folder::{
    check_real_folders, read_manifest, read_state, to_json, PlanFolder, MANIFEST_FILE, PLANS_DIR,
    PROGRESS_FILE, PROMPTS_FILE, README_FILE, STATE_FILE,
};
use super::journal::{commit, recover};
use super::lock::PlanLock;
use super::task_files::task_file_changes;
use crate::disk::plan_files::PlanFolderWriter;
use crate::rules::documents::{
    ApprovalState, Archetype, Manifest, Materialization, Origin, PlanFormat, PlanState, Rigor,
    Status, TaskEntry, MANIFEST_SCHEMA, SPEC_VERSION, STATE_SCHEMA,
};
use crate::rules::input::{PlanApproval, PlanInput, TrackedTask};
use crate::rules::progress::{append_entries, render_progress_header, render_prompts};
use crate::rules::readme::render_readme;
use crate::rules::slug::slug;
use crate::rules::task_file::task_locator;
use crate::rules::transition::stamp;

impl PlanFolderWriter {
    /// Writes the plan folder of an approved plan and syncs the tracker's statuses into it.
    /// Idempotent per chat: when the chat already has a plan folder, that one is returned
    /// (and synced) instead of a second one being made.
    pub fn materialize(
        &self,
        workspace: &Path,
        plan: &PlanInput,
        tasks: &[TrackedTask],
        chat_id: &str,
        now: &str,
    ) -> Result<PlanFolder, DwpError> {
        let approval = match plan.approval {
            PlanApproval::Approved => ApprovalState::Approved,
            PlanApproval::PreApproved => ApprovalState::PreApproved,
            PlanApproval::Pending => {
                return Err(DwpError::NotApproved { status: "is still waiting for approval" })
            }
            PlanApproval::Rejected => return Err(DwpError::NotApproved { status: "was rejected" }),
        };
        if let Some(existing) = PlanFolderWriter::locate(workspace, chat_id)? {
            self.finish_materialization(&existing, plan, tasks, approval, now)?;
            self.sync(&existing, tasks, now)?;
            return Ok(existing);
        }
        check_real_folders(&workspace.join(PLANS_DIR))?;
        let folder = create_unique_folder(&workspace.join(PLANS_DIR), &slug(&plan.title))?;
        let dir = PlanFolder::new_unchecked(folder);
        {
            let _lock = PlanLock::acquire(dir.path(), self.lock)?;
            let manifest = self.manifest(&dir, workspace, plan, tasks, chat_id, now);
            write_new(&dir.file(MANIFEST_FILE), to_json(&manifest).as_bytes(), Access::Default)?;
            let state = self.initial_state(&dir, tasks, approval, now);
            write_atomic(&dir.file(STATE_FILE), to_json(&state).as_bytes())?;
            write_ready(&dir, plan, state, approval, now)?;
        }
        self.sync(&dir, tasks, now)?;
        Ok(dir)
    }

    /// Completes a materialisation a crash interrupted (state still `materializing`).
    fn finish_materialization(
        &self,
        dir: &PlanFolder,
        plan: &PlanInput,
        tasks: &[TrackedTask],
        approval: ApprovalState,
        now: &str,
    ) -> Result<(), DwpError> {
        let _lock = PlanLock::acquire(dir.path(), self.lock)?;
        recover(dir.path())?;
        let state = match dir.file(STATE_FILE).exists() {
            true => read_state(dir)?.state,
            false => self.initial_state(dir, tasks, approval, now),
        };
        if state.materialization == Materialization::Materializing {
            write_ready(dir, plan, state, approval, now)?;
        }
        Ok(())
    }

    /// The newest plan folder of `chat_id` under `workspace/.dwp/plans`, if any. Folders
    /// whose manifest cannot be read are someone else's business and are passed over.
    pub fn locate(workspace: &Path, chat_id: &str) -> Result<Option<PlanFolder>, DwpError> {
        let plans = workspace.join(PLANS_DIR);
        check_real_folders(&plans)?;
        let Ok(entries) = fs::read_dir(&plans) else {
            return Ok(None);
        };
        let mut found: Option<(String, PlanFolder)> = None;
        for entry in entries {
            let path = entry.map_err(DwpError::io(&plans))?.path();
            let dir = PlanFolder::new_unchecked(path);
            let Ok(manifest) = read_manifest(&dir) else {
                continue;
            };
            let ours = manifest.origin.as_ref().is_some_and(|origin| origin.chat_id == chat_id);
            // A plan the chat set aside is a record now, never the chat's current plan.
            let set_aside = || read_state(&dir).is_ok_and(|read| read.state.superseded.is_some());
            let ours = ours && !set_aside();
            let newer =
                found.as_ref().is_none_or(|(created_at, _)| manifest.created_at > *created_at);
            if ours && newer {
                found = Some((manifest.created_at, dir));
            }
        }
        Ok(found.map(|(_, dir)| dir))
    }

    fn manifest(
        &self,
        dir: &PlanFolder,
        workspace: &Path,
        plan: &PlanInput,
        tasks: &[TrackedTask],
        chat_id: &str,
        now: &str,
    ) -> Manifest {
        // Seed 002 asks for the state layer in "przestrzeń robocza agenta bez gita": such a
        // workspace is the agent-workspace archetype; a git repository is an individual plan.
        let in_git = workspace.ancestors().any(|folder| folder.join(".git").exists());
        Manifest {
            schema: MANIFEST_SCHEMA.to_owned(),
            spec_version: SPEC_VERSION.to_owned(),
            name: dir.name(),
            title: Some(plan.title.clone()),
            archetype: if in_git { Archetype::Individual } else { Archetype::AgentWorkspace },
            rigor: Rigor::Standard,
            plan_format: PlanFormat::Full,
            created_at: now.to_owned(),
            created_by: Some(self.author.clone()),
            tags: Vec::new(),
            task_count: tasks.len() as u32,
            parent_plan: None,
            origin: Some(Origin { client: "preflight".to_owned(), chat_id: chat_id.to_owned() }),
            extra: Default::default(),
        }
    }

    fn initial_state(
        &self,
        dir: &PlanFolder,
        tasks: &[TrackedTask],
        approval: ApprovalState,
        now: &str,
    ) -> PlanState {
        let entries = tasks.iter().map(|task| {
            let mut entry = TaskEntry::pending(task.id, task.title.clone(), task.phase.clone());
            entry.locator = task_locator(PlanFormat::Full, task.id, &task.title);
            entry
        });
        let mut state = PlanState {
            schema: STATE_SCHEMA.to_owned(),
            plan: dir.name(),
            updated_at: now.to_owned(),
            updated_by: None,
            status: Status::Pending,
            completed_count: 0,
            task_count: 0,
            format: PlanFormat::Full,
            materialization: Materialization::Materializing,
            approval: Some(approval),
            promotion: None,
            tasks: entries.collect(),
            checkpoint: None,
            blocked: None,
            amendments: Vec::new(),
            verification: None,
            withdrawn_verifications: Vec::new(),
            superseded: None,
            extra: Default::default(),
        };
        stamp(&mut state, now, &self.author);
        state
    }
}

/// The materialisation protocol point: `analysis_results/` first, then README.md,
/// PROGRESS.md, PROMPTS.md, the task files and `state.json` (`ready`, every task pending) as
/// one change. PROMPTS.md is written here only, never again (seed 002: "niezmieniony").
fn write_ready(
    dir: &PlanFolder,
    plan: &PlanInput,
    mut state: PlanState,
    approval: ApprovalState,
    now: &str,
) -> Result<(), DwpError> {
    state.materialization = Materialization::Ready;
    let results = dir.file(ANALYSIS_DIR);
    match fs::create_dir(&results) {
        Err(error) if error.kind() != ErrorKind::AlreadyExists => {
            return Err(DwpError::Io { path: results, source: error })
        }
        _ => {}
    }
    let readme = render_readme(plan, &state, approval, now);
    let header = render_progress_header(&plan.title, &dir.name());
    let line =
        format!("Plan materialised: {} tasks, approval {}.", state.tasks.len(), approval.as_str());
    let progress = append_entries(&header, now, &[line]);
    let prompts = render_prompts(plan, now);
    let task_files = task_file_changes(dir, None, &state, &plan.steps)?;
    let state = to_json(&state);
    let mut files =
        vec![(PROGRESS_FILE, progress.as_str()), (README_FILE, &readme), (PROMPTS_FILE, &prompts)];
    files.extend(task_files.iter().map(|(name, text)| (name.as_str(), text.as_str())));
    files.push((STATE_FILE, &state));
    commit(dir.path(), &files)
}

/// Creates `plans_root/PLAN_<slug>` (or `PLAN_<slug>_2`, `_3`, … when taken) and returns
/// it. `create_dir` fails on an existing name, so two materialisations never share a folder.
fn create_unique_folder(plans_root: &Path, slug: &str) -> Result<PathBuf, DwpError> {
    fs::create_dir_all(plans_root).map_err(DwpError::io(plans_root))?;
    for attempt in 1u32.. {
        let name =
            if attempt == 1 { format!("PLAN_{slug}") } else { format!("PLAN_{slug}_{attempt}") };
        let path = plans_root.join(name);
        match fs::create_dir(&path) {
            Ok(()) => return Ok(path),
            Err(error) if error.kind() == ErrorKind::AlreadyExists => continue,
            Err(error) => return Err(DwpError::Io { path, source: error }),
        }
    }
    unreachable!("u32 attempts cannot run out before a free name")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folders_never_collide() {
        let root = tempfile::tempdir().unwrap();
        let plans = root.path().join(".dwp/plans");
        let first = create_unique_folder(&plans, "x").unwrap();
        let second = create_unique_folder(&plans, "x").unwrap();
        assert_eq!(first.file_name().unwrap(), "PLAN_x");
        assert_eq!(second.file_name().unwrap(), "PLAN_x_2");
    }
}
