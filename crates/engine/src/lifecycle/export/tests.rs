//! Export and import of a chat driven through the store's own steps: planning (a question
//! answered, a plan approved), execution (a task list with its history, a plan change
//! approved, a stop and its Continue, a compaction record) and a completion whose check
//! failed again, so the list stays with its history beside the record. Its JSON export
//! imported and exported again is the same but for the ids and the time of export; its
//! Markdown is what a person reads (`snapshots/chat.md`); a refused import stores nothing.

use std::path::{Path, PathBuf};

use expect_test::expect_file;
use preflight_protocol::chat::{ChatSettings, Message, MessageBody, PlanPending, ToolCall};
use preflight_protocol::ids::{ChatId, MessageId};
use preflight_protocol::planner::{
    Approval, PlanContext, PlanDocument, PlanStep, Question, Sandbox, SandboxPolicy,
};
use preflight_protocol::tasks::{
    ExecutorStop, FinalizationNote, Gate, Operation, StopReason, TaskList,
};
use preflight_store::Store;
use serde_json::{json, Value};
use tempfile::TempDir;

use super::markdown::write_markdown;
use super::{export_chat, import_chat, ExportFormat};
use crate::lifecycle::completion::reopen;
use crate::lifecycle::messages::continue_message;
use crate::lifecycle::transitions::tasks_from_plan;

/// A stamp `minute` minutes into the chat's work. In the future, so that the stamps the
/// store takes itself (the chat's creation, a synthetic answer) come before every card.
fn at(minute: u32) -> String {
    format!("2099-01-01T10:{minute:02}:00.000Z")
}

struct Fixture {
    dir: TempDir,
    store: Store,
    chat: ChatId,
}

impl Fixture {
    fn home(&self) -> PathBuf {
        self.dir.path().join("home")
    }

    fn workspace(&self) -> PathBuf {
        self.dir.path().join("workspace")
    }
}

fn message(minute: u32, body: MessageBody) -> Message {
    Message { id: MessageId::new(), created_at: at(minute), body }
}

fn assistant(minute: u32, content: &str, tool_calls: Vec<ToolCall>) -> Message {
    let body = MessageBody::Assistant {
        content: content.into(),
        questions: None,
        plan: None,
        tool_calls,
        notice: None,
    };
    message(minute, body)
}

fn plan() -> PlanDocument {
    let step = |action: &str, check: &str| PlanStep {
        action: action.into(),
        expected: format!("{action}: done"),
        check: Some(check.into()),
        ..PlanStep::default()
    };
    PlanDocument {
        text: "## Word counter\n\n**Aim:** count words <b>fast</b>\n\n### Steps\n\n1. Parse".into(),
        title: "Word counter".into(),
        aim: "count words <b>fast</b>".into(),
        steps: vec![
            step("Parse the input", "cargo test parse"),
            step("Count the words", "cargo test count"),
            step("Write the docs", "test -f README.md"),
        ],
        libraries: vec![],
        sandbox: Sandbox {
            policy: SandboxPolicy::Create,
            notes: String::new(),
            dir: None,
            exists: false,
        },
        judgement: Default::default(),
        notes: vec![],
        questions: None,
        files: vec![],
        context: PlanContext { workspace_path: None, context7_available: false },
        created_at: at(3),
        approval: Approval::Pending,
        revision: 0,
        author: Default::default(),
        run_unconfined: false,
        comments: Vec::new(),
    }
}

