//! How `turn_plan` is offered to a model: its name, description and JSON Schema parameters.
//!
//! Kept beside the parser so the two cannot drift apart (a test checks the op names).
//! One flat object rather than `oneOf` per op: every provider accepts it.

use serde_json::{json, Value};

use super::limits::{
    MAX_OUTCOME_CHARS, MAX_PHASE_CHARS, MAX_TASKS, MAX_TITLE_CHARS, MIN_OWN_TASKS,
};

pub const TOOL_NAME: &str = "turn_plan";

/// The tool's description as the model reads it.
pub fn tool_description() -> String {
    format!(
        "Your plan of the work at hand: phases, numbered tasks, exactly one active. \
         One operation per call, \"op\" at the top level: \
         init {{tasks:[{{title,phase?,priority?}}]}} replaces the plan (empty tasks clears it); \
         add {{tasks}} appends (a task goes to the end of its phase); \
         start {{id}} makes a task active; done {{id,outcome?,gate?:{{command}}}} and drop \
         {{id,outcome?}} finish one (a gate's command is run by Preflight, and must pass); \
         modify {{id,title,reason?}} rewords one. The next pending task starts by itself. \
         Tasks from the approved plan are a contract with the user: dropping, rewording or \
         replacing (init) one asks the user, and waits for the answer. A task with a planned \
         check is proven by that check: finish it with done {{id}} and Preflight runs it; \
         another gate command for it asks the user too. A task that depends on others starts \
         only once they are done. Make a plan only for work of {MIN_OWN_TASKS} or more distinct \
         steps: for one or two steps, do the work. Limits: {MAX_TASKS} tasks, \
         {MAX_TITLE_CHARS} characters a title, {MAX_PHASE_CHARS} a phase, \
         {MAX_OUTCOME_CHARS} an outcome. Returns the plan as it now stands."
    )
}

/// The JSON Schema of the tool's arguments.
pub fn parameters_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "op": {
                "type": "string",
                "enum": ["init", "add", "start", "done", "drop", "modify"],
            },
            "tasks": {
                "type": "array",
                "description": "For init and add.",
                "items": {
                    "type": "object",
                    "properties": {
                        "title": { "type": "string", "maxLength": MAX_TITLE_CHARS },
                        "phase": { "type": "string", "maxLength": MAX_PHASE_CHARS,
                                   "description": "Group name; case does not matter." },
                        "priority": { "type": "string", "enum": ["high", "medium", "low"] },
                    },
                    "required": ["title"],
                },
            },
            "id": { "type": "integer", "description": "For start, done, drop and modify." },
            "title": { "type": "string", "maxLength": MAX_TITLE_CHARS,
                       "description": "For modify: the task's new wording." },
            "reason": { "type": "string", "maxLength": MAX_OUTCOME_CHARS,
                        "description": "For modify: why the task changes." },
            "outcome": { "type": "string", "maxLength": MAX_OUTCOME_CHARS,
                         "description": "For done and drop: one line on how it ended." },
            "gate": {
                "type": "object",
                "description": "For done: a command that proves the task (tests, a build, a \
                                script). Preflight runs it in the code sandbox and records its \
                                exit code and output itself; a failing one refuses the done.",
                "properties": {
                    "command": { "type": "string", "description": "run with /bin/sh -c in the workspace" },
                },
                "required": ["command"],
            },
        },
        "required": ["op"],
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tasks::{Operation, TrackerError};

    #[test]
    fn every_op_in_the_schema_parses_and_no_other_does() {
        let schema = parameters_schema();
        let ops = schema["properties"]["op"]["enum"].as_array().unwrap();
        for op in ops {
            let refusal = Operation::from_value(&json!({ "op": op })).unwrap_err();
            assert!(
                matches!(refusal, TrackerError::BadArguments { .. }),
                "{op} is in the schema but the parser does not know it: {refusal}"
            );
        }
        assert_eq!(ops.len(), 6);
    }

    #[test]
    fn description_names_the_limits() {
        let description = tool_description();
        for limit in ["40 tasks", "120 characters a title", "40 a phase", "200 an outcome"] {
            assert!(description.contains(limit), "missing {limit:?} in {description}");
        }
    }
}
