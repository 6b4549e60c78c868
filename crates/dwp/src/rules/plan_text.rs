//! The approved plan as Markdown, for README.md (its sections after the task block) and for
//! each task file (its step as approved). Pure.
//!
//! Every field is the model's text, untrusted: each goes through [`inert_line`] (one line,
//! capped, no comment opener, no leading `[`) or [`code`], always after a fixed label or
//! bullet, so no field can open a heading, a checkbox (`rules/readme.rs` parses checkboxes
//! back as tasks) or a block marker. Long lists are cut with a line that says how many more.

use std::fmt::Write;

use super::input::{PlanInput, StepInput};
use super::text::{inert_line, one_line};

/// A sentence field (aim, approach) at most this long.
pub(crate) const MAX_PARAGRAPH_CHARS: usize = 1000;
/// An item of a list (a risk, an alternative, a test, an expected result) at most this long.
pub(crate) const MAX_ITEM_CHARS: usize = 300;
/// A path or a command at most this long.
const MAX_CODE_CHARS: usize = 500;
/// A list shows at most this many items.
const MAX_ITEMS: usize = 40;

/// The plan's sections after the task block: the steps as approved, the plan's judgement,
/// the libraries. Empty fields make no section.
pub(crate) fn plan_sections(plan: &PlanInput) -> String {
    let mut text = String::new();
    if !plan.steps.is_empty() {
        text.push_str("\n## Steps as approved\n\n");
        for (number, step) in (1..).zip(&plan.steps) {
            let _ = writeln!(text, "{number}. {}", step_headline(step));
            text.push_str(&step_details(step, "   "));
        }
    }
    push_judgement(&mut text, plan);
    if !plan.libraries.is_empty() {
        text.push_str("\n## Libraries\n\n");
        for library in plan.libraries.iter().take(MAX_ITEMS) {
            let _ = writeln!(
                text,
                "- **{}** — {} ({})",
                inert_line(&library.name, MAX_ITEM_CHARS),
                inert_line(&library.purpose, MAX_ITEM_CHARS),
                inert_line(&library.usage, MAX_ITEM_CHARS)
            );
        }
        push_more(&mut text, "", plan.libraries.len());
    }
    text
}

/// `action — expected: …`, one line.
pub(crate) fn step_headline(step: &StepInput) -> String {
    format!(
        "{} — expected: {}",
        inert_line(&step.action, MAX_ITEM_CHARS),
        inert_line(&step.expected, MAX_ITEM_CHARS)
    )
}

/// A step's files, dependencies and check, one labelled line each, each line starting with
/// `indent`; nothing for a field the step does not have.
pub(crate) fn step_details(step: &StepInput, indent: &str) -> String {
    let mut text = String::new();
    if !step.files.is_empty() {
        let _ = writeln!(text, "{indent}Files: {}", code_list(&step.files));
    }
    if !step.depends_on.is_empty() {
        let steps: Vec<String> = step.depends_on.iter().map(u32::to_string).collect();
        let _ = writeln!(text, "{indent}Depends on: step {}", steps.join(", "));
    }
    if let Some(check) = &step.check {
        let _ = writeln!(text, "{indent}Check: {}", code(check));
    }
    text
}

/// Approach, complexity, alternatives, risks, planned files and tests, under one heading.
fn push_judgement(text: &mut String, plan: &PlanInput) {
    let mut lines = String::new();
    if let Some(approach) = plan.approach.as_deref().filter(|a| !a.trim().is_empty()) {
        let _ = writeln!(lines, "- **Approach:** {}", inert_line(approach, MAX_PARAGRAPH_CHARS));
    }
    if let Some(complexity) = plan.complexity {
        let _ = writeln!(lines, "- **Complexity:** {}", complexity.as_str());
    }
    push_items(&mut lines, "Alternatives weighed", &plan.alternatives);
    push_items(&mut lines, "Risks", &plan.risks);
    let files = &plan.planned_files;
    if !files.create.is_empty() {
        let _ = writeln!(lines, "- **Files to create:** {}", code_list(&files.create));
    }
    if !files.modify.is_empty() {
        let _ = writeln!(lines, "- **Files to modify:** {}", code_list(&files.modify));
    }
    push_items(&mut lines, "Tests to write", &plan.tests);
    if !lines.is_empty() {
        text.push_str("\n## The plan's judgement\n\n");
        text.push_str(&lines);
    }
}

