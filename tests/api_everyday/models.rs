//! A model per chat: `GET /v1/models` lists each provider's models, a chat switched to
//! another provider's model sends its next request there with a notice stored in the chat,
//! and an unknown provider or model is refused with nothing changed.

use preflight_testkit::{Reply, Script, ScriptedServer};
use serde_json::{json, Value};
use tempfile::TempDir;

use crate::support::Serve;

/// A home with `[provider]` at an OpenAI-compatible server and `[providers.claude]` at an
/// Anthropic one (its key from the environment).
fn two_providers(openai: &ScriptedServer, anthropic: &ScriptedServer) -> Serve {
    let home = TempDir::new().unwrap();
    let config = format!(
        "[provider]\nkind = \"openai\"\nbase_url = \"{}\"\nmodel = \"scripted\"\n\n\
         [providers.claude]\nkind = \"anthropic\"\nbase_url = \"{}\"\nmodel = \"claude-scripted\"\n\
         api_key_env = \"CLAUDE_TEST_KEY\"\nmodels = [\"claude-spare\"]\ncontext_window = 200000\n\
         vision = true\n",
        openai.openai_url(),
        anthropic.url()
    );
    std::fs::write(home.path().join("config.toml"), config).unwrap();
    Serve::start_with_env(home, &[("CLAUDE_TEST_KEY", "sk-ant-test")])
}

fn listed(models: &Value) -> Vec<(String, String, bool)> {
    let data = models["data"].as_array().unwrap();
    let row = |m: &Value| {
        let text = |key: &str| m[key].as_str().unwrap().to_owned();
        (text("provider"), text("model"), m["configured"].as_bool().unwrap())
    };
    data.iter().map(row).collect()
}

#[tokio::test]
async fn a_chat_switched_to_another_providers_model_sends_its_next_request_there() {
    let openai = ScriptedServer::start(Script::replies([Reply::text("From OpenAI.")])).await;
    let anthropic = ScriptedServer::start(Script::replies([Reply::text("From Anthropic.")])).await;
    let (openai, anthropic) = (openai.unwrap(), anthropic.unwrap());
    let serve = two_providers(&openai, &anthropic);

    let (status, models) = serve.get("/v1/models").await;
    assert_eq!(status, 200, "{models}");
    let own = |provider: &str, model: &str, configured| {
        (provider.to_owned(), model.to_owned(), configured)
    };
    let expected = [
        own("default", "scripted", true),
        own("default", "scripted-large", false),
        own("claude", "claude-scripted", true),
        own("claude", "claude-spare", true),
        own("claude", "scripted", false),
        own("claude", "scripted-large", false),
    ];
    assert_eq!(listed(&models), expected, "{models}");
    assert_eq!(models["data"][2]["context_window"], 200000);
    assert!(models["providers"].as_array().unwrap().iter().all(|p| p.get("error").is_none()));

    let id = serve.create_chat(json!({"plan_mode": false})).await;
    let mut events = serve.events(&id).await;
    serve.post(&format!("/v1/chats/{id}/messages"), json!({"content": "Hello"})).await;
    events.wait_for_phase("idle").await;
    assert_eq!((openai.requests().len(), anthropic.requests().len()), (1, 0));

    let claude = json!({"provider": "claude", "model": "claude-spare"});
    let (status, chat) =
        serve.request("PATCH", &format!("/v1/chats/{id}"), Some(json!({"model": claude}))).await;
    assert_eq!((status, &chat["model"]), (200, &claude), "{chat}");
    let view = serve.chat(&id).await;
    let notice = &view["messages"].as_array().unwrap().last().unwrap()["notice"];
    assert_eq!(notice["kind"], "model_switched", "{view}");
    assert_eq!(notice["model"], claude);

    serve.post(&format!("/v1/chats/{id}/messages"), json!({"content": "And now?"})).await;
    events.wait_for_phase("idle").await;
    let sent = anthropic.requests();
    assert_eq!((openai.requests().len(), sent.len()), (1, 1), "the next request went to Claude");
    assert_eq!(sent[0].body["model"], "claude-spare");
    assert_eq!(sent[0].header("x-api-key"), Some("sk-ant-test"), "its own key");
    assert!(
        !sent[0].body.to_string().contains("from here on"),
        "the notice is the user's news, not the model's: {}",
        sent[0].body
    );
    let view = serve.chat(&id).await;
    let last = view["messages"].as_array().unwrap().last().unwrap().clone();
    assert_eq!(last["content"], "From Anthropic.");
}

#[tokio::test]
async fn an_unknown_provider_or_model_is_refused_and_changes_nothing() {
    let openai = ScriptedServer::start(Script::replies([])).await.unwrap();
    let anthropic = ScriptedServer::start(Script::replies([])).await.unwrap();
    let serve = two_providers(&openai, &anthropic);
    let id = serve.create_chat(json!({})).await;
    let before = serve.chat(&id).await;

    let refused = [
        json!({"model": {"provider": "nowhere", "model": "scripted"}}),
        json!({"model": {"provider": "claude", "model": "not-served"}}),
        json!({"planner_model": {"provider": "default", "model": "not-served"}}),
        json!({"model": {"provider": "claude"}}),
        json!({"title": "Renamed", "model": {"provider": "nowhere", "model": "x"}}),
    ];
    for patch in refused {
        let (status, body) =
            serve.request("PATCH", &format!("/v1/chats/{id}"), Some(patch.clone())).await;
        assert_eq!(
            (status, body["error"]["code"].as_str()),
            (400, Some("ERR_BAD_REQUEST")),
            "{patch}: {body}"
        );
        assert_eq!(serve.chat(&id).await, before, "{patch} changed nothing");
    }
    let (status, body) = serve
        .post("/v1/chats", json!({"model": {"provider": "claude", "model": "not-served"}}))
        .await;
    assert_eq!(status, 400, "{body}");
    let (_, chats) = serve.get("/v1/chats").await;
    assert_eq!(chats["data"].as_array().unwrap().len(), 1, "no chat was created");

    let served = json!({"provider": "default", "model": "scripted-large"});
    let (status, chat) =
        serve.post("/v1/chats", json!({"planner_model": served, "plan_mode": true})).await;
    assert_eq!((status, &chat["planner_model"], &chat["model"]), (201, &served, &Value::Null));
}
