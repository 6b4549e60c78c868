//! The consistency checker: what must hold of every chat between two steps.
//!
//! Every rule ties together effects that one step writes at once, so that a step split
//! into two transactions leaves a state some rule rejects:
//! - `record_question_card`: card ⇔ `plan_pending` ⇔ phase `questions` (waiting-card rules);
//! - `record_answer`: card answers ⇔ synthetic messages ⇔ `plan_pending` (answer rules);
//! - `record_plan_card` / `edit_plan` / `approve_plan` / `reject_plan`: every plan card shows
//!   exactly the revision it names, the last card the latest revision, and the latest
//!   revision's approval fixes the phase (plan rules);
//! - `approve_plan`: approved and executing ⇒ a task list (task rules);
//! - `cancel_plan` / editing the first message: cards without revisions, or unresolved
//!   question cards in an idle chat, are caught by the plan and answer rules;
//! - `begin_user_turn` on a later turn: an idle chat does not end on a user turn.
//!
//! The one split no rule can see is `begin_user_turn` of a chat's very first message
//! (message stored, phase not yet set): that state is the legitimate "cancelled" state.

use std::collections::HashSet;

use preflight_protocol::chat::{Message, MessageBody, Phase};
use preflight_protocol::planner::{Approval, PlanDocument, Question};
use preflight_protocol::tasks::{TaskList, TaskStatus};
use preflight_store::{answer_text, ChatSnapshot, Store};

use crate::store::raw;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    User,
    Answer,
    QuestionCard,
    PlanCard,
    Assistant,
    Tool,
    Compaction,
}

pub fn kind(message: &Message) -> Kind {
    match &message.body {
        MessageBody::User { plan_answer: false, .. } => Kind::User,
        MessageBody::User { plan_answer: true, .. } => Kind::Answer,
        MessageBody::Assistant { questions: Some(_), .. } => Kind::QuestionCard,
        MessageBody::Assistant { plan: Some(_), .. } => Kind::PlanCard,
        MessageBody::Assistant { .. } => Kind::Assistant,
        MessageBody::Tool { .. } => Kind::Tool,
        MessageBody::Compaction { .. } => Kind::Compaction,
    }
}

/// Integrity, foreign keys, message order and every chat's rules; the violations found.
pub fn check_store(store: &Store) -> Vec<String> {
    let raw = raw(store);
    let mut violations = sqlite_violations(&raw);
    let snapshots = store.read(|tx| {
        tx.chats()?.iter().map(|chat| tx.snapshot(&chat.id)).collect::<Result<Vec<_>, _>>()
    });
    match snapshots {
        Ok(snapshots) => {
            for snapshot in &snapshots {
                violations.extend(order_violations(&raw, snapshot));
                violations.extend(chat_violations(snapshot));
            }
        }
        Err(error) => violations.push(format!("cannot read the chats: {error}")),
    }
    violations
}

fn sqlite_violations(raw: &rusqlite::Connection) -> Vec<String> {
    let mut violations = Vec::new();
    let integrity: String = raw.query_row("PRAGMA integrity_check", [], |row| row.get(0)).unwrap();
    if integrity != "ok" {
        violations.push(format!("integrity_check: {integrity}"));
    }
    let orphans: usize =
        raw.prepare("PRAGMA foreign_key_check").unwrap().query_map([], |_| Ok(())).unwrap().count();
    if orphans > 0 {
        violations.push(format!("{orphans} rows fail foreign_key_check"));
    }
    violations
}

/// The messages come back in strictly increasing `seq` order.
fn order_violations(raw: &rusqlite::Connection, snapshot: &ChatSnapshot) -> Vec<String> {
    let mut statement = raw.prepare("SELECT seq FROM messages WHERE id = ?1").unwrap();
    let seqs: Vec<i64> = snapshot
        .messages
        .iter()
        .map(|message| statement.query_row([&message.id], |row| row.get(0)).unwrap())
        .collect();
    if seqs.windows(2).all(|pair| pair[0] < pair[1]) {
        return Vec::new();
    }
    vec![format!("chat {}: message seqs not increasing: {seqs:?}", snapshot.chat.id)]
}

