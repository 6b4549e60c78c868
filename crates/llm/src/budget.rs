//! How many tokens a model may be sent (DESIGN §13): its context window — `context_window`
//! in config, else a known figure for the model, else a default — less the reply's reserve.

/// The window used when neither the settings nor the model's known figure give one.
pub const DEFAULT_CONTEXT_WINDOW: u32 = 32_768;

/// The tokens a request may use: the window less the reply's reserve.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Budget {
    pub window: u32,
    pub reserve: u32,
}

impl Budget {
    /// The window of `model`: `configured` (`context_window` in config), else a known
    /// figure, else [`DEFAULT_CONTEXT_WINDOW`]; the reserve is `max_tokens` when set, else a
    /// quarter of the window up to 4096.
    pub fn for_model(configured: Option<u32>, model: &str, max_tokens: Option<u32>) -> Budget {
        let window = configured.or_else(|| known_window(model)).unwrap_or(DEFAULT_CONTEXT_WINDOW);
        let reserve = max_tokens.unwrap_or((window / 4).min(4096)).min(window / 2);
        Budget { window, reserve }
    }

    /// The most a request may be estimated at.
    pub fn limit(&self) -> u64 {
        u64::from(self.window.saturating_sub(self.reserve))
    }
}

/// The context windows of well-known model families (tokens), by name prefix.
pub fn known_window(model: &str) -> Option<u32> {
    let model = model.to_ascii_lowercase();
    let model = model.rsplit('/').next().unwrap_or(&model);
    const KNOWN: &[(&str, u32)] = &[
        ("gpt-4.1", 1_047_576),
        ("gpt-4o", 128_000),
        ("gpt-4-turbo", 128_000),
        ("gpt-5", 400_000),
        ("o3", 200_000),
        ("o4-mini", 200_000),
        ("claude", 200_000),
        ("llama3.1", 131_072),
        ("llama3.2", 131_072),
        ("llama3.3", 131_072),
        ("qwen2.5", 32_768),
        ("qwen3", 40_960),
        ("mistral-nemo", 131_072),
        ("gemma3", 131_072),
        ("smollm2", 8_192),
    ];
    KNOWN.iter().find(|(prefix, _)| model.starts_with(prefix)).map(|(_, window)| *window)
}
