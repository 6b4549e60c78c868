//! Preflight's side of each server connection (rmcp's `ClientHandler`): what it declares in
//! `initialize`, and the requests a server sends *to* the host.
//!
//! - `elicitation/create` goes to whoever is calling a tool of that connection right now:
//!   each call registers its [`Asker`] for as long as it runs ([`Askers::register`]). The
//!   protocol does not say which call a question belongs to, so it goes to a chat only when
//!   every running call is that chat's (the newest first); when calls of two chats (or a
//!   planning turn's and a chat's) overlap on one server, it is declined rather than shown to
//!   a chat that may not have caused it. A planning turn's asker declines and says so to the
//!   planner; with no call running the request is declined. Nothing here answers on the user's
//!   behalf, and no timer does: while a question is open the call's own timeout is paused
//!   ([`Askers::open_questions`]).
//! - `sampling/createMessage` is not declared, and rmcp's default answers it with
//!   "method not found": servers never sample the user's models.

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use rmcp::model::{
    ClientCapabilities, ClientConfig, ElicitRequestParams, ElicitResult, ElicitationAction,
    ElicitationCapability, ErrorData, FormElicitationCapability, Implementation, InputRequest,
    InputRequiredResult, InputResponses, ProtocolVersion, UrlElicitationCapability,
};
use rmcp::service::RequestContext;
use rmcp::{ClientHandler, RoleClient};
use serde_json::Value;

/// A server's question to the user, in the engine's terms.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(rename = "ServerQuestion"))]
#[serde(tag = "mode", rename_all = "camelCase")]
pub enum Question {
    /// Fill in a form; `schema` is the server's flat JSON Schema object (`properties` of
    /// string, number, integer, boolean and enum fields, `required`, defaults).
    Form {
        server: String,
        message: String,
        #[cfg_attr(feature = "ts", ts(type = "Record<string, unknown>"))]
        schema: Value,
    },
    /// Open `url` in the browser (only after the user agrees) and finish there.
    Url { server: String, message: String, url: String },
}

impl Question {
    pub fn server(&self) -> &str {
        match self {
            Question::Form { server, .. } | Question::Url { server, .. } => server,
        }
    }

    /// The form's answer made of the schema's defaults only (what a form shows filled in
    /// before the user changes anything).
    pub fn defaults(&self) -> serde_json::Map<String, Value> {
        let Question::Form { schema, .. } = self else { return serde_json::Map::new() };
        let Some(properties) = schema.get("properties").and_then(Value::as_object) else {
            return serde_json::Map::new();
        };
        properties
            .iter()
            .filter_map(|(name, field)| Some((name.clone(), field.get("default")?.clone())))
            .collect()
    }
}

/// The user's answer to a [`Question`].
#[derive(Debug, Clone, PartialEq, serde::Deserialize, serde::Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(rename = "ServerAnswer"))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema), schema(as = ServerAnswer))]
#[serde(tag = "action", rename_all = "camelCase", deny_unknown_fields)]
pub enum Answer {
    /// `content`: the form's values (empty for a URL question).
    Accept {
        #[serde(default)]
        #[cfg_attr(feature = "ts", ts(type = "Record<string, unknown>"))]
        #[cfg_attr(feature = "openapi", schema(value_type = Object))]
        content: serde_json::Map<String, Value>,
    },
    Decline,
    Cancel,
}

/// Whoever may be asked while a tool call runs: a chat's turn, or the conformance client.
#[async_trait::async_trait]
pub trait Asker: Send + Sync {
    async fn ask(&self, question: Question) -> Answer;

    /// Whose question it would be (a chat's id); `None` when unknown, which is nobody's but
    /// its own.
    fn owner(&self) -> Option<String> {
        None
    }
}

/// The askers of one connection's running calls, newest last.
#[derive(Default)]
pub(crate) struct Askers {
    calls: Mutex<Vec<(u64, Arc<dyn Asker>)>>,
    next: AtomicU64,
    open: AtomicUsize,
}

/// Unregisters its call's asker when the call ends (dropped).
pub(crate) struct Registration {
    askers: Arc<Askers>,
    id: u64,
}

impl Drop for Registration {
    fn drop(&mut self) {
        if let Ok(mut calls) = self.askers.calls.lock() {
            calls.retain(|(id, _)| *id != self.id);
        }
    }
}

impl Askers {
    pub(crate) fn register(self: &Arc<Self>, asker: Arc<dyn Asker>) -> Registration {
        let id = self.next.fetch_add(1, Ordering::Relaxed);
        if let Ok(mut calls) = self.calls.lock() {
            calls.push((id, asker));
        }
        Registration { askers: Arc::clone(self), id }
    }

    /// Questions of this connection waiting for the user: calls do not time out meanwhile.
    pub(crate) fn open_questions(&self) -> usize {
        self.open.load(Ordering::Relaxed)
    }

