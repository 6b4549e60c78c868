//! Timestamps as the engine and the plan files stamp them: RFC 3339 in UTC with milliseconds.

use time::macros::format_description;
use time::OffsetDateTime;

/// The current time, e.g. `2026-11-30T00:21:44.120Z`: always three fraction digits, so that
/// two stamps compare as strings in time order (`.1Z` would sort after `.12Z`).
pub fn now_rfc3339() -> String {
    format_utc(OffsetDateTime::now_utc())
}

fn format_utc(at: OffsetDateTime) -> String {
    let layout =
        format_description!("[year]-[month]-[day]T[hour]:[minute]:[second].[subsecond digits:3]Z");
    at.format(layout).unwrap_or_else(|_| at.unix_timestamp().to_string())
}

#[cfg(test)]
mod tests {
    use super::format_utc;
    use time::macros::datetime;

    #[test]
    fn stamps_keep_three_digits_and_sort_as_text() {
        let stamps = [
            format_utc(datetime!(2026-11-30 00:21:44 UTC)),
            format_utc(datetime!(2026-11-30 00:21:44.1 UTC)),
            format_utc(datetime!(2026-11-30 00:21:44.12 UTC)),
            format_utc(datetime!(2026-11-30 00:21:44.999 UTC)),
        ];
        assert_eq!(stamps[0], "2026-11-30T00:21:44.000Z");
        assert_eq!(stamps[1], "2026-11-30T00:21:44.100Z");
        let mut sorted = stamps.clone();
        sorted.sort();
        assert_eq!(sorted, stamps);
    }
}
