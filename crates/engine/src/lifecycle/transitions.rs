//! The lifecycle's decisions as pure functions of a chat's facts (DESIGN §2): where a
//! message goes, which profile a turn gets, what a plan's task list starts as.

use preflight_mcp::Profile;
use preflight_protocol::chat::Phase;
use preflight_protocol::planner::PlanStep;
use preflight_protocol::tasks::{PlannedTask, TaskList, MAX_TASKS, MAX_TITLE_CHARS};

use crate::lifecycle::error::ApiError;
use crate::lifecycle::hub::TurnKind;

/// Question rounds a planner may ask before it must give a plan.
pub const MAX_QUESTION_ROUNDS: u32 = 3;

/// What the lifecycle knows of a chat when a user acts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ChatFacts {
    pub plan_mode: bool,
    pub phase: Phase,
    /// Whether the chat is past its first message: it has a user turn, and its planning was
    /// not cancelled since (a cancelled chat is the chat right after its first message, and
    /// its next message plans again).
    pub started: bool,
    /// The kind of turn running now, if any.
    pub running: Option<TurnKind>,
}

/// Where a new user message goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SendRoute {
    /// The chat's first message in plan mode: a planner turn.
    Plan,
    /// Normal execution.
    Execute,
    /// A plan card waits: the message is revision feedback for the planner.
    Revise,
}

pub fn route_send(facts: &ChatFacts) -> Result<SendRoute, ApiError> {
    if facts.running.is_some() {
        return Err(ApiError::turn_active());
    }
    match facts.phase {
        Phase::Questions => Err(ApiError::plan_pending()),
        Phase::AwaitingApproval => Ok(SendRoute::Revise),
        _ if facts.plan_mode && !facts.started => Ok(SendRoute::Plan),
        _ => Ok(SendRoute::Execute),
    }
}

/// The phase a re-sent (edited) user message starts in: the first message of a plan-mode
/// chat plans again, as does any message of one whose planning was cancelled; any other
/// message executes.
pub fn route_edit(facts: &ChatFacts, edits_first_message: bool) -> Result<Phase, ApiError> {
    if facts.running.is_some() {
        return Err(ApiError::turn_active());
    }
    if facts.phase == Phase::Questions && !edits_first_message {
        return Err(ApiError::plan_pending());
    }
    if facts.plan_mode && (edits_first_message || !facts.started) {
        return Ok(Phase::Planning);
    }
    Ok(Phase::Executing)
}

/// The profile of the chat's running turn, or of the turn that would run next.
pub fn profile_for(facts: &ChatFacts) -> Profile {
    match facts.running {
        Some(TurnKind::Planner) => Profile::Planning,
        Some(TurnKind::Executor) => Profile::Execution,
        None if facts.phase == Phase::Questions || facts.phase == Phase::Planning => {
            Profile::Planning
        }
        None if facts.plan_mode && !facts.started => Profile::Planning,
        None => Profile::Execution,
    }
}

/// Whether the executor is offered `turn_plan`: in plan-mode chats, or while a task list has
/// work left.
pub fn offers_turn_plan(plan_mode: bool, list: &TaskList) -> bool {
    plan_mode || list.has_work_left()
}

/// Whether the planner may still ask questions in `round` (1-based).
pub fn may_ask(round: u32) -> bool {
    round <= MAX_QUESTION_ROUNDS
}

/// Why a plan's steps cannot become a task list as they are (the limits of DESIGN §5). A
/// plan is never cut to fit: the planner is asked to shorten it, and approval is refused
/// until it fits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum StepsOverLimit {
    #[error("the plan has {steps} steps, and a task list holds at most {MAX_TASKS}")]
    TooMany { steps: usize },
    #[error(
        "the action of step {step} has {chars} characters, and a task title holds at most \
         {MAX_TITLE_CHARS}"
    )]
    LongAction { step: usize, chars: usize },
}

/// Whether every step can be one task of the list, as it is.
pub fn check_steps(steps: &[PlanStep]) -> Result<(), StepsOverLimit> {
    if steps.len() > MAX_TASKS {
        return Err(StepsOverLimit::TooMany { steps: steps.len() });
    }
    for (index, step) in steps.iter().enumerate() {
        let chars = task_title(&step.action).chars().count();
        if chars > MAX_TITLE_CHARS {
            return Err(StepsOverLimit::LongAction { step: index + 1, chars });
        }
    }
    Ok(())
}

/// The task list an approved plan starts: one task per step (ids 1…n, task 1 active), each
/// titled with its step's action and carrying its check (the task's gate) and dependencies. Refused, never cut, when the steps do not fit.
pub fn tasks_from_plan(steps: &[PlanStep]) -> Result<TaskList, StepsOverLimit> {
    check_steps(steps)?;
    let planned = steps
        .iter()
        .map(|step| PlannedTask {
            title: task_title(&step.action),
            check: step.check.clone(),
            depends_on: step.depends_on.clone(),
        })
        .collect();
    // Checked above: the tracker takes every title.
    Ok(TaskList::from_plan(planned).unwrap_or_else(|_| TaskList::empty()))
}

