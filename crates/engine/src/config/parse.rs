//! Reads `config.toml` through the `toml` crate's spanned document, so that every problem
//! names its line and dotted key. Unknown keys are errors, never ignored. [`Config::load`]
//! and [`Config::parse`] are the way in.

use std::ops::Range;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use preflight_llm::{origin_of, ProviderKind, ProviderSettings, RetryPolicy, ServerCompat};
use preflight_mcp::confinement::ConfinementMode;
use toml::de::{DeTable, DeValue};
use toml::Spanned;

use crate::config::error::ConfigError;
use crate::config::settings::{
    Config, ExecutorSettings, McpToolSettings, NamedProvider, OnPlannerFailure, PlanModeDefaults,
    ProviderExtras, SandboxSettings, WorkspaceDefaults, CONFIG_FILE, DEFAULT_PROVIDER,
};
use preflight_protocol::usage::Prices;

const TOP_KEYS: &[&str] =
    &["provider", "planner", "providers", "plan_mode", "sandbox", "executor", "mcp", "workspace"];
const PROVIDER_KEYS: &[&str] = &[
    "kind",
    "base_url",
    "model",
    "api_key_env",
    "max_tokens",
    "context_window",
    "connect_timeout_secs",
    "idle_timeout_secs",
    "vision",
    "compat",
    "models",
    "price_input_per_mtok",
    "price_output_per_mtok",
    "price_cached_input_per_mtok",
];
const PLAN_MODE_KEYS: &[&str] = &["enabled", "auto_approve", "on_planner_failure"];
const WORKSPACE_KEYS: &[&str] = &["worktrees"];
const SANDBOX_KEYS: &[&str] =
    &["enabled", "network", "max_file_mib", "confinement", "allow_sdists"];
const EXECUTOR_KEYS: &[&str] = &["max_rounds", "no_progress_rounds", "auto_continue"];
const MCP_KEYS: &[&str] = &["tool_budget"];

/// One table being read: where it is, its dotted name, the file's text for line numbers.
struct Section<'a> {
    path: &'a Path,
    text: &'a str,
    name: &'a str,
    table: &'a DeTable<'a>,
    /// Where the section's name appears (its `[header]`).
    at: Range<usize>,
}

impl Config {
    /// Reads `{home}/config.toml`; defaults when there is none.
    pub fn load(home: &Path) -> Result<Config, ConfigError> {
        let path = home.join(CONFIG_FILE);
        match std::fs::read_to_string(&path) {
            Ok(text) => Config::parse(&text, &path),
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => Ok(Config::default()),
            Err(error) => Err(ConfigError::Read { path, source: Arc::new(error) }),
        }
    }

    /// Parses `text`; `path` names the file in errors.
    pub fn parse(text: &str, path: &Path) -> Result<Config, ConfigError> {
        parse(text, path)
    }
}

pub(super) fn parse(text: &str, path: &Path) -> Result<Config, ConfigError> {
    let document = DeTable::parse(text).map_err(|error| ConfigError::Syntax {
        path: path.to_owned(),
        line: line_of(text, error.span().map_or(0, |span| span.start)),
        problem: error.message().trim().to_owned(),
    })?;
    let root = Section { path, text, name: "", table: document.get_ref(), at: 0..0 };
    root.only_keys(TOP_KEYS)?;
    let (provider, provider_extras) = match root.section("provider")? {
        Some(section) => (section.provider(None)?, section.extras()?),
        None => (ProviderSettings::embedded(), ProviderExtras::default()),
    };
    let (planner, planner_extras) = match root.section("planner")? {
        Some(section) => {
            let settings = section.provider(Some(&provider))?;
            let mut extras = section.extras()?;
            if !extras.prices.is_set() && settings.base_url == provider.base_url {
                extras.prices = provider_extras.prices;
            }
            (Some(settings), extras)
        }
        None => (None, provider_extras.clone()),
    };
    let providers = match root.section("providers")? {
        Some(section) => section.named_providers()?,
        None => Vec::new(),
    };
    let plan_mode = match root.section("plan_mode")? {
        Some(section) => section.plan_mode()?,
        None => PlanModeDefaults::default(),
    };
    let sandbox = match root.section("sandbox")? {
        Some(section) => section.sandbox()?,
        None => SandboxSettings::default(),
    };
    let executor = match root.section("executor")? {
        Some(section) => section.executor()?,
        None => ExecutorSettings::default(),
    };
    let mcp = match root.section("mcp")? {
        Some(section) => section.mcp_tools()?,
        None => McpToolSettings::default(),
    };
    let workspace = match root.section("workspace")? {
        Some(at) => at.only_keys(WORKSPACE_KEYS).and(at.boolean("worktrees", false))?,
        None => false,
    };
    Ok(Config {
        mcp,
        workspace: WorkspaceDefaults { worktrees: workspace },
        provider,
        planner,
        plan_mode,
        sandbox,
        executor,
        provider_extras,
        planner_extras,
        providers,
    })
}