/// A chat asked one question, answered, and its plan approved (phase executing).
fn planned() -> Fixture {
    let dir = TempDir::new().unwrap();
    std::fs::create_dir_all(dir.path().join("workspace/src")).unwrap();
    std::fs::create_dir_all(dir.path().join("home")).unwrap();
    let store = Store::open(dir.path().join("home/preflight.db")).unwrap();
    let settings = ChatSettings {
        title: "Word counter".into(),
        workspace: Some(dir.path().join("workspace").to_string_lossy().into_owned()),
        plan_mode: true,
        auto_approve: false,
        save_plans: false,
        scope: vec!["src".into()],
    };
    let chat = store.create_chat(&settings).unwrap().id;
    let first = message(
        0,
        crate::lifecycle::messages::user_message("Write a word counter <script>x</script>", vec![])
            .body,
    );
    store.begin_user_turn(&chat, &first, preflight_protocol::chat::Phase::Planning).unwrap();
    let question = Question {
        id: "q1".into(),
        question: "Count what?".into(),
        options: vec!["words".into(), "lines".into()],
        answer: None,
    };
    let card = message(
        1,
        MessageBody::Assistant {
            content: "One question first:\n\n1. **Count what?**\n   - words\n   - lines".into(),
            questions: Some(vec![question.clone()]),
            plan: None,
            tool_calls: vec![],
            notice: None,
        },
    );
    let pending = PlanPending {
        user_text: "Write a word counter".into(),
        files: vec![],
        questions: vec![question],
        answers: vec![],
        round: 1,
    };
    store.record_question_card(&chat, &card, &pending).unwrap();
    store.record_answer(&chat, &"q1".into(), "words").unwrap();
    let document = plan();
    store.record_plan_card(&chat, &assistant(3, &document.text, vec![]), document.clone()).unwrap();
    let tasks = tasks_from_plan(&document.steps).unwrap().stamped(&TaskList::empty(), &at(4));
    store.approve_plan(&chat, &tasks).unwrap();
    Fixture { dir, store, chat }
}

/// The executor's first round: task 1 done by a passing check, a drop of task 3 asked and
/// approved, then a stop for no progress.
fn worked(fixture: &Fixture) -> ExecutorStop {
    let (store, chat) = (&fixture.store, &fixture.chat);
    let call = ToolCall {
        id: "c1".into(),
        name: "turn_plan".into(),
        arguments: r#"{"op":"done","id":1}"#.into(),
    };
    let result = message(
        5,
        MessageBody::Tool {
            tool_call_id: "c1".into(),
            name: "turn_plan".into(),
            content: "[plan] …".into(),
            is_error: false,
            attachments: Vec::new(),
        },
    );
    store.append_messages(chat, &[assistant(5, "Parsing is in.", vec![call]), result]).unwrap();
    let list = store.task_list(chat).unwrap();
    let gate = Gate {
        command: "cargo test parse".into(),
        exit_code: 0,
        passes: true,
        evidence: "1 passed".into(),
        duration_ms: 40,
        last_run: at(6),
        timed_out: false,
    };
    let done = Operation::Done { id: 1, outcome: Some("parses stdin".into()), gate: None };
    let next = list.apply_measured(&done, Some(&gate)).unwrap().stamped(&list, &at(6));
    store.save_task_list(chat, &next).unwrap();
    let drop = Operation::Drop { id: 3, outcome: Some("the README says it".into()) };
    let request = next.plan_change(&drop).unwrap().unwrap();
    let asked = match store.ask_plan_change(chat, request, &at(7)).unwrap() {
        preflight_store::ChangeAsked::Waiting(change) => change,
        other => panic!("{other:?}"),
    };
    store.answer_plan_change(chat, &asked.id, true, &at(8)).unwrap();
    let list = store.task_list(chat).unwrap();
    let stop = ExecutorStop::of(StopReason::NoProgress, None, &list, &at(9));
    store
        .write(|tx| {
            tx.record_stop(chat, &stop)?;
            tx.finish_turn(chat, false)
        })
        .unwrap();
    stop
}

/// Continue, a compaction record, the last task done, and a completion whose check of
/// task 2 failed when run again: task 2 is open again beside the record.
fn finished(fixture: &Fixture, stop: &ExecutorStop) {
    let (store, chat) = (&fixture.store, &fixture.chat);
    let mut resume = continue_message(stop, false);
    resume.created_at = at(10);
    store.begin_continue(chat, &resume, false, &at(10)).unwrap();
    let messages = store.messages(chat).unwrap();
    let covers = [messages[4].id.clone(), messages[5].id.clone()];
    let summary =
        message(11, MessageBody::Compaction { content: "The parser is done.".into(), covers });
    store.append_compaction(chat, &summary).unwrap();
    store.append_messages(chat, &[assistant(12, "Counting is in <i>too</i>.", vec![])]).unwrap();
    let list = store.task_list(chat).unwrap();
    let done = Operation::Done { id: 2, outcome: Some("counts words".into()), gate: None };
    let list = list.apply(&done).unwrap().stamped(&list, &at(12));
    let mut completion = list.completion("The counter counts words.", &at(13));
    completion.stops_and_continues = store.stop_log(chat).unwrap().events;
    completion.finalization = Some(FinalizationNote {
        verdict: "UNVERIFIED".into(),
        reasons: vec!["task 2 “Count the words”: `cargo test count` failed".into()],
        file: ".dwp/plans/PLAN_word/FINALIZATION.json".into(),
        path: "/w/.dwp/plans/PLAN_word/FINALIZATION.json".into(),
        gates_rerun: 1,
        reopened: vec![2],
        dropped_without_user: 0,
        planned: 3,
        accepted_at: None,
    });
    let left = reopen(&list, &[2], &completion, &at(13));
    store.complete_plan(chat, &completion, &left).unwrap();
    store.finish_turn(chat, false).unwrap();
}

