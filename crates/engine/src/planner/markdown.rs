//! Readable markdown for cards: what a question card's or plan card's `content` shows
//! instead of the raw fenced JSON.

use super::document::{Plan, Question, Sandbox, SandboxPolicy};

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
    if !plan.aim.is_empty() {
        out.push_str(&format!("**Aim:** {}\n\n", inline(&plan.aim)));
    }
    out.push_str("### Steps\n\n");
    for (index, step) in plan.steps.iter().enumerate() {
        out.push_str(&format!("{}. {}", index + 1, inline(&step.action)));
        if !step.expected.is_empty() {
            out.push_str(&format!(" → {}", inline(&step.expected)));
        }
        out.push('\n');
    }
    if !plan.libraries.is_empty() {
        out.push_str("\n### Libraries\n\n| Library | Purpose | Usage |\n|---|---|---|\n");
        for library in &plan.libraries {
            let cells =
                [&library.name, &library.purpose, &library.usage].map(|cell| table_cell(cell));
            out.push_str(&format!("| {} | {} | {} |\n", cells[0], cells[1], cells[2]));
        }
    }
    out.push_str(&format!("\n**Sandbox:** {}\n", sandbox_line(sandbox)));
    out.trim_end().to_string()
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
    use crate::planner::document::{Library, PlanStep};
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
                },
                PlanStep { action: "Write the test".into(), expected: String::new() },
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