pub(super) fn line_of(text: &str, offset: usize) -> usize {
    text.as_bytes()[..offset.min(text.len())].iter().filter(|&&b| b == b'\n').count() + 1
}

impl<'a> Section<'a> {
    fn error(&self, at: &Range<usize>, key: &str, problem: impl Into<String>) -> ConfigError {
        let key =
            if self.name.is_empty() { key.to_owned() } else { format!("{}.{key}", self.name) };
        ConfigError::Invalid {
            path: self.path.to_owned(),
            line: line_of(self.text, at.start),
            key,
            problem: problem.into(),
        }
    }

    /// Refuses the first key (in file order) that is not in `known`.
    fn only_keys(&self, known: &[&str]) -> Result<(), ConfigError> {
        let mut unknown: Vec<&Spanned<_>> =
            self.table.keys().filter(|key| !known.contains(&key.get_ref().as_ref())).collect();
        unknown.sort_by_key(|key| key.span().start);
        match unknown.first() {
            Some(key) => Err(self.error(
                &key.span(),
                key.get_ref(),
                format!("unknown key; expected one of {}", known.join(", ")),
            )),
            None => Ok(()),
        }
    }

    fn value(&self, key: &str) -> Option<(&'a Spanned<DeValue<'a>>, Range<usize>)> {
        self.table.get_key_value(key).map(|(name, value)| (value, name.span()))
    }

