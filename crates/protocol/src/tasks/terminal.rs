//! The task list as a person reads it in a terminal (seed 001's drawing): phases as
//! headers, ✓ done (struck through), ▶ in progress (bold), ○ pending, ✗ dropped, and
//! "3 of 7 done". ANSI styles only when asked for (a terminal without `NO_COLOR`); plain
//! text otherwise, so a pipe or a file gets no escape codes. Every piece of text a model or
//! a repository wrote (titles, phases, outcomes, check commands) is made inert on one line
//! ([`crate::inert::one_line`]) before it is drawn, so only the drawing's own styles reach
//! the terminal. Pure.

use std::fmt::Write;

use super::limits::same_phase;
use super::{Completion, Priority, Task, TaskList, TaskOrigin, TaskStatus};

/// How the list is drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Style {
    Plain,
    Ansi,
}

const BOLD: &str = "\x1b[1m";
const DIM: &str = "\x1b[2m";
const STRIKE: &str = "\x1b[9m";
const GREEN: &str = "\x1b[32m";
const RED: &str = "\x1b[31m";
const YELLOW: &str = "\x1b[33m";
const CYAN: &str = "\x1b[36m";
const RESET: &str = "\x1b[0m";

/// A line of the drawing, marked by what it shows.
struct Painter {
    style: Style,
    out: String,
}

impl Painter {
    /// `text` (inert, on one line) in the styles `codes`.
    fn paint(&mut self, codes: &[&str], text: &str) {
        let text = &crate::inert::one_line(text);
        match self.style {
            Style::Plain => self.out.push_str(text),
            Style::Ansi => {
                self.out.extend(codes.iter().copied());
                self.out.push_str(text);
                self.out.push_str(RESET);
            }
        }
    }

    /// The drawing's own text (line breaks, indents, marks): nothing a model wrote.
    fn text(&mut self, text: &str) {
        self.out.push_str(text);
    }

    /// Text someone else wrote, unstyled: inert, on one line.
    fn said(&mut self, text: &str) {
        self.out.push_str(&crate::inert::one_line(text));
    }
}

/// The list drawn; `asked` are the ids of tasks whose change waits for the user.
pub fn draw_task_list(list: &TaskList, asked: &[u32], style: Style) -> String {
    let mut painter = Painter { style, out: String::new() };
    let mut previous: Option<&str> = None;
    for task in &list.tasks {
        let phase = task.phase.as_deref();
        let opens = match (previous, phase) {
            (Some(before), Some(now)) => !same_phase(before, now),
            (_, now) => now.is_some(),
        };
        if let (true, Some(heading)) = (opens, phase) {
            if !painter.out.is_empty() {
                painter.text("\n");
            }
            painter.paint(&[BOLD], heading);
            painter.text("\n");
        }
        previous = phase;
        draw_task(&mut painter, task, asked.contains(&task.id));
    }
    let done = list.tasks.iter().filter(|t| t.status == TaskStatus::Done).count();
    let dropped = list.tasks.iter().filter(|t| t.status == TaskStatus::Dropped).count();
    let mut total = format!("{done} of {} done", list.tasks.len());
    if dropped > 0 {
        let _ = write!(total, ", {dropped} dropped");
    }
    painter.text("\n");
    painter.paint(&[DIM], &total);
    painter.out
}

fn draw_task(painter: &mut Painter, task: &Task, asked: bool) {
    painter.text("  ");
    match task.status {
        TaskStatus::Done => {
            painter.paint(&[GREEN], "✓");
            painter.text(" ");
            painter.paint(&[STRIKE], &task.title);
        }
        TaskStatus::Active => {
            painter.paint(&[BOLD, CYAN], "▶");
            painter.text(" ");
            painter.paint(&[BOLD], &task.title);
        }
        TaskStatus::Pending => {
            painter.text("○ ");
            painter.said(&task.title);
        }
        TaskStatus::Dropped => {
            painter.paint(&[RED], "✗");
            painter.text(" ");
            painter.paint(&[DIM, STRIKE], &task.title);
        }
    }
    let mut notes = Vec::new();
    if task.priority == Some(Priority::High) {
        notes.push("high priority".to_owned());
    }
    if task.origin == TaskOrigin::Executor {
        notes.push("added by the executor".to_owned());
    }
    if let Some(gate) = &task.gate {
        notes.push(format!("check `{}`: exit {}", gate.command, gate.exit_code));
    }
    if let Some(outcome) = &task.outcome {
        painter.paint(&[DIM], &format!(" — {outcome}"));
    }
    if !notes.is_empty() {
        painter.paint(&[DIM], &format!(" ({})", notes.join("; ")));
    }
    if asked {
        painter.paint(&[YELLOW], " [change asked: waits for the user]");
    }
    painter.text("\n");
}

