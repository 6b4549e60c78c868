//! Reading a v1 plan document as v2 (seed 002, "Wersjonowanie schematów"): v2 turned the task
//! entry's `file` into a typed `locator`, gave the manifest `plan_format` and the state file
//! `format`, `materialization`, `approval` and `promotion`. Pure: v1 JSON in, the v2 document
//! or its problems out (sentences naming the field, as `structure.rs` gives them). Putting
//! the migrated files on disk is `disk/migration.rs`'s job, at a folder's first write; every
//! other reader works on the migrated view in memory.
//!
//! The new fields get what a v1 plan already meant, never a guess: v1 kept every task in a file
//! of its own (Lite plans arrived with v2), so the plan is `full` with `file` locators; its
//! folder is whole, so `ready`; nothing is being promoted, so `promotion` is null; `approval`
//! stays absent, which v2 allows for exactly such plans (README.md's Approval line stands,
//! else `pending`). A v1 document that already holds one of the v2 fields is neither version
//! and is refused, as is a task entry without its `file`.

use serde_json::{json, Map, Value};

use super::documents::{
    LocatorKind, Manifest, Materialization, PlanFormat, PlanState, MANIFEST_SCHEMA, STATE_SCHEMA,
};

/// The schema URL of a v1 `manifest.json`.
pub(crate) const MANIFEST_SCHEMA_V1: &str = "https://deepworkplan.com/schema/plan-manifest/v1.json";
/// The schema URL of a v1 `state.json`.
pub(crate) const STATE_SCHEMA_V1: &str = "https://deepworkplan.com/schema/plan-state/v1.json";

/// The fields v2 added to each document: a v1 document never has them.
const MANIFEST_V2_FIELDS: [&str; 1] = ["plan_format"];
const STATE_V2_FIELDS: [&str; 4] = ["format", "materialization", "approval", "promotion"];

/// A v1 `manifest.json` as v2: the same identity, `plan_format` full. Its provenance
/// (`spec_version`, `created_at`, `created_by`) is kept as written.
pub(crate) fn manifest_from_v1(v1: Value) -> Result<Manifest, Vec<String>> {
    let mut document = v1_object(v1, MANIFEST_SCHEMA_V1, &MANIFEST_V2_FIELDS)?;
    document.insert("schema".to_owned(), json!(MANIFEST_SCHEMA));
    document.insert("plan_format".to_owned(), json!(PlanFormat::Full));
    serde_json::from_value(Value::Object(document)).map_err(|error| vec![error.to_string()])
}

/// A v1 `state.json` as v2: each task's `file` becomes its `file` locator, and the state's
/// new fields say a whole Full plan (see the module's comment). Everything else is kept.
pub(crate) fn state_from_v1(v1: Value) -> Result<PlanState, Vec<String>> {
    let mut document = v1_object(v1, STATE_SCHEMA_V1, &STATE_V2_FIELDS)?;
    let tasks = match document.get_mut("tasks") {
        Some(Value::Array(tasks)) => tasks,
        Some(_) => return Err(vec!["field `tasks` is not a list".to_owned()]),
        None => return Err(vec!["missing field `tasks`".to_owned()]),
    };
    let problems: Vec<String> = tasks
        .iter_mut()
        .enumerate()
        .filter_map(|(index, task)| file_to_locator(index, task).err())
        .collect();
    if !problems.is_empty() {
        return Err(problems);
    }
    document.insert("schema".to_owned(), json!(STATE_SCHEMA));
    document.insert("format".to_owned(), json!(PlanFormat::Full));
    document.insert("materialization".to_owned(), json!(Materialization::Ready));
    document.insert("promotion".to_owned(), Value::Null);
    serde_json::from_value(Value::Object(document)).map_err(|error| vec![error.to_string()])
}

/// `v1` as a JSON object declaring `schema`, without any of `v2_fields`.
fn v1_object(
    v1: Value,
    schema: &str,
    v2_fields: &[&str],
) -> Result<Map<String, Value>, Vec<String>> {
    let Value::Object(document) = v1 else {
        return Err(vec!["not a JSON object".to_owned()]);
    };
    let declared = document.get("schema").and_then(Value::as_str);
    if declared != Some(schema) {
        return Err(vec![format!("schema is {declared:?}, expected {schema}")]);
    }
    let problems: Vec<String> = v2_fields
        .iter()
        .filter(|field| document.contains_key(**field))
        .map(|field| {
            format!("field `{field}` belongs to schema v2, but the file says v1: it is neither")
        })
        .collect();
    if problems.is_empty() {
        Ok(document)
    } else {
        Err(problems)
    }
}

