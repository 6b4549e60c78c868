//! `config.toml`: defaults when absent, the documented shape, and errors that name file,
//! line and key for every kind of mistake.

use std::path::Path;
use std::time::Duration;

use preflight_engine::config::{
    Config, ConfigError, OnPlannerFailure, PlanModeDefaults, SandboxSettings,
};
use preflight_engine::confinement::ConfinementMode;
use preflight_engine::llm::{ProviderKind, RetryPolicy, ServerCompat, ANTHROPIC_BASE_URL};

fn parse(text: &str) -> Result<Config, ConfigError> {
    Config::parse(text, Path::new("/home/u/.local/share/preflight/config.toml"))
}

#[test]
fn a_missing_file_is_the_defaults() {
    let home = tempfile::tempdir().unwrap();
    let config = Config::load(home.path()).unwrap();
    assert_eq!(config, Config::default());
    assert_eq!(config.provider.kind, ProviderKind::Embedded);
    let plan_mode = PlanModeDefaults {
        enabled: true,
        auto_approve: false,
        on_planner_failure: OnPlannerFailure::Execute,
    };
    assert_eq!(config.plan_mode, plan_mode, "a failed planner is said, then execution goes on");
    assert_eq!(
        config.sandbox,
        SandboxSettings {
            enabled: true,
            network: false,
            max_file_mib: None,
            confinement: ConfinementMode::Auto,
            allow_sdists: false,
        }
    );
}

#[test]
fn the_documented_example() {
    let home = tempfile::tempdir().unwrap();
    std::fs::write(
        home.path().join("config.toml"),
        r#"
[provider]            # omitted → the embedded model
kind = "openai"       # openai | anthropic | embedded
base_url = "http://127.0.0.1:11434/v1"
model = "qwen2.5:7b"
api_key_env = "OPENAI_API_KEY"   # optional; the keyring is the default home of keys

[planner]             # optional: another provider/model for planning; same keys as [provider]
model = "qwen2.5:32b"

[plan_mode]           # defaults when the section is absent: enabled = true, auto_approve = false
enabled = true
auto_approve = false
on_planner_failure = "stop"   # execute (default) | stop: what a chat does when planning fails

[sandbox]             # the code sandbox of chats with a workspace; defaults: enabled, no network
enabled = true
network = true
max_file_mib = 512    # the largest file a run may write (default 4096)
confinement = "off"   # auto (default) | bubblewrap | off: unconfined on purpose
allow_sdists = true   # pip may build source distributions (default false: wheels only)
"#,
    )
    .unwrap();
    let config = Config::load(home.path()).unwrap();
    assert_eq!(config.provider.kind, ProviderKind::OpenAi);
    assert_eq!(config.provider.base_url, "http://127.0.0.1:11434/v1");
    assert_eq!(config.provider.model, "qwen2.5:7b");
    assert_eq!(config.provider.api_key_env.as_deref(), Some("OPENAI_API_KEY"));
    let planner = config.planner.as_ref().unwrap();
    assert_eq!(
        (planner.kind, planner.base_url.as_str(), planner.model.as_str()),
        (ProviderKind::OpenAi, "http://127.0.0.1:11434/v1", "qwen2.5:32b")
    );
    assert_eq!(
        planner.retry,
        RetryPolicy::planner(),
        "the planner retries at most twice within 10 s"
    );
    assert_eq!(config.planner_settings().model, "qwen2.5:32b");
    assert_eq!(config.plan_mode.on_planner_failure, OnPlannerFailure::Stop);
    assert_eq!(
        config.sandbox,
        SandboxSettings {
            enabled: true,
            network: true,
            max_file_mib: Some(512),
            confinement: ConfinementMode::Off,
            allow_sdists: true,
        }
    );
}

#[test]
fn a_planner_of_another_kind_inherits_nothing_and_timeouts_are_read() {
    let config = parse(
        "[provider]\nkind = \"openai\"\nbase_url = \"http://localhost:8080/v1\"\nmodel = \"local\"\napi_key_env = \"X\"\nidle_timeout_secs = 600\nconnect_timeout_secs = 2.5\nmax_tokens = 4_096\n\n[planner]\nkind = \"anthropic\"\nmodel = \"claude-sonnet-4-20250514\"\n",
    )
    .unwrap();
    assert_eq!(config.provider.timeouts.idle, Duration::from_secs(600));
    assert_eq!(config.provider.timeouts.connect, Duration::from_millis(2500));
    assert_eq!(config.provider.max_tokens, Some(4096));
    let planner = config.planner.unwrap();
    assert_eq!(
        (planner.base_url.as_str(), planner.api_key_env.as_deref()),
        (ANTHROPIC_BASE_URL, None)
    );
    // Without [planner], planning uses the provider with the planner's retry policy.
    let config = parse("[provider]\nkind = \"anthropic\"\nmodel = \"m\"\n").unwrap();
    assert_eq!(config.planner_settings().model, "m");
    assert_eq!(config.planner_settings().retry, RetryPolicy::planner());
    assert_eq!(config.provider.retry, RetryPolicy::default());
}

