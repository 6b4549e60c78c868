//! Fork (DESIGN §15), black-box through the API with a scripted model: a fork at a message
//! holds the conversation up to it and the task list as it stood there, goes its own way
//! (Continue, a send) while the original stays as it was, and the original goes on too; a
//! fork at a waiting plan waits for approval; a fork at a checkpoint with a folder holds that
//! checkpoint's files there (the original's workspace untouched), one without shares the
//! workspace and says so; a message or checkpoint that is not the chat's, and a folder that
//! is not empty, are 400 with nothing stored or written.

mod support;

use std::path::Path;

use preflight_testkit::{Reply, Script, ScriptedServer};
use serde_json::{json, Value};
use support::script::{anyone, done, plan, planner, three_edits};
use support::{openai_config, Serve};

/// The chat's messages as (role, content) pairs.
fn conversation(view: &Value) -> Vec<(String, String)> {
    let messages = view["messages"].as_array().unwrap_or_else(|| panic!("{view:#}"));
    let text = |m: &Value, key: &str| m[key].as_str().unwrap_or_default().to_owned();
    messages.iter().map(|m| (text(m, "role"), text(m, "content"))).collect()
}

async fn statuses(serve: &Serve, id: &str) -> Vec<String> {
    let (status, list) = serve.get(&format!("/v1/chats/{id}/plan")).await;
    assert_eq!(status, 200, "{list}");
    let tasks = list["tasks"].as_array().unwrap_or_else(|| panic!("{list:#}"));
    tasks.iter().map(|t| t["status"].as_str().unwrap().to_owned()).collect()
}

async fn fork(serve: &Serve, id: &str, body: Value) -> Value {
    let (status, view) = serve.post(&format!("/v1/chats/{id}/fork"), body).await;
    assert_eq!(status, 201, "{view:#}");
    view
}

/// Everything the API shows of a chat.
async fn everything(serve: &Serve, id: &str) -> Vec<Value> {
    let mut parts = vec![serve.chat(id).await];
    for part in ["plan", "plan/revisions", "plan/changes", "checkpoints"] {
        parts.push(serve.get(&format!("/v1/chats/{id}/{part}")).await.1);
    }
    parts
}

/// The original's plan of three steps run through, then the fork's Continue, then the
/// original's next message.
fn essay() -> Script {
    let steps = ["Write the intro", "Write the body", "Write the end"];
    Script::new().route(planner(), [plan("Three parts", &steps)]).route(
        anyone(),
        [
            done(1),
            done(2),
            done(3),
            Reply::text("All three parts are written."),
            // The fork's Continue, then the original's next message.
            done(2),
            done(3),
            Reply::text("The fork finished its own way."),
            Reply::text("The original answers again."),
        ],
    )
}

#[tokio::test]
async fn a_fork_at_a_message_holds_the_chat_as_it_stood_and_goes_its_own_way() {
    let provider = ScriptedServer::start(essay()).await.unwrap();
    let serve = Serve::start(&openai_config(&provider.openai_url()));
    let id = serve.create_chat(json!({"title": "Essay"})).await;
    serve.plan_approve_and_run(&id, "Write an essay in three parts").await;
    let original = serve.chat(&id).await;
    let messages = original["messages"].as_array().unwrap().clone();
    assert!(original["state"]["completion"].is_object(), "the plan is complete: {original:#}");

    // Message 3 is the executor's first round (task 1 done); its tool result comes with it.
    let third = messages[2]["id"].as_str().unwrap();
    let view = fork(&serve, &id, json!({"message_id": third})).await;
    let fork_id = view["id"].as_str().unwrap().to_owned();
    let held = conversation(&view);
    assert_eq!(held, conversation(&original)[..4], "{view:#}");
    assert_eq!(held[3].0, "tool", "the round's result comes with its call");
    assert_ne!(view["messages"][0]["id"], messages[0]["id"], "fresh ids");
    assert_eq!(view["forked_from"], json!({"chat_id": id, "title": "Essay", "message_id": third}));
    assert_eq!(view["title"], "Essay");
    assert_eq!(statuses(&serve, &fork_id).await, ["done", "active", "pending"]);
    assert_eq!(view["state"]["phase"], "idle", "{view:#}");
    assert_eq!(view["state"]["stopped"]["reason"], "forked", "Continue goes on: {view:#}");
    let (_, revisions) = serve.get(&format!("/v1/chats/{fork_id}/plan/revisions")).await;
    let revisions = revisions["revisions"].as_array().unwrap_or_else(|| panic!("{revisions:#}"));
    assert_eq!(revisions.len(), 1);
    assert_eq!(revisions[0]["approval"], "approved");
    let listed = serve.get("/v1/chats").await.1;
    let listed = listed["data"].as_array().or(listed.as_array()).unwrap().clone();
    let entry = listed.iter().find(|chat| chat["id"] == fork_id.as_str()).unwrap();
    assert_eq!(entry["forked_from"]["title"], "Essay", "{entry:#}");

    each_goes_its_own_way(&serve, &id, &fork_id).await;

    // At the plan card, the fork's plan waits for approval, though the original approved it.
    let card = messages[1]["id"].as_str().unwrap();
    let view = fork(&serve, &id, json!({"message_id": card})).await;
    assert_eq!(view["state"]["phase"], "awaiting_approval", "{view:#}");
    assert_eq!(view["messages"][1]["plan"]["approval"], "pending", "{view:#}");
    assert_eq!(view["messages"].as_array().unwrap().len(), 2, "{view:#}");
    let fork_id = view["id"].as_str().unwrap();
    let (status, tasks) = serve.get(&format!("/v1/chats/{fork_id}/plan")).await;
    assert_eq!((status, tasks["tasks"].as_array().map(Vec::len)), (200, Some(0)), "{tasks:#}");

    // The whole chat, by default.
    let whole = fork(&serve, &id, json!({})).await;
    assert_eq!(conversation(&whole), conversation(&serve.chat(&id).await));
}

