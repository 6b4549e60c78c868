//! Timestamps as the engine and the plan files stamp them: RFC 3339 in UTC with milliseconds.

use time::format_description::well_known::Rfc3339;
use time::OffsetDateTime;

/// The current time, e.g. `2026-11-30T00:21:44.123Z`.
pub fn now_rfc3339() -> String {
    let now = OffsetDateTime::now_utc();
    let millis = now.replace_nanosecond(now.millisecond() as u32 * 1_000_000).unwrap_or(now);
    millis.format(&Rfc3339).unwrap_or_else(|_| now.unix_timestamp().to_string())
}
