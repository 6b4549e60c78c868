//! Builders for the stored shapes of DESIGN §2: messages, cards, plan documents, task lists.

use preflight_dwp::now_rfc3339;
use preflight_protocol::chat::{ChatSettings, Message, MessageBody, PlanPending, ToolCall};
use preflight_protocol::planner::{
    Approval, Library, PlanContext, PlanDocument, PlanStep, Question, Sandbox, SandboxPolicy,
};
use preflight_protocol::tasks::{Task, TaskList, TaskOrigin, TaskStatus};
use preflight_protocol::MessageId;

pub fn settings(title: &str) -> ChatSettings {
    ChatSettings {
        title: title.to_owned(),
        workspace: Some("/tmp/workspace".to_owned()),
        plan_mode: true,
        auto_approve: false,
        save_plans: false,
        scope: Vec::new(),
    }
}

pub fn message(body: MessageBody) -> Message {
    Message { id: MessageId::new(), created_at: now_rfc3339(), body }
}

pub fn user(content: &str) -> Message {
    message(MessageBody::User {
        content: content.to_owned(),
        files: vec!["notes.txt".to_owned()],
        attachments: vec![],
        plan_answer: false,
        resume: None,
        stopped: None,
        restored: None,
        review: None,
        typed: None,
    })
}

/// The synthetic answer's text, as the store writes it.
pub fn answer(question: &str, answer: &str) -> String {
    preflight_store::answer_text(question, answer)
}

/// Rejection feedback (or any synthetic answer), stored like an answer.
pub fn feedback(content: &str) -> Message {
    message(MessageBody::User {
        content: content.to_owned(),
        files: vec![],
        attachments: vec![],
        plan_answer: true,
        resume: None,
        stopped: None,
        restored: None,
        review: None,
        typed: None,
    })
}

pub fn assistant(content: &str) -> Message {
    message(MessageBody::Assistant {
        content: content.to_owned(),
        questions: None,
        plan: None,
        tool_calls: vec![],
        notice: None,
    })
}

/// An executor round: the assistant's tool call and its result.
pub fn tool_round(call_id: &str, failed: bool) -> Vec<Message> {
    let call = ToolCall {
        id: call_id.to_owned(),
        name: "mcp_filesystem_read_text_file".to_owned(),
        arguments: r#"{"path":"src/main.rs"}"#.to_owned(),
    };
    let result = MessageBody::Tool {
        tool_call_id: call_id.to_owned(),
        name: call.name.clone(),
        content: if failed { "no such file".to_owned() } else { "fn main() {}".to_owned() },
        is_error: failed,
        attachments: Vec::new(),
    };
    let round = MessageBody::Assistant {
        content: "Reading the entry point.".to_owned(),
        questions: None,
        plan: None,
        tool_calls: vec![call],
        notice: None,
    };
    vec![message(round), message(result)]
}

pub fn questions(round: u32, count: usize) -> Vec<Question> {
    (1..=count)
        .map(|n| Question {
            id: format!("q{n}").into(),
            question: format!("Round {round}, question {n}: which way?"),
            options: vec!["left".to_owned(), "right".to_owned(), "straight".to_owned()],
            answer: None,
        })
        .collect()
}

pub fn question_card(questions: &[Question]) -> Message {
    message(MessageBody::Assistant {
        content: "A few questions before I plan:\n\n1. which way?".to_owned(),
        questions: Some(questions.to_vec()),
        plan: None,
        tool_calls: vec![],
        notice: None,
    })
}

pub fn pending(
    task: &str,
    questions: Vec<Question>,
    answers: Vec<String>,
    round: u32,
) -> PlanPending {
    PlanPending {
        user_text: task.to_owned(),
        files: vec!["notes.txt".to_owned()],
        questions,
        answers,
        round,
    }
}

pub fn plan_document(title: &str, steps: usize) -> PlanDocument {
    PlanDocument {
        text: format!("## {title}\n\n1. do it"),
        title: title.to_owned(),
        aim: "Make it work".to_owned(),
        steps: (1..=steps)
            .map(|n| PlanStep {
                action: format!("step {n}"),
                expected: format!("result {n}"),
                ..PlanStep::default()
            })
            .collect(),
        libraries: vec![Library {
            name: "serde".to_owned(),
            purpose: "JSON".to_owned(),
            usage: "derive".to_owned(),
        }],
        sandbox: Sandbox {
            policy: SandboxPolicy::Create,
            notes: "fresh".to_owned(),
            dir: Some("/tmp/workspace/.sandbox".to_owned()),
            exists: false,
        },
        questions: None,
        files: vec![],
        context: PlanContext {
            workspace_path: Some("/tmp/workspace".to_owned()),
            context7_available: false,
        },
        created_at: now_rfc3339(),
        approval: Approval::Pending,
        revision: 0,
        author: Default::default(),
        run_unconfined: false,
        comments: Vec::new(),
        judgement: Default::default(),
        notes: vec![],
    }
}

/// A plan card; the store sets its `plan` to the stored revision.
pub fn plan_card(document: &PlanDocument) -> Message {
    message(MessageBody::Assistant {
        content: document.text.clone(),
        questions: None,
        plan: None,
        tool_calls: vec![],
        notice: None,
    })
}

/// The task list an approved plan starts: its steps, ids 1…n, task 1 active.
pub fn tasks_from(document: &PlanDocument) -> TaskList {
    let tasks: Vec<Task> = document
        .steps
        .iter()
        .enumerate()
        .map(|(index, step)| Task {
            id: index as u32 + 1,
            phase: None,
            title: step.action.clone(),
            status: if index == 0 { TaskStatus::Active } else { TaskStatus::Pending },
            outcome: None,
            gate: None,
            origin: TaskOrigin::Plan,
            priority: None,
            check: None,
            depends_on: Vec::new(),
            created_at: None,
            updated_at: None,
        })
        .collect();
    TaskList { next_id: tasks.len() as u32 + 1, tasks, ..TaskList::default() }
}

/// The list after finishing its active task: it is done, the next pending one active.
pub fn advance(list: &TaskList) -> TaskList {
    let mut list = list.clone();
    if let Some(active) = list.tasks.iter_mut().find(|task| task.status == TaskStatus::Active) {
        active.status = TaskStatus::Done;
        active.outcome = Some("done as planned".to_owned());
    }
    if let Some(next) = list.tasks.iter_mut().find(|task| task.status == TaskStatus::Pending) {
        next.status = TaskStatus::Active;
    }
    list
}

/// True when the list has nothing pending or active (it closes at the end of a turn).
pub fn finished(list: &TaskList) -> bool {
    !list.tasks.iter().any(|task| matches!(task.status, TaskStatus::Pending | TaskStatus::Active))
}