/// `- **label:**` and the items under it, one nested bullet each.
fn push_items(text: &mut String, label: &str, items: &[String]) {
    let items: Vec<&String> = items.iter().filter(|item| !item.trim().is_empty()).collect();
    if items.is_empty() {
        return;
    }
    let _ = writeln!(text, "- **{label}:**");
    for item in items.iter().take(MAX_ITEMS) {
        let _ = writeln!(text, "  - {}", inert_line(item, MAX_ITEM_CHARS));
    }
    push_more(text, "  ", items.len());
}

fn push_more(text: &mut String, indent: &str, count: usize) {
    if count > MAX_ITEMS {
        let _ = writeln!(text, "{indent}- … and {} more", count - MAX_ITEMS);
    }
}

/// Paths as inline code, comma-separated, at most `MAX_ITEMS`.
fn code_list(paths: &[String]) -> String {
    let mut shown: Vec<String> = paths.iter().take(MAX_ITEMS).map(|path| code(path)).collect();
    if paths.len() > MAX_ITEMS {
        shown.push(format!("… and {} more", paths.len() - MAX_ITEMS));
    }
    shown.join(", ")
}

/// A command or a path as inline code on one line (capped, no comment opener); text that
/// holds backticks gets a longer fence, so it can never close the span early.
pub(crate) fn code(text: &str) -> String {
    let text: String = one_line(text).chars().filter(|c| !c.is_control()).collect();
    let mut text = text.replace("<!--", "< !--");
    if text.chars().count() > MAX_CODE_CHARS {
        text = text.chars().take(MAX_CODE_CHARS - 1).collect::<String>() + "…";
    }
    let longest_run = text.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat(longest_run + 1);
    match longest_run {
        0 => format!("{fence}{text}{fence}"),
        _ => format!("{fence} {text} {fence}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::input::{Complexity, PlanApproval, PlannedFilesInput};

    fn step(action: &str, check: Option<&str>, files: &[&str], depends_on: &[u32]) -> StepInput {
        StepInput {
            action: action.into(),
            expected: "ok".into(),
            check: check.map(str::to_string),
            files: files.iter().map(|f| f.to_string()).collect(),
            depends_on: depends_on.to_vec(),
        }
    }

    fn plan(steps: Vec<StepInput>) -> PlanInput {
        PlanInput {
            title: "T".into(),
            aim: String::new(),
            steps,
            libraries: vec![],
            approval: PlanApproval::Approved,
            risks: vec![],
            approach: None,
            alternatives: vec![],
            planned_files: PlannedFilesInput::default(),
            tests: vec![],
            complexity: None,
            prompt: None,
        }
    }

    #[test]
    fn every_optional_field_has_its_line() {
        let mut plan = plan(vec![
            step("build", Some("cargo build"), &["src/a.rs", "src/b.rs"], &[]),
            step("ship", None, &[], &[1]),
        ]);
        plan.approach = Some("Small\nsteps".into());
        plan.alternatives = vec!["one big change".into()];
        plan.risks = vec!["slow\nbuilds".into(), "  ".into()];
        plan.planned_files =
            PlannedFilesInput { create: vec!["src/b.rs".into()], modify: vec!["src/a.rs".into()] };
        plan.tests = vec!["a test of b".into()];
        plan.complexity = Some(Complexity::Medium);
        assert_eq!(
            plan_sections(&plan),
            "\n## Steps as approved\n\n\
             1. build — expected: ok\n   Files: `src/a.rs`, `src/b.rs`\n   Check: `cargo build`\n\
             2. ship — expected: ok\n   Depends on: step 1\n\
             \n## The plan's judgement\n\n\
             - **Approach:** Small steps\n- **Complexity:** medium\n\
             - **Alternatives weighed:**\n  - one big change\n\
             - **Risks:**\n  - slow builds\n\
             - **Files to create:** `src/b.rs`\n- **Files to modify:** `src/a.rs`\n\
             - **Tests to write:**\n  - a test of b\n"
        );
        assert_eq!(code("echo `date`"), "`` echo `date` ``");
    }

    #[test]
    fn a_long_list_is_cut_and_says_so() {
        let mut plan = plan(vec![]);
        plan.risks = (0..45).map(|n| format!("risk {n}")).collect();
        let text = plan_sections(&plan);
        assert!(text.contains("  - risk 39\n  - … and 5 more\n"), "{text}");
        assert!(!text.contains("risk 40"));
    }
}
