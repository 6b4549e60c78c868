//! Why an executor turn ended while tasks were left (the stop card, `state.stopped`, the
//! `executor_stopped` event), and the chat's log of stops and continues that the completion
//! record names. Pure: the lifecycle decides when a stop happens; this file says what it
//! shows.

use serde::{Deserialize, Serialize};

use super::{TaskList, TaskStatus};

/// Why the executor stopped with tasks left.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum StopReason {
    /// The model ended its turn with a final answer.
    Answered,
    /// The model ended its turn after a task's gate failed.
    GateFailed,
    /// Rounds went by with neither the task list nor the workspace changing.
    NoProgress,
    /// The model asked for the same tool call with the same arguments again and again.
    Loop,
    /// The turn reached its hard cap of tool rounds (`[executor] max_rounds`).
    RoundCap,
    /// The model's provider failed.
    ProviderError,
    /// The user pressed Stop.
    UserStop,
    /// Preflight was closed (or crashed) while the executor worked.
    Interrupted,
    /// This chat is a fork of one whose executor was working at the point it was cut: the
    /// fork starts stopped there, for the user to continue (DESIGN §15).
    Forked,
}

impl StopReason {
    /// The reason in a few lowercase words, for a list ("stopped by the user").
    pub fn words(self) -> &'static str {
        match self {
            StopReason::Answered => "the model ended its turn",
            StopReason::GateFailed => "a check failed",
            StopReason::NoProgress => "no progress",
            StopReason::Loop => "a loop",
            StopReason::RoundCap => "the round cap",
            StopReason::ProviderError => "a provider error",
            StopReason::UserStop => "stopped by the user",
            StopReason::Interrupted => "Preflight was closed",
            StopReason::Forked => "forked mid-turn",
        }
    }

    /// Whether continuing by itself (`[executor] auto_continue`) may follow this stop: not
    /// after the user's own Stop, a failing provider or a loop, which a resume would repeat.
    pub fn may_auto_continue(self) -> bool {
        matches!(
            self,
            StopReason::Answered
                | StopReason::GateFailed
                | StopReason::NoProgress
                | StopReason::RoundCap
        )
    }
}

/// A task still open when the executor stopped.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct OpenTask {
    pub id: u32,
    pub title: String,
    pub status: TaskStatus,
}

/// The failing gate a stop followed: which task, the command and what it printed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct FailedGate {
    pub task: u32,
    pub command: String,
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub exit_code: i64,
    pub evidence: String,
}

/// `state.stopped`: the executor's last turn ended with these tasks left, for this reason.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct ExecutorStop {
    pub reason: StopReason,
    /// The reason in plain words.
    pub text: String,
    pub tasks_left: Vec<OpenTask>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub gate: Option<FailedGate>,
    pub at: String,
}

/// One stop or continue of the work, as the completion record names it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum WorkEvent {
    Stopped {
        reason: StopReason,
        tasks_left: u32,
        at: String,
    },
    /// `auto`: continued by `[executor] auto_continue`, not by the user.
    Continued {
        auto: bool,
        at: String,
    },
    /// The user restored the workspace to `checkpoint` (issue 31); `reopened` tasks were
    /// open again after it.
    Restored {
        checkpoint: u32,
        reopened: u32,
        at: String,
    },
}

/// A chat's stops and continues since its plan was approved (`chat_state.stops`): the
/// current stop, if the work has not gone on since, and the whole sequence.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct StopLog {
    pub current: Option<ExecutorStop>,
    #[serde(default)]
    pub events: Vec<WorkEvent>,
}

/// Events a log keeps; the oldest go first, so a chat that stops forever stays small.
pub const MAX_WORK_EVENTS: usize = 200;

impl StopLog {
    /// The log with `stop` as the current stop, and recorded.
    pub fn stopped(&self, stop: ExecutorStop) -> StopLog {
        let mut next = self.clone();
        next.push(WorkEvent::Stopped {
            reason: stop.reason,
            tasks_left: stop.tasks_left.len() as u32,
            at: stop.at.clone(),
        });
        next.current = Some(stop);
        next
    }

    /// The log once the work goes on: no current stop, and the continue recorded.
    pub fn continued(&self, auto: bool, now: &str) -> StopLog {
        let mut next = self.clone();
        next.current = None;
        next.push(WorkEvent::Continued { auto, at: now.to_owned() });
        next
    }

