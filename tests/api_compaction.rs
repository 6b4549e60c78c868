//! Long work survives (DESIGN §13), through the API: the scripted provider enforces a small
//! context window (answering its real context-length error) and the executor reads a 20 KB
//! file 200 times. The run finishes; old outputs are elided, old rounds summarised into
//! compaction records, the plan stays in every request, and a restart keeps the view.

mod support;

use preflight_testkit::{
    count_tokens, Answer, Matcher, RecordedRequest, Reply, Script, ScriptedServer,
};
use serde_json::{json, Value};
use support::script::{plan, planner};
use support::Serve;

const WINDOW: u64 = 16_000;
const SUMMARY: &str = "You summarise an agent's earlier work";
const HEADER: &str = "[Summary by Preflight of earlier messages";

fn config(url: &str) -> String {
    format!(
        "[provider]\nkind = \"openai\"\nbase_url = \"{url}\"\nmodel = \"scripted\"\n\
         context_window = {WINDOW}\n\n[executor]\nmax_rounds = 250\nno_progress_rounds = 250\n\n[sandbox]\nenabled = false\n"
    )
}

/// A workspace holding `big.txt` (20 KB).
fn workspace() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let line = "0123456789 the quick brown fox jumps over the lazy dog 0123456789\n";
    std::fs::write(dir.path().join("big.txt"), line.repeat(20 * 1024 / line.len())).unwrap();
    dir
}

/// `rounds` reads of big.txt, each a round, a `done` every 50th, then `last`.
fn executor_replies(workspace: &std::path::Path, rounds: usize, last: Reply) -> Vec<Reply> {
    let path = workspace.join("big.txt");
    let mut replies: Vec<Reply> = (1..=rounds)
        .map(|n| {
            // Each read asks for a different (larger than the file) head, so the same
            // 20 KB comes back without the calls being one call repeated: not a loop.
            let read = json!({"path": path, "head": 1000 + n});
            match n % 50 {
                0 => Reply::tool_call("turn_plan", json!({"op": "done", "id": n / 50})),
                _ => Answer::new()
                    .text(&format!("Read {n}. "))
                    .tool_call("mcp_filesystem_read_text_file", read)
                    .into(),
            }
        })
        .collect();
    replies.push(last);
    replies
}

fn script(workspace: &std::path::Path, rounds: usize, last: Reply) -> Script {
    let steps = ["Read it", "Read it again", "Read it once more", "Read it a last time"];
    Script::new()
        .context_limit(WINDOW)
        .route(planner(), [plan("Many reads", &steps)])
        .forever(
            Matcher::system_contains(SUMMARY),
            Reply::text("Summary: big.txt was read many times; every read gave the same 20 KB."),
        )
        .route(Matcher::default(), executor_replies(workspace, rounds, last))
}

fn executor_requests(provider: &ScriptedServer) -> Vec<RecordedRequest> {
    let requests = provider.requests();
    requests
        .into_iter()
        .filter(|r| !r.system().contains("plan-questions") && !r.system().contains(SUMMARY))
        .collect()
}

async fn start_run(serve: &Serve, workspace: &std::path::Path) -> String {
    let id = serve.create_chat(json!({"workspace": workspace})).await;
    let mut events = serve.events(&id).await;
    serve
        .post(&format!("/v1/chats/{id}/messages"), json!({"content": "Read big.txt over and over"}))
        .await;
    events.wait_for_phase("awaiting_approval").await;
    let (status, _) = serve.post(&format!("/v1/chats/{id}/plan/approve"), json!(null)).await;
    assert_eq!(status, 202);
    id
}

