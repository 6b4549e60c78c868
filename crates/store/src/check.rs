//! The store's own checker (`Store::check`, `preflight check`): what must hold of a
//! `preflight.db` whatever the engine did or however its process ended.
//!
//! - SQLite's own checks: `PRAGMA integrity_check` and `PRAGMA foreign_key_check`;
//! - every chat has its one `chat_state` row, and every stored row of it reads back (a row
//!   that does not decode is reported, not a panic);
//! - a chat's messages come back in strictly increasing `seq` order, no id twice;
//! - rounds are stored whole: an assistant message with tool calls is followed at once by
//!   one result for each of its calls (no other message between), and every tool result
//!   answers a call of the round it stands in;
//! - a task list: ids unique and below `next_id`, at most `MAX_TASKS` tasks, at most one
//!   active task;
//! - at rest (no process holds the data folder, and the last one's start-up recovery ran):
//!   no turn is left running (phase `planning` or `executing`), and a task list with work
//!   left carries its stop (`state.stopped`: why the turn ended with tasks open, `interrupted`
//!   for a killed process), which names only tasks of the list.
//!
//! Read-only: it runs in one read transaction, beside a running engine too (then without the
//! at-rest rules, which a running turn breaks by design).

use std::collections::HashSet;

use preflight_protocol::chat::{Message, MessageBody, Phase};
use preflight_protocol::tasks::{TaskList, TaskStatus, MAX_TASKS};

use crate::error::StoreError;
use crate::snapshot::ChatSnapshot;
use crate::{Store, Tx};

/// What [`Store::check`] found.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CheckReport {
    pub chats: usize,
    pub messages: usize,
    /// Chats whose task list has work left (each was checked to carry its stop at rest).
    pub open_task_lists: usize,
    /// One line per broken rule, naming the chat.
    pub violations: Vec<String>,
}

impl CheckReport {
    pub fn is_consistent(&self) -> bool {
        self.violations.is_empty()
    }
}

impl Store {
    /// Checks the whole store (see the module's rules); `at_rest` adds the rules that hold
    /// only when no turn runs. An error only when the database cannot be read at all.
    pub fn check(&self, at_rest: bool) -> Result<CheckReport, StoreError> {
        self.read(|tx| {
            let mut report = CheckReport::default();
            tx.sqlite_rules(&mut report.violations)?;
            for chat in tx.chats()? {
                match tx.snapshot(&chat.id) {
                    Ok(snapshot) => {
                        report.chats += 1;
                        report.messages += snapshot.messages.len();
                        report.open_task_lists += usize::from(snapshot.task_list.has_work_left());
                        let found = chat_violations(&snapshot, at_rest);
                        let seqs = tx.seq_rule(&snapshot)?;
                        let id = &chat.id;
                        let named =
                            found.into_iter().chain(seqs).map(|v| format!("chat {id}: {v}"));
                        report.violations.extend(named);
                    }
                    Err(error) => {
                        report.violations.push(format!("chat {}: unreadable: {error}", chat.id))
                    }
                }
            }
            Ok(report)
        })
    }
}

impl Tx<'_> {
    fn sqlite_rules(&self, violations: &mut Vec<String>) -> Result<(), StoreError> {
        let integrity: String = self.sql.query_row("PRAGMA integrity_check", [], |r| r.get(0))?;
        if integrity != "ok" {
            violations.push(format!("integrity_check: {integrity}"));
        }
        let mut statement = self.sql.prepare("PRAGMA foreign_key_check")?;
        let orphans = statement.query_map([], |row| row.get::<_, String>(0))?;
        for table in orphans {
            violations.push(format!("foreign_key_check: a row of {} has no parent", table?));
        }
        let stateless: i64 = self.sql.query_row(
            "SELECT count(*) FROM chats WHERE id NOT IN (SELECT chat_id FROM chat_state)",
            [],
            |row| row.get(0),
        )?;
        if stateless > 0 {
            violations.push(format!("{stateless} chats without their chat_state row"));
        }
        Ok(())
    }

    /// The messages as read come in strictly increasing `seq` order, no id twice.
    fn seq_rule(&self, snapshot: &ChatSnapshot) -> Result<Vec<String>, StoreError> {
        let mut statement = self.sql.prepare("SELECT seq FROM messages WHERE id = ?1")?;
        let mut seqs = Vec::with_capacity(snapshot.messages.len());
        for message in &snapshot.messages {
            seqs.push(statement.query_row([&message.id], |row| row.get::<_, i64>(0))?);
        }
        let ids: HashSet<&str> = snapshot.messages.iter().map(|m| m.id.as_str()).collect();
        let mut violations = Vec::new();
        if ids.len() != snapshot.messages.len() {
            violations.push("a message id stored twice".to_owned());
        }
        if let Some(pair) = seqs.windows(2).find(|pair| pair[0] >= pair[1]) {
            violations.push(format!("message seqs not increasing: {} then {}", pair[0], pair[1]));
        }
        Ok(violations)
    }
}