    /// The log once the user restored the workspace: no current stop, the restore recorded.
    pub fn restored(&self, checkpoint: u32, reopened: u32, now: &str) -> StopLog {
        let mut next = self.clone();
        next.current = None;
        next.push(WorkEvent::Restored { checkpoint, reopened, at: now.to_owned() });
        next
    }

    fn push(&mut self, event: WorkEvent) {
        self.events.push(event);
        let over = self.events.len().saturating_sub(MAX_WORK_EVENTS);
        self.events.drain(..over);
    }
}

impl ExecutorStop {
    /// The stop of a turn that ended for `reason` with `list`'s open tasks left; `detail`
    /// adds the turn's own words (the provider's error, the looping call). A model that
    /// ended its turn right after a failing gate stopped on that gate.
    pub fn of(reason: StopReason, detail: Option<&str>, list: &TaskList, now: &str) -> Self {
        let gate = failed_gate(list);
        let reason = match (reason, &gate) {
            (StopReason::Answered, Some(_)) => StopReason::GateFailed,
            (reason, _) => reason,
        };
        let tasks_left = list
            .tasks
            .iter()
            .filter(|task| task.status.is_open())
            .map(|task| OpenTask { id: task.id, title: task.title.clone(), status: task.status })
            .collect();
        let gate = gate.filter(|_| reason == StopReason::GateFailed);
        let text = plain_words(reason, detail, gate.as_ref());
        ExecutorStop { reason, text, tasks_left, gate, at: now.to_owned() }
    }

    /// What a Continue tells the executor: the open tasks and why it stopped.
    pub fn resume_text(&self) -> String {
        let tasks: Vec<String> =
            self.tasks_left.iter().map(|task| format!("{} “{}”", task.id, task.title)).collect();
        let mut text = format!(
            "Continue the approved plan. Tasks still open: {}. Your last turn stopped: {}",
            tasks.join(", "),
            self.text
        );
        if let Some(gate) = &self.gate {
            text.push_str(&format!(
                "\nThe failing check `{}` (exit {}) printed:\n{}",
                gate.command, gate.exit_code, gate.evidence
            ));
        }
        text.push_str("\nPick up where you left off and keep the task list current.");
        text
    }
}

/// How many continues `events` hold, and how many of them were automatic.
pub fn continues(events: &[WorkEvent]) -> (usize, usize) {
    events.iter().fold((0, 0), |(all, auto), event| match event {
        WorkEvent::Continued { auto: by_itself, .. } => (all + 1, auto + usize::from(*by_itself)),
        WorkEvent::Stopped { .. } | WorkEvent::Restored { .. } => (all, auto),
    })
}

/// The open task whose last gate run failed, if any: the active one first.
fn failed_gate(list: &TaskList) -> Option<FailedGate> {
    let mut candidates: Vec<_> = list.tasks.iter().filter(|task| task.status.is_open()).collect();
    candidates.sort_by_key(|task| task.status != TaskStatus::Active);
    candidates.into_iter().find_map(|task| {
        let gate = task.gate.as_ref().filter(|gate| !gate.passes)?;
        Some(FailedGate {
            task: task.id,
            command: gate.command.clone(),
            exit_code: gate.exit_code,
            evidence: gate.evidence.clone(),
        })
    })
}

