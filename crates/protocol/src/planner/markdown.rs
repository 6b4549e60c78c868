//! Readable markdown for cards: what a question card's or plan card's `content` shows
//! instead of the raw fenced JSON.

use super::document::{Complexity, Plan, PlanStep, PlannedFiles, Question, Sandbox, SandboxPolicy};

/// A question card's content: the planner's prose, then each question with its options.
pub fn questions_markdown(prose: &str, questions: &[Question]) -> String {
    let mut out = prose_block(prose);
    for (index, question) in questions.iter().enumerate() {
        out.push_str(&format!("{}. **{}**\n", index + 1, inline(&question.question)));
        for option in &question.options {
            out.push_str(&format!("   - {}\n", inline(option)));
        }
    }
    out.trim_end().to_string()
}

/// A plan card's content (and the plan document's `text`).
pub fn plan_markdown(prose: &str, plan: &Plan, sandbox: &Sandbox) -> String {
    let mut out = prose_block(prose);
    out.push_str(&format!("## {}\n\n", inline(&plan.title)));
    let judgement = &plan.judgement;
    let lines = [
        ("Aim", Some(plan.aim.as_str()).filter(|aim| !aim.is_empty())),
        ("Approach", judgement.approach.as_deref()),
        ("Complexity", judgement.complexity.map(complexity_word)),
    ];
    for (label, text) in lines.iter().filter_map(|(label, text)| text.map(|t| (label, t))) {
        out.push_str(&format!("**{label}:** {}\n\n", inline(text)));
    }
    out.push_str("### Steps\n\n");
    for (index, step) in plan.steps.iter().enumerate() {
        out.push_str(&step_markdown(index + 1, step));
    }
    out.push_str(&files_markdown(&judgement.planned_files));
    out.push_str(&list_markdown("Risks", &judgement.risks));
    out.push_str(&list_markdown("Alternatives considered", &judgement.alternatives));
    out.push_str(&list_markdown("Tests", &judgement.tests));
    if !plan.libraries.is_empty() {
        out.push_str("\n### Libraries\n\n| Library | Purpose | Usage |\n|---|---|---|\n");
        for library in &plan.libraries {
            let cells =
                [&library.name, &library.purpose, &library.usage].map(|cell| table_cell(cell));
            out.push_str(&format!("| {} | {} | {} |\n", cells[0], cells[1], cells[2]));
        }
    }
    out.push_str(&format!("\n**Sandbox:** {}\n", sandbox_line(sandbox)));
    out.push_str(&list_markdown("Notes", &plan.notes));
    out.trim_end().to_string()
}

/// `1. action → expected`, then its files, dependencies and check as an indented list.
fn step_markdown(number: usize, step: &PlanStep) -> String {
    let mut out = format!("{number}. {}", inline(&step.action));
    if !step.expected.is_empty() {
        out.push_str(&format!(" → {}", inline(&step.expected)));
    }
    out.push('\n');
    if !step.files.is_empty() {
        out.push_str(&format!("   - Files: {}\n", code_list(&step.files)));
    }
    if !step.depends_on.is_empty() {
        let after: Vec<String> = step.depends_on.iter().map(u32::to_string).collect();
        out.push_str(&format!("   - After: {}\n", after.join(", ")));
    }
    if let Some(check) = &step.check {
        out.push_str(&format!("   - Check: {}\n", code(check)));
    }
    out
}

fn files_markdown(files: &PlannedFiles) -> String {
    if files.is_empty() {
        return String::new();
    }
    let mut out = "\n### Files\n\n".to_string();
    for (label, paths) in [("Create", &files.create), ("Modify", &files.modify)] {
        if !paths.is_empty() {
            out.push_str(&format!("- {label}: {}\n", code_list(paths)));
        }
    }
    out
}

fn list_markdown(heading: &str, items: &[String]) -> String {
    if items.is_empty() {
        return String::new();
    }
    let lines: Vec<String> = items.iter().map(|item| format!("- {}\n", inline(item))).collect();
    format!("\n### {heading}\n\n{}", lines.concat())
}

fn complexity_word(complexity: Complexity) -> &'static str {
    match complexity {
        Complexity::Low => "low",
        Complexity::Medium => "medium",
        Complexity::High => "high",
    }
}

fn code_list(paths: &[String]) -> String {
    paths.iter().map(|path| code(path)).collect::<Vec<_>>().join(", ")
}

/// Inline code on one line; a text holding backticks gets a longer fence around it.
fn code(text: &str) -> String {
    let text = inline(text);
    let longest_run = text.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat(longest_run + 1);
    match longest_run {
        0 => format!("{fence}{text}{fence}"),
        _ => format!("{fence} {text} {fence}"),
    }
}

