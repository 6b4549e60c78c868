//! A random but always legal walk through the lifecycle over many chats: the load the
//! crash test kills, and (in-process) a check that legal states pass the checker.
//!
//! Each call of [`step`] reads the store, picks a step that fits a chat's state and runs
//! it as one transaction. A step the store refuses is a test failure, except the deliberate
//! wrong-state probes (`refused_*`), which must fail with the expected conflict and change
//! nothing.

use preflight_protocol::chat::{Chat, Phase};
use preflight_protocol::planner::PlanDocument;
use preflight_protocol::ChatId;
use preflight_store::{Conflict, Store, StoreError};

use crate::store::check::{self, Kind};
use crate::store::fixtures::{self, advance, finished, tasks_from};

const MIN_CHATS: usize = 4;
const MAX_CHATS: usize = 10;
/// From this many chats on, a step may delete one, so new chats keep going through planning.
const DELETE_FROM: usize = 8;

/// A small deterministic generator (xorshift64*): no dependency, reproducible by seed.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// Uniform in `0..n` (n > 0).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }

    pub fn percent(&mut self, chance: usize) -> bool {
        self.below(100) < chance
    }
}

/// What one step did: its name, and how many rows it inserted into the AUTOINCREMENT
/// tables (`chats`, `messages`), which is what `sqlite_sequence` grows by when it commits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StepReport {
    pub name: &'static str,
    pub inserts: u64,
}

fn report(name: &'static str, inserts: u64) -> StepReport {
    StepReport { name, inserts }
}

/// Runs one step on a random chat (or creates or deletes a chat).
pub fn step(store: &Store, rng: &mut Rng) -> Result<StepReport, StoreError> {
    let chats = store.list_chats()?;
    if chats.len() < MIN_CHATS || (chats.len() < MAX_CHATS && rng.percent(8)) {
        let mut settings = fixtures::settings(&format!("chat {}", rng.next_u64() % 1000));
        settings.plan_mode = rng.percent(85);
        settings.auto_approve = rng.percent(20);
        store.create_chat(&settings)?;
        return Ok(report("create_chat", 1));
    }
    if chats.len() >= DELETE_FROM && rng.percent(12) {
        let chat = &chats[rng.below(chats.len())];
        assert!(store.delete_chat(&chat.id)?);
        return Ok(report("delete_chat", 0));
    }
    let chat = &chats[rng.below(chats.len())];
    match store.state(&chat.id)?.phase {
        Phase::Idle => idle_step(store, chat, rng),
        Phase::Planning => planning_step(store, chat, rng),
        Phase::Questions => questions_step(store, chat, rng),
        Phase::AwaitingApproval => approval_step(store, chat, rng),
        Phase::Executing => executing_step(store, chat, rng),
    }
}

fn turn_phase(chat: &Chat, first_turn: bool) -> Phase {
    if chat.plan_mode && first_turn {
        Phase::Planning
    } else {
        Phase::Executing
    }
}

fn idle_step(store: &Store, chat: &Chat, rng: &mut Rng) -> Result<StepReport, StoreError> {
    let Some(first) = store.read(|tx| tx.first_user_message(&chat.id))? else {
        let message = fixtures::user("Write a tool that counts words in a file");
        store.begin_user_turn(&chat.id, &message, turn_phase(chat, true))?;
        return Ok(report("begin_user_turn", 1));
    };
    match rng.below(10) {
        0..=4 => {
            let message = fixtures::user("Now add a --lines flag");
            store.begin_user_turn(&chat.id, &message, Phase::Executing)?;
            Ok(report("begin_user_turn", 1))
        }
        5..=7 => {
            let content = format!("Write a tool that counts words, take {}", rng.below(100));
            store.edit_user_message(&chat.id, &first.id, &content, turn_phase(chat, true))?;
            Ok(report("edit_user_message", 0))
        }
        _ => {
            let messages = store.messages(&chat.id)?;
            let last_turn = messages.iter().rev().find(|message| message.is_user_turn());
            let last_turn = last_turn.expect("the first user message is a turn");
            let first_turn = last_turn.id == first.id;
            store.edit_user_message(
                &chat.id,
                &last_turn.id,
                "Try again",
                turn_phase(chat, first_turn),
            )?;
            Ok(report("edit_user_message", 0))
        }
    }
}

fn planning_step(store: &Store, chat: &Chat, rng: &mut Rng) -> Result<StepReport, StoreError> {
    let state = store.state(&chat.id)?;
    let round = state.plan_pending.as_ref().map_or(0, |pending| pending.round);
    match rng.below(100) {
        0..=4 => {
            store.cancel_plan(&chat.id)?;
            Ok(report("cancel_plan", 0))
        }
        5..=8 => {
            let notice = fixtures::assistant("Planning did not work out; doing the task directly.");
            store.fall_back_to_execution(&chat.id, Some(&notice))?;
            Ok(report("fall_back_to_execution", 1))
        }
        9..=10 if state.plan_pending.is_none() => {
            store.finish_turn(&chat.id, false)?; // the user stopped the planner
            Ok(report("finish_turn", 0))
        }
        11..=50 if round < 3 => {
            let answers = state.plan_pending.map(|pending| pending.answers).unwrap_or_default();
            let questions = fixtures::questions(round + 1, 1 + rng.below(3));
            let pending = fixtures::pending("count words", questions.clone(), answers, round + 1);
            store.record_question_card(&chat.id, &fixtures::question_card(&questions), &pending)?;
            Ok(report("record_question_card", 1))
        }
        _ => plan_card_step(store, chat, rng),
    }
}