fn chat_through_every_card() -> Fixture {
    let fixture = planned();
    let stop = worked(&fixture);
    finished(&fixture, &stop);
    fixture
}

fn exported(store: &Store, chat: &ChatId) -> Value {
    let mut out = Vec::new();
    export_chat(store, chat, ExportFormat::Json, &mut out).unwrap();
    serde_json::from_slice(&out).unwrap()
}

/// The export with its ids named by their place (`m0`, `c0`) and no time of export.
fn without_ids(mut export: Value) -> Value {
    export["exported_at"] = json!("-");
    let messages = export["messages"].as_array_mut().unwrap();
    let names: Vec<(Value, Value)> = messages
        .iter()
        .enumerate()
        .map(|(n, m)| (m["id"].clone(), json!(format!("m{n}"))))
        .collect();
    let rename = |id: &mut Value| *id = names.iter().find(|(old, _)| old == id).unwrap().1.clone();
    for message in messages.iter_mut() {
        rename(&mut message["id"]);
        if let Some(covers) = message.get_mut("covers").and_then(Value::as_array_mut) {
            covers.iter_mut().for_each(rename);
        }
    }
    for (n, change) in export["changes"].as_array_mut().unwrap().iter_mut().enumerate() {
        change["id"] = json!(format!("c{n}"));
    }
    export
}

#[test]
fn an_export_imported_and_exported_again_is_the_same_but_for_ids_and_time() {
    let fixture = chat_through_every_card();
    let first = exported(&fixture.store, &fixture.chat);
    assert_eq!(first["state"]["phase"], "idle");
    assert_eq!(first["task_list"]["history"].as_array().map(Vec::len), Some(9), "{first:#}");
    assert_eq!(first["stops"]["events"].as_array().map(Vec::len), Some(2));
    let mut input: &[u8] = &serde_json::to_vec(&first).unwrap();
    let imported = import_chat(&fixture.store, &fixture.home(), &mut input).unwrap();
    assert_ne!(imported.id, fixture.chat);
    let again = exported(&fixture.store, &imported.id);
    assert_ne!(again["messages"][0]["id"], first["messages"][0]["id"], "fresh message ids");
    assert_ne!(again["changes"][0]["id"], first["changes"][0]["id"], "fresh change ids");
    assert_eq!(without_ids(again), without_ids(first));
    assert_eq!(fixture.store.list_chats().unwrap().len(), 2);
}

/// Every `YYYY-MM-DD HH:MM UTC` the store stamped itself (not in 2099) as `<when>`, and the
/// machine's paths named.
fn steady(text: &str, fixture: &Fixture) -> String {
    let text = text.replace(&fixture.workspace().to_string_lossy().into_owned(), "<workspace>");
    let text = text.replace(env!("CARGO_PKG_VERSION"), "<version>");
    let shape = |byte: u8, pattern: u8| {
        if pattern == b'd' {
            byte.is_ascii_digit()
        } else {
            byte == pattern
        }
    };
    let pattern = b"dddd-dd-dd dd:dd UTC";
    let mut out = String::new();
    let mut rest = text.as_str();
    while let Some(start) = (0..rest.len()).find(|&i| {
        rest.len() >= i + pattern.len()
            && !rest.as_bytes()[i..].starts_with(b"2099")
            && rest.as_bytes()[i..i + pattern.len()].iter().zip(pattern).all(|(b, p)| shape(*b, *p))
    }) {
        out.push_str(&rest[..start]);
        out.push_str("<when>");
        rest = &rest[start + pattern.len()..];
    }
    out.push_str(rest);
    out
}

#[test]
fn the_markdown_export_reads_as_the_chat_went() {
    let fixture = chat_through_every_card();
    let mut out = Vec::new();
    let (store, chat) = (&fixture.store, &fixture.chat);
    store.read(|tx| Ok(write_markdown(tx, chat, &at(30), &mut out))).unwrap().unwrap();
    let text = String::from_utf8(out).unwrap();
    assert!(!text.contains("<script>") && !text.contains("<b>"), "no raw HTML of the model's");
    expect_file!["snapshots/chat.md"].assert_eq(&steady(&text, &fixture));
}

