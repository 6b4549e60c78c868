//! The attention decision on the event sequences the lifecycle emits (`runner.rs`,
//! `planner.rs`, `plan_change.rs`, `open_questions.rs`), one chat or several at once.

use preflight_agent::events::{Elicitation, Event};
use preflight_protocol::chat::{Message, Phase};
use preflight_protocol::error_code::ErrorCode;
use preflight_protocol::ids::ChatId;
use preflight_protocol::tasks::{Completion, ExecutorStop, PlanChange};
use serde_json::json;

use super::{Attention, Waiting};
use crate::lifecycle::hub::ChatSignal;

fn phase(phase: Phase) -> ChatSignal {
    ChatSignal::Event(Box::new(Event::PlanStatus { phase, text: String::new() }))
}

fn message(body: serde_json::Value) -> ChatSignal {
    let mut value = json!({"id": "m", "created_at": "t"});
    value.as_object_mut().unwrap().extend(body.as_object().unwrap().clone());
    let message: Message = serde_json::from_value(value).unwrap();
    ChatSignal::Event(Box::new(Event::Message { message }))
}

fn answer() -> ChatSignal {
    message(json!({"role": "assistant", "content": "Done.", "questions": null, "plan": null}))
}

fn stopped(reason: &str) -> ChatSignal {
    let stop: ExecutorStop =
        serde_json::from_value(json!({"reason": reason, "text": "", "tasks_left": [], "at": "t"}))
            .unwrap();
    ChatSignal::Event(Box::new(Event::ExecutorStopped { stopped: stop }))
}

fn completion(verdict: Option<&str>) -> ChatSignal {
    let mut value = json!({"summary": "", "deviations": [], "planned": [], "tasks": [],
        "finished_at": "t", "adherence": {"steps": 1, "done_as_planned": 1, "modified": 0,
        "dropped": 0, "added": 0, "in_order": true}});
    if let Some(verdict) = verdict {
        value["finalization"] =
            json!({"verdict": verdict, "reasons": [], "file": "F", "path": "/F", "gates_rerun": 1});
    }
    let completion: Completion = serde_json::from_value(value).unwrap();
    ChatSignal::Event(Box::new(Event::Completion { completion }))
}

fn error(code: ErrorCode) -> ChatSignal {
    ChatSignal::Event(Box::new(Event::Error { code, message: String::new() }))
}

fn change(id: &str, status: &str) -> ChatSignal {
    let change: PlanChange = serde_json::from_value(json!({"id": id, "kind": "drop", "task": 2,
        "reason": "not needed", "status": status, "requested_at": "t"}))
    .unwrap();
    ChatSignal::Event(Box::new(Event::PlanChange { change }))
}

fn elicitation(id: &str) -> ChatSignal {
    let question = preflight_mcp::Question::Form {
        server: "s".into(),
        message: "Your name?".into(),
        schema: json!({}),
    };
    ChatSignal::Event(Box::new(Event::Elicitation {
        elicitation: Elicitation { id: id.into(), question },
    }))
}

/// What each signal of `chat` newly makes wait, in order.
fn heard(attention: &mut Attention, chat: &str, signals: &[ChatSignal]) -> Vec<Waiting> {
    let chat = ChatId::from(chat);
    signals.iter().filter_map(|signal| attention.hear(&chat, signal)).collect()
}

fn one_chat(signals: &[ChatSignal]) -> Vec<Waiting> {
    heard(&mut Attention::default(), "a", signals)
}

#[test]
fn each_card_waits_once_however_often_it_is_said() {
    use Phase::*;
    // Questions, answered, then the plan; an edit re-sends the card and its phase.
    let planned = one_chat(&[
        phase(Planning),
        phase(Questions),
        phase(Questions),
        phase(Planning),
        phase(AwaitingApproval),
        phase(AwaitingApproval),
    ]);
    assert_eq!(planned, [Waiting::Questions, Waiting::Plan]);
    // Revised: the new plan waits again.
    let revised = one_chat(&[phase(AwaitingApproval), phase(Planning), phase(AwaitingApproval)]);
    assert_eq!(revised, [Waiting::Plan, Waiting::Plan]);
    // A plan change and a server's question, each once, however often sent; answered, gone.
    let asked = one_chat(&[
        change("c1", "pending"),
        change("c1", "pending"),
        change("c1", "approved"),
        change("c2", "pending"),
        elicitation("e1"),
        elicitation("e1"),
        ChatSignal::Event(Box::new(Event::ElicitationClosed {
            id: "e1".into(),
            action: "accept".into(),
        })),
    ]);
    assert_eq!(asked, [Waiting::PlanChange, Waiting::PlanChange, Waiting::Elicitation]);
    // An auto-approved change is news to no one.
    assert_eq!(one_chat(&[change("c3", "approved")]), []);
}