fn sandbox_line(sandbox: &Sandbox) -> String {
    let place = sandbox.dir.as_deref().map(|dir| format!(" `{dir}`")).unwrap_or_default();
    let what = match sandbox.policy {
        SandboxPolicy::Reuse => format!("reuse the existing sandbox{place}"),
        SandboxPolicy::Create => format!("create a sandbox{place}"),
    };
    match sandbox.notes.is_empty() {
        true => what,
        false => format!("{what} — {}", inline(&sandbox.notes)),
    }
}

fn prose_block(prose: &str) -> String {
    match prose.trim() {
        "" => String::new(),
        prose => format!("{prose}\n\n"),
    }
}

/// One line of text: newlines inside a field would break the list it sits in.
fn inline(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn table_cell(text: &str) -> String {
    inline(text).replace('|', "\\|")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::planner::document::{Library, PlanJudgement};
    use expect_test::expect;

    #[test]
    fn a_plan_reads_as_markdown() {
        let plan = Plan {
            title: "CSV export".into(),
            aim: "Let users download\ntheir data.".into(),
            steps: vec![
                PlanStep {
                    action: "Add the route".into(),
                    expected: "GET /export answers 200".into(),
                    ..PlanStep::default()
                },
                PlanStep { action: "Write the test".into(), ..PlanStep::default() },
            ],
            libraries: vec![Library {
                name: "csv".into(),
                purpose: "write rows | quote".into(),
                usage: "csv::Writer".into(),
            }],
            sandbox: crate::planner::SandboxSpec {
                policy: SandboxPolicy::Create,
                notes: String::new(),
            },
            ..Plan::default()
        };
        let sandbox = Sandbox {
            policy: SandboxPolicy::Reuse,
            notes: "keep fixtures".into(),
            dir: Some("/w/.sandbox".into()),
            exists: true,
        };
        expect![[r#"
            I read the routes first.

            ## CSV export

            **Aim:** Let users download their data.

            ### Steps

            1. Add the route → GET /export answers 200
            2. Write the test

            ### Libraries

            | Library | Purpose | Usage |
            |---|---|---|
            | csv | write rows \| quote | csv::Writer |

            **Sandbox:** reuse the existing sandbox `/w/.sandbox` — keep fixtures"#]]
        .assert_eq(&plan_markdown("I read the routes first.", &plan, &sandbox));
    }

    #[test]
    fn the_judgement_of_a_plan_reads_as_markdown() {
        let step = |action: &str, depends_on: Vec<u32>, check: Option<&str>| PlanStep {
            action: action.into(),
            files: if depends_on.is_empty() { vec!["src/routes.rs".into()] } else { vec![] },
            depends_on,
            check: check.map(str::to_string),
            ..PlanStep::default()
        };
        let plan = Plan {
            title: "CSV export".into(),
            steps: vec![step("Add the route", vec![], None), step("Test", vec![1], Some("t `x`"))],
            judgement: PlanJudgement {
                approach: Some("A streaming route".into()),
                risks: vec!["Large exports\nare slow".into()],
                planned_files: PlannedFiles { create: vec!["tests/e.rs".into()], modify: vec![] },
                complexity: Some(Complexity::Low),
                ..PlanJudgement::default()
            },
            notes: vec!["step 2: depends_on 5 dropped: no earlier step 5".into()],
            ..Plan::default()
        };
        let sandbox = Sandbox {
            policy: SandboxPolicy::Create,
            notes: String::new(),
            dir: None,
            exists: false,
        };
        expect![[r#"
            ## CSV export

            **Approach:** A streaming route

            **Complexity:** low

            ### Steps

            1. Add the route
               - Files: `src/routes.rs`
            2. Test
               - After: 1
               - Check: `` t `x` ``

            ### Files

            - Create: `tests/e.rs`

            ### Risks

            - Large exports are slow

            **Sandbox:** create a sandbox

            ### Notes

            - step 2: depends_on 5 dropped: no earlier step 5"#]]
        .assert_eq(&plan_markdown("", &plan, &sandbox));
    }

    #[test]
    fn questions_read_as_a_numbered_list() {
        let questions = vec![Question {
            id: "q1".into(),
            question: "Which format?".into(),
            options: vec!["CSV".into(), "JSON".into()],
            answer: None,
        }];
        expect![[r#"
            1. **Which format?**
               - CSV
               - JSON"#]]
        .assert_eq(&questions_markdown("", &questions));
    }
}
