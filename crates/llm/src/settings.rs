//! What a provider is built from: its kind, where it lives, the model, timeouts and retries.
//! Filled from `config.toml` by `config`, or directly by tests and tools.

use std::fmt;

use super::compat::ServerCompat;
use super::{RetryPolicy, Timeouts};

pub const OPENAI_BASE_URL: &str = "https://api.openai.com/v1";
pub const ANTHROPIC_BASE_URL: &str = "https://api.anthropic.com";
/// Anthropic requires `max_tokens`; this is used when the settings leave it open (4096:
/// the output limit of the oldest models still served, so no model refuses it).
pub const ANTHROPIC_DEFAULT_MAX_TOKENS: u32 = 4096;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProviderKind {
    /// OpenAI-compatible chat completions: OpenAI, Ollama, llama.cpp, vLLM, LM Studio.
    OpenAi,
    Anthropic,
    /// The in-process model (a later release).
    Embedded,
}

impl ProviderKind {
    pub const ALL: [ProviderKind; 3] =
        [ProviderKind::OpenAi, ProviderKind::Anthropic, ProviderKind::Embedded];

    /// The name `config.toml` uses.
    pub fn as_str(self) -> &'static str {
        match self {
            ProviderKind::OpenAi => "openai",
            ProviderKind::Anthropic => "anthropic",
            ProviderKind::Embedded => "embedded",
        }
    }

    pub fn parse(name: &str) -> Option<ProviderKind> {
        ProviderKind::ALL.into_iter().find(|kind| kind.as_str() == name)
    }

    pub fn default_base_url(self) -> &'static str {
        match self {
            ProviderKind::OpenAi => OPENAI_BASE_URL,
            ProviderKind::Anthropic => ANTHROPIC_BASE_URL,
            ProviderKind::Embedded => "",
        }
    }
}

impl fmt::Display for ProviderKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProviderSettings {
    pub kind: ProviderKind,
    /// For `openai` it includes `/v1`; for `anthropic` it does not (DESIGN §10).
    pub base_url: String,
    pub model: String,
    /// The environment variable holding the key when no key store has it.
    pub api_key_env: Option<String>,
    pub max_tokens: Option<u32>,
    /// `context_window`: the model's window in tokens, when the settings give it (DESIGN §13).
    pub context_window: Option<u32>,
    /// `vision`: whether the model is shown images; unset, an API model is (DESIGN §15).
    pub vision: Option<bool>,
    /// `compat`: how an OpenAI-compatible server is asked (`compat.rs`); `auto` asks
    /// the server's model list which server it is.
    pub compat: ServerCompat,
    pub timeouts: Timeouts,
    pub retry: RetryPolicy,
}

impl ProviderSettings {
    pub fn new(
        kind: ProviderKind,
        base_url: impl Into<String>,
        model: impl Into<String>,
    ) -> ProviderSettings {
        ProviderSettings {
            kind,
            base_url: base_url.into(),
            model: model.into(),
            api_key_env: None,
            max_tokens: None,
            context_window: None,
            vision: None,
            compat: ServerCompat::Auto,
            timeouts: Timeouts::default(),
            retry: RetryPolicy::default(),
        }
    }

    /// What a fresh install runs: the embedded model.
    pub fn embedded() -> ProviderSettings {
        ProviderSettings::new(ProviderKind::Embedded, "", "")
    }

    /// Whether a call without a key is bound to fail: Anthropic always; an OpenAI-compatible
    /// server when it is OpenAI itself or the settings name a key variable. Local servers
    /// (Ollama, llama.cpp, LM Studio) take none.
    pub fn needs_api_key(&self) -> bool {
        match self.kind {
            ProviderKind::Anthropic => true,
            ProviderKind::OpenAi => {
                self.api_key_env.is_some() || self.base_url.trim_end_matches('/') == OPENAI_BASE_URL
            }
            ProviderKind::Embedded => false,
        }
    }

    /// Whether the model is shown images: as `vision` says, else yes for an API model (a
    /// model that cannot see them is told in the settings), never for the embedded one.
    pub fn sees_images(&self) -> bool {
        self.kind != ProviderKind::Embedded && self.vision.unwrap_or(true)
    }

    /// The tokens a request to this model may take.
    pub fn budget(&self) -> super::Budget {
        super::Budget::for_model(self.context_window, &self.model, self.max_tokens)
    }

    /// The key store account the key lives under: the provider kind and the origin of the
    /// base URL (`openai@https://api.openai.com`), so that a key saved for one server is
    /// never sent to another.
    pub fn key_account(&self) -> String {
        let origin = origin_of(&self.base_url).unwrap_or_else(|| self.base_url.trim().to_owned());
        format!("{}@{origin}", self.kind)
    }
}

/// `scheme://host[:port]` of `url` (the port only when it is not the scheme's default), or
/// `None` for a URL without one (not http or https, or not a URL).
pub fn origin_of(url: &str) -> Option<String> {
    let origin = reqwest::Url::parse(url.trim()).ok()?.origin();
    origin.is_tuple().then(|| origin.ascii_serialization())
}