/// The fork goes on its own way (Continue) while the original does not move; then the
/// original goes on (a message) while the fork does not move.
async fn each_goes_its_own_way(serve: &Serve, id: &str, fork_id: &str) {
    // The fork goes on its own way; the original does not move.
    let before = everything(serve, id).await;
    let mut events = serve.events(fork_id).await;
    let (status, body) = serve.post(&format!("/v1/chats/{fork_id}/continue"), json!(null)).await;
    assert_eq!(status, 202, "{body}");
    events.wait_for_phase("idle").await;
    let forked = serve.chat(fork_id).await;
    assert!(forked["state"]["completion"].is_object(), "the fork completed: {forked:#}");
    let last = conversation(&forked).pop().unwrap();
    assert_eq!(last.1, "The fork finished its own way.");
    assert_eq!(everything(serve, id).await, before, "the original is unchanged");

    // The original goes on too, and the fork does not move.
    let fork_before = everything(serve, fork_id).await;
    let mut events = serve.events(id).await;
    let (status, body) =
        serve.post(&format!("/v1/chats/{id}/messages"), json!({"content": "And now?"})).await;
    assert_eq!(status, 202, "{body}");
    events.wait_for_phase("idle").await;
    let last = conversation(&serve.chat(id).await).pop().unwrap();
    assert_eq!(last.1, "The original answers again.");
    assert_eq!(everything(serve, fork_id).await, fork_before, "the fork is unchanged");
}

fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (name, text) in [("a.txt", "one\n"), ("b.txt", "keep\n"), ("gone.txt", "bye\n")] {
        std::fs::write(dir.path().join(name), text).unwrap();
    }
    dir
}

/// The files of a folder, each with its content, the sandbox's own folder aside.
fn files(root: &Path) -> Vec<(String, String)> {
    let mut files: Vec<(String, String)> = std::fs::read_dir(root)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.is_file())
        .map(|path| {
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read_to_string(&path).unwrap())
        })
        .collect();
    files.sort();
    files
}

fn pairs(items: &[(&str, &str)]) -> Vec<(String, String)> {
    items.iter().map(|(a, b)| (a.to_string(), b.to_string())).collect()
}

