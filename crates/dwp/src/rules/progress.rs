//! PROGRESS.md, the narrative log: one dated entry per protocol point, appended, never
//! rewritten. Pure text functions; the file is written whole with the other files of a
//! protocol point (see `disk/journal.rs`), so an interrupted append never leaves half a line.

/// The file as materialisation writes it, before the first entry.
pub(crate) fn render_progress_header(title: &str, plan: &str) -> String {
    format!("# Progress — {title}\n\nNarrative log of `{plan}`, oldest first: one entry per protocol point.\n\n")
}

/// `existing` with one `- {now} — {line}` entry per line appended.
pub(crate) fn append_entries(existing: &str, now: &str, lines: &[String]) -> String {
    let mut text = existing.to_owned();
    if !text.is_empty() && !text.ends_with('\n') {
        text.push('\n');
    }
    for line in lines {
        text.push_str(&format!("- {now} — {line}\n"));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_are_appended_one_a_line() {
        let header = render_progress_header("Webhooks", "PLAN_webhooks");
        let text = append_entries(
            &header,
            "2026-06-09T14:00:00Z",
            &["Task 1 started: a.".into(), "Task 2 paused.".into()],
        );
        assert!(text.starts_with("# Progress — Webhooks\n"));
        assert!(text.ends_with("- 2026-06-09T14:00:00Z — Task 1 started: a.\n- 2026-06-09T14:00:00Z — Task 2 paused.\n"));
        assert_eq!(append_entries("no newline", "t", &["x".into()]), "no newline\n- t — x\n");
    }
}
