//! v1 plan folders (seed 002, "Wersjonowanie schematów"): read everywhere as their v2
//! migration without a byte written, migrated on disk by the first write (the v1 files kept
//! beside byte for byte, PROGRESS.md saying so), never migrated twice; v1 content that is
//! not v1 refused, naming the file and the field. (A kill during the migration: `crash.rs`'s
//! sibling `migration_crash.rs`.)

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::{json, Value};

use super::support::*;
use super::{
    at, derived_problems, pass, read_manifest, read_state, sha256_hex, state_problems, verify_plan,
    ApprovalState, Change, DwpError, FindingKind, LockOptions, Materialization, PlanFormat,
    UpdateAction, UpdateRequest, MANIFEST_FILE, MANIFEST_V1_COPY, STATE_FILE, STATE_V1_COPY,
};

/// Every file of a plan folder, by name, with its bytes (what "nothing was written" compares).
fn files(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.is_file())
        .map(|path| {
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read(&path).unwrap())
        })
        .collect()
}

fn update(change: Change) -> UpdateRequest {
    UpdateRequest {
        action: UpdateAction::Change(change),
        expected_sha256: None,
        break_stale_lock: false,
    }
}

#[test]
fn a_v1_folder_is_read_and_verified_clean_without_a_byte_written() {
    let ws = workspace(true);
    let v1 = v1_folder(ws.path());
    let before = files(v1.dir.path());
    let report = verify_plan(&v1.dir, LockOptions::default()).unwrap();
    assert_eq!(report.findings, vec![], "the v1 folder is sound");
    assert_eq!((report.task_count, report.completed_count), (3, 1));
    assert_eq!(report.sha256, Some(sha256_hex(&v1.state)), "the hash of the file as it is");
    let state = read_state(&v1.dir).unwrap().state;
    assert_eq!((state.format, state.materialization), (PlanFormat::Full, Materialization::Ready));
    assert_eq!(state.tasks[0].locator.value, "1.task_webhook_endpoint.md");
    assert_eq!(read_manifest(&v1.dir).unwrap().plan_format, PlanFormat::Full);
    assert_eq!(files(v1.dir.path()), before, "reading wrote nothing");
}

#[test]
fn a_refused_write_leaves_the_v1_folder_as_it_was() {
    let ws = workspace(true);
    let v1 = v1_folder(ws.path());
    let before = files(v1.dir.path());
    let complete = Change::Complete { task: 3, gates: vec![], outcome: None, commit: None };
    let error = plan_files().update(&v1.dir, &update(complete), &at(30)).unwrap_err();
    assert!(matches!(error, DwpError::Refused(_)), "{error}");
    assert_eq!(files(v1.dir.path()), before, "no copies, no v2 files: nothing was written");
}

#[test]
fn the_first_engine_write_migrates_and_keeps_the_v1_files_beside() {
    let ws = workspace(true);
    let v1 = v1_folder(ws.path());
    let dir = v1.dir.path();
    plan_files().record_gate(&v1.dir, 2, pass("cargo test"), &at(30)).unwrap();
    assert_eq!(std::fs::read(dir.join(MANIFEST_V1_COPY)).unwrap(), v1.manifest, "byte for byte");
    assert_eq!(std::fs::read(dir.join(STATE_V1_COPY)).unwrap(), v1.state, "byte for byte");
    assert_manifest_migrated(&v1);
    assert_state_migrated(&v1);
    let state = read_state(&v1.dir).unwrap().state;
    assert_eq!(state.approval, Some(ApprovalState::Approved), "taken from README.md's line");
    assert_eq!(state.tasks[0].commit.as_deref(), Some("a1b2c3d"), "v1 records kept");
    assert_eq!(state.tasks[1].gates.len(), 1, "the write itself happened");

    let progress = std::fs::read_to_string(dir.join("PROGRESS.md")).unwrap();
    assert!(progress.starts_with(V1_PROGRESS), "appended, never rewritten:\n{progress}");
    let lines = migration_lines(dir);
    assert_eq!(lines.len(), 1, "{progress}");
    assert!(lines[0].contains("`manifest.v1.json` and `state.v1.json`"), "{}", lines[0]);
    assert_eq!(verify_plan(&v1.dir, LockOptions::default()).unwrap().findings, vec![]);
}

/// `manifest.json` is v2 and `full`, and otherwise the v1 manifest field for field.
fn assert_manifest_migrated(v1: &V1Folder) {
    let mut manifest = read_json(&v1.dir.file(MANIFEST_FILE));
    assert_eq!(manifest["schema"], "https://deepworkplan.com/schema/plan-manifest/v2.json");
    assert_eq!(manifest["plan_format"], "full", "v1 kept every task in a file of its own");
    let mut before: Value = serde_json::from_slice(&v1.manifest).unwrap();
    for document in [&mut manifest, &mut before] {
        let fields = document.as_object_mut().unwrap();
        fields.remove("schema");
        fields.remove("plan_format");
    }
    assert_eq!(manifest, before, "the manifest keeps its identity and provenance");
}

