//! What a chat's calls used and cost: every model call's usage, as the provider reported it,
//! summed planning and execution apart, priced at the user's own prices, with the context
//! meter of the last call.

use preflight_testkit::{Answer, Reply, Script, ScriptedServer};
use serde_json::json;
use tempfile::TempDir;

use crate::support::script::{anyone, plan, planner};
use crate::support::Serve;

fn answer(text: &str, input: u64, output: u64) -> Reply {
    Reply::Answer(Answer::new().text(text).usage(input, output))
}

/// A planner reply with a plan of one step, reporting `input`/`output` tokens.
fn priced_plan(input: u64, output: u64) -> Reply {
    match plan("Totals", &["Sum the totals"]) {
        Reply::Answer(answer) => Reply::Answer(answer.usage(input, output)),
        other => other,
    }
}

#[tokio::test]
async fn usage_sums_what_the_providers_reported_per_phase_at_the_users_prices() {
    let script = Script::new()
        .route(planner(), [priced_plan(1_000, 200)])
        .route(anyone(), [answer("Done.", 3_000, 100), answer("Still done.", 5_000, 60)]);
    let provider = ScriptedServer::start(script).await.unwrap();
    let home = TempDir::new().unwrap();
    let config = format!(
        "[provider]\nkind = \"openai\"\nbase_url = \"{}\"\nmodel = \"scripted\"\n\
         context_window = 32000\nprice_input_per_mtok = 2.0\nprice_output_per_mtok = 10.0\n",
        provider.openai_url()
    );
    std::fs::write(home.path().join("config.toml"), config).unwrap();
    let serve = Serve::start_in(home);
    let id = serve.create_chat(json!({})).await;
    let fresh = serve.chat(&id).await;
    assert_eq!(fresh["usage"]["context"], json!({"used": 0, "window": 32000}));
    assert_eq!(fresh["usage"]["planning"]["calls"], 0);

    let mut events = serve.plan_approve_and_run(&id, "Sum the order totals").await;
    serve.post(&format!("/v1/chats/{id}/messages"), json!({"content": "Again"})).await;
    events.wait_for_phase("idle").await;

    let usage = serve.chat(&id).await["usage"].clone();
    let planning = &usage["planning"];
    assert_eq!(
        (&planning["calls"], &planning["input_tokens"], &planning["output_tokens"]),
        (&json!(1), &json!(1_000), &json!(200)),
        "{usage}"
    );
    let execution = &usage["execution"];
    assert_eq!(
        (&execution["calls"], &execution["input_tokens"], &execution["output_tokens"]),
        (&json!(2), &json!(8_000), &json!(160)),
        "{usage}"
    );
    let cost = |phase: &serde_json::Value| phase["cost"].as_f64().unwrap();
    assert!((cost(planning) - 0.004).abs() < 1e-12, "1000×2 + 200×10 per million: {usage}");
    assert!((cost(execution) - 0.0176).abs() < 1e-12, "8000×2 + 160×10 per million: {usage}");
    assert_eq!(usage["context"], json!({"used": 5_060, "window": 32000}), "the last call's");
}

#[tokio::test]
async fn without_prices_the_tokens_are_counted_and_no_cost_is_made_up() {
    let provider = ScriptedServer::start(Script::replies([answer("Hi.", 40, 2)])).await.unwrap();
    let serve = Serve::start(&crate::support::openai_config(&provider.openai_url()));
    let id = serve.create_chat(json!({"plan_mode": false})).await;
    let mut events = serve.events(&id).await;
    serve.post(&format!("/v1/chats/{id}/messages"), json!({"content": "Hello"})).await;
    events.wait_for_phase("idle").await;
    let execution = serve.chat(&id).await["usage"]["execution"].clone();
    assert_eq!(
        execution,
        json!({"calls": 1, "input_tokens": 40, "output_tokens": 2, "cached_input_tokens": 0,
               "unpriced_calls": 1})
    );
}
