//! The providers a chat may talk to (DESIGN §15): `[provider]` (named `default`), `[planner]`
//! and each `[providers.NAME]` of `config.toml`, and the model a chat chose of them.
//!
//! A chat's `model` (the executor's) and `planner_model` are `{provider, model}` or null,
//! the configured default. [`Providers::for_chat`] opens the provider a chat's next request
//! goes to, once per choice (opening finds a key, which may block on D-Bus, or loads the
//! embedded model), and keeps it for the engine's life.
//!
//! **Invariant:** a choice is checked before it is stored ([`Providers::check_choice`]): its
//! provider is configured and its model is the provider's own, one its section lists, or one
//! its server served when last asked; an unknown one changes nothing.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use preflight_llm::{
    KeyLookup, LocalModels, Provider, ProviderKind, ProviderSettings, RetryPolicy,
};
use preflight_protocol::chat::{Chat, ModelChoice};
use preflight_protocol::usage::Prices;

use crate::config::{connect_provider, Config, ProviderExtras, DEFAULT_PROVIDER};
use crate::lifecycle::error::ApiError;

/// Which agent a request is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Role {
    Planner,
    Executor,
}

/// A provider section as a chat may choose it.
#[derive(Debug, Clone)]
pub(crate) struct Entry {
    pub(crate) name: String,
    pub(crate) settings: ProviderSettings,
    pub(crate) extras: ProviderExtras,
}

/// What a chat's request is sent with: the opened provider, what was chosen, the user's
/// prices for it and its context window.
#[derive(Clone)]
pub(crate) struct ChatModel {
    pub(crate) provider: Arc<dyn Provider>,
    pub(crate) choice: ModelChoice,
    pub(crate) prices: Prices,
    pub(crate) window: u32,
}

type Opened = Result<Arc<dyn Provider>, preflight_llm::SetupError>;

pub(crate) struct Providers {
    /// `[provider]` as `default`, then each `[providers.NAME]`.
    entries: Vec<Entry>,
    /// `[planner]` (or `[provider]` with the planner's retries): a chat's default planner.
    planner: Entry,
    keys: Arc<KeyLookup>,
    local: Option<Arc<dyn LocalModels>>,
    /// Every provider opened, by the agent and the choice (planner turns retry otherwise).
    opened: Mutex<HashMap<(Role, ModelChoice), Opened>>,
    /// The models each provider's server served when last asked (`GET /v1/models`).
    served: Mutex<HashMap<String, Vec<String>>>,
}

impl Providers {
    /// The providers of `config`; the defaults are opened now (once, at start-up), the rest
    /// when a chat first chooses them.
    pub(crate) fn new(
        config: &Config,
        keys: KeyLookup,
        local: Option<Arc<dyn LocalModels>>,
    ) -> Providers {
        let default = Entry {
            name: DEFAULT_PROVIDER.to_owned(),
            settings: config.provider.clone(),
            extras: config.provider_extras.clone(),
        };
        let planner = Entry {
            name: DEFAULT_PROVIDER.to_owned(),
            settings: config.planner_settings(),
            extras: config.planner_extras.clone(),
        };
        let mut entries = vec![default];
        entries.extend(config.providers.iter().map(|named| Entry {
            name: named.name.clone(),
            settings: named.settings.clone(),
            extras: named.extras.clone(),
        }));
        let providers = Providers {
            entries,
            planner,
            keys: Arc::new(keys),
            local,
            opened: Mutex::default(),
            served: Mutex::default(),
        };
        for role in [Role::Executor, Role::Planner] {
            let choice = providers.default_choice(role);
            let settings = providers.default_settings(role);
            let opened = connect_provider(&settings, &providers.keys, providers.local.as_deref());
            providers.remember((role, choice), opened);
        }
        providers
    }

    /// The configured providers: `default` first.
    pub(crate) fn entries(&self) -> &[Entry] {
        &self.entries
    }

    pub(crate) fn keys(&self) -> &KeyLookup {
        &self.keys
    }

    fn entry(&self, name: &str) -> Option<&Entry> {
        self.entries.iter().find(|entry| entry.name == name)
    }

    /// What a chat without a choice talks to.
    pub(crate) fn default_choice(&self, role: Role) -> ModelChoice {
        let settings = self.default_settings(role);
        ModelChoice { provider: DEFAULT_PROVIDER.to_owned(), model: settings.model }
    }

    fn default_settings(&self, role: Role) -> ProviderSettings {
        match role {
            Role::Executor => self.entries[0].settings.clone(),
            Role::Planner => self.planner.settings.clone(),
        }
    }

    /// The chat's choice for `role`, or the default.
    pub(crate) fn choice_of(&self, chat: &Chat, role: Role) -> ModelChoice {
        let chosen = match role {
            Role::Executor => chat.model.clone(),
            Role::Planner => chat.planner_model.clone(),
        };
        chosen.unwrap_or_else(|| self.default_choice(role))
    }

    /// The settings a choice is sent with, and the prices it is counted at. The default
    /// choice of the planner keeps `[planner]`'s own section.
    fn settings_of(&self, role: Role, choice: &ModelChoice) -> Option<(ProviderSettings, Prices)> {
        if *choice == self.default_choice(role) {
            let extras = match role {
                Role::Executor => &self.entries[0].extras,
                Role::Planner => &self.planner.extras,
            };
            return Some((self.default_settings(role), extras.prices));
        }
        let entry = self.entry(&choice.provider)?;
        let mut settings =
            ProviderSettings { model: choice.model.clone(), ..entry.settings.clone() };
        if role == Role::Planner {
            settings.retry = RetryPolicy::planner();
        }
        Some((settings, entry.extras.prices))
    }

