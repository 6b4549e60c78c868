//! Reads seed 001's optional plan fields (DESIGN §14) out of a plan fence's JSON: approach,
//! alternatives, risks, files, tests, complexity, and a step's files, dependencies and check.
//! Seed 001's own names are read as aliases. A missing or mistyped field is simply absent;
//! limits, paths and dependencies are checked afterwards (`plan_rules.rs`).

use serde_json::{Map, Value};

use super::document::{Complexity, PlanJudgement, PlanStep, PlannedFiles};
use super::json_text::{first_text, first_value, non_empty, scalar_text};

/// Keys under which a model names one item of a list of texts written as objects.
const ITEM_TEXT_KEYS: &[&str] =
    &["text", "description", "summary", "name", "title", "risk", "test", "approach", "detail"];

pub(super) fn read_judgement(object: &Map<String, Value>) -> PlanJudgement {
    PlanJudgement {
        approach: first_text(object, &["approach", "strategy", "how"]),
        alternatives: text_list(first_value(
            object,
            &["alternatives", "alternatives_considered", "alternative_approaches"],
        )),
        risks: text_list(first_value(object, &["risks", "risks_and_limitations", "risk"])),
        planned_files: read_planned_files(object),
        tests: text_list(first_value(object, &["tests", "tests_to_write", "test_plan"])),
        complexity: first_text(object, &["complexity", "estimated_complexity"])
            .and_then(|text| complexity(&text)),
    }
}

/// A step's `files`, `depends_on` (step numbers as written) and `check`.
pub(super) fn read_step_details(step: &mut PlanStep, object: &Map<String, Value>) {
    step.files = path_list(first_value(object, &["files", "paths", "file"]));
    step.depends_on =
        step_numbers(first_value(object, &["depends_on", "dependencies", "depends", "after"]));
    step.check = first_text(
        object,
        &["check", "verification", "verify", "verification_command", "check_command"],
    )
    .and_then(|text| non_empty(unquote_code(&text)));
}

/// `files: {create, modify}`, merged with seed 001's `files_to_create` and `files_to_modify`.
fn read_planned_files(object: &Map<String, Value>) -> PlannedFiles {
    let nested = first_value(object, &["files", "planned_files"]).and_then(Value::as_object);
    let from_nested = |keys: &[&str]| path_list(nested.and_then(|files| first_value(files, keys)));
    let mut create = from_nested(&["create", "new", "created", "add"]);
    create.extend(path_list(object.get("files_to_create")));
    let mut modify = from_nested(&["modify", "change", "edit", "update", "modified", "changed"]);
    modify.extend(path_list(object.get("files_to_modify")));
    PlannedFiles { create, modify }
}

/// A list of texts: an array of strings (or of objects naming their text), or one string.
fn text_list(value: Option<&Value>) -> Vec<String> {
    let item_text = |item: &Value| match item {
        Value::Object(object) => first_text(object, ITEM_TEXT_KEYS),
        other => scalar_text(other),
    };
    match value {
        Some(Value::Array(items)) => items.iter().filter_map(item_text).collect(),
        Some(Value::String(text)) => non_empty(text).into_iter().collect(),
        _ => Vec::new(),
    }
}

/// A list of paths as written: strings (or `{"path": …}`), or one string.
fn path_list(value: Option<&Value>) -> Vec<String> {
    let item_path = |item: &Value| match item {
        Value::Object(object) => first_text(object, &["path", "file", "name"]),
        other => scalar_text(other),
    };
    let paths: Vec<String> = match value {
        Some(Value::Array(items)) => items.iter().filter_map(item_path).collect(),
        Some(Value::String(text)) => non_empty(text).into_iter().collect(),
        _ => Vec::new(),
    };
    paths.iter().filter_map(|path| non_empty(unquote_code(path))).collect()
}

/// Step numbers: `[1, 2]`, `["1", "step 2", "#3"]`, or one number. Zero and numbers past the
/// last step are kept here, so that dropping them leaves a note.
fn step_numbers(value: Option<&Value>) -> Vec<u32> {
    let number = |item: &Value| match item {
        Value::Number(number) => number.as_u64().and_then(|n| u32::try_from(n).ok()),
        Value::String(text) => {
            let lower = text.trim().to_lowercase();
            let digits = lower.trim_start_matches("step").trim_start_matches(['#', ' ', '-', '_']);
            digits.trim().parse().ok()
        }
        _ => None,
    };
    match value {
        Some(Value::Array(items)) => items.iter().filter_map(number).collect(),
        Some(single) => number(single).into_iter().collect(),
        None => Vec::new(),
    }
}

fn complexity(text: &str) -> Option<Complexity> {
    match text.trim().to_lowercase().as_str() {
        "low" | "simple" | "small" | "easy" => Some(Complexity::Low),
        "medium" | "moderate" | "med" => Some(Complexity::Medium),
        "high" | "complex" | "large" | "hard" => Some(Complexity::High),
        _ => None,
    }
}

/// `` `cargo test` `` → `cargo test`: models quote commands and paths as inline code.
fn unquote_code(text: &str) -> &str {
    let trimmed = text.trim();
    match trimmed.len() >= 2 && trimmed.starts_with('`') && trimmed.ends_with('`') {
        true => trimmed.trim_matches('`').trim(),
        false => trimmed,
    }
}