#[tokio::test]
async fn a_fork_at_a_checkpoint_gets_its_files_in_a_folder_and_bad_requests_store_nothing() {
    let workspace = project();
    let root = workspace.path();
    let provider = ScriptedServer::start(three_edits()).await.unwrap();
    let serve = Serve::start(&openai_config(&provider.openai_url()));
    let id =
        serve.create_chat(json!({"title": "Edits", "workspace": root, "save_plans": false})).await;
    serve.plan_approve_and_run(&id, "Make the three edits").await;
    let after_run = files(root);
    let (_, list) = serve.get(&format!("/v1/chats/{id}/checkpoints")).await;
    let spans = list["tasks"].as_array().unwrap();
    let task2 = spans.iter().find(|span| span["task"] == 2).unwrap_or_else(|| panic!("{list:#}"));
    let n = task2["from"].as_u64().unwrap();

    let place = tempfile::tempdir().unwrap();
    let folder = place.path().join("edits-again");
    let view = fork(&serve, &id, json!({"checkpoint_id": n, "workspace": folder})).await;
    let expected = [("a.txt", "one\ntwo\n"), ("b.txt", "keep\n"), ("gone.txt", "bye\n")];
    assert_eq!(files(&folder), pairs(&expected), "the checkpoint's files");
    assert_eq!(files(root), after_run, "the original's workspace is untouched");
    let fork_id = view["id"].as_str().unwrap();
    assert_eq!(view["workspace"], folder.to_str().unwrap(), "{view:#}");
    assert_eq!(view["forked_from"]["checkpoint_id"], n, "{view:#}");
    let said = &view["forked_from"]["files"];
    assert_eq!((said["kind"].as_str(), said["files"].as_u64()), (Some("copied"), Some(3)));
    let notice = view["messages"].as_array().unwrap().last().unwrap().clone();
    assert_eq!(notice["id"], view["forked_from"]["notice_id"], "{view:#}");
    assert!(notice["content"].as_str().unwrap().contains("was not touched"), "{notice:#}");
    assert_eq!(statuses(&serve, fork_id).await, ["done", "active", "pending"]);
    assert_eq!(view["state"]["stopped"]["reason"], "forked", "{view:#}");

    // Without a folder the fork shares the workspace, and says so.
    let shared = fork(&serve, &id, json!({"checkpoint_id": n})).await;
    assert_eq!(shared["workspace"], root.to_str().unwrap());
    assert_eq!(shared["forked_from"]["files"]["kind"], "shared", "{shared:#}");
    let said = conversation(&shared).pop().unwrap().1;
    assert!(said.contains("not as they were at checkpoint"), "{said}");

    refusals_store_nothing(&serve, &id, root).await;
}

/// Each refusal is 400 (404 for an unknown chat), and no chat or folder is left behind.
async fn refusals_store_nothing(serve: &Serve, id: &str, root: &Path) {
    let other = serve.create_chat(json!({"title": "Other"})).await;
    let (_, other_view) =
        serve.post(&format!("/v1/chats/{other}/messages"), json!({"content": "hello"})).await;
    let foreign = other_view["messages"][0]["id"].as_str().unwrap().to_owned();
    let count = || async { serve.get("/v1/chats").await.1["data"].as_array().map(Vec::len) };
    let chats = count().await;
    let place = tempfile::tempdir().unwrap();
    std::fs::write(place.path().join("mine.txt"), "mine\n").unwrap();
    let absent = place.path().join("absent");
    let (bad, folder) = ("ERR_BAD_REQUEST", "ERR_FORK_FOLDER");
    let refused = [
        (json!({"message_id": foreign}), bad),
        (json!({"message_id": "no-such-message"}), bad),
        (json!({"checkpoint_id": 99}), bad),
        (json!({"checkpoint_id": 99, "workspace": absent}), bad),
        (json!({"checkpoint_id": 1, "message_id": foreign}), bad),
        (json!({"workspace": absent}), bad),
        (json!({"checkpoint_id": 1, "workspace": place.path()}), folder),
        (json!({"checkpoint_id": 1, "workspace": root.join("inside")}), folder),
        (json!({"checkpoint_id": 1, "workspace": "relative/folder"}), bad),
        (json!({"unknown": true}), bad),
    ];
    for (body, code) in refused {
        let (status, answer) = serve.post(&format!("/v1/chats/{id}/fork"), body.clone()).await;
        assert_eq!(status, 400, "{body}: {answer}");
        assert_eq!(answer["error"]["code"], code, "{body}: {answer}");
    }
    assert_eq!(count().await, chats, "nothing stored");
    assert!(!absent.exists(), "no folder made");
    assert!(!root.join("inside").exists(), "nothing written into the original's workspace");
    assert_eq!(files(place.path()), pairs(&[("mine.txt", "mine\n")]));
    let (status, answer) = serve.post("/v1/chats/nope/fork", json!({})).await;
    assert_eq!((status, answer["error"]["code"].as_str()), (404, Some("ERR_NOT_FOUND")));
}
