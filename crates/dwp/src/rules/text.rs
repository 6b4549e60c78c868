//! The small text rules every record follows: one line, within a limit, not empty, and
//! timestamps in RFC 3339.

use time::format_description::well_known::Rfc3339;
use time::OffsetDateTime;

use super::refusal::Refusal;

/// Trims and folds every run of whitespace into one space.
pub(crate) fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

pub(crate) fn check_length(
    what: &'static str,
    text: &str,
    limit: usize,
    hint: &'static str,
) -> Result<(), Refusal> {
    let chars = text.chars().count();
    if chars > limit {
        return Err(Refusal::TooLong { what, chars, limit, hint });
    }
    Ok(())
}

/// One line, not empty, within `limit` characters.
pub(crate) fn checked_text(
    what: &'static str,
    text: &str,
    limit: usize,
) -> Result<String, Refusal> {
    let text = one_line(text);
    if text.is_empty() {
        return Err(Refusal::Empty { what });
    }
    check_length(what, &text, limit, "say it in one line")?;
    Ok(text)
}

/// Whether `value` is an RFC 3339 timestamp.
pub(crate) fn parse_timestamp(value: &str) -> Option<OffsetDateTime> {
    OffsetDateTime::parse(value, &Rfc3339).ok()
}