    /// The asker a question goes to: the newest call's, when every running call has the
    /// same owner (or only one runs); `Err` with how many calls overlap otherwise.
    fn recipient(&self) -> Result<Option<Arc<dyn Asker>>, usize> {
        let Ok(calls) = self.calls.lock() else { return Ok(None) };
        let Some((_, newest)) = calls.last() else { return Ok(None) };
        let owner = newest.owner();
        let shared = calls.len() == 1
            || (owner.is_some() && calls.iter().all(|(_, asker)| asker.owner() == owner));
        if shared {
            Ok(Some(Arc::clone(newest)))
        } else {
            Err(calls.len())
        }
    }
}

/// The handler of one connection.
pub(crate) struct HostClient {
    pub server: Arc<str>,
    pub askers: Arc<Askers>,
    pub protocol: ProtocolVersion,
}

impl HostClient {
    pub(crate) fn new(server: Arc<str>, protocol: ProtocolVersion) -> HostClient {
        HostClient { server, askers: Arc::default(), protocol }
    }
}

impl ClientHandler for HostClient {
    fn get_info(&self) -> ClientConfig {
        let mut capabilities = ClientCapabilities::default();
        capabilities.elicitation = Some(
            ElicitationCapability::new()
                .with_form(FormElicitationCapability::new().with_schema_validation(true))
                .with_url(UrlElicitationCapability::default()),
        );
        let client = Implementation::new("preflight", env!("CARGO_PKG_VERSION"));
        ClientConfig::new(capabilities, client).with_protocol_version(self.protocol.clone())
    }

    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        elicit(&self.server, &self.askers, request).await
    }
}

/// A server's question, put to whoever `askers` names (an `elicitation/create` request of
/// 2025, or an input request of a 2026-07-28 `input_required` result).
pub(crate) async fn elicit(
    server: &str,
    askers: &Askers,
    request: ElicitRequestParams,
) -> Result<ElicitResult, ErrorData> {
    let question = question_of(server, request)?;
    let asker = match askers.recipient() {
        Ok(Some(asker)) => asker,
        Ok(None) => {
            tracing::info!(server, "elicitation declined: no tool call is running");
            return Ok(ElicitResult::new(ElicitationAction::Decline));
        }
        Err(calls) => {
            tracing::info!(
                server,
                calls,
                "elicitation declined: calls of different chats overlap, so whose it is is unknown"
            );
            return Ok(ElicitResult::new(ElicitationAction::Decline));
        }
    };
    Ok(put(askers, &asker, question).await)
}

/// `question` put to `asker`; the connection's calls do not time out while it is open.
async fn put(askers: &Askers, asker: &Arc<dyn Asker>, question: Question) -> ElicitResult {
    askers.open.fetch_add(1, Ordering::Relaxed);
    let answer = asker.ask(question).await;
    askers.open.fetch_sub(1, Ordering::Relaxed);
    match answer {
        Answer::Accept { content } => {
            ElicitResult::new(ElicitationAction::Accept).with_content(Value::Object(content))
        }
        Answer::Decline => ElicitResult::new(ElicitationAction::Decline),
        Answer::Cancel => ElicitResult::new(ElicitationAction::Cancel),
    }
}

/// A question of a 2026-07-28 `input_required` result. It came back in the response of one
/// request, so it goes to that request's own asker, never to whoever else is running on
/// the connection; a request without one (a prompt, a resource) declines it.
async fn ask_own(
    server: &str,
    askers: &Askers,
    own: Option<&Arc<dyn Asker>>,
    request: ElicitRequestParams,
) -> Result<ElicitResult, ErrorData> {
    let question = question_of(server, request)?;
    let Some(asker) = own else {
        tracing::info!(server, "input request declined: no tool call of a chat asked it");
        return Ok(ElicitResult::new(ElicitationAction::Decline));
    };
    Ok(put(askers, asker, question).await)
}

/// Rounds of one request at most: a 2026-07-28 server may answer `input_required`
/// (questions to the user, or only state to echo) before its result, and the request is
/// sent again with the answers; a server that never finishes is not followed forever.
pub(crate) const MAX_ROUNDS: usize = rmcp::model::DEFAULT_MRTR_MAX_ROUNDS;

/// What the next round of a request answered `input_required` (2026-07-28) carries: the
/// answers to its requests by key (only questions are answered, by the request's `own`
/// asker, see [`ask_own`]; sampling and roots are not declared, so a server asking for them
/// gets the request failed with the reason) and the server's request state exactly as it
/// came (none when it sent none).
pub(crate) async fn next_round(
    server: &str,
    askers: &Askers,
    own: Option<&Arc<dyn Asker>>,
    wanted: InputRequiredResult,
) -> Result<(Option<InputResponses>, Option<String>), String> {
    let requests = wanted.input_requests.unwrap_or_default();
    if requests.is_empty() && wanted.request_state.is_none() {
        return Err(format!("MCP server `{server}` wanted input without saying which"));
    }
    let mut responses = InputResponses::new();
    for (key, request) in requests {
        let InputRequest::Elicitation(request) = request else {
            return Err(format!(
                "MCP server `{server}` asked for input Preflight does not give (sampling or roots)"
            ));
        };
        let answer = ask_own(server, askers, own, request.params)
            .await
            .map_err(|e| e.message.to_string())?;
        responses.insert(key, serde_json::to_value(answer).map_err(|e| e.to_string())?);
    }
    Ok(((!responses.is_empty()).then_some(responses), wanted.request_state))
}

