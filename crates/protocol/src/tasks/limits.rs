//! The tracker's limits and the one-line clean-up of the text a model sends.
//!
//! Limits are refusals, never truncation: a model that is told "120 characters" rewrites
//! its title; one whose title is silently cut keeps believing the full text was stored.
//! Lengths count characters (`char`s), not bytes, so a Cyrillic title gets the same room.

use super::TrackerError;

/// Tasks in one list, finished ones included (they are rendered in every prompt).
pub const MAX_TASKS: usize = 40;
pub const MAX_TITLE_CHARS: usize = 120;
pub const MAX_PHASE_CHARS: usize = 40;
/// DESIGN is silent on outcomes; they are rendered in every prompt, so they are held to a line.
pub const MAX_OUTCOME_CHARS: usize = 200;
/// The fewest tasks an executor's own `init` may plan outside an approved plan (DESIGN §14,
/// seed 001's "3+ distinct steps"): shorter work is done, not planned.
pub const MIN_OWN_TASKS: usize = 3;
/// A planned check (DESIGN §14): one shell command line, as the planner's normalisation keeps it.
pub const MAX_CHECK_CHARS: usize = 500;

/// Trims and folds every run of whitespace (line breaks included) into one space.
///
/// A line break inside a title would render as a line of its own and could pass for a
/// task; folding it keeps the rendered tree a tree. Returns `None` for blank text.
pub(crate) fn one_line(text: &str) -> Option<String> {
    let folded = text.split_whitespace().collect::<Vec<_>>().join(" ");
    (!folded.is_empty()).then_some(folded)
}

/// The title as stored, or the refusal naming the task's place in the request (from 1).
pub(crate) fn checked_title(index: usize, title: &str) -> Result<String, TrackerError> {
    let title = one_line(title).ok_or(TrackerError::EmptyTitle { index })?;
    let chars = title.chars().count();
    if chars > MAX_TITLE_CHARS {
        return Err(TrackerError::TitleTooLong { index, chars, limit: MAX_TITLE_CHARS });
    }
    Ok(title)
}

/// The phase as sent (blank means none), or the refusal naming the task's place.
pub(crate) fn checked_phase(
    index: usize,
    phase: Option<&str>,
) -> Result<Option<String>, TrackerError> {
    let Some(phase) = phase.and_then(one_line) else {
        return Ok(None);
    };
    let chars = phase.chars().count();
    if chars > MAX_PHASE_CHARS {
        return Err(TrackerError::PhaseTooLong { index, chars, limit: MAX_PHASE_CHARS });
    }
    Ok(Some(phase))
}

/// The outcome as stored (blank means none), or the refusal.
pub(crate) fn checked_outcome(outcome: Option<&str>) -> Result<Option<String>, TrackerError> {
    let Some(outcome) = outcome.and_then(one_line) else {
        return Ok(None);
    };
    let chars = outcome.chars().count();
    if chars > MAX_OUTCOME_CHARS {
        return Err(TrackerError::OutcomeTooLong { chars, limit: MAX_OUTCOME_CHARS });
    }
    Ok(Some(outcome))
}

/// Phases are compared without case (Unicode-aware), without allocating.
pub(crate) fn same_phase(a: &str, b: &str) -> bool {
    if a.is_ascii() && b.is_ascii() {
        return a.eq_ignore_ascii_case(b);
    }
    let lower = |text: &str| text.chars().flat_map(char::to_lowercase).collect::<Vec<char>>();
    lower(a) == lower(b)
}

/// A check command as stored: trimmed, not blank, within the limit.
pub(crate) fn checked_check(command: &str) -> Result<String, TrackerError> {
    let command = command.trim();
    if command.is_empty() {
        return Err(TrackerError::EmptyCheck);
    }
    let chars = command.chars().count();
    if chars > MAX_CHECK_CHARS {
        return Err(TrackerError::CheckTooLong { chars, limit: MAX_CHECK_CHARS });
    }
    Ok(command.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;
    use expect_test::{expect, Expect};

    fn check_title(title: &str, expected: Expect) {
        let shown = match checked_title(1, title) {
            Ok(stored) => format!("ok {stored:?}"),
            Err(refusal) => format!("refused: {refusal}"),
        };
        expected.assert_eq(&shown);
    }

    #[test]
    fn titles_are_one_trimmed_line() {
        check_title("  read the schema \n", expect![[r#"ok "read the schema""#]]);
        check_title("read\nthe\t\tschema", expect![[r#"ok "read the schema""#]]);
        check_title(" \n\t ", expect![[r#"refused: task 1 of "tasks" has an empty title"#]]);
        check_title("", expect![[r#"refused: task 1 of "tasks" has an empty title"#]]);
    }

    #[test]
    fn title_limit_counts_characters_not_bytes() {
        let cyrillic_120 = "я".repeat(120);
        assert_eq!(cyrillic_120.len(), 240);
        assert_eq!(checked_title(1, &cyrillic_120), Ok(cyrillic_120.clone()));
        check_title(
            &"я".repeat(121),
            expect![[
                r#"refused: title of task 1 of "tasks" has 121 characters; the limit is 120. Shorten it"#
            ]],
        );
    }

    #[test]
    fn phase_limit_and_blank_phase() {
        assert_eq!(checked_phase(2, Some(&"ß".repeat(40))), Ok(Some("ß".repeat(40))));
        assert_eq!(checked_phase(2, Some("  ")), Ok(None));
        assert_eq!(checked_phase(2, None), Ok(None));
        assert_eq!(
            checked_phase(2, Some(&"x".repeat(41))),
            Err(TrackerError::PhaseTooLong { index: 2, chars: 41, limit: 40 })
        );
    }

    #[test]
    fn outcome_limit_and_blank_outcome() {
        assert_eq!(checked_outcome(Some(" all in\nagent.rs ")), Ok(Some("all in agent.rs".into())));
        assert_eq!(checked_outcome(Some("")), Ok(None));
        assert_eq!(
            checked_outcome(Some(&"o".repeat(200))).map(|o| o.map(|o| o.len())),
            Ok(Some(200))
        );
        assert_eq!(
            checked_outcome(Some(&"o".repeat(201))),
            Err(TrackerError::OutcomeTooLong { chars: 201, limit: 200 })
        );
    }

    #[test]
    fn phases_compare_without_case_beyond_ascii() {
        assert!(same_phase("Dig", "DIG"));
        assert!(same_phase("Сборка", "СБОРКА"));
        assert!(!same_phase("dig", "build"));
        assert!(!same_phase("dig", "digging"));
        assert!(same_phase("Ωmega", "ωMEGA"), "mixed ASCII and not");
        assert!(!same_phase("Сборка", "Сборки"));
    }
}