#[test]
fn every_mistake_names_its_line_and_key() {
    let cases: &[(&str, usize, &str, &str)] = &[
        ("[provider]\nkind = \"openai\"\nmodle = \"x\"\n", 3, "provider.modle", "unknown key"),
        (
            "temperature = 0.2\n",
            1,
            "temperature",
            "unknown key; expected one of provider, planner, providers, plan_mode, sandbox",
        ),
        (
            "[provider]\nkind = \"gemini\"\nmodel = \"x\"\n",
            2,
            "provider.kind",
            "unknown provider \"gemini\"",
        ),
        ("[provider]\nmodel = \"x\"\n", 1, "provider.kind", "missing"),
        ("[provider]\nkind = \"openai\"\n", 1, "provider.model", "missing"),
        (
            "\n\n[provider]\nkind = \"openai\"\nmodel = 7\n",
            5,
            "provider.model",
            "must be a string, not a integer",
        ),
        (
            "[provider]\nkind = \"openai\"\nmodel = \"m\"\nbase_url = \"localhost:11434\"\n",
            4,
            "provider.base_url",
            "must be an http or https URL",
        ),
        (
            "[provider]\nkind = \"openai\"\nmodel = \"m\"\ncompat = \"llamacpp\"\n",
            4,
            "provider.compat",
            "compat = \"llamacpp\": use \"auto\", \"standard\", \"llama-cpp-python\"",
        ),
        (
            "[provider]\nkind = \"anthropic\"\nmodel = \"m\"\ncompat = \"standard\"\n",
            4,
            "provider.compat",
            "only an `openai` provider has a compat setting, not anthropic",
        ),
        (
            "[provider]\nkind = \"openai\"\nmodel = \"m\"\nmax_tokens = -5\n",
            4,
            "provider.max_tokens",
            "positive whole number",
        ),
        (
            "[provider]\nkind = \"openai\"\nmodel = \"m\"\nidle_timeout_secs = \"long\"\n",
            4,
            "provider.idle_timeout_secs",
            "positive number of seconds",
        ),
        ("[provider]\nkind = \"openai\"\nmodel = \"\"\n", 3, "provider.model", "must not be empty"),
        (
            "[plan_mode]\nenabled = \"yes\"\n",
            2,
            "plan_mode.enabled",
            "must be true or false, not a string",
        ),
        (
            "[plan_mode]\nauto = true\n",
            2,
            "plan_mode.auto",
            "unknown key; expected one of enabled, auto_approve, on_planner_failure",
        ),
        (
            "[plan_mode]\non_planner_failure = \"ask\"\n",
            2,
            "plan_mode.on_planner_failure",
            "on_planner_failure = \"ask\": use \"execute\" or \"stop\"",
        ),
        (
            "[sandbox]\nnetwork = \"off\"\n",
            2,
            "sandbox.network",
            "must be true or false, not a string",
        ),
        (
            "[sandbox]\nbubblewrap = true\n",
            2,
            "sandbox.bubblewrap",
            "unknown key; expected one of enabled, network",
        ),
        (
            "[sandbox]\nallow_sdists = \"yes\"\n",
            2,
            "sandbox.allow_sdists",
            "must be true or false, not a string",
        ),
        (
            "[sandbox]\nallow_sdists = 1\n",
            2,
            "sandbox.allow_sdists",
            "must be true or false, not a integer",
        ),
        (
            "[sandbox]\nconfinement = \"none\"\n",
            2,
            "sandbox.confinement",
            "use \"auto\", \"bubblewrap\" or \"off\"",
        ),
        (
            "[executor]\nauto_continue = -1\n",
            2,
            "executor.auto_continue",
            "must be a whole number, 0 or more",
        ),
        (
            "[executor]\nno_progress_rounds = 0\n",
            2,
            "executor.no_progress_rounds",
            "positive whole number",
        ),
        ("provider = \"openai\"\n", 1, "provider", "must be a table"),
        (
            "[provider]\nkind = \"openai\"\nmodel = \"m\"\n[planner]\nkind = \"anthropic\"\n",
            4,
            "planner.model",
            "missing",
        ),
        (
            "[providers.Big]\nkind = \"openai\"\nmodel = \"m\"\n",
            1,
            "providers.Big",
            "a provider's name",
        ),
        (
            "[providers.default]\nkind = \"openai\"\nmodel = \"m\"\n",
            1,
            "providers.default",
            "not \"default\"",
        ),
        ("[providers.cloud]\nkind = \"openai\"\n", 1, "providers.cloud.model", "missing"),
        (
            "[providers.cloud]\nkind = \"openai\"\nmodel = \"m\"\nprice_input_per_mtok = -1\n",
            4,
            "providers.cloud.price_input_per_mtok",
            "0 or more",
        ),
        (
            "[provider]\nkind = \"openai\"\nmodel = \"m\"\nmodels = \"a\"\n",
            4,
            "provider.models",
            "a list of model names",
        ),
        (
            "[provider]\nkind = \"openai\"\nmodel = \"m\"\nvision = \"yes\"\n",
            4,
            "provider.vision",
            "true or false",
        ),
    ];
    for (text, line, key, problem) in cases {
        let error = parse(text).unwrap_err();
        assert_eq!((error.line(), error.key()), (Some(*line), Some(*key)), "{text:?}: {error}");
        assert!(error.to_string().contains(problem), "{text:?}: {error}");
        assert!(
            error.to_string().starts_with("/home/u/.local/share/preflight/config.toml:"),
            "{error}"
        );
    }
}

