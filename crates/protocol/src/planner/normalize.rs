//! Turns the JSON of a planner fence into a normalised question list or plan (DESIGN §3):
//! at most 3 questions of at most 3 options, never invented; fixed ids; a plan needs a step;
//! repeated questions, options, steps and libraries are dropped. A plan's optional fields
//! of DESIGN §14 are read by `judgement.rs` and held to the rules of `plan_rules.rs`.

use serde_json::Value;

use super::document::{Library, Plan, PlanStep, Question, SandboxPolicy, SandboxSpec};
use super::json_text::{first_text, non_empty, same_text, scalar_text};
use super::judgement::{read_judgement, read_step_details};
use super::plan_rules::apply_plan_rules;
use crate::ids::QuestionId;

pub const MAX_QUESTIONS: usize = 3;
pub const MAX_OPTIONS: usize = 3;

/// What a fence's JSON turned out to hold.
#[derive(Debug, Clone, PartialEq, Eq)]
// One value per planner reply, moved once: boxing the plan would buy nothing.
#[allow(clippy::large_enum_variant)]
pub enum Card {
    Questions(Vec<Question>),
    Plan(Plan),
}

/// Which card a fence's label asks for; the JSON's shape wins when the two disagree.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Expected {
    Questions,
    Plan,
    /// A `json` or unlabelled fence: only a recognisable shape makes it a card.
    Either,
}

pub(super) fn normalize_card(value: &Value, expected: Expected) -> Result<Card, String> {
    // `{"plan": {...}}` is a plan that was wrapped once too often.
    if let Some(inner) = value.get("plan").filter(|inner| inner.get("steps").is_some()) {
        return normalize_plan(inner).map(Card::Plan);
    }
    let has_steps = value.get("steps").is_some();
    let has_questions = value.is_array() || value.get("questions").is_some();
    let as_plan = match expected {
        Expected::Plan => has_steps || !has_questions,
        Expected::Questions => has_steps && !has_questions,
        Expected::Either => has_steps,
    };
    match (as_plan, has_questions, expected) {
        (true, _, _) => normalize_plan(value).map(Card::Plan),
        (false, true, _) => normalize_questions(value).map(Card::Questions),
        (false, false, Expected::Questions) => Err("expected {\"questions\": [...]}".into()),
        (false, false, _) => Err("neither questions nor a plan with steps".into()),
    }
}

fn normalize_questions(value: &Value) -> Result<Vec<Question>, String> {
    let items = match value {
        Value::Array(items) => items,
        _ => value
            .get("questions")
            .and_then(Value::as_array)
            .ok_or("\"questions\" must be an array")?,
    };
    let mut questions: Vec<(Option<String>, String, Vec<String>)> = Vec::new();
    for item in items {
        let Some((id, text, options)) = read_question(item) else { continue };
        if questions.iter().any(|(_, seen, _)| same_text(seen, &text)) {
            continue;
        }
        questions.push((id, text, options));
        if questions.len() == MAX_QUESTIONS {
            break;
        }
    }
    if questions.is_empty() {
        return Err("the questions fence holds no question with text".into());
    }
    Ok(assign_ids(questions))
}

fn read_question(item: &Value) -> Option<(Option<String>, String, Vec<String>)> {
    if let Some(text) = item.as_str() {
        return non_empty(text).map(|text| (None, text, Vec::new()));
    }
    let object = item.as_object()?;
    let text = first_text(object, &["question", "text", "title", "q", "prompt"])?;
    let id = object.get("id").and_then(scalar_text);
    let raw_options = ["options", "choices", "answers", "suggestions"]
        .iter()
        .find_map(|key| object.get(*key).and_then(Value::as_array));
    let mut options: Vec<String> = Vec::new();
    for option in raw_options.into_iter().flatten() {
        let Some(option) = option_text(option) else { continue };
        if !options.iter().any(|seen| same_text(seen, &option)) {
            options.push(option);
        }
        if options.len() == MAX_OPTIONS {
            break;
        }
    }
    Some((id, text, options))
}

fn option_text(option: &Value) -> Option<String> {
    match option {
        Value::Object(object) => first_text(object, &["label", "text", "option", "value", "title"]),
        other => scalar_text(other),
    }
}

/// Keeps an id that is present and not used by an earlier question; otherwise the
/// question becomes `q<position>`, or the first free `q<n>` when that is taken.
fn assign_ids(questions: Vec<(Option<String>, String, Vec<String>)>) -> Vec<Question> {
    let mut result: Vec<Question> = Vec::new();
    for (position, (id, question, options)) in questions.into_iter().enumerate() {
        let used = |candidate: &str| result.iter().any(|q: &Question| q.id == candidate);
        let id = match id.filter(|id| !used(id)) {
            Some(id) => id,
            None => std::iter::once(position + 1)
                .chain(1..)
                .map(|n| format!("q{n}"))
                .find(|candidate| !used(candidate))
                .unwrap_or_default(),
        };
        result.push(Question { id: QuestionId::from(id), question, options, answer: None });
    }
    result
}

fn normalize_plan(value: &Value) -> Result<Plan, String> {
    let object = value.as_object().ok_or("a plan must be a JSON object")?;
    let items = object
        .get("steps")
        .and_then(Value::as_array)
        .ok_or("a plan needs a \"steps\" array with at least one step")?;
    let (steps, numbers) = read_steps(items);
    if steps.is_empty() {
        return Err("a plan needs at least one step with an action".into());
    }
    let aim = first_text(object, &["aim", "goal", "objective", "summary"]).unwrap_or_default();
    let title = first_text(object, &["title", "name"])
        .or_else(|| non_empty(&first_sentence(&aim)))
        .unwrap_or_else(|| "Plan".to_string());
    let mut plan = Plan {
        title,
        aim,
        steps,
        libraries: read_libraries(object.get("libraries")),
        sandbox: read_sandbox(object.get("sandbox")),
        judgement: read_judgement(object),
        notes: Vec::new(),
    };
    // A step number as the planner wrote it → the number of the step it is now.
    let renumber = |written: u32| {
        let index = usize::try_from(written).ok()?.checked_sub(1)?;
        numbers.get(index).copied().flatten()
    };
    apply_plan_rules(&mut plan, &renumber);
    Ok(plan)
}