fn question_of(server: &str, request: ElicitRequestParams) -> Result<Question, ErrorData> {
    let server = server.to_owned();
    match request {
        ElicitRequestParams::FormElicitationParams { message, requested_schema, .. } => {
            let schema = serde_json::to_value(&requested_schema)
                .map_err(|e| ErrorData::invalid_params(e.to_string(), None))?;
            Ok(Question::Form { server, message, schema })
        }
        ElicitRequestParams::UrlElicitationParams { message, url, .. } => {
            Ok(Question::Url { server, message, url })
        }
        #[allow(unreachable_patterns)]
        _ => Err(ErrorData::invalid_params("an elicitation of an unknown mode", None)),
    }
}

/// The asker of a planning call: declines every question, and remembers them so the
/// planner is told (DESIGN §4: planning asks the user nothing through a server).
#[derive(Default)]
pub(crate) struct Decliner {
    declined: Mutex<Vec<String>>,
}

#[async_trait::async_trait]
impl Asker for Decliner {
    async fn ask(&self, question: Question) -> Answer {
        let message = match &question {
            Question::Form { message, .. } | Question::Url { message, .. } => message.clone(),
        };
        if let Ok(mut declined) = self.declined.lock() {
            declined.push(format!("`{}` asked: {message}", question.server()));
        }
        Answer::Decline
    }
}

impl Decliner {
    /// What to append to the tool's output, when a question was declined.
    pub(crate) fn note(&self) -> Option<String> {
        let declined = self.declined.lock().ok()?;
        (!declined.is_empty()).then(|| {
            format!(
                "\n\n[Preflight: the server asked the user a question, declined because this \
                 is planning ({}). Put the step that needs the answer in the plan; the user \
                 answers it during execution.]",
                declined.join("; ")
            )
        })
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use std::sync::Arc;

    use super::{Answer, Asker, Askers, Decliner, Question};

    /// The user of one chat, who accepts every question.
    struct ChatUser(&'static str);

    #[async_trait::async_trait]
    impl Asker for ChatUser {
        async fn ask(&self, _question: Question) -> Answer {
            Answer::Accept { content: serde_json::Map::new() }
        }
        fn owner(&self) -> Option<String> {
            Some(self.0.to_owned())
        }
    }

    #[test]
    fn a_question_goes_to_a_chat_only_when_every_running_call_is_that_chats() {
        let askers = Arc::new(Askers::default());
        assert!(matches!(askers.recipient(), Ok(None)), "no call running: nobody");
        let first = askers.register(Arc::new(ChatUser("chat-a")));
        let second = askers.register(Arc::new(ChatUser("chat-a")));
        let owner = askers.recipient().unwrap().and_then(|asker| asker.owner());
        assert_eq!(owner.as_deref(), Some("chat-a"), "two calls of one chat: that chat");
        let other = askers.register(Arc::new(ChatUser("chat-b")));
        assert_eq!(askers.recipient().err(), Some(3), "calls of two chats overlap: nobody");
        drop((first, second));
        let owner = askers.recipient().unwrap().and_then(|asker| asker.owner());
        assert_eq!(owner.as_deref(), Some("chat-b"), "chat-a's calls ended: chat-b's own");
        let planning = askers.register(Arc::new(Decliner::default()));
        assert_eq!(askers.recipient().err(), Some(2), "a planning call beside it: nobody");
        drop((other, planning));
        let alone = askers.register(Arc::new(Decliner::default()));
        assert!(askers.recipient().unwrap().is_some(), "a planning call alone: its decliner");
        drop(alone);
    }

    #[test]
    fn defaults_are_the_schemas_defaults_only() {
        let question = Question::Form {
            server: "s".into(),
            message: "m".into(),
            schema: json!({"properties": {"a": {"type": "integer", "default": 42},
                "b": {"type": "string"}, "c": {"type": "boolean", "default": false}}}),
        };
        assert_eq!(serde_json::Value::Object(question.defaults()), json!({"a": 42, "c": false}));
        let url =
            Question::Url { server: "s".into(), message: "m".into(), url: "https://x".into() };
        assert!(url.defaults().is_empty());
    }

    #[tokio::test]
    async fn the_planning_asker_declines_and_tells_the_planner_what_was_asked() {
        let decliner = Decliner::default();
        assert_eq!(decliner.note(), None, "nothing to say before a question");
        let question = Question::Url {
            server: "tracker".into(),
            message: "Open the page to link your account".into(),
            url: "https://tracker.example/link".into(),
        };
        assert_eq!(decliner.ask(question).await, Answer::Decline);
        let note = decliner.note().unwrap();
        assert!(note.contains("`tracker` asked: Open the page to link your account"), "{note}");
        assert!(note.contains("planning"), "{note}");
    }
}