/// A completed plan: the figures, then its list as it ended.
pub fn draw_completion(completion: &Completion, style: Style) -> String {
    let a = &completion.adherence;
    let mut painter = Painter { style, out: String::new() };
    painter.paint(&[BOLD, GREEN], "Plan completed");
    painter.said(&format!(" {}", completion.finished_at));
    painter.text("\n");
    let order = if a.in_order { "in the planned order" } else { "not in the planned order" };
    painter.text(&format!(
        "{} of {} steps done as planned, {} reworded, {} dropped, {} added; {order}\n\n",
        a.done_as_planned, a.steps, a.modified, a.dropped, a.added
    ));
    let list = TaskList { tasks: completion.tasks.clone(), ..TaskList::default() };
    painter.out.push_str(&draw_task_list(&list, &[], style));
    painter.out
}

#[cfg(test)]
mod tests {
    use expect_test::expect;
    use serde_json::json;

    use super::*;
    use crate::tasks::Operation;

    fn list() -> TaskList {
        let mut list = TaskList::from_steps(["dig", "build"]).unwrap();
        for value in [
            json!({"op": "add", "tasks": [{"title": "fix the flaky test", "phase": "Check", "priority": "high"}]}),
            json!({"op": "done", "id": 1, "outcome": "all in agent.rs"}),
            json!({"op": "drop", "id": 3, "outcome": "not flaky after all"}),
        ] {
            list = list.apply(&Operation::from_value(&value).unwrap()).unwrap();
        }
        list.tasks[0].phase = Some("Dig".into());
        list.tasks[1].phase = Some("dig".into());
        list
    }

    #[test]
    fn plain_text_has_the_marks_phases_and_count_and_no_escape_codes() {
        let drawn = draw_task_list(&list(), &[2], Style::Plain);
        assert!(!drawn.contains('\x1b'));
        expect![[r#"
            Dig
              ✓ dig — all in agent.rs
              ▶ build [change asked: waits for the user]

            Check
              ✗ fix the flaky test — not flaky after all (high priority; added by the executor)

            1 of 3 done, 1 dropped"#]]
        .assert_eq(&drawn);
    }

    /// Issue 46: a task title or outcome carrying an OSC 52 clipboard write, a colour and a
    /// line break of its own reached the terminal as written.
    #[test]
    fn text_a_model_wrote_reaches_the_terminal_inert_in_both_styles() {
        let mut list =
            TaskList::from_steps(["a\x1b]52;c;cm0gLXJmIH4=\x07b", "c\nFAKE ✓ line"]).unwrap();
        let done = json!({"op": "done", "id": 1, "outcome": "\x1b[2J\x1b[31mred\u{202e}"});
        list = list.apply(&Operation::from_value(&done).unwrap()).unwrap();
        list.tasks[1].phase = Some("P\x1b[1A".into());
        for style in [Style::Plain, Style::Ansi] {
            let drawn = draw_task_list(&list, &[], style);
            assert!(!drawn.contains("\x1b]") && !drawn.contains('\x07'), "{drawn:?}");
            assert!(!drawn.contains("\x1b[2J") && !drawn.contains("\x1b[1A"), "{drawn:?}");
            assert!(!drawn.contains('\u{202e}'), "{drawn:?}");
            assert!(drawn.contains("c FAKE ✓ line"), "a title stays on its line: {drawn:?}");
            assert!(drawn.contains("a]52;c;cm0gLXJmIH4=b"), "{drawn:?}");
        }
    }

    #[test]
    fn a_terminal_gets_struck_done_tasks_and_a_bold_active_one() {
        let drawn = draw_task_list(&list(), &[], Style::Ansi);
        assert!(drawn.contains("\x1b[32m✓\x1b[0m \x1b[9mdig\x1b[0m"), "{drawn:?}");
        assert!(drawn.contains("\x1b[1m\x1b[36m▶\x1b[0m \x1b[1mbuild\x1b[0m"), "{drawn:?}");
        assert!(drawn.contains("\x1b[31m✗\x1b[0m"), "{drawn:?}");
        assert!(!drawn.contains("○"), "no task is pending: {drawn:?}");
    }

    #[test]
    fn a_completed_plan_shows_its_figures_then_its_list() {
        let mut finished = list();
        finished = finished
            .apply(&Operation::from_value(&json!({"op": "done", "id": 2})).unwrap())
            .unwrap();
        let finished = finished.stamped(&TaskList::empty(), "t");
        let drawn =
            draw_completion(&finished.completion("ok", "2026-12-01T10:00:00.000Z"), Style::Plain);
        expect![[r#"
            Plan completed 2026-12-01T10:00:00.000Z
            2 of 2 steps done as planned, 0 reworded, 0 dropped, 1 added; in the planned order

            Dig
              ✓ dig — all in agent.rs
              ✓ build

            Check
              ✗ fix the flaky test — not flaky after all (high priority; added by the executor)

            2 of 3 done, 1 dropped"#]]
        .assert_eq(&drawn);
    }
}