/// [`tasks_from_plan`] stamped now: the list an approval saves.
pub fn approved_tasks(steps: &[PlanStep]) -> Result<TaskList, StepsOverLimit> {
    Ok(tasks_from_plan(steps)?.stamped(&TaskList::empty(), &preflight_dwp::now_rfc3339()))
}

fn task_title(action: &str) -> String {
    action.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lifecycle::error::ErrorCode;
    use preflight_protocol::tasks::TaskStatus;

    /// `done`: the chat's user turns (0: not started, as after a cancelled planning).
    fn facts(plan_mode: bool, phase: Phase, done: u64, running: Option<TurnKind>) -> ChatFacts {
        ChatFacts { plan_mode, phase, started: done > 0, running }
    }

    #[test]
    fn a_message_goes_where_the_lifecycle_says() {
        use Phase::*;
        let cases: &[(ChatFacts, Result<SendRoute, ErrorCode>)] = &[
            (facts(true, Idle, 0, None), Ok(SendRoute::Plan)),
            (facts(false, Idle, 0, None), Ok(SendRoute::Execute)),
            (facts(true, Idle, 1, None), Ok(SendRoute::Execute)),
            (facts(true, Questions, 1, None), Err(ErrorCode::PlanPending)),
            (facts(true, AwaitingApproval, 1, None), Ok(SendRoute::Revise)),
            (facts(true, Planning, 1, Some(TurnKind::Planner)), Err(ErrorCode::TurnActive)),
            (facts(false, Executing, 3, Some(TurnKind::Executor)), Err(ErrorCode::TurnActive)),
            (facts(true, Executing, 1, None), Ok(SendRoute::Execute)),
        ];
        for (facts, expected) in cases {
            assert_eq!(route_send(facts).map_err(|e| e.code), *expected, "{facts:?}");
        }
    }

    #[test]
    fn editing_the_first_message_plans_again() {
        use Phase::*;
        assert_eq!(route_edit(&facts(true, Idle, 3, None), true), Ok(Planning));
        assert_eq!(route_edit(&facts(true, Questions, 1, None), true), Ok(Planning));
        assert_eq!(route_edit(&facts(true, Idle, 3, None), false), Ok(Executing));
        assert_eq!(route_edit(&facts(false, Idle, 3, None), true), Ok(Executing));
        // Planning was cancelled and nothing ran: any message of the chat plans again.
        assert_eq!(route_edit(&facts(true, Idle, 0, None), false), Ok(Planning));
        let pending = route_edit(&facts(true, Questions, 0, None), false);
        assert_eq!(pending.unwrap_err().code, ErrorCode::PlanPending);
        let busy = route_edit(&facts(true, Executing, 1, Some(TurnKind::Executor)), true);
        assert_eq!(busy.unwrap_err().code, ErrorCode::TurnActive);
    }

    #[test]
    fn the_profile_follows_the_turn_or_the_next_one() {
        use Phase::*;
        let cases = [
            (facts(true, Idle, 0, None), Profile::Planning),
            (facts(false, Idle, 0, None), Profile::Execution),
            (facts(true, Questions, 1, None), Profile::Planning),
            (facts(true, AwaitingApproval, 1, None), Profile::Execution),
            (facts(true, Planning, 1, Some(TurnKind::Planner)), Profile::Planning),
            (facts(true, Executing, 1, Some(TurnKind::Executor)), Profile::Execution),
            (facts(true, Idle, 1, None), Profile::Execution),
        ];
        for (facts, expected) in cases {
            assert_eq!(profile_for(&facts), expected, "{facts:?}");
        }
    }

    fn steps(count: usize) -> Vec<PlanStep> {
        (0..count)
            .map(|i| PlanStep { action: format!("step  {i}\n"), ..PlanStep::default() })
            .collect()
    }

    #[test]
    fn a_plan_starts_its_task_list_with_the_first_step_active() {
        let list = tasks_from_plan(&steps(MAX_TASKS)).unwrap();
        assert_eq!(list.tasks.len(), MAX_TASKS);
        assert_eq!((list.tasks[0].status, list.tasks[0].id), (TaskStatus::Active, 1));
        assert_eq!(list.tasks[0].title, "step 0", "whitespace folded, nothing cut");
        assert!(list.tasks[1..].iter().all(|task| task.status == TaskStatus::Pending));
    }

    #[test]
    fn a_plan_over_the_limits_is_refused_never_cut() {
        assert_eq!(tasks_from_plan(&steps(41)), Err(StepsOverLimit::TooMany { steps: 41 }));
        let mut long = steps(3);
        long[1].action = format!("{} end", "word ".repeat(24));
        let refused = tasks_from_plan(&long).unwrap_err();
        assert_eq!(refused, StepsOverLimit::LongAction { step: 2, chars: 123 });
        assert!(refused.to_string().contains("step 2 has 123 characters"), "{refused}");
        long[1].action = "x".repeat(MAX_TITLE_CHARS);
        assert!(tasks_from_plan(&long).is_ok(), "exactly at the limit fits");
    }

    #[test]
    fn questions_stop_after_three_rounds() {
        assert!(may_ask(1) && may_ask(3));
        assert!(!may_ask(4));
    }
}