/// Every rule of one chat that needs only its snapshot.
pub fn chat_violations(snapshot: &ChatSnapshot, at_rest: bool) -> Vec<String> {
    let mut violations = round_violations(&snapshot.messages);
    violations.extend(task_list_violations(&snapshot.task_list));
    if at_rest {
        violations.extend(at_rest_violations(snapshot));
    }
    violations
}

/// Rounds stored whole: each call's result right after its assistant message, nothing else.
pub fn round_violations(messages: &[Message]) -> Vec<String> {
    let mut violations = Vec::new();
    let mut index = 0;
    while index < messages.len() {
        let message = &messages[index];
        index += 1;
        match &message.body {
            MessageBody::Assistant { tool_calls, .. } if !tool_calls.is_empty() => {
                let mut waiting: Vec<&str> = tool_calls.iter().map(|c| c.id.as_str()).collect();
                while let Some(MessageBody::Tool { tool_call_id, .. }) =
                    messages.get(index).map(|m| &m.body)
                {
                    match waiting.iter().position(|id| *id == tool_call_id.as_str()) {
                        Some(at) => {
                            waiting.remove(at);
                        }
                        None => violations.push(format!(
                            "tool result {tool_call_id} answers no call of its round"
                        )),
                    }
                    index += 1;
                }
                if !waiting.is_empty() {
                    violations.push(format!(
                        "round {} stored without the results of {waiting:?}",
                        message.id.as_str()
                    ));
                }
            }
            MessageBody::Tool { tool_call_id, .. } => {
                violations.push(format!("tool result {tool_call_id} outside a round"))
            }
            _ => {}
        }
    }
    violations
}

/// Ids unique and below `next_id`, at most [`MAX_TASKS`], at most one active task.
pub fn task_list_violations(list: &TaskList) -> Vec<String> {
    let mut violations = Vec::new();
    let ids: HashSet<u32> = list.tasks.iter().map(|task| task.id).collect();
    if ids.len() != list.tasks.len() || list.tasks.iter().any(|task| task.id >= list.next_id) {
        violations.push(format!("task ids repeat or reach next_id {}", list.next_id));
    }
    if list.tasks.len() > MAX_TASKS {
        violations.push(format!("{} tasks, over the limit of {MAX_TASKS}", list.tasks.len()));
    }
    let active = list.tasks.iter().filter(|task| task.status == TaskStatus::Active).count();
    if active > 1 {
        violations.push(format!("{active} active tasks"));
    }
    violations
}

/// No turn left running; open work carries its stop, naming tasks of the list.
fn at_rest_violations(snapshot: &ChatSnapshot) -> Vec<String> {
    let mut violations = Vec::new();
    let phase = snapshot.state.phase;
    if matches!(phase, Phase::Planning | Phase::Executing) {
        violations.push(format!(
            "a turn left running (phase {}) with no process: the next start settles it",
            phase.as_str()
        ));
    }
    let list = &snapshot.task_list;
    match &snapshot.state.stopped {
        None if list.has_work_left() && phase == Phase::Idle => {
            violations.push(format!("tasks {:?} left open without a stop", list.open_ids()))
        }
        Some(stop) => {
            let known: HashSet<u32> = list.tasks.iter().map(|task| task.id).collect();
            if stop.tasks_left.iter().any(|task| !known.contains(&task.id)) {
                violations.push(format!("the {:?} stop names tasks not in the list", stop.reason));
            }
        }
        None => {}
    }
    violations
}