fn roles(view: &Value) -> Vec<String> {
    view["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["role"].as_str().unwrap().to_owned())
        .collect()
}

#[tokio::test]
async fn a_200_round_run_on_a_small_window_finishes_with_the_plan_in_every_request() {
    let workspace = workspace();
    let provider =
        ScriptedServer::start(script(workspace.path(), 200, Reply::text("Done after 200 rounds.")))
            .await
            .unwrap();
    let serve = Serve::start(&config(&provider.openai_url()));
    let id = start_run(&serve, workspace.path()).await;
    let mut events = serve.events(&id).await;
    events
        .wait_for("the last answer", |name, data| {
            name == "message" && data["message"]["content"] == "Done after 200 rounds."
        })
        .await;
    assert!(
        !events.seen.iter().any(|(name, _)| name == "error"),
        "no error, ERR_CONTEXT_TOO_LONG above all: {:?}",
        events.seen.iter().filter(|(name, _)| name == "error").collect::<Vec<_>>()
    );

    let requests = executor_requests(&provider);
    let refused = requests.iter().filter(|r| r.too_long).count();
    assert!(refused <= 2, "the budget kept requests within the window ({refused} refused)");
    for request in requests.iter().filter(|r| !r.too_long) {
        assert!(count_tokens(&request.body) <= WINDOW);
    }
    let last = requests.last().unwrap();
    assert!(last.system().contains("Many reads"), "the plan directive is in the last request");
    let body = last.body["messages"].to_string();
    assert!(
        body.contains("[plan]") && body.contains("Read it a last time"),
        "the task list is in the last request"
    );
    assert!(body.contains(HEADER), "the history was summarised");

    // Every message, past the view's latest page of 100: one page of up to 500.
    let (_, every) = serve.get(&format!("/v1/chats/{id}/messages?limit=500")).await;
    assert_eq!(every["next_cursor"], Value::Null);
    let view = json!({ "messages": every["data"] });
    let compactions: Vec<&Value> =
        view["messages"].as_array().unwrap().iter().filter(|m| m["role"] == "compaction").collect();
    assert!(compactions.len() >= 2, "several compactions over 200 rounds: {}", compactions.len());
    let ids: Vec<&str> =
        view["messages"].as_array().unwrap().iter().map(|m| m["id"].as_str().unwrap()).collect();
    for record in &compactions {
        let covers = record["covers"].as_array().unwrap();
        assert!(
            covers.iter().all(|id| ids.contains(&id.as_str().unwrap())),
            "covers stored messages"
        );
    }
    let tools = roles(&view).iter().filter(|r| *r == "tool").count();
    assert_eq!(tools, 200, "every round is kept in the store");
    check_summary_calls(&provider);
}

/// Each summary call was shown the rounds it replaced (their calls and results), and fit
/// the window itself.
fn check_summary_calls(provider: &ScriptedServer) {
    let calls: Vec<RecordedRequest> =
        provider.requests().into_iter().filter(|r| r.system().contains(SUMMARY)).collect();
    assert!(!calls.is_empty());
    for call in &calls {
        let shown = call.body["messages"].to_string();
        assert!(shown.contains("[assistant]") && shown.contains("calls "), "{shown}");
        assert!(!call.too_long, "a summary call fits the window itself");
    }
    let reads = calls.iter().filter(|call| {
        let shown = call.body["messages"].to_string();
        shown.contains("calls mcp_filesystem_read_text_file") && shown.contains("big.txt")
    });
    assert!(reads.count() * 2 >= calls.len(), "most summaries replaced the file's reads");
}

#[tokio::test]
async fn a_restart_in_the_middle_resumes_with_the_compaction_in_place() {
    let workspace = workspace();
    let stall = Answer::new().text("Reading on…").stall().into();
    let mut replies = executor_replies(workspace.path(), 45, stall);
    replies.push(Reply::text("Finished after the restart."));
    let steps = ["Read it", "Read it again"];
    let script = Script::new()
        .context_limit(WINDOW)
        .route(planner(), [plan("Many reads", &steps)])
        .forever(
            Matcher::system_contains(SUMMARY),
            Reply::text("Summary: big.txt was read 45 times."),
        )
        .route(Matcher::default(), replies);
    let provider = ScriptedServer::start(script).await.unwrap();
    let serve = Serve::start(&config(&provider.openai_url()));
    let id = start_run(&serve, workspace.path()).await;
    let mut events = serve.events(&id).await;
    events
        .wait_for("the stalled answer", |name, data| {
            name == "delta" && data["text"].as_str().is_some_and(|t| t.contains("Reading on"))
        })
        .await;
    let before = serve.chat(&id).await;
    assert!(roles(&before).contains(&"compaction".to_owned()), "compacted before the restart");

    let serve = Serve::start_in(serve.stop());
    let mut events = serve.events(&id).await;
    let (status, _) =
        serve.post(&format!("/v1/chats/{id}/messages"), json!({"content": "Go on"})).await;
    assert_eq!(status, 202);
    events.wait_for_phase("idle").await;
    let after = executor_requests(&provider).into_iter().rev().find(|r| !r.too_long).unwrap();
    let body = after.body["messages"].to_string();
    assert!(
        body.contains(HEADER) && body.contains("big.txt was read 45 times"),
        "the summary stands in the view"
    );
    assert!(count_tokens(&after.body) <= WINDOW);
    assert!(serve.chat(&id).await["messages"].to_string().contains("Finished after the restart."));
}