fn refusal(fixture: &Fixture, input: &[u8]) -> String {
    let mut input = input;
    let error = import_chat(&fixture.store, &fixture.home(), &mut input).unwrap_err();
    assert_eq!(error.code, "ERR_BAD_REQUEST", "{error:?}");
    error.message
}

#[test]
fn a_refused_import_says_why_and_stores_nothing() {
    let fixture = chat_through_every_card();
    let good = exported(&fixture.store, &fixture.chat);
    let with = |path: &[&str], value: Value| {
        let mut export = good.clone();
        let mut place = &mut export;
        for key in path {
            place = match key.parse::<usize>() {
                Ok(index) => &mut place[index],
                Err(_) => &mut place[*key],
            };
        }
        *place = value;
        serde_json::to_vec(&export).unwrap()
    };
    let duplicate = good["messages"][0]["id"].clone();
    let cases: Vec<(Vec<u8>, &str)> = vec![
        (b"{\"format\": 1, \"chat\": ".to_vec(), "the file is not JSON"),
        (b"[1, 2]".to_vec(), "not a Preflight chat export"),
        (br#"{"title": "a chat"}"#.to_vec(), "not a Preflight chat export: missing field `format`"),
        (
            with(&["format"], json!(2)),
            "this export was made by a newer Preflight: format 2, this build reads 1",
        ),
        (with(&["messages", "1", "id"], duplicate), "is given twice"),
        (with(&["plan_revisions", "0", "revision"], json!(7)), "plan revision 7 is number 1"),
        (with(&["state", "phase"], json!("questions")), "the phase is questions, but none wait"),
        (with(&["chat", "title"], json!(" ")), "the export's title: a chat needs a title"),
        (
            with(&["chat", "planner_model"], json!({"provider": "", "model": "m"})),
            "the export's chat.planner_model needs a provider",
        ),
        (
            with(
                &["model_calls"],
                json!([{"phase": "planning", "provider": "p", "model": "m",
                "input_tokens": 1, "output_tokens": 1, "cached_input_tokens": 0,
                "context_window": null, "cost_usd": -1.0}]),
            ),
            "a cost below 0",
        ),
    ];
    for (input, expected) in cases {
        let message = refusal(&fixture, &input);
        assert!(message.contains(expected), "{expected:?} in {message:?}");
    }
    assert_eq!(fixture.store.list_chats().unwrap().len(), 1, "nothing was stored");
}

#[test]
fn an_import_reads_no_more_than_its_cap() {
    let fixture = planned();
    let mut endless = std::io::repeat(b' ');
    let error = import_chat(&fixture.store, &fixture.home(), &mut endless).unwrap_err();
    assert!(error.message.contains("larger than 64 MiB"), "{error:?}");
    assert_eq!(fixture.store.list_chats().unwrap().len(), 1);
}

#[test]
fn a_workspace_missing_here_is_left_out_and_said_and_no_consent_comes_along() {
    let fixture = planned();
    let mut export = exported(&fixture.store, &fixture.chat);
    export["chat"]["workspace"] = json!(Path::new("/nonexistent/project").to_string_lossy());
    export["plan_revisions"][0]["run_unconfined"] = json!(true);
    export["messages"][0]["attachments"] =
        json!([{"name": "notes.txt", "size": 3, "source": "/x/notes.txt"}]);
    let mut input: &[u8] = &serde_json::to_vec(&export).unwrap();
    let imported = import_chat(&fixture.store, &fixture.home(), &mut input).unwrap();
    assert_eq!((imported.workspace, imported.scope.len()), (None, 0));
    let messages = fixture.store.messages(&imported.id).unwrap();
    let notice = messages.last().unwrap().content();
    assert!(notice.contains("Its workspace /nonexistent/project cannot be used"), "{notice}");
    assert!(notice.contains("The files attached to its messages"), "{notice}");
    let state = fixture.store.state(&imported.id).unwrap();
    assert!(!state.plan.as_ref().unwrap().run_unconfined, "consent is this machine's own");
    assert_eq!(
        state.phase,
        preflight_protocol::chat::Phase::Idle,
        "the executor caught running is stopped"
    );
    assert_eq!(state.stopped.map(|stop| stop.reason), Some(StopReason::Interrupted));
}
