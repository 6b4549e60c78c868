//! After the run: the store's own checker (`preflight check`, the real command) and the
//! bench's ledger against what is stored — no user message lost, doubled or unknown, in the
//! order sent, and every task list made of the chat's own turns with the outcomes given.

use std::collections::{HashMap, HashSet};
use std::path::Path;
use std::process::Command;

use anyhow::Context;
use preflight_engine::chat::MessageBody;
use preflight_engine::store::Store;
use preflight_engine::tasks::TaskStatus;
use preflight_engine::ChatId;

use crate::turns::outcome;
use crate::worker::ChatLedger;

#[derive(Debug, Default)]
pub struct Verdict {
    pub stored_user_messages: usize,
    pub lost: Vec<String>,
    pub doubled: Vec<String>,
    pub unknown: Vec<String>,
    pub out_of_order: Vec<String>,
    /// Of the POSTs cut by a kill, how many were stored (once each).
    pub uncertain_stored: usize,
    pub task_problems: Vec<String>,
    /// Tool results stored saying an MCP server died during the call.
    pub mcp_calls_cut: usize,
    /// Tool results stored saying the sandbox's timeout killed the command.
    pub sandbox_timeouts: usize,
    pub open_task_lists: usize,
    /// `preflight check`'s output and whether it passed.
    pub checker: String,
    pub checker_passed: bool,
}

/// `preflight check` on `home` (nothing holds it now: the rules at rest apply).
pub fn run_checker(home: &Path, verdict: &mut Verdict) -> anyhow::Result<()> {
    let output = Command::new(env!("CARGO_BIN_EXE_preflight"))
        .arg("check")
        .env("PREFLIGHT_HOME", home)
        .output()
        .context("running preflight check")?;
    verdict.checker = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    verdict.checker_passed = output.status.success();
    Ok(())
}

pub fn compare(
    database: &Path,
    ledgers: &[ChatLedger],
    verdict: &mut Verdict,
) -> anyhow::Result<()> {
    let store = Store::open_read_only(database)?;
    for ledger in ledgers {
        let snapshot = store.snapshot(&ChatId::from(ledger.id.as_str()))?;
        let stored: Vec<String> = snapshot
            .messages
            .iter()
            .filter_map(|message| match &message.body {
                MessageBody::User { content, plan_answer: false, resume: None, .. } => {
                    Some(content.split(']').next().unwrap_or_default().to_owned() + "]")
                }
                _ => None,
            })
            .collect();
        verdict.stored_user_messages += stored.len();
        for message in &snapshot.messages {
            if let MessageBody::Tool { content, .. } = &message.body {
                verdict.mcp_calls_cut +=
                    usize::from(content.contains("closed the connection during"));
                verdict.sandbox_timeouts += usize::from(content.contains("(timed out: "));
            }
        }
        compare_chat(ledger, &stored, verdict);
        let list = &snapshot.task_list;
        verdict.open_task_lists += usize::from(list.has_work_left());
        let ours: HashSet<&str> =
            ledger.sent.iter().chain(&ledger.uncertain).map(String::as_str).collect();
        for task in &list.tasks {
            let owner = task.title.split(']').next().unwrap_or_default().to_owned() + "]";
            if !ours.contains(owner.as_str()) {
                verdict
                    .task_problems
                    .push(format!("chat {}: task {:?} of no turn", ledger.index, task.title));
            } else if task.status == TaskStatus::Done
                && task.outcome != Some(outcome(&owner, task.id))
            {
                verdict.task_problems.push(format!(
                    "chat {}: task {} outcome {:?}",
                    ledger.index, task.id, task.outcome
                ));
            }
        }
    }
    Ok(())
}

fn compare_chat(ledger: &ChatLedger, stored: &[String], verdict: &mut Verdict) {
    let mut counts: HashMap<&str, usize> = HashMap::new();
    for marker in stored {
        *counts.entry(marker.as_str()).or_default() += 1;
    }
    let uncertain: HashSet<&str> = ledger.uncertain.iter().map(String::as_str).collect();
    let sent: HashSet<&str> = ledger.sent.iter().map(String::as_str).collect();
    for (marker, count) in &counts {
        if *count > 1 {
            verdict.doubled.push(format!("{marker} ×{count}"));
        }
        if !sent.contains(marker) && !uncertain.contains(marker) {
            verdict.unknown.push((*marker).to_owned());
        }
        if uncertain.contains(marker) {
            verdict.uncertain_stored += 1;
        }
    }
    verdict.lost.extend(ledger.sent.iter().filter(|m| !counts.contains_key(m.as_str())).cloned());
    let in_order: Vec<&String> = stored.iter().filter(|m| sent.contains(m.as_str())).collect();
    let expected: Vec<&String> =
        ledger.sent.iter().filter(|m| counts.contains_key(m.as_str())).collect();
    if in_order != expected {
        verdict.out_of_order.push(format!("chat {}", ledger.index));
    }
}

impl Verdict {
    /// The failures, one line each; empty when the run held.
    pub fn failures(&self, ledgers: &[ChatLedger]) -> Vec<String> {
        let mut failures = Vec::new();
        let mut say = |what: &str, items: &[String]| {
            if !items.is_empty() {
                failures.push(format!(
                    "{} {what}: {:?}",
                    items.len(),
                    &items[..items.len().min(5)]
                ));
            }
        };
        say("lost", &self.lost);
        say("doubled", &self.doubled);
        say("stored but never sent", &self.unknown);
        say("chats out of order", &self.out_of_order);
        say("task list problems", &self.task_problems);
        for ledger in ledgers {
            say(&format!("stuck turns in chat {}", ledger.index), &ledger.stuck);
            say(
                &format!("unrecorded interruptions in chat {}", ledger.index),
                &ledger.interrupted_unrecorded,
            );
            say(
                &format!(
                    "turns left with open tasks and no stop after a cut or stall in chat {}",
                    ledger.index
                ),
                &ledger.failed_unrecorded,
            );
            let refused: Vec<String> =
                ledger.refused.iter().map(|(m, s)| format!("{m} {s}")).collect();
            say(&format!("refused messages in chat {}", ledger.index), &refused);
        }
        if !self.checker_passed {
            failures.push(format!("preflight check failed:\n{}", self.checker));
        }
        failures
    }
}
