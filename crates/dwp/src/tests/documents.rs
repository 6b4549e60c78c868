//! The two JSON documents, field by field against seed 002's prose, as materialisation and
//! the protocol points write them; plus what the updater refuses to read. (The protocol
//! points driven by the engine's tracker are checked in the engine's `tests/dwp_sync.rs`; v1
//! folders in `migration.rs`.)

use serde_json::{json, Value};

use super::support::*;
use super::{
    at, verify_plan, Change, DwpError, LockOptions, PlanFolder, PlanFolderWriter, UpdateAction,
    UpdateRequest, MANIFEST_FILE, STATE_FILE,
};
use crate::PlanApproval as Approval;

#[test]
fn the_manifest_has_every_required_field_and_nothing_secret() {
    let ws = workspace(true);
    let (dir, _) = materialised(ws.path());
    assert_eq!(dir.name(), "PLAN_add_payment_webhook_handling");
    assert_eq!(dir.path(), ws.path().join(".dwp/plans/PLAN_add_payment_webhook_handling"));
    let manifest = read_json(&dir.file(MANIFEST_FILE));
    // "Pola schema, spec_version, name, archetype, rigor, created_at, task_count oraz
    // plan_format są WYMAGANE."
    for field in [
        "schema",
        "spec_version",
        "name",
        "archetype",
        "rigor",
        "created_at",
        "task_count",
        "plan_format",
    ] {
        assert!(manifest.get(field).is_some(), "manifest lacks {field}: {manifest:#}");
    }
    assert_eq!(manifest["schema"], "https://deepworkplan.com/schema/plan-manifest/v2.json");
    assert_eq!(
        manifest["spec_version"], "5.0.0",
        "the seed's own version (its prose), not its example's 2.4.0"
    );
    assert_eq!(manifest["name"], "PLAN_add_payment_webhook_handling");
    assert_eq!(manifest["title"], "Add payment webhook handling");
    assert_eq!(manifest["archetype"], "individual", "a git repository");
    assert!(["micro", "standard", "deep"].contains(&manifest["rigor"].as_str().unwrap()));
    assert_eq!(manifest["plan_format"], "full", "each task has its own file");
    assert!(is_timestamp(&manifest["created_at"]));
    assert_eq!(
        manifest["task_count"], 3,
        "the plan's own task count (the example's 7 is an illustration)"
    );
    assert_eq!(manifest["parent_plan"], Value::Null);
    assert_eq!(manifest["tags"], json!([]));
    // created_by names the agent and model, nothing else (no secrets, no user ids).
    assert_eq!(manifest["created_by"], json!({"agent": "preflight", "model": "test-model"}));
    assert_eq!(
        manifest["origin"],
        json!({"client": "preflight", "chat_id": CHAT}),
        "additive field"
    );
}

#[test]
fn a_workspace_without_git_is_the_agent_workspace_archetype() {
    let ws = workspace(false);
    let (dir, _) = materialised(ws.path());
    assert_eq!(read_json(&dir.file(MANIFEST_FILE))["archetype"], "agent-workspace");
}

#[test]
fn the_state_at_materialisation_has_every_field() {
    let ws = workspace(true);
    let (dir, _) = materialised(ws.path());
    let state = read_json(&dir.file(STATE_FILE));
    assert_eq!(
        keys(&state),
        vec![
            "schema",
            "plan",
            "updated_at",
            "updated_by",
            "status",
            "completed_count",
            "task_count",
            "format",
            "materialization",
            "approval",
            "promotion",
            "tasks",
            "checkpoint",
            "blocked"
        ]
    );
    assert_eq!(state["schema"], "https://deepworkplan.com/schema/plan-state/v2.json");
    assert_eq!(state["plan"], "PLAN_add_payment_webhook_handling");
    assert!(is_timestamp(&state["updated_at"]));
    assert_eq!(state["updated_by"], json!({"agent": "preflight", "model": "test-model"}));
    assert_eq!(state["status"], "in_progress", "task 1 started after materialisation");
    assert_eq!(
        (state["completed_count"].clone(), state["task_count"].clone()),
        (json!(0), json!(3))
    );
    assert_eq!(state["format"], "full", "mirrors the manifest's plan_format");
    assert_eq!(state["materialization"], "ready");
    assert_eq!(state["approval"], "approved");
    assert_eq!(
        (state["promotion"].clone(), state["checkpoint"].clone(), state["blocked"].clone()),
        (Value::Null, Value::Null, Value::Null)
    );
    let tasks = state["tasks"].as_array().unwrap();
    assert_eq!(tasks.len(), 3, "exactly one entry per task");
    for (task, id) in tasks.iter().zip(1..) {
        assert_eq!(task["id"], id);
        let slug = STEPS[id as usize - 1].to_lowercase().replace(' ', "_");
        assert_eq!(
            task["locator"],
            json!({"kind": "file", "value": format!("{id}.task_{slug}.md")})
        );
        assert_eq!(task["title"], STEPS[id as usize - 1]);
        assert_eq!(task["gates"], json!([]));
        assert!(task.get("completed_at").is_none());
    }
    assert_eq!(tasks[0]["status"], "in_progress");
    assert!(is_timestamp(&tasks[0]["started_at"]));
    assert_eq!((tasks[1]["status"].as_str(), tasks[1].get("started_at")), (Some("pending"), None));
}