fn plain_words(reason: StopReason, detail: Option<&str>, gate: Option<&FailedGate>) -> String {
    let base = match (reason, gate) {
        (StopReason::Answered, _) => "The model ended its turn with tasks still open.".to_owned(),
        (StopReason::GateFailed, Some(gate)) => format!(
            "The check of task {} failed (`{}` exited with {}) and the model ended its turn.",
            gate.task, gate.command, gate.exit_code
        ),
        (StopReason::GateFailed, None) => "A check failed and the model ended its turn.".into(),
        (StopReason::NoProgress, _) => {
            "Neither the task list nor the workspace changed for too many rounds.".to_owned()
        }
        (StopReason::Loop, _) => {
            "The model was in a loop: it asked for the same tool call again and again.".into()
        }
        (StopReason::RoundCap, _) => "The turn reached its limit of tool rounds.".to_owned(),
        (StopReason::ProviderError, _) => "The model's provider failed.".to_owned(),
        (StopReason::UserStop, _) => "You stopped the turn.".to_owned(),
        (StopReason::Interrupted, _) => {
            "Preflight was closed while the executor worked.".to_owned()
        }
        (StopReason::Forked, _) => "This chat was forked from another while its executor worked \
                                    there; the work stopped at that point."
            .to_owned(),
    };
    match detail.map(str::trim).filter(|detail| !detail.is_empty()) {
        Some(detail) => format!("{base} {detail}"),
        None => base,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tasks::Gate;

    fn list_with_failing_gate(gate_passes: bool) -> TaskList {
        let mut list = TaskList::from_steps(["Write it", "Prove it", "Ship it"]).unwrap();
        list.tasks[0].status = TaskStatus::Done;
        list.tasks[1].status = TaskStatus::Active;
        list.tasks[2].status = TaskStatus::Pending;
        list.tasks[1].gate = Some(Gate {
            command: "cargo test".into(),
            exit_code: if gate_passes { 0 } else { 101 },
            passes: gate_passes,
            evidence: "test parser ... FAILED".into(),
            duration_ms: 5,
            last_run: "now".into(),
            timed_out: false,
        });
        list
    }

    #[test]
    fn a_model_that_ends_after_a_failing_gate_stopped_on_that_gate() {
        let stop =
            ExecutorStop::of(StopReason::Answered, None, &list_with_failing_gate(false), "t");
        assert_eq!(stop.reason, StopReason::GateFailed);
        let gate = stop.gate.as_ref().unwrap();
        assert_eq!((gate.task, gate.exit_code), (2, 101));
        assert_eq!(stop.tasks_left.iter().map(|t| t.id).collect::<Vec<_>>(), [2, 3]);
        assert!(
            stop.text.contains("task 2 failed (`cargo test` exited with 101)"),
            "{}",
            stop.text
        );
        let told = stop.resume_text();
        assert!(told.contains("Tasks still open: 2 “Prove it”, 3 “Ship it”"), "{told}");
        assert!(told.contains("test parser ... FAILED"), "{told}");
    }

    #[test]
    fn other_reasons_keep_their_own_words_and_carry_no_gate() {
        let cases = [
            (StopReason::Answered, true, "The model ended its turn"),
            (StopReason::Loop, false, "in a loop"),
            (StopReason::NoProgress, false, "Neither the task list nor the workspace"),
            (StopReason::UserStop, false, "You stopped"),
            (StopReason::Interrupted, false, "Preflight was closed"),
            (StopReason::Forked, false, "forked from another"),
        ];
        for (reason, passes, words) in cases {
            let stop =
                ExecutorStop::of(reason, Some("extra"), &list_with_failing_gate(passes), "t");
            assert_eq!(stop.reason, reason);
            assert!(stop.gate.is_none(), "{reason:?}");
            assert!(stop.text.contains(words) && stop.text.ends_with(" extra"), "{}", stop.text);
        }
    }

    #[test]
    fn the_log_keeps_stops_and_continues_in_order_and_stays_bounded() {
        let stop =
            ExecutorStop::of(StopReason::Answered, None, &list_with_failing_gate(true), "t1");
        let log = StopLog::default().stopped(stop.clone());
        assert_eq!(log.current.as_ref(), Some(&stop));
        let log = log.continued(true, "t2");
        assert_eq!(log.current, None);
        assert_eq!(continues(&log.events), (1, 1));
        assert_eq!(
            log.events,
            [
                WorkEvent::Stopped { reason: StopReason::Answered, tasks_left: 2, at: "t1".into() },
                WorkEvent::Continued { auto: true, at: "t2".into() },
            ]
        );
        let mut long = StopLog::default();
        for _ in 0..MAX_WORK_EVENTS {
            long = long.stopped(stop.clone()).continued(false, "t");
        }
        assert_eq!(long.events.len(), MAX_WORK_EVENTS);
        assert!(matches!(long.events.last(), Some(WorkEvent::Continued { .. })));
    }

    #[test]
    fn only_stops_a_resume_would_not_repeat_may_continue_by_themselves() {
        use StopReason::*;
        let auto: Vec<StopReason> = [
            Answered,
            GateFailed,
            NoProgress,
            Loop,
            RoundCap,
            ProviderError,
            UserStop,
            Interrupted,
            Forked,
        ]
        .into_iter()
        .filter(|reason| reason.may_auto_continue())
        .collect();
        assert_eq!(auto, [Answered, GateFailed, NoProgress, RoundCap]);
    }
}
