//! What the scripted server answers: routes of replies, each reply a streamed answer (text,
//! tool calls, usage) or a failure (an error status, a cut stream, a stall). Serialisable, so
//! the `scripted-provider` binary reads the same script from a JSON file.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Routes are tried in order: the first whose `when` matches the request and that has a
/// reply left answers it.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Script {
    pub routes: Vec<Route>,
    /// The model's context window in tokens, as the server counts them
    /// ([`crate::count_tokens`]): a larger request gets the API's real context-length error,
    /// and every answer reports the request's count as its input tokens.
    #[serde(default)]
    pub context_limit: Option<u64>,
    /// How long each answer takes to begin, in milliseconds, as a model takes time to
    /// answer (benchmarks of chats at once); none: at once.
    #[serde(default)]
    pub latency_ms: Option<u64>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Route {
    #[serde(default)]
    pub when: Matcher,
    pub replies: Vec<Reply>,
    /// Keep answering with the last reply once the others are used (benchmarks).
    #[serde(default)]
    pub repeat_last: bool,
}

/// Which requests a route answers; every given condition must hold.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Matcher {
    /// The system prompt contains this (e.g. `plan-questions`: a planner turn).
    #[serde(default)]
    pub system_contains: Option<String>,
    /// The request body, as JSON text, contains this.
    #[serde(default)]
    pub body_contains: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Reply {
    /// A 200 streamed in the requested API's format.
    Answer(Answer),
    /// An error answer: the status, an optional `retry-after`, the body (a default one in
    /// the API's error shape when absent).
    Status {
        status: u16,
        #[serde(default)]
        retry_after: Option<String>,
        #[serde(default)]
        body: Option<String>,
    },
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Answer {
    pub steps: Vec<Step>,
    /// Reported tokens: (input, output). Absent: (12, number of steps).
    #[serde(default)]
    pub usage: Option<(u64, u64)>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Step {
    /// One text delta.
    Text(String),
    /// A tool call; its arguments are sent in `fragments` pieces (at least 1).
    ToolCall {
        #[serde(default)]
        id: Option<String>,
        name: String,
        arguments: String,
        #[serde(default = "three")]
        fragments: usize,
    },
    /// Close the connection here, without the answer's final events.
    Cut,
    /// Send nothing more and keep the connection open until the client leaves.
    Stall,
}

fn three() -> usize {
    3
}

impl Script {
    pub fn new() -> Script {
        Script::default()
    }

    /// A script answering every request in turn with `replies`.
    pub fn replies(replies: impl IntoIterator<Item = Reply>) -> Script {
        Script::new().route(Matcher::default(), replies)
    }

    /// Adds a route; routes added first are tried first.
    pub fn route(mut self, when: Matcher, replies: impl IntoIterator<Item = Reply>) -> Script {
        self.routes.push(Route {
            when,
            replies: replies.into_iter().collect(),
            repeat_last: false,
        });
        self
    }

    /// Enforces a context window of `tokens` (see [`Script::context_limit`]).
    pub fn context_limit(mut self, tokens: u64) -> Script {
        self.context_limit = Some(tokens);
        self
    }

    /// Waits `ms` milliseconds before each answer (see [`Script::latency_ms`]).
    pub fn latency_ms(mut self, ms: u64) -> Script {
        self.latency_ms = Some(ms);
        self
    }

    /// Adds a route that answers forever with `reply`.
    pub fn forever(mut self, when: Matcher, reply: Reply) -> Script {
        self.routes.push(Route { when, replies: vec![reply], repeat_last: true });
        self
    }
}

impl Matcher {
    pub fn system_contains(text: impl Into<String>) -> Matcher {
        Matcher { system_contains: Some(text.into()), ..Matcher::default() }
    }

    pub fn body_contains(text: impl Into<String>) -> Matcher {
        Matcher { body_contains: Some(text.into()), ..Matcher::default() }
    }
}

impl Reply {
    /// An answer of text only, streamed a word at a time.
    pub fn text(text: &str) -> Reply {
        Answer::new().words(text).into()
    }

    /// An answer with one tool call and no text.
    pub fn tool_call(name: &str, arguments: Value) -> Reply {
        Answer::new().tool_call(name, arguments).into()
    }

    pub fn status(status: u16) -> Reply {
        Reply::Status { status, retry_after: None, body: None }
    }

    /// 429 with a `retry-after` of `seconds`.
    pub fn rate_limited(seconds: &str) -> Reply {
        Reply::Status { status: 429, retry_after: Some(seconds.to_owned()), body: None }
    }

    pub fn status_with_body(status: u16, body: &str) -> Reply {
        Reply::Status { status, retry_after: None, body: Some(body.to_owned()) }
    }
}

impl Answer {
    pub fn new() -> Answer {
        Answer::default()
    }

    /// One text delta.
    pub fn text(mut self, delta: &str) -> Answer {
        self.steps.push(Step::Text(delta.to_owned()));
        self
    }

    /// `text` as deltas of one word each (with its following space).
    pub fn words(mut self, text: &str) -> Answer {
        let mut rest = text;
        while !rest.is_empty() {
            let end = rest.find(' ').map_or(rest.len(), |space| space + 1);
            self.steps.push(Step::Text(rest[..end].to_owned()));
            rest = &rest[end..];
        }
        self
    }

    pub fn tool_call(mut self, name: &str, arguments: Value) -> Answer {
        self.steps.push(Step::ToolCall {
            id: None,
            name: name.to_owned(),
            arguments: arguments.to_string(),
            fragments: 3,
        });
        self
    }

    /// A tool call whose arguments are sent as given, even if they are not valid JSON.
    pub fn raw_tool_call(mut self, name: &str, arguments: &str) -> Answer {
        self.steps.push(Step::ToolCall {
            id: None,
            name: name.to_owned(),
            arguments: arguments.to_owned(),
            fragments: 1,
        });
        self
    }

    pub fn cut(mut self) -> Answer {
        self.steps.push(Step::Cut);
        self
    }

    pub fn stall(mut self) -> Answer {
        self.steps.push(Step::Stall);
        self
    }

    pub fn usage(mut self, input: u64, output: u64) -> Answer {
        self.usage = Some((input, output));
        self
    }
}

impl From<Answer> for Reply {
    fn from(answer: Answer) -> Reply {
        Reply::Answer(answer)
    }
}
