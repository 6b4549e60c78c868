//! What an OpenAI-compatible server that is not OpenAI needs asked differently: the user's
//! `compat` setting, or what the server's model list gives away when it is `auto`.
//!
//! Quirks of llama-cpp-python's server (0.3.x, `python -m llama_cpp.server`, with
//! `--chat_format chatml-function-calling`), found against the real server in
//! `tests/api_llama_server.rs`:
//! - a request with `tools` but no `tool_choice` renders the prompt without the tools: the
//!   model never hears of them, so `tool_choice: "auto"` is sent whenever tools are;
//! - with `tool_choice: "auto"` and `stream: true`, an answer that calls a tool raises
//!   "Automatic streaming tool choice is not supported" after the 200 head: the body ends
//!   empty; `"required"` is a 500 with an empty message;
//! - a streamed answer never carries usage (`stream_options` is ignored), and a prompt over
//!   the context is an empty 200 stream, where a whole answer gets the OpenAI-style 400
//!   `context_length_exceeded`;
//! - so Preflight asks it for whole answers (`stream: false`): tool calls, usage and errors all
//!   arrive as documented, the text in one piece;
//! - its request schema wants a string as an assistant message's `content`: the `null` that
//!   OpenAI documents for a message that only calls tools is refused (see below), so `""`;
//! - a request its schema refuses is a 500 whose message is pydantic's "N validation
//!   errors" (classified as a rejection in `format::classify`, for every server);
//! - it serves one model and ignores the request's `model`; `GET /models` names the model by
//!   its file path unless the server is started with `--model_alias`, and says
//!   `"owned_by": "me"`, which is how `auto` tells it from other servers.

use serde_json::Value;

/// The `compat` setting of an OpenAI-compatible provider in `config.toml`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum ServerCompat {
    /// Ask the server's model list once which server it is (the default).
    #[default]
    Auto,
    /// The API as OpenAI documents it (OpenAI, Ollama, vLLM, LM Studio, llama.cpp's own
    /// `llama-server`).
    Standard,
    /// llama-cpp-python's server (see the quirks above).
    LlamaCppPython,
}

impl ServerCompat {
    pub const ALL: [ServerCompat; 3] =
        [ServerCompat::Auto, ServerCompat::Standard, ServerCompat::LlamaCppPython];

    /// The word `config.toml` uses.
    pub fn as_str(self) -> &'static str {
        match self {
            ServerCompat::Auto => "auto",
            ServerCompat::Standard => "standard",
            ServerCompat::LlamaCppPython => "llama-cpp-python",
        }
    }

    pub fn parse(word: &str) -> Option<ServerCompat> {
        ServerCompat::ALL.into_iter().find(|compat| compat.as_str() == word)
    }

    /// The quirks of a server that is known; `None` for `Auto`, which must ask.
    pub(crate) fn quirks(self) -> Option<Quirks> {
        match self {
            ServerCompat::Auto => None,
            ServerCompat::Standard => Some(Quirks::STANDARD),
            ServerCompat::LlamaCppPython => Some(Quirks::LLAMA_CPP_PYTHON),
        }
    }
}

/// How requests to one server are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Quirks {
    /// `stream: false`: the answer is read whole, then handed on as events.
    pub whole_answers: bool,
    /// `tool_choice: "auto"` whenever tools are offered (the API's default, said aloud).
    pub tool_choice_auto: bool,
    /// An assistant message that only calls tools carries `content: ""`, not `null`.
    pub assistant_text_always: bool,
}

impl Quirks {
    pub const STANDARD: Quirks =
        Quirks { whole_answers: false, tool_choice_auto: false, assistant_text_always: false };
    pub const LLAMA_CPP_PYTHON: Quirks =
        Quirks { whole_answers: true, tool_choice_auto: true, assistant_text_always: true };

    /// What a `GET /models` answer gives away: llama-cpp-python's server lists its models as
    /// `"owned_by": "me"` (hard-coded in its `server/app.py`); anything else is standard.
    pub fn of_model_list(listed: &Value) -> Quirks {
        let models = listed.get("data").and_then(Value::as_array);
        let owned_by_me = models.is_some_and(|models| {
            !models.is_empty()
                && models
                    .iter()
                    .all(|model| model.get("owned_by").and_then(Value::as_str) == Some("me"))
        });
        match owned_by_me {
            true => Quirks::LLAMA_CPP_PYTHON,
            false => Quirks::STANDARD,
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn the_model_list_tells_llama_cpp_python_from_the_others() {
        let cases = [
            // llama-cpp-python 0.3.36, as its server answered.
            (
                json!({"object": "list", "data": [{"id": "smollm2", "object": "model", "owned_by": "me", "permissions": []}]}),
                Quirks::LLAMA_CPP_PYTHON,
            ),
            (
                json!({"object": "list", "data": [{"id": "gpt-4o", "object": "model", "owned_by": "system"}]}),
                Quirks::STANDARD,
            ),
            (
                json!({"object": "list", "data": [{"id": "qwen3:8b", "owned_by": "library"}]}),
                Quirks::STANDARD,
            ),
            (
                json!({"object": "list", "data": [{"id": "m", "owned_by": "llamacpp"}]}),
                Quirks::STANDARD,
            ),
            (json!({"object": "list", "data": []}), Quirks::STANDARD),
            (json!({"error": "no"}), Quirks::STANDARD),
        ];
        for (listed, quirks) in cases {
            assert_eq!(Quirks::of_model_list(&listed), quirks, "{listed}");
        }
    }

    #[test]
    fn the_setting_reads_its_own_words_only() {
        for compat in ServerCompat::ALL {
            assert_eq!(ServerCompat::parse(compat.as_str()), Some(compat));
        }
        assert_eq!(ServerCompat::parse("llama.cpp"), None);
        assert_eq!(ServerCompat::LlamaCppPython.quirks(), Some(Quirks::LLAMA_CPP_PYTHON));
        assert_eq!(ServerCompat::Auto.quirks(), None);
    }
}