#[test]
fn the_manifest_is_written_once_and_materialising_again_finds_the_same_folder() {
    let ws = workspace(true);
    let (dir, tasks) = materialised(ws.path());
    let before = std::fs::read(dir.file(MANIFEST_FILE)).unwrap();
    let document = plan_document("Add payment webhook handling", &STEPS, Approval::Approved);
    let again = plan_files().materialize(ws.path(), &document, &tasks, CHAT, &at(50)).unwrap();
    assert_eq!(again, dir);
    assert_eq!(std::fs::read(dir.file(MANIFEST_FILE)).unwrap(), before);
    let other =
        plan_files().materialize(ws.path(), &document, &tasks, "another-chat", &at(50)).unwrap();
    assert_eq!(
        other.name(),
        "PLAN_add_payment_webhook_handling_2",
        "another chat's plan gets its own folder"
    );
    assert_eq!(PlanFolderWriter::locate(ws.path(), CHAT).unwrap(), Some(dir));
}

#[test]
fn only_an_approved_plan_is_materialised_and_auto_approval_says_so() {
    let ws = workspace(true);
    let tasks = from_steps(&STEPS);
    for approval in [Approval::Pending, Approval::Rejected] {
        let document = plan_document("p", &STEPS, approval);
        let error =
            plan_files().materialize(ws.path(), &document, &tasks, CHAT, &at(0)).unwrap_err();
        assert!(matches!(error, DwpError::NotApproved { .. }), "{error}");
    }
    assert!(!ws.path().join(".dwp").exists(), "nothing written");
    let document = plan_document("p", &STEPS, Approval::PreApproved);
    let dir = plan_files().materialize(ws.path(), &document, &tasks, CHAT, &at(0)).unwrap();
    assert_eq!(read_json(&dir.file(STATE_FILE))["approval"], "pre_approved");
    let readme = std::fs::read_to_string(dir.file("README.md")).unwrap();
    assert!(readme.contains("**Approval:** pre_approved"), "{readme}");
}

fn rewrite_state(dir: &PlanFolder, edit: impl FnOnce(&mut Value)) {
    let mut state = read_json(&dir.file(STATE_FILE));
    edit(&mut state);
    std::fs::write(dir.file(STATE_FILE), serde_json::to_string_pretty(&state).unwrap()).unwrap();
}

fn start_2() -> UpdateRequest {
    UpdateRequest {
        action: UpdateAction::Change(Change::Start { task: 2 }),
        expected_sha256: None,
        break_stale_lock: false,
    }
}

#[test]
fn malformed_or_foreign_state_is_refused_and_left_alone() {
    type Edit = fn(&mut Value);
    // A v1 folder is read and migrated (`migration.rs`); v2 content under the v1 URL is
    // neither version, and a schema this tool does not know is refused.
    let table: [(&str, Edit); 8] = [
        ("v1 URL over v2 fields", |s| {
            s["schema"] = json!("https://deepworkplan.com/schema/plan-state/v1.json")
        }),
        ("unknown schema", |s| {
            s["schema"] = json!("https://deepworkplan.com/schema/plan-state/v3.json")
        }),
        ("unknown status", |s| s["tasks"][0]["status"] = json!("done")),
        ("missing format", |s| drop(s.as_object_mut().unwrap().remove("format"))),
        ("completed without completed_at", |s| s["tasks"][1]["status"] = json!("completed")),
        ("duplicate id", |s| s["tasks"][1]["id"] = json!(1)),
        ("bad locator", |s| {
            s["tasks"][0]["locator"] = json!({"kind": "inline", "value": "#task-9"})
        }),
        ("promotion without promoting", |s| s["promotion"] = json!({"to": "full"})),
    ];
    for (name, edit) in table {
        let ws = workspace(true);
        let (dir, _) = materialised(ws.path());
        rewrite_state(&dir, edit);
        let before = std::fs::read(dir.file(STATE_FILE)).unwrap();
        let error = plan_files().update(&dir, &start_2(), &at(5)).unwrap_err();
        assert!(
            matches!(error, DwpError::Malformed { .. } | DwpError::UnsupportedSchema { .. }),
            "{name}: {error}"
        );
        assert_eq!(std::fs::read(dir.file(STATE_FILE)).unwrap(), before, "{name}: untouched");
        assert!(
            !verify_plan(&dir, LockOptions::default()).unwrap().findings.is_empty(),
            "{name}: verify reports it"
        );
    }
}

#[test]
fn additive_fields_survive_an_update_and_a_newer_spec_is_refused() {
    let ws = workspace(true);
    let (dir, _) = materialised(ws.path());
    rewrite_state(&dir, |s| {
        s["dashboard"] = json!({"pinned": true});
        s["tasks"][1]["estimate"] = json!("2h");
    });
    plan_files().update(&dir, &start_2(), &at(5)).unwrap();
    let state = read_json(&dir.file(STATE_FILE));
    assert_eq!(
        (state["dashboard"].clone(), state["tasks"][1]["estimate"].clone()),
        (json!({"pinned": true}), json!("2h"))
    );

    let mut manifest = read_json(&dir.file(MANIFEST_FILE));
    manifest["spec_version"] = json!("6.0.0");
    std::fs::write(dir.file(MANIFEST_FILE), manifest.to_string()).unwrap();
    let error = plan_files().update(&dir, &start_2(), &at(6)).unwrap_err();
    assert!(matches!(error, DwpError::NewerSpec { .. }), "{error}");
}
