//! What the desktop notifications and the terminal's bell follow (DESIGN §15 "Notice"), on a
//! real engine with the scripted provider: two chats planning at once each say what waits
//! (the plan, the questions) once; the approved plan's run says its end; after a restart the
//! chats' waiting cards are not said again, only what happens from then on.

mod support;

use std::time::Duration;

use preflight_engine::lifecycle::{Attended, AttentionStream, Engine, EngineOptions, NewChat};
use preflight_engine::{ChatId, QuestionId};
use preflight_testkit::{Answer, Matcher, Reply, Script, ScriptedServer};
use serde_json::json;
use support::home_with_provider;

fn planner_for(words: &str) -> Matcher {
    Matcher { system_contains: Some("plan-questions".into()), body_contains: Some(words.into()) }
}

fn plan(title: &str) -> Reply {
    let plan = json!({"title": title, "aim": "A", "libraries": [],
        "steps": [{"action": "Write the file", "expected": "it is there"}],
        "sandbox": {"policy": "create", "notes": ""}});
    Reply::text(&format!("```plan\n{plan}\n```"))
}

fn question() -> Reply {
    let questions = json!({"questions": [{"id": "q1", "question": "Which format?",
        "options": ["CSV", "JSON", "Excel"]}]});
    Reply::text(&format!("```plan-questions\n{questions}\n```"))
}

async fn open(home: &std::path::Path) -> Engine {
    Engine::open(EngineOptions::new(home.to_path_buf(), None)).await.unwrap()
}

async fn chat(engine: &Engine, title: &str, message: &str) -> ChatId {
    let new = NewChat { title: Some(title.into()), plan_mode: Some(true), ..NewChat::default() };
    let chat = engine.create_chat(new).unwrap();
    engine.send(&chat.id, message, Vec::new()).unwrap();
    chat.id
}

/// The next attention; the deadline only keeps a broken engine from hanging the test.
async fn next(stream: &mut AttentionStream) -> (String, String) {
    let attended = tokio::time::timeout(Duration::from_secs(60), stream.next())
        .await
        .expect("an attention in time")
        .expect("the engine is open");
    let Attended { title, waiting, .. } = attended;
    (title, format!("{waiting:?}"))
}

fn said(title: &str, waiting: &str) -> (String, String) {
    (title.to_owned(), waiting.to_owned())
}

#[tokio::test(flavor = "multi_thread")]
async fn every_chat_says_once_what_waits_and_when_its_run_ends() {
    let script = Script::new()
        .route(planner_for("export the orders"), [plan("Export")])
        .route(planner_for("pick a format"), [question(), plan("Format")])
        .route(
            Matcher::default(),
            [
                Answer::new().tool_call("turn_plan", json!({"op": "done", "id": 1})).into(),
                Reply::text("All done."),
            ],
        );
    let provider = ScriptedServer::start(script).await.unwrap();
    let home = home_with_provider(&provider.openai_url());
    let engine = open(home.path()).await;
    let mut attention = engine.attention();

    let orders = chat(&engine, "Export orders", "Please export the orders").await;
    let format = chat(&engine, "Pick a format", "Please pick a format").await;
    let mut first = vec![next(&mut attention).await, next(&mut attention).await];
    first.sort();
    assert_eq!(first, [said("Export orders", "Plan"), said("Pick a format", "Questions")]);

    // An edit re-sends the card: no news. The approved plan runs to its end: news.
    let edit = serde_json::from_value(json!({"title": "Export, edited"})).unwrap();
    engine.edit_plan_doc(&orders, &edit).unwrap();
    engine.approve_plan(&orders).unwrap();
    assert_eq!(next(&mut attention).await, said("Export orders", "Done"));

    // After a restart the question still waits, yet is not said again; its answer's plan is.
    engine.shutdown().await;
    drop((attention, engine));
    let engine = open(home.path()).await;
    let mut attention = engine.attention();
    engine.answer(&format, &QuestionId::from("q1"), "CSV").unwrap();
    assert_eq!(next(&mut attention).await, said("Pick a format", "Plan"));
    engine.shutdown().await;
}