/// Every rule of one chat; each violation names the chat.
pub fn chat_violations(snapshot: &ChatSnapshot) -> Vec<String> {
    let chat = ChatView::new(snapshot);
    let mut violations = Vec::new();
    chat.revision_rules(&mut violations);
    chat.plan_card_rules(&mut violations);
    chat.waiting_card_rules(&mut violations);
    chat.answer_rules(&mut violations);
    chat.phase_rules(&mut violations);
    task_rules(&snapshot.task_list, &mut violations);
    let id = &snapshot.chat.id;
    violations.into_iter().map(|violation| format!("chat {id}: {violation}")).collect()
}

struct ChatView<'s> {
    snapshot: &'s ChatSnapshot,
    messages: &'s [Message],
    kinds: Vec<Kind>,
    phase: Phase,
    latest: Option<&'s PlanDocument>,
}

impl<'s> ChatView<'s> {
    fn new(snapshot: &'s ChatSnapshot) -> ChatView<'s> {
        ChatView {
            snapshot,
            messages: &snapshot.messages,
            kinds: snapshot.messages.iter().map(kind).collect(),
            phase: snapshot.state.phase,
            latest: snapshot.revisions.last(),
        }
    }

    fn last_index_of(&self, wanted: Kind) -> Option<usize> {
        self.kinds.iter().rposition(|kind| *kind == wanted)
    }

    fn last_kind(&self) -> Option<Kind> {
        self.kinds.last().copied()
    }

    /// Revisions are 1…n without gaps, and the state's plan is the latest.
    fn revision_rules(&self, violations: &mut Vec<String>) {
        let numbers: Vec<u32> = self.snapshot.revisions.iter().map(|doc| doc.revision).collect();
        if numbers.iter().enumerate().any(|(index, number)| *number as usize != index + 1) {
            violations.push(format!("revisions are not 1..n: {numbers:?}"));
        }
        if self.snapshot.state.plan.as_ref() != self.latest {
            violations.push("state.plan is not the latest revision".into());
        }
    }

    /// Plan cards ⇔ revisions; each card shows the revision it names; the last card the
    /// latest; cards and answers only in the chat's first turn.
    fn plan_card_rules(&self, violations: &mut Vec<String>) {
        let revisions = &self.snapshot.revisions;
        let cards: Vec<&PlanDocument> = self.messages.iter().filter_map(card_plan).collect();
        if cards.is_empty() != revisions.is_empty() {
            violations.push(format!("{} plan cards, {} revisions", cards.len(), revisions.len()));
        }
        for plan in &cards {
            let stored = revisions.get((plan.revision as usize).wrapping_sub(1));
            if stored != Some(*plan) {
                violations.push(format!(
                    "a plan card shows revision {} unlike the stored one",
                    plan.revision
                ));
            }
        }
        if let (Some(last), Some(latest)) = (cards.last(), self.latest) {
            if *last != latest {
                violations.push("the last plan card does not show the latest revision".into());
            }
        }
        let second_turn =
            self.kinds.iter().enumerate().filter(|(_, kind)| **kind == Kind::User).nth(1);
        let planning_kinds = [Kind::Answer, Kind::QuestionCard, Kind::PlanCard];
        if let Some((second, _)) = second_turn {
            if self.kinds[second..].iter().any(|kind| planning_kinds.contains(kind)) {
                violations.push("a card or an answer after the second user turn".into());
            }
        }
    }

    /// `plan_pending` ⇔ phase `questions` (or `planning` once every question is answered),
    /// and the waiting card is the last card, followed only by its answers.
    fn waiting_card_rules(&self, violations: &mut Vec<String>) {
        let pending = self.snapshot.state.plan_pending.as_ref();
        let complete = pending.map(|p| p.questions.iter().all(|q| q.answer.is_some()));
        match (self.phase, complete) {
            (Phase::Questions, Some(false)) | (Phase::Planning, Some(true)) => {}
            (Phase::Questions, _) => violations.push("phase questions without an open card".into()),
            (_, None) => {}
            (phase, Some(_)) => {
                violations.push(format!("plan_pending in phase {}", phase.as_str()))
            }
        }
        let Some(pending) = pending else { return };
        let Some(card_index) = self.last_index_of(Kind::QuestionCard) else {
            violations.push("plan_pending without a question card".into());
            return;
        };
        if card_questions(&self.messages[card_index]) != Some(&pending.questions) {
            violations.push("the last question card's questions differ from plan_pending's".into());
        }
        if self.kinds[card_index + 1..].iter().any(|kind| *kind != Kind::Answer) {
            violations.push("something other than answers after the waiting card".into());
        }
        for question in &pending.questions {
            if let Some(answer) = &question.answer {
                if !pending.answers.contains(&answer_text(&question.question, answer)) {
                    violations.push(format!("plan_pending.answers lacks {}", question.id));
                }
            }
        }
    }

    /// Each synthetic answer follows a question card (and is one of its answers) or a
    /// rejected plan card (feedback); each card's answers are exactly its answered
    /// questions; a card not waiting any more was complete and was followed by the
    /// planner's next card, a notice or execution.
    fn answer_rules(&self, violations: &mut Vec<String>) {
        let mut index = 0;
        while index < self.messages.len() {
            let end = index
                + 1
                + self.kinds[index + 1..].iter().take_while(|k| **k == Kind::Answer).count();
            let answers = &self.messages[index + 1..end];
            match self.kinds[index] {
                Kind::QuestionCard => self.card_answer_rules(index, answers, end, violations),
                Kind::PlanCard => {
                    let approval = card_plan(&self.messages[index]).map(|plan| plan.approval);
                    if !answers.is_empty() && approval != Some(Approval::Rejected) {
                        violations.push("feedback after a plan card that is not rejected".into());
                    }
                }
                Kind::Answer => {
                    violations.push("a synthetic answer without a card before it".into())
                }
                _ if !answers.is_empty() => {
                    violations.push("a synthetic answer after a message that is no card".into())
                }
                _ => {}
            }
            index = end;
        }
    }

    fn card_answer_rules(
        &self,
        index: usize,
        answers: &[Message],
        end: usize,
        violations: &mut Vec<String>,
    ) {
        let questions = card_questions(&self.messages[index]).cloned().unwrap_or_default();
        let mut expected: Vec<String> = questions
            .iter()
            .filter_map(|q| q.answer.as_ref().map(|answer| answer_text(&q.question, answer)))
            .collect();
        let mut given: Vec<String> = answers.iter().map(|m| m.content().to_owned()).collect();
        expected.sort();
        given.sort();
        if expected != given {
            violations.push(format!("card answers {expected:?} but synthetic messages {given:?}"));
        }
        let waiting = self.snapshot.state.plan_pending.is_some()
            && self.last_index_of(Kind::QuestionCard) == Some(index);
        if !waiting {
            self.left_card_rules(&questions, end, violations);
        }
    }

    /// A card no longer waiting was complete, and the planner's next card, a notice or
    /// execution followed it.
    fn left_card_rules(&self, questions: &[Question], end: usize, violations: &mut Vec<String>) {
        if questions.iter().any(|q| q.answer.is_none()) {
            violations.push("a question card left behind with unanswered questions".into());
        }
        let next = self.kinds.get(end);
        let resolved = match next {
            Some(Kind::QuestionCard | Kind::PlanCard | Kind::Assistant) => true,
            Some(_) => false,
            // The planner runs again (phase planning) or gave up (phase executing).
            None => matches!(self.phase, Phase::Planning | Phase::Executing),
        };
        if !resolved {
            violations.push(format!(
                "a question card no longer waiting, followed by {next:?} in phase {}",
                self.phase.as_str()
            ));
        }
    }

    /// The latest revision's approval, the phase and the last message agree.
    fn phase_rules(&self, violations: &mut Vec<String>) {
        let approval = self.latest.map(|plan| plan.approval);
        let awaiting = self.phase == Phase::AwaitingApproval;
        if (approval == Some(Approval::Pending)) != awaiting {
            violations.push(format!("approval {approval:?} in phase {}", self.phase.as_str()));
        }
        if awaiting && self.last_kind() != Some(Kind::PlanCard) {
            violations.push("awaiting approval but the last message is no plan card".into());
        }
        let decided = matches!(approval, Some(Approval::Approved | Approval::PreApproved));
        if decided && !matches!(self.phase, Phase::Executing | Phase::Idle) {
            violations.push(format!("an approved plan in phase {}", self.phase.as_str()));
        }
        if decided
            && self.phase == Phase::Executing
            && self.in_approved_turn()
            && self.snapshot.task_list.tasks.is_empty()
        {
            violations.push("executing an approved plan without a task list".into());
        }
        self.planning_phase_rules(violations);
    }

    /// Executing the turn the plan was approved in: no user turn after the last plan card.
    fn in_approved_turn(&self) -> bool {
        let card = self.last_index_of(Kind::PlanCard).unwrap_or(0);
        !self.kinds[card..].contains(&Kind::User)
    }

    fn planning_phase_rules(&self, violations: &mut Vec<String>) {
        let users = self.kinds.iter().filter(|kind| **kind == Kind::User).count();
        let planning =
            matches!(self.phase, Phase::Planning | Phase::Questions | Phase::AwaitingApproval);
        if planning {
            if users != 1 {
                violations.push(format!("phase {} with {users} user turns", self.phase.as_str()));
            }
            if !self.snapshot.task_list.tasks.is_empty() {
                violations.push("a task list while planning".into());
            }
            if self.kinds.iter().any(|kind| matches!(kind, Kind::Assistant | Kind::Tool)) {
                violations.push("executor output while planning".into());
            }
        }
        self.last_message_rules(violations);
    }

    /// Planning continues from the user's words or a rejected plan; a turn does not end
    /// right after the user's message (only a cancelled first message stands alone).
    fn last_message_rules(&self, violations: &mut Vec<String>) {
        let rejected_card = self.messages.last().and_then(card_plan).map(|plan| plan.approval)
            == Some(Approval::Rejected);
        let last = self.last_kind();
        if self.phase == Phase::Planning
            && !matches!(last, Some(Kind::User | Kind::Answer))
            && !rejected_card
        {
            violations.push(format!("planning after {last:?}"));
        }
        if self.phase == Phase::Idle && last == Some(Kind::User) && self.messages.len() != 1 {
            violations.push("idle right after a user turn".into());
        }
    }
}

/// Ids unique and below `next_id`; at most one active task, exactly one while any is pending.
fn task_rules(list: &TaskList, violations: &mut Vec<String>) {
    let ids: HashSet<u32> = list.tasks.iter().map(|task| task.id).collect();
    if ids.len() != list.tasks.len() || list.tasks.iter().any(|task| task.id >= list.next_id) {
        violations.push("task ids repeat or reach next_id".into());
    }
    let count = |status| list.tasks.iter().filter(|task| task.status == status).count();
    let active = count(TaskStatus::Active);
    if active > 1 || (count(TaskStatus::Pending) > 0 && active != 1) {
        violations.push(format!("{active} active tasks"));
    }
}

fn card_plan(message: &Message) -> Option<&PlanDocument> {
    match &message.body {
        MessageBody::Assistant { plan: Some(plan), .. } => Some(plan),
        _ => None,
    }
}

fn card_questions(message: &Message) -> Option<&Vec<Question>> {
    match &message.body {
        MessageBody::Assistant { questions: Some(questions), .. } => Some(questions),
        _ => None,
    }
}
