//! Settings' "Test connection" (issue 48) against a real server on loopback: the models a
//! provider serves, whether the form's model is one of them, a refused key and a server that
//! is down each said by their own error code; nothing is saved.

use preflight_engine::lifecycle::{check_provider, ErrorCode, ProviderChoice, SettingsUpdate};
use preflight_engine::llm::KeyLookup;
use preflight_testkit::{Script, ScriptedServer};

fn form(
    provider: ProviderChoice,
    base_url: &str,
    model: &str,
    key: Option<&str>,
) -> SettingsUpdate {
    SettingsUpdate {
        provider,
        base_url: base_url.to_owned(),
        model: model.to_owned(),
        plan_mode: true,
        auto_approve: false,
        api_key: key.map(str::to_owned),
    }
}

fn no_keys() -> KeyLookup {
    KeyLookup::new(Vec::new(), |_| None)
}

#[tokio::test]
async fn the_providers_models_are_listed_and_the_forms_model_found_among_them() {
    let server = ScriptedServer::start(Script::new()).await.unwrap();
    let openai = form(ProviderChoice::Openai, &server.openai_url(), "scripted", None);
    let check = check_provider(openai, no_keys()).await.unwrap();
    assert_eq!(check.models, ["scripted", "scripted-large"]);
    assert!(check.model_served);

    let unknown = form(ProviderChoice::Openai, &server.openai_url(), "llama3.2", None);
    assert!(!check_provider(unknown, no_keys()).await.unwrap().model_served);

    // Anthropic's list, with the key typed in the form.
    let anthropic = form(ProviderChoice::Anthropic, &server.url(), "scripted", Some("sk-ant"));
    assert!(check_provider(anthropic, no_keys()).await.unwrap().model_served);
    let sent = server.requests();
    assert!(sent.is_empty(), "a model list is no chat request: {}", sent.len());
}

#[tokio::test]
async fn a_refused_key_a_missing_one_and_a_server_that_is_down_are_each_said_by_code() {
    let server = ScriptedServer::start(Script::new()).await.unwrap();
    let wrong = form(ProviderChoice::Openai, &server.openai_url(), "scripted", Some("wrong"));
    let refused = check_provider(wrong, no_keys()).await.unwrap_err();
    assert_eq!(refused.code, ErrorCode::ProviderUnauthorized, "{}", refused.message);

    let keyless = form(ProviderChoice::Anthropic, &server.url(), "scripted", None);
    let missing = check_provider(keyless, no_keys()).await.unwrap_err();
    assert_eq!(missing.code, ErrorCode::ProviderUnauthorized, "{}", missing.message);

    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let down = form(ProviderChoice::Openai, &format!("http://127.0.0.1:{port}/v1"), "x", None);
    let unreachable = check_provider(down, no_keys()).await.unwrap_err();
    assert_eq!(unreachable.code, ErrorCode::ProviderUnavailable, "{}", unreachable.message);

    let bad = form(ProviderChoice::Openai, "ftp://example.org", "x", None);
    assert_eq!(check_provider(bad, no_keys()).await.unwrap_err().code, ErrorCode::BadRequest);
}