fn plan_card_step(store: &Store, chat: &Chat, rng: &mut Rng) -> Result<StepReport, StoreError> {
    let document = fixtures::plan_document("Word counter", 1 + rng.below(4));
    let card = fixtures::plan_card(&document);
    if chat.auto_approve {
        let tasks = tasks_from(&document);
        store.record_pre_approved_plan(&chat.id, &card, document, &tasks)?;
        return Ok(report("record_pre_approved_plan", 1));
    }
    store.record_plan_card(&chat.id, &card, document)?;
    Ok(report("record_plan_card", 1))
}

fn questions_step(store: &Store, chat: &Chat, rng: &mut Rng) -> Result<StepReport, StoreError> {
    if rng.percent(6) {
        store.cancel_plan(&chat.id)?;
        return Ok(report("cancel_plan", 0));
    }
    if rng.percent(4) {
        let message = fixtures::user("hello?");
        return probe(store, &chat.id, "refused_send", Conflict::PlanPending, || {
            store.begin_user_turn(&chat.id, &message, Phase::Executing)
        });
    }
    let pending = store.state(&chat.id)?.plan_pending.expect("questions wait");
    let open: Vec<_> = pending.questions.iter().filter(|q| q.answer.is_none()).collect();
    let question = if rng.percent(80) && !open.is_empty() {
        open[rng.below(open.len())]
    } else {
        &pending.questions[rng.below(pending.questions.len())]
    };
    let answer = match rng.below(4) {
        3 => format!("my own answer {}", rng.below(1000)),
        option => question.options[option].clone(),
    };
    store.record_answer(&chat.id, &question.id, &answer)?;
    Ok(report("record_answer", 1))
}

fn approval_step(store: &Store, chat: &Chat, rng: &mut Rng) -> Result<StepReport, StoreError> {
    let latest: PlanDocument = store.state(&chat.id)?.plan.expect("a plan waits");
    match rng.below(100) {
        0..=34 => {
            store.approve_plan(&chat.id, &tasks_from(&latest))?;
            Ok(report("approve_plan", 0))
        }
        35..=59 => {
            let mut edited = latest;
            edited.title = format!("{} (edited)", edited.title);
            edited.steps.truncate(1 + rng.below(edited.steps.len()));
            store.edit_plan(&chat.id, edited)?;
            Ok(report("edit_plan", 0))
        }
        60..=74 => {
            let feedback = fixtures::feedback("Use the standard library only");
            store.reject_plan(&chat.id, Some(&feedback), Vec::new())?;
            Ok(report("reject_plan", 1))
        }
        75..=79 => probe(store, &chat.id, "refused_answer", Conflict::NoQuestions, || {
            store.record_answer(&chat.id, &"q1".into(), "left")
        }),
        _ => {
            store.cancel_plan(&chat.id)?;
            Ok(report("cancel_plan", 0))
        }
    }
}

fn executing_step(store: &Store, chat: &Chat, rng: &mut Rng) -> Result<StepReport, StoreError> {
    let list = store.task_list(&chat.id)?;
    let roll = rng.below(100);
    if roll < 20 {
        let round = fixtures::tool_round(&format!("call_{}", rng.below(10_000)), rng.percent(20));
        store.append_messages(&chat.id, &round)?;
        return Ok(report("append_messages", 2));
    }
    if roll < 40 && !finished(&list) {
        store.save_task_list(&chat.id, &advance(&list))?;
        return Ok(report("save_task_list", 0));
    }
    if (40..43).contains(&roll) {
        return probe(store, &chat.id, "refused_approve", Conflict::NoPendingPlan, || {
            store.approve_plan(&chat.id, &list)
        });
    }
    let last = store.read(|tx| tx.last_message(&chat.id))?;
    let answered = last.is_some_and(|message| check::kind(&message) == Kind::Assistant);
    if answered {
        store.finish_turn(&chat.id, finished(&list))?;
        return Ok(report("finish_turn", 0));
    }
    store.append_messages(&chat.id, &[fixtures::assistant("Done: wc.rs counts words.")])?;
    Ok(report("append_messages", 1))
}

/// Runs a step that must be refused with `expected` and checks that it changed nothing.
fn probe<T: std::fmt::Debug>(
    store: &Store,
    chat_id: &ChatId,
    name: &'static str,
    expected: Conflict,
    attempt: impl FnOnce() -> Result<T, StoreError>,
) -> Result<StepReport, StoreError> {
    let before = store.snapshot(chat_id)?;
    match attempt() {
        Err(StoreError::WrongState { conflict, .. }) if conflict == expected => {}
        other => panic!("expected {expected:?}, got {other:?}"),
    }
    assert_eq!(store.snapshot(chat_id)?, before, "{name} changed the chat");
    Ok(report(name, 0))
}