/// The readable steps, and for each written step the number it has among them.
/// Small models fill arrays by repeating an item: a step whose action was already planned
/// is dropped, as duplicate questions, options and libraries are, and its number becomes
/// the number of the step it repeats.
fn read_steps(items: &[Value]) -> (Vec<PlanStep>, Vec<Option<u32>>) {
    let mut steps: Vec<PlanStep> = Vec::new();
    let mut numbers = Vec::with_capacity(items.len());
    for item in items {
        let number = read_step(item).map(|step| {
            match steps.iter().position(|seen| same_text(&seen.action, &step.action)) {
                Some(index) => index + 1,
                None => {
                    steps.push(step);
                    steps.len()
                }
            }
        });
        numbers.push(number.and_then(|n| u32::try_from(n).ok()));
    }
    (steps, numbers)
}

fn read_step(step: &Value) -> Option<PlanStep> {
    if let Some(action) = step.as_str() {
        return non_empty(action).map(|action| PlanStep { action, ..PlanStep::default() });
    }
    let object = step.as_object()?;
    let action = first_text(object, &["action", "step", "title", "description", "task"])?;
    let expected =
        first_text(object, &["expected", "expected_result", "result", "outcome", "done_when"])
            .unwrap_or_default();
    let mut step = PlanStep { action, expected, ..PlanStep::default() };
    read_step_details(&mut step, object);
    Some(step)
}

fn read_libraries(value: Option<&Value>) -> Vec<Library> {
    let mut libraries: Vec<Library> = Vec::new();
    for item in value.and_then(Value::as_array).into_iter().flatten() {
        let library = match item {
            Value::String(name) => non_empty(name).map(|name| Library {
                name,
                purpose: String::new(),
                usage: String::new(),
            }),
            Value::Object(object) => {
                first_text(object, &["name", "library", "package"]).map(|name| Library {
                    name,
                    purpose: first_text(object, &["purpose", "why", "description"])
                        .unwrap_or_default(),
                    usage: first_text(object, &["usage", "how", "use"]).unwrap_or_default(),
                })
            }
            _ => None,
        };
        if let Some(library) = library {
            if !libraries.iter().any(|seen| same_text(&seen.name, &library.name)) {
                libraries.push(library);
            }
        }
    }
    libraries
}

fn read_sandbox(value: Option<&Value>) -> SandboxSpec {
    let (policy, notes) = match value {
        Some(Value::String(policy)) => (Some(policy.as_str()), String::new()),
        Some(Value::Object(object)) => (
            object.get("policy").and_then(Value::as_str),
            first_text(object, &["notes", "note", "description"]).unwrap_or_default(),
        ),
        _ => (None, String::new()),
    };
    let policy = match policy.map(|p| p.trim().to_lowercase()) {
        Some(p) if ["reuse", "existing", "keep"].contains(&p.as_str()) => SandboxPolicy::Reuse,
        _ => SandboxPolicy::Create,
    };
    SandboxSpec { policy, notes }
}

fn first_sentence(text: &str) -> String {
    let end = text.find(['.', '\n', '!', '?']).unwrap_or(text.len());
    text[..end].chars().take(80).collect()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    /// What a tiny model writes when it fills every array to the brim by repetition.
    #[test]
    fn repeated_items_are_dropped_from_every_array() {
        let plan = json!({
            "title": "Greet",
            "steps": [
                {"action": "Write hello.py", "expected": "a file"},
                {"action": "write hello.py ", "expected": "the same file again"},
                {"action": "Run it", "expected": "Hello"},
                {"action": "Write hello.py", "expected": "again"}
            ],
            "libraries": [{"name": "click"}, {"name": "Click"}, {"name": "rich"}]
        });
        let Ok(Card::Plan(plan)) = normalize_card(&plan, Expected::Plan) else { panic!("a plan") };
        let actions: Vec<&str> = plan.steps.iter().map(|step| step.action.as_str()).collect();
        assert_eq!(actions, ["Write hello.py", "Run it"], "the first of each kept, in order");
        assert_eq!(plan.steps[0].expected, "a file");
        let names: Vec<&str> = plan.libraries.iter().map(|library| library.name.as_str()).collect();
        assert_eq!(names, ["click", "rich"]);

        let questions = json!({"questions": [
            {"id": "q1", "question": "Which language?", "options": ["Python", "Python", "Rust", "python"]},
            {"id": "q2", "question": "which language?", "options": ["Go", "Go", "Go"]},
            {"id": "q3", "question": "Which OS?", "options": ["Linux", "Linux", "Linux"]}
        ]});
        let Ok(Card::Questions(questions)) = normalize_card(&questions, Expected::Questions) else {
            panic!("questions")
        };
        let seen: Vec<(&str, &str, Vec<&str>)> = questions
            .iter()
            .map(|q| {
                (q.id.as_str(), q.question.as_str(), q.options.iter().map(String::as_str).collect())
            })
            .collect();
        assert_eq!(
            seen,
            [("q1", "Which language?", vec!["Python", "Rust"]), ("q3", "Which OS?", vec!["Linux"])]
        );
    }
}