#[test]
fn a_run_ends_done_unverified_stopped_or_failed() {
    use Phase::*;
    assert_eq!(one_chat(&[phase(Executing), answer(), phase(Idle)]), [Waiting::Done]);
    let closing = [phase(Executing), completion(Some("VERIFIED")), phase(Idle)];
    assert_eq!(one_chat(&closing), [Waiting::Done]);
    let unverified = [phase(Executing), completion(Some("UNVERIFIED")), phase(Idle)];
    assert_eq!(one_chat(&unverified), [Waiting::Unverified]);
    let stop = [phase(Executing), stopped("no_progress"), phase(Idle)];
    assert_eq!(one_chat(&stop), [Waiting::Stopped]);
    // The executor's failure: its notice message, then the error.
    let failed = [phase(Executing), answer(), error(ErrorCode::ProviderUnavailable), phase(Idle)];
    assert_eq!(one_chat(&failed), [Waiting::Failed]);
    // A planner that failed where the chat stops says so with its notice alone.
    let notice = message(json!({"role": "assistant", "content": "", "questions": null,
        "plan": null, "notice": {"kind": "planner_failed", "went_on": false,
        "code": "ERR_PROVIDER_TIMEOUT", "detail": "timed out"}}));
    assert_eq!(one_chat(&[phase(Planning), notice, phase(Idle)]), [Waiting::Failed]);
}

#[test]
fn what_the_turn_goes_on_after_is_not_its_end() {
    use Phase::*;
    // A checkpoint that failed at the turn's end, an MCP server missing at its start.
    let warned = one_chat(&[
        phase(Executing),
        error(ErrorCode::McpNotInstalled),
        answer(),
        error(ErrorCode::Checkpoint),
        phase(Idle),
    ]);
    assert_eq!(warned, [Waiting::Done]);
    // Continued by itself (`auto_continue`): the stop and the Continue, then the plan done.
    let continued = one_chat(&[
        phase(Executing),
        stopped("no_progress"),
        message(
            json!({"role": "user", "content": "Continue", "resume": {"reason": "no_progress", "auto": true}}),
        ),
        completion(None),
        phase(Idle),
    ]);
    assert_eq!(continued, [Waiting::Done]);
}

#[test]
fn a_stop_the_user_asked_for_and_a_cancelled_planner_are_no_news() {
    use Phase::*;
    let asked = [phase(Executing), ChatSignal::StopAsked, stopped("user_stop"), phase(Idle)];
    assert_eq!(one_chat(&asked), []);
    assert_eq!(one_chat(&[phase(Executing), ChatSignal::StopAsked, phase(Idle)]), []);
    assert_eq!(one_chat(&[phase(Planning), ChatSignal::StopAsked, phase(Idle)]), []);
    // Cancelled by another client, whose stop this stream did not see asked.
    assert_eq!(one_chat(&[phase(Executing), stopped("user_stop"), phase(Idle)]), []);
    assert_eq!(one_chat(&[phase(Planning), phase(Idle)]), []);
    // The next run is news again.
    let again = [ChatSignal::StopAsked, phase(Idle), phase(Executing), answer(), phase(Idle)];
    assert_eq!(one_chat(&again), [Waiting::Done]);
}

#[test]
fn a_chat_heard_idle_first_or_idle_again_is_no_news() {
    use Phase::*;
    // A chat's state at start-up is not replayed; an idle said again ends nothing.
    assert_eq!(one_chat(&[phase(Idle), phase(Idle)]), []);
    assert_eq!(one_chat(&[phase(Executing), answer(), phase(Idle), phase(Idle)]), [Waiting::Done]);
}

#[test]
fn chats_are_followed_apart() {
    use Phase::*;
    let mut attention = Attention::default();
    assert_eq!(heard(&mut attention, "a", &[phase(Executing)]), []);
    assert_eq!(
        heard(&mut attention, "b", &[phase(Planning), phase(AwaitingApproval)]),
        [Waiting::Plan]
    );
    assert_eq!(heard(&mut attention, "b", &[ChatSignal::StopAsked]), []);
    // b's stop is not a's: a's answer still ends its run.
    assert_eq!(heard(&mut attention, "a", &[answer(), phase(Idle)]), [Waiting::Done]);
    assert_eq!(heard(&mut attention, "b", &[phase(AwaitingApproval)]), []);
}