/// Replaces the v1 entry's `file` (the task file's name) with its v2 `locator`.
fn file_to_locator(index: usize, task: &mut Value) -> Result<(), String> {
    let id = task.get("id").map(|id| format!(" (id {id})")).unwrap_or_default();
    let entry = format!("task entry {}{id}", index + 1);
    let Value::Object(fields) = task else {
        return Err(format!("{entry} is not a JSON object"));
    };
    if fields.contains_key("locator") {
        return Err(format!(
            "{entry}: field `locator` belongs to schema v2; a v1 entry names its task file in `file`"
        ));
    }
    match fields.remove("file") {
        Some(Value::String(name)) if is_file_name(&name) => {
            fields.insert("locator".to_owned(), json!({"kind": LocatorKind::File, "value": name}));
            Ok(())
        }
        Some(other) => Err(format!(
            "{entry}: field `file` must name a task file in the plan folder, found {other}"
        )),
        None => Err(format!("{entry}: missing field `file` (a v1 entry names its task file)")),
    }
}

fn is_file_name(name: &str) -> bool {
    !name.trim().is_empty() && !name.contains(['/', '\\']) && name != ".."
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::documents::{Locator, Status};
    use crate::rules::structure::{derived_problems, manifest_problems, state_problems};

    fn v1_state() -> Value {
        json!({
            "schema": STATE_SCHEMA_V1,
            "plan": "PLAN_payment_webhooks",
            "updated_at": "2026-06-09T16:42:10Z",
            "status": "in_progress",
            "completed_count": 0,
            "task_count": 2,
            "tasks": [
                {"id": 1, "file": "1.task_webhook_endpoint.md", "title": "Create webhook endpoint",
                 "status": "in_progress", "started_at": "2026-06-09T14:10:00Z", "gates": [],
                 "estimate": "2h"},
                {"id": 3, "file": "3.task_retry_queue.md", "title": "Add retry queue",
                 "status": "pending", "gates": []}
            ],
            "checkpoint": null,
            "blocked": null,
            "dashboard": {"pinned": true}
        })
    }

    #[test]
    fn a_v1_state_becomes_a_whole_full_plan_with_file_locators() {
        let state = state_from_v1(v1_state()).unwrap();
        assert_eq!(state.schema, STATE_SCHEMA);
        assert_eq!(
            (state.format, state.materialization, state.approval, state.promotion.clone()),
            (PlanFormat::Full, Materialization::Ready, None, None),
            "approval stays absent: README.md's Approval line stands, else pending"
        );
        let locators: Vec<Locator> = state.tasks.iter().map(|t| t.locator.clone()).collect();
        let file = |value: &str| Locator { kind: LocatorKind::File, value: value.to_owned() };
        assert_eq!(
            locators,
            vec![file("1.task_webhook_endpoint.md"), file("3.task_retry_queue.md")]
        );
        assert_eq!(state.tasks[0].status, Status::InProgress);
        assert_eq!(state.tasks[0].extra["estimate"], "2h", "additive fields are kept");
        assert_eq!(state.extra["dashboard"], json!({"pinned": true}));
        assert!(!state.tasks[0].extra.contains_key("file"), "`file` became the locator");
        assert_eq!(state_problems(&state), Vec::<String>::new());
        assert_eq!(derived_problems(&state), Vec::<String>::new());
    }

    #[test]
    fn a_v1_manifest_keeps_its_provenance_and_is_full() {
        let manifest = manifest_from_v1(json!({
            "schema": MANIFEST_SCHEMA_V1,
            "spec_version": "1.2.0",
            "name": "PLAN_payment_webhooks",
            "archetype": "individual",
            "rigor": "standard",
            "created_at": "2026-06-09T14:00:00Z",
            "created_by": {"agent": "claude-code", "model": "claude-fable-5"},
            "task_count": 2
        }))
        .unwrap();
        assert_eq!(manifest.schema, MANIFEST_SCHEMA);
        assert_eq!(manifest.plan_format, PlanFormat::Full);
        assert_eq!(
            (manifest.spec_version.as_str(), manifest.created_at.as_str()),
            ("1.2.0", "2026-06-09T14:00:00Z")
        );
        assert_eq!(manifest_problems(&manifest), Vec::<String>::new());
    }

    /// (The same refusals on a real folder, naming the file: `tests/migration.rs`.)
    #[test]
    fn v1_content_that_is_not_v1_is_refused_by_name() {
        type Edit = fn(&mut Value);
        let table: [(Edit, &str); 5] = [
            (|s| *s = json!([]), "not a JSON object"),
            (|s| s["tasks"] = json!({}), "field `tasks` is not a list"),
            (|s| s["tasks"][1] = json!("3.md"), "task entry 2 is not a JSON object"),
            (|s| s["format"] = json!("lite"), "field `format` belongs to schema v2"),
            (
                |s| s["tasks"][0]["file"] = json!(7),
                "task entry 1 (id 1): field `file` must name a task file in the plan folder, found 7",
            ),
        ];
        for (edit, expected) in table {
            let mut v1 = v1_state();
            edit(&mut v1);
            let problems = state_from_v1(v1).unwrap_err();
            assert!(problems.iter().any(|p| p.contains(expected)), "{expected}: {problems:?}");
        }
    }
}