    /// Whether the model the chat's next `role` request goes to sees images, and its name
    /// (the opened model's own, for the embedded one).
    pub(crate) fn vision_of(&self, chat: &Chat, role: Role) -> (bool, String) {
        let choice = self.choice_of(chat, role);
        let sees =
            self.settings_of(role, &choice).is_some_and(|(settings, _)| settings.sees_images());
        let name = match self.peek(chat, role) {
            Some(provider) => provider.model().to_owned(),
            None if choice.model.is_empty() => "the embedded model".to_owned(),
            None => choice.model,
        };
        (sees, name)
    }

    /// The window of the model the chat's next `role` request goes to (the executor's is
    /// the meter's).
    pub(crate) fn window_of(&self, chat: &Chat, role: Role) -> u32 {
        let choice = self.choice_of(chat, role);
        let settings = self.settings_of(role, &choice).map(|(settings, _)| settings);
        settings.unwrap_or_else(|| self.default_settings(role)).budget().window
    }

    /// Whether the chat's planner and executor talk to one server: what keeps one from
    /// answering keeps the other too.
    pub(crate) fn one_server(&self, chat: &Chat) -> bool {
        let server = |role| {
            let choice = self.choice_of(chat, role);
            self.settings_of(role, &choice).map(|(settings, _)| (settings.kind, settings.base_url))
        };
        server(Role::Planner) == server(Role::Executor)
    }

    /// The provider the chat's next `role` request goes to, opened on first use (on a
    /// blocking thread: a key lookup or loading a model may block).
    pub(crate) async fn for_chat(&self, chat: &Chat, role: Role) -> Result<ChatModel, String> {
        let choice = self.choice_of(chat, role);
        let Some((settings, prices)) = self.settings_of(role, &choice) else {
            return Err(format!(
                "the chat's model {choice} is not configured any more (config.toml has no \
                 provider {:?}); choose another model",
                choice.provider
            ));
        };
        let window = settings.budget().window;
        let opened = match self.already_opened(role, &choice) {
            Some(opened) => opened,
            None => {
                let (keys, local, wanted) = (Arc::clone(&self.keys), self.local.clone(), settings);
                let opened = tokio::task::spawn_blocking(move || {
                    connect_provider(&wanted, &keys, local.as_deref())
                })
                .await
                .map_err(|error| format!("opening the model failed: {error}"))?;
                self.remember((role, choice.clone()), opened.clone());
                opened
            }
        };
        let provider = opened.map_err(|error| error.to_string())?;
        Ok(ChatModel { provider, choice, prices, window })
    }

    /// The default provider of `role`, when it opened.
    pub(crate) fn default_provider(&self, role: Role) -> Option<Arc<dyn Provider>> {
        self.already_opened(role, &self.default_choice(role))?.ok()
    }

    /// The chat's `role` provider when it is open already (a view never opens one).
    pub(crate) fn peek(&self, chat: &Chat, role: Role) -> Option<Arc<dyn Provider>> {
        self.already_opened(role, &self.choice_of(chat, role))?.ok()
    }

    fn already_opened(&self, role: Role, choice: &ModelChoice) -> Option<Opened> {
        let opened = self.opened.lock().unwrap_or_else(PoisonError::into_inner);
        opened.get(&(role, choice.clone())).cloned()
    }

    fn remember(&self, key: (Role, ModelChoice), opened: Opened) {
        self.opened.lock().unwrap_or_else(PoisonError::into_inner).insert(key, opened);
    }

    /// Notes what a provider's server serves (its list as `GET /v1/models` read it).
    pub(crate) fn note_served(&self, provider: &str, models: &[String]) {
        let mut served = self.served.lock().unwrap_or_else(PoisonError::into_inner);
        served.insert(provider.to_owned(), models.to_vec());
    }

    /// The models of `entry` a chat may choose without asking its server: its own model
    /// and the ones its section lists.
    pub(crate) fn configured_models(entry: &Entry) -> Vec<String> {
        let mut models = Vec::new();
        if !entry.settings.model.is_empty() || entry.settings.kind == ProviderKind::Embedded {
            models.push(entry.settings.model.clone());
        }
        for model in &entry.extras.models {
            if !models.contains(model) {
                models.push(model.clone());
            }
        }
        models
    }

    /// Whether the provider of `choice` would answer for its model: configured, listed in
    /// its section, or served when its server was last asked.
    pub(crate) fn knows(&self, choice: &ModelChoice) -> Result<bool, ApiError> {
        let Some(entry) = self.entry(&choice.provider) else {
            let names: Vec<&str> = self.entries.iter().map(|entry| entry.name.as_str()).collect();
            return Err(ApiError::bad_request(format!(
                "unknown provider {:?}: config.toml names {}",
                choice.provider,
                names.join(", ")
            )));
        };
        if Providers::configured_models(entry).contains(&choice.model) {
            return Ok(true);
        }
        let served = self.served.lock().unwrap_or_else(PoisonError::into_inner);
        Ok(served.get(&entry.name).is_some_and(|models| models.contains(&choice.model)))
    }
}