/// `state.json` is v2, passes the crate's own checks, and has a `file` locator per task.
fn assert_state_migrated(v1: &V1Folder) {
    let state = read_state(&v1.dir).unwrap().state;
    assert_eq!(state_problems(&state), Vec::<String>::new(), "the crate's own checks");
    assert_eq!(derived_problems(&state), Vec::<String>::new());
    let raw = read_json(&v1.dir.file(STATE_FILE));
    assert_eq!(raw["schema"], "https://deepworkplan.com/schema/plan-state/v2.json");
    let new_fields = ["format", "materialization", "approval", "promotion"].map(|f| &raw[f]);
    assert_eq!(new_fields, [&json!("full"), &json!("ready"), &json!("approved"), &Value::Null]);
    for (task, (file, _)) in raw["tasks"].as_array().unwrap().iter().zip(V1_TASK_FILES) {
        assert_eq!(task["locator"], json!({"kind": "file", "value": file}));
        assert!(task.get("file").is_none(), "{task:#}");
    }
}

#[test]
fn a_second_write_finds_v2_and_migrates_nothing_more() {
    let ws = workspace(true);
    let v1 = v1_folder(ws.path());
    let dir = v1.dir.path();
    let writer = plan_files();
    assert!(writer.checkpoint(&v1.dir, "instructions:2", "queue table migrated", &at(30)).unwrap());
    let after_first = files(dir);
    assert!(writer.checkpoint(&v1.dir, "instructions:3", "worker loop wired", &at(31)).unwrap());
    let after_second = files(dir);
    for name in [MANIFEST_FILE, MANIFEST_V1_COPY, STATE_V1_COPY] {
        assert_eq!(after_second[name], after_first[name], "{name} untouched by the second write");
    }
    assert_eq!(after_second[STATE_V1_COPY], v1.state);
    assert_eq!(migration_lines(dir).len(), 1);
    assert_eq!(read_state(&v1.dir).unwrap().state.checkpoint.unwrap().note, "worker loop wired");
}

type Edit = fn(&mut Value);

/// v1 documents that are not v1: (what, which file, the edit, what the refusal names).
const NOT_V1: [(&str, &str, Edit, &str); 8] = [
    (
        "a task entry without its file",
        STATE_FILE,
        |s| drop(s["tasks"][1].as_object_mut().unwrap().remove("file")),
        "task entry 2 (id 2): missing field `file`",
    ),
    (
        "a file that is a number",
        STATE_FILE,
        |s| s["tasks"][0]["file"] = json!(1),
        "task entry 1 (id 1): field `file` must name a task file",
    ),
    (
        "a file outside the folder",
        STATE_FILE,
        |s| s["tasks"][2]["file"] = json!("../3.md"),
        "task entry 3 (id 3): field `file` must name a task file",
    ),
    (
        "a v2 locator in a v1 entry",
        STATE_FILE,
        |s| s["tasks"][0]["locator"] = json!({"kind": "file", "value": "1.md"}),
        "task entry 1 (id 1): field `locator` belongs to schema v2",
    ),
    (
        "a v2 field in a v1 state",
        STATE_FILE,
        |s| s["approval"] = json!("approved"),
        "field `approval` belongs to schema v2",
    ),
    (
        "an unknown status",
        STATE_FILE,
        |s| s["tasks"][2]["status"] = json!("done"),
        "unknown variant `done`",
    ),
    (
        "a v2 field in a v1 manifest",
        MANIFEST_FILE,
        |m| m["plan_format"] = json!("lite"),
        "field `plan_format` belongs to schema v2",
    ),
    (
        "a manifest without created_at",
        MANIFEST_FILE,
        |m| drop(m.as_object_mut().unwrap().remove("created_at")),
        "missing field `created_at`",
    ),
];

#[test]
fn v1_content_that_is_not_v1_is_refused_naming_the_file_and_the_field() {
    for (what, file, edit, names) in NOT_V1 {
        let ws = workspace(true);
        let v1 = v1_folder(ws.path());
        let path = v1.dir.file(file);
        let mut document = read_json(&path);
        edit(&mut document);
        std::fs::write(&path, format!("{document:#}\n")).unwrap();
        let before = files(v1.dir.path());
        let error = plan_files().update(&v1.dir, &update(Change::Start { task: 3 }), &at(30));
        let error = error.unwrap_err();
        assert!(
            matches!(&error, DwpError::Malformed { path: refused, .. } if *refused == path),
            "{what}: {error}"
        );
        let message = error.to_string();
        assert!(message.contains(file) && message.contains(names), "{what}: {message}");
        assert_eq!(files(v1.dir.path()), before, "{what}: nothing written, nothing copied");
        let findings = verify_plan(&v1.dir, LockOptions::default()).unwrap().findings;
        assert!(
            findings.iter().any(|f| f.kind == FindingKind::Schema && f.message.contains(names)),
            "{what}: verify reports it: {findings:#?}"
        );
    }
}