    fn section(&self, key: &'a str) -> Result<Option<Section<'a>>, ConfigError> {
        let Some((value, at)) = self.value(key) else { return Ok(None) };
        match value.get_ref() {
            DeValue::Table(table) => {
                Ok(Some(Section { path: self.path, text: self.text, name: key, table, at }))
            }
            other => Err(self.error(
                &value.span(),
                key,
                format!("must be a table, not a {}", other.type_str()),
            )),
        }
    }

    fn string(&self, key: &str) -> Result<Option<(String, Range<usize>)>, ConfigError> {
        let Some((value, _)) = self.value(key) else { return Ok(None) };
        match value.get_ref() {
            DeValue::String(text) if text.trim().is_empty() => {
                Err(self.error(&value.span(), key, "must not be empty"))
            }
            DeValue::String(text) => Ok(Some((text.to_string(), value.span()))),
            other => Err(self.error(
                &value.span(),
                key,
                format!("must be a string, not a {}", other.type_str()),
            )),
        }
    }

    fn boolean(&self, key: &str, default: bool) -> Result<bool, ConfigError> {
        let Some((value, _)) = self.value(key) else { return Ok(default) };
        value.get_ref().as_bool().ok_or_else(|| {
            self.error(
                &value.span(),
                key,
                format!("must be true or false, not a {}", value.get_ref().type_str()),
            )
        })
    }

    fn positive_integer(&self, key: &str) -> Result<Option<u32>, ConfigError> {
        let Some((value, _)) = self.value(key) else { return Ok(None) };
        match whole(value.get_ref()) {
            Some(n) if n > 0 => Ok(Some(n)),
            _ => Err(self.error(&value.span(), key, "must be a positive whole number")),
        }
    }

    /// A count that may be 0.
    fn whole_number(&self, key: &str) -> Result<Option<u32>, ConfigError> {
        let Some((value, _)) = self.value(key) else { return Ok(None) };
        match whole(value.get_ref()) {
            Some(n) => Ok(Some(n)),
            None => Err(self.error(&value.span(), key, "must be a whole number, 0 or more")),
        }
    }

    fn seconds(&self, key: &str) -> Result<Option<Duration>, ConfigError> {
        let Some((value, _)) = self.value(key) else { return Ok(None) };
        let number = match value.get_ref() {
            DeValue::Integer(n) => n.as_str().replace('_', "").parse::<f64>().ok(),
            DeValue::Float(n) => n.as_str().replace('_', "").parse::<f64>().ok(),
            _ => None,
        };
        match number.filter(|n| *n > 0.0).and_then(|n| Duration::try_from_secs_f64(n).ok()) {
            Some(duration) => Ok(Some(duration)),
            None => Err(self.error(&value.span(), key, "must be a positive number of seconds")),
        }
    }

    fn plan_mode(&self) -> Result<PlanModeDefaults, ConfigError> {
        self.only_keys(PLAN_MODE_KEYS)?;
        let defaults = PlanModeDefaults::default();
        Ok(PlanModeDefaults {
            enabled: self.boolean("enabled", defaults.enabled)?,
            auto_approve: self.boolean("auto_approve", defaults.auto_approve)?,
            on_planner_failure: self.on_planner_failure()?.unwrap_or(defaults.on_planner_failure),
        })
    }

    /// `[plan_mode] on_planner_failure = "execute" | "stop"`.
    fn on_planner_failure(&self) -> Result<Option<OnPlannerFailure>, ConfigError> {
        let Some((word, at)) = self.string("on_planner_failure")? else { return Ok(None) };
        OnPlannerFailure::parse(&word).map(Some).ok_or_else(|| {
            self.error(
                &at,
                "on_planner_failure",
                format!("on_planner_failure = {word:?}: use \"execute\" or \"stop\""),
            )
        })
    }

    fn executor(&self) -> Result<ExecutorSettings, ConfigError> {
        self.only_keys(EXECUTOR_KEYS)?;
        let defaults = ExecutorSettings::default();
        let max_rounds = self.positive_integer("max_rounds")?.unwrap_or(defaults.max_rounds);
        let no_progress_rounds =
            self.positive_integer("no_progress_rounds")?.unwrap_or(defaults.no_progress_rounds);
        let auto_continue = self.whole_number("auto_continue")?.unwrap_or(defaults.auto_continue);
        Ok(ExecutorSettings { max_rounds, no_progress_rounds, auto_continue })
    }

    /// `[mcp] tool_budget`: a fraction of the context window, above 0 and at most 1.
    fn mcp_tools(&self) -> Result<McpToolSettings, ConfigError> {
        self.only_keys(MCP_KEYS)?;
        let Some((value, _)) = self.value("tool_budget") else {
            return Ok(McpToolSettings::default());
        };
        let number = match value.get_ref() {
            DeValue::Integer(n) => n.as_str().replace('_', "").parse::<f64>().ok(),
            DeValue::Float(n) => n.as_str().replace('_', "").parse::<f64>().ok(),
            _ => None,
        };
        match number.filter(|n| *n > 0.0 && *n <= 1.0) {
            Some(tool_budget) => Ok(McpToolSettings { tool_budget }),
            None => Err(self.error(
                &value.span(),
                "tool_budget",
                "must be a share of the context window above 0 and at most 1 (0.1 is 10%)",
            )),
        }
    }

    fn sandbox(&self) -> Result<SandboxSettings, ConfigError> {
        self.only_keys(SANDBOX_KEYS)?;
        let defaults = SandboxSettings::default();
        Ok(SandboxSettings {
            enabled: self.boolean("enabled", defaults.enabled)?,
            network: self.boolean("network", defaults.network)?,
            max_file_mib: self.positive_integer("max_file_mib")?.or(defaults.max_file_mib),
            confinement: self.confinement()?.unwrap_or(defaults.confinement),
            allow_sdists: self.boolean("allow_sdists", defaults.allow_sdists)?,
        })
    }

    /// `[sandbox] confinement = "auto" | "bubblewrap" | "off"`.
    fn confinement(&self) -> Result<Option<ConfinementMode>, ConfigError> {
        let Some((word, at)) = self.string("confinement")? else { return Ok(None) };
        ConfinementMode::parse(&word).map(Some).ok_or_else(|| {
            self.error(
                &at,
                "confinement",
                format!("confinement = {word:?}: use \"auto\", \"bubblewrap\" or \"off\""),
            )
        })
    }

    /// `[provider]`, or `[planner]` with `inherit` = the provider: the planner's unset keys
    /// come from the provider unless it names another kind, whose defaults it then gets.
    fn provider(
        &self,
        inherit: Option<&ProviderSettings>,
    ) -> Result<ProviderSettings, ConfigError> {
        self.only_keys(PROVIDER_KEYS)?;
        let kind = self.kind(inherit)?;
        let mut settings = match inherit {
            Some(parent) if parent.kind == kind => parent.clone(),
            _ => ProviderSettings::new(kind, kind.default_base_url(), ""),
        };
        if inherit.is_some() {
            settings.retry = RetryPolicy::planner();
        }
        self.base_url(&mut settings, inherit)?;
        settings.model = self.string("model")?.map_or(settings.model, |(model, _)| model);
        if settings.model.is_empty() && kind != ProviderKind::Embedded {
            return Err(self.error(
                &self.at,
                "model",
                format!("missing; the {kind} provider needs a model name"),
            ));
        }
        settings.api_key_env =
            self.string("api_key_env")?.map(|(name, _)| name).or(settings.api_key_env);
        settings.max_tokens = self.positive_integer("max_tokens")?.or(settings.max_tokens);
        settings.context_window =
            self.positive_integer("context_window")?.or(settings.context_window);
        settings.timeouts.connect =
            self.seconds("connect_timeout_secs")?.unwrap_or(settings.timeouts.connect);
        settings.timeouts.idle =
            self.seconds("idle_timeout_secs")?.unwrap_or(settings.timeouts.idle);
        if self.value("vision").is_some() {
            settings.vision = Some(self.boolean("vision", true)?);
        }
        settings.compat = self.compat(kind)?.unwrap_or(settings.compat);
        Ok(settings)
    }

    /// `compat`: how an OpenAI-compatible server is asked; only `openai` providers have one.
    fn compat(&self, kind: ProviderKind) -> Result<Option<ServerCompat>, ConfigError> {
        let Some((word, at)) = self.string("compat")? else { return Ok(None) };
        if kind != ProviderKind::OpenAi {
            let message = format!("only an `openai` provider has a compat setting, not {kind}");
            return Err(self.error(&at, "compat", message));
        }
        ServerCompat::parse(&word).map(Some).ok_or_else(|| {
            let words: Vec<_> =
                ServerCompat::ALL.iter().map(|c| format!("{:?}", c.as_str())).collect();
            self.error(&at, "compat", format!("compat = {word:?}: use {}", words.join(", ")))
        })
    }

    /// `[providers]`: each `[providers.NAME]` a provider of its own (nothing inherited).
    fn named_providers(&self) -> Result<Vec<NamedProvider>, ConfigError> {
        let mut named = Vec::new();
        let mut keys: Vec<_> = self.table.keys().collect();
        keys.sort_by_key(|key| key.span().start);
        for key in keys {
            let name: &str = key.get_ref();
            let at = key.span();
            if !is_provider_name(name) || name == DEFAULT_PROVIDER {
                return Err(self.error(
                    &at,
                    name,
                    "a provider's name is 1 to 40 of a-z, 0-9, - and _, and not \"default\" \
                     ([provider] goes by it)",
                ));
            }
            let Some(section) = self.section(name)? else { continue };
            let dotted = format!("providers.{name}");
            let section = Section { name: &dotted, ..section };
            let settings = section.provider(None)?;
            named.push(NamedProvider {
                name: name.to_owned(),
                settings,
                extras: section.extras()?,
            });
        }
        Ok(named)
    }

    /// A provider section's prices and `models` list.
    fn extras(&self) -> Result<ProviderExtras, ConfigError> {
        let prices = Prices {
            input_per_mtok: self.price("price_input_per_mtok")?,
            output_per_mtok: self.price("price_output_per_mtok")?,
            cached_input_per_mtok: self.price("price_cached_input_per_mtok")?,
        };
        Ok(ProviderExtras { prices, models: self.string_list("models")? })
    }

    fn price(&self, key: &str) -> Result<Option<f64>, ConfigError> {
        let Some((value, _)) = self.value(key) else { return Ok(None) };
        let number = match value.get_ref() {
            DeValue::Integer(n) => n.as_str().replace('_', "").parse::<f64>().ok(),
            DeValue::Float(n) => n.as_str().replace('_', "").parse::<f64>().ok(),
            _ => None,
        };
        match number.filter(|n| n.is_finite() && *n >= 0.0) {
            Some(price) => Ok(Some(price)),
            None => Err(self.error(
                &value.span(),
                key,
                "must be a price in USD per million tokens, 0 or more",
            )),
        }
    }

    fn string_list(&self, key: &str) -> Result<Vec<String>, ConfigError> {
        let Some((value, _)) = self.value(key) else { return Ok(Vec::new()) };
        let problem = || self.error(&value.span(), key, "must be a list of model names");
        let DeValue::Array(items) = value.get_ref() else { return Err(problem()) };
        items
            .iter()
            .map(|item| match item.get_ref() {
                DeValue::String(text) if !text.trim().is_empty() => Ok(text.trim().to_owned()),
                _ => Err(problem()),
            })
            .collect()
    }

    /// Sets `base_url` when the section has one. A planner at another origin than the
    /// provider's keeps none of the provider's `api_key_env`: that variable holds the key of
    /// the provider's server, which must not go to another one.
    fn base_url(
        &self,
        settings: &mut ProviderSettings,
        inherit: Option<&ProviderSettings>,
    ) -> Result<(), ConfigError> {
        let Some((url, at)) = self.string("base_url")? else { return Ok(()) };
        check_url(&url).map_err(|problem| self.error(&at, "base_url", problem))?;
        settings.base_url = url;
        let moved = |parent: &ProviderSettings| {
            origin_of(&parent.base_url) != origin_of(&settings.base_url)
        };
        if inherit.is_some_and(moved) {
            settings.api_key_env = None;
        }
        Ok(())
    }

    fn kind(&self, inherit: Option<&ProviderSettings>) -> Result<ProviderKind, ConfigError> {
        let names = ProviderKind::ALL.map(ProviderKind::as_str).join(", ");
        match (self.string("kind")?, inherit) {
            (Some((name, at)), _) => ProviderKind::parse(&name).ok_or_else(|| {
                self.error(
                    &at,
                    "kind",
                    format!("unknown provider {name:?}; expected one of {names}"),
                )
            }),
            (None, Some(parent)) => Ok(parent.kind),
            (None, None) => Err(self.error(&self.at, "kind", format!("missing; one of {names}"))),
        }
    }
}

/// A name `[providers.NAME]` may have: what a chat's `{provider}` says, so plain words.
pub(crate) fn is_provider_name(name: &str) -> bool {
    (1..=40).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-' || b == b'_')
}

/// A TOML integer that fits a `u32` (`1_000` as well as `1000`).
fn whole(value: &DeValue<'_>) -> Option<u32> {
    value.as_integer().and_then(|n| n.as_str().replace('_', "").parse::<u32>().ok())
}

fn check_url(url: &str) -> Result<(), String> {
    let parsed = reqwest::Url::parse(url).map_err(|error| format!("not a URL ({error})"))?;
    match parsed.scheme() {
        "http" | "https" => Ok(()),
        scheme => Err(format!("must be an http or https URL, not {scheme}")),
    }
}