#[test]
fn broken_toml_names_its_line() {
    let error = parse("[provider]\nkind = \"openai\nmodel = \"m\"\n").unwrap_err();
    assert!(matches!(error, ConfigError::Syntax { line: 2, .. }), "{error:?}");
}

#[test]
fn an_unreadable_file_is_an_error_not_the_defaults() {
    let home = tempfile::tempdir().unwrap();
    std::fs::create_dir(home.path().join("config.toml")).unwrap(); // a folder where the file goes
    let error = Config::load(home.path()).unwrap_err();
    assert!(matches!(error, ConfigError::Read { .. }), "{error:?}");
}

#[test]
fn the_executor_goes_on_while_it_makes_progress_by_default() {
    let defaults = parse("").unwrap().executor;
    assert_eq!(
        (defaults.max_rounds, defaults.no_progress_rounds, defaults.auto_continue),
        (200, 12, 0)
    );
    let set = parse("[executor]\nmax_rounds = 1_000\nno_progress_rounds = 5\nauto_continue = 3\n")
        .unwrap()
        .executor;
    assert_eq!((set.max_rounds, set.no_progress_rounds, set.auto_continue), (1000, 5, 3));
    assert_eq!(parse("[executor]\nauto_continue = 0\n").unwrap().executor.auto_continue, 0);
}

#[test]
fn named_providers_bring_their_own_models_prices_and_vision() {
    let config = parse(
        "[provider]\nkind = \"openai\"\nbase_url = \"http://127.0.0.1:11434/v1\"\nmodel = \"qwen\"\n\
         vision = false\nmodels = [\"qwen-coder\", \"llava\"]\ncompat = \"llama-cpp-python\"\n\n\
         [providers.claude]\nkind = \"anthropic\"\nmodel = \"claude-sonnet\"\n\
         price_input_per_mtok = 3\nprice_output_per_mtok = 15.0\nprice_cached_input_per_mtok = 0.3\n\n\
         [providers.openai]\nkind = \"openai\"\nmodel = \"gpt\"\napi_key_env = \"OPENAI_API_KEY\"\n",
    )
    .unwrap();
    assert_eq!(config.provider.vision, Some(false));
    assert_eq!(config.provider.compat, ServerCompat::LlamaCppPython);
    assert_eq!(config.providers[1].settings.compat, ServerCompat::Auto, "auto unless said");
    assert_eq!(config.provider_extras.models, ["qwen-coder", "llava"]);
    assert!(!config.provider_extras.prices.is_set());
    let names: Vec<&str> = config.providers.iter().map(|named| named.name.as_str()).collect();
    assert_eq!(names, ["claude", "openai"], "in the file's order");
    let claude = &config.providers[0];
    assert_eq!(
        (claude.settings.kind, claude.settings.base_url.as_str(), claude.settings.vision),
        (ProviderKind::Anthropic, ANTHROPIC_BASE_URL, None)
    );
    let prices = claude.extras.prices;
    assert_eq!(
        (prices.input_per_mtok, prices.output_per_mtok, prices.cached_input_per_mtok),
        (Some(3.0), Some(15.0), Some(0.3))
    );
    assert_eq!(config.providers[1].settings.api_key_env.as_deref(), Some("OPENAI_API_KEY"));
    assert_eq!(
        config.providers[1].settings.key_account(),
        "openai@https://api.openai.com",
        "a named provider's key is filed under its own origin"
    );
}
