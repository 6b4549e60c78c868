//! The model's view of a long history (DESIGN §13): a context budget per provider, token
//! estimates corrected by the provider's own counts, and the ways a request is made to fit —
//! old images elided to a one-line stub (oldest first, never the latest user message's nor
//! the last round's), then old tool results likewise, then the oldest rounds replaced by a
//! summary (`compact.rs`). The budget itself is the provider's (`llm::Budget`). Pure:
//! nothing here calls a model or the store.
//!
//! **Invariant:** only `messages` shrink. The system prompt (the stable prefix) stays first
//! and whole, the `[state]` tail stays last and whole, and a round is never split: an
//! assistant message with tool calls and its results are elided or compacted together.

use preflight_llm::{Budget, ModelMessage, ModelRequest};

/// What an elided tool result may keep: results this small are left as they are.
const ELIDE_ABOVE_BYTES: usize = 600;
/// Tokens counted for each message's framing (role, separators) beside its text.
const MESSAGE_OVERHEAD: u64 = 4;
/// Tokens an image is counted as. Providers bill an image by its pixels, not by its base64
/// (Anthropic about width × height / 750, some 1,600 for a picture they scale to fit; OpenAI's
/// tiles come near that), so one fixed figure is nearer than its bytes, which would be ten
/// times as many for a photo.
pub const IMAGE_TOKENS: u64 = 1_600;

/// Token estimates: about four bytes a token, corrected by the ratio the provider's own
/// count showed for the last request it answered.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Estimator {
    ratio: f64,
}

impl Default for Estimator {
    fn default() -> Estimator {
        Estimator { ratio: 1.0 }
    }
}

impl Estimator {
    /// The estimate of a whole request: system, tools, messages and tail.
    pub fn request(&self, request: &ModelRequest) -> u64 {
        let tools: usize = request
            .tools
            .iter()
            .map(|tool| {
                tool.name.len() + tool.description.len() + tool.input_schema.to_string().len()
            })
            .sum();
        let tail = request.tail.as_deref().map_or(0, str::len);
        let messages: u64 = request.messages.iter().map(|m| self.message(m)).sum();
        self.bytes(request.system.len() + tools + tail) + messages
    }

    pub fn message(&self, message: &ModelMessage) -> u64 {
        let bytes = match message {
            ModelMessage::User { content, .. } => content.len(),
            ModelMessage::Assistant { content, tool_calls } => {
                content.len()
                    + tool_calls
                        .iter()
                        .map(|c| c.name.len() + c.arguments.len() + 16)
                        .sum::<usize>()
            }
            ModelMessage::Tool { content, name, call_id, .. } => {
                content.len() + name.len() + call_id.len()
            }
            // Sent as three messages: the note, Preflight's call, and the data.
            ModelMessage::Record { note, call_id, data } => {
                return self.bytes(note.len() + 2 * call_id.len() + data.len() + 32)
                    + 3 * MESSAGE_OVERHEAD;
            }
        };
        // An image counts as its fixed figure, in the bytes the ratio scales.
        let images = message.images().len() * (IMAGE_TOKENS as usize * 4);
        self.bytes(bytes + images) + MESSAGE_OVERHEAD
    }

    fn bytes(&self, bytes: usize) -> u64 {
        ((bytes as f64 / 4.0) * self.ratio).ceil() as u64
    }

    /// Learns from the provider's count of a request this estimator put at `estimated`:
    /// later estimates scale by what it showed (bounded, so one odd count cannot swing it).
    pub fn correct(&mut self, estimated: u64, reported: u64) {
        if estimated == 0 || reported == 0 {
            return;
        }
        let seen = reported as f64 / (estimated as f64 / self.ratio);
        self.ratio = seen.clamp(0.5, 4.0);
    }
}

/// The rounds of `messages` as index ranges: a user message alone, an assistant message with
/// the tool results that follow it.
pub fn rounds(messages: &[ModelMessage]) -> Vec<std::ops::Range<usize>> {
    let mut rounds = Vec::new();
    let mut index = 0;
    while index < messages.len() {
        let start = index;
        index += 1;
        if matches!(messages[start], ModelMessage::Assistant { .. }) {
            while index < messages.len() && matches!(messages[index], ModelMessage::Tool { .. }) {
                index += 1;
            }
        }
        rounds.push(start..index);
    }
    rounds
}

/// Elides tool results to stubs, oldest first, never in the last round, until `over`
/// (tokens to shed) is shed or nothing is left to elide. Returns the tokens shed.
pub fn elide_old_results(messages: &mut [ModelMessage], estimator: &Estimator, over: u64) -> u64 {
    let Some(last) = rounds(messages).last().map(|round| round.start) else { return 0 };
    let mut shed = 0;
    for index in 0..last {
        if shed >= over {
            break;
        }
        let ModelMessage::Tool { content, name, call_id, .. } = &messages[index] else { continue };
        if content.len() <= ELIDE_ABOVE_BYTES || content.starts_with(STUB_MARK) {
            continue;
        }
        let stub = stub_text(name, arguments_of(&messages[..index], call_id), content.len());
        let before = estimator.message(&messages[index]);
        if let ModelMessage::Tool { content, .. } = &mut messages[index] {
            *content = stub;
        }
        shed += before.saturating_sub(estimator.message(&messages[index]));
    }
    shed
}

/// Replaces images by a one-line stub in their message's text, oldest first, until `over`
/// (tokens to shed) is shed: never the latest user message's (what the user asks about now)
/// nor the last round's. Images go before tool results: each is worth many lines of text,
/// and the model has read what it needed of an old one. Returns the tokens shed.
pub fn elide_old_images(messages: &mut [ModelMessage], estimator: &Estimator, over: u64) -> u64 {
    let Some(last) = rounds(messages).last().map(|round| round.start) else { return 0 };
    let latest_user = messages.iter().rposition(|m| matches!(m, ModelMessage::User { .. }));
    let mut shed = 0;
    for index in (0..last).filter(|index| Some(*index) != latest_user) {
        if shed >= over {
            break;
        }
        if messages[index].images().is_empty() {
            continue;
        }
        let before = estimator.message(&messages[index]);
        stub_images(&mut messages[index]);
        shed += before.saturating_sub(estimator.message(&messages[index]));
    }
    shed
}

/// Moves the message's images out, a stub line for each in its text.
fn stub_images(message: &mut ModelMessage) {
    let (ModelMessage::User { content, images } | ModelMessage::Tool { content, images, .. }) =
        message
    else {
        return;
    };
    for image in images.drain(..) {
        let size = size_text(image.decoded_len());
        content.push_str(&format!(
            "\n[image {}, {size}, elided by Preflight to keep the conversation within the \
             model's context]",
            image.media_type
        ));
    }
}

/// How every stub begins, so a stub is never elided again.
const STUB_MARK: &str = "[elided by Preflight] ";

/// "[elided by Preflight] output of read_text_file {"path":"src/a.rs"}, 12 KB — call again if needed"
fn stub_text(name: &str, arguments: Option<&str>, bytes: usize) -> String {
    let arguments = arguments.map(|text| {
        let short: String = text.chars().take(120).collect();
        if short.len() < text.len() {
            format!(" {short}…")
        } else {
            format!(" {short}")
        }
    });
    let size = size_text(bytes);
    format!(
        "{STUB_MARK}output of {name}{}, {size}, elided to keep the conversation within the \
         model's context — call the tool again if you need it",
        arguments.unwrap_or_default()
    )
}

/// "12 KB", or "300 bytes" below a kilobyte.
fn size_text(bytes: usize) -> String {
    if bytes >= 1024 {
        format!("{} KB", bytes.div_ceil(1024))
    } else {
        format!("{bytes} bytes")
    }
}

/// The arguments of the call `call_id`, from the assistant message before its result.
fn arguments_of<'a>(before: &'a [ModelMessage], call_id: &str) -> Option<&'a str> {
    before.iter().rev().find_map(|message| match message {
        ModelMessage::Assistant { tool_calls, .. } => {
            tool_calls.iter().find(|call| call.id == call_id).map(|call| call.arguments.as_str())
        }
        _ => None,
    })
}

/// The oldest span of whole rounds to replace by a summary: after the first `keep_first`
/// messages (the user's task), before the last round, and just long enough to shed `over`
/// tokens (estimated). `None` when there is no such span with at least one of the model's
/// rounds (an earlier summary alone is not summarised again).
pub fn compaction_span(
    messages: &[ModelMessage],
    estimator: &Estimator,
    keep_first: usize,
    over: u64,
) -> Option<std::ops::Range<usize>> {
    let all = rounds(messages);
    let candidates: Vec<_> = all
        .iter()
        .take(all.len().saturating_sub(1))
        .filter(|round| round.start >= keep_first)
        .collect();
    let first = candidates.first()?.start;
    let mut end = first;
    let mut shed = 0;
    for round in candidates {
        shed += messages[round.clone()].iter().map(|m| estimator.message(m)).sum::<u64>();
        end = round.end;
        if shed >= over {
            break;
        }
    }
    // A span of summaries alone sheds nothing worth a call.
    let worth = messages[first..end].iter().any(|m| matches!(m, ModelMessage::Assistant { .. }));
    (end > first && worth).then_some(first..end)
}

/// A turn's context budget and what it learned of the provider's counts.
pub(super) struct ContextState {
    pub(super) budget: Budget,
    pub(super) estimator: Estimator,
}

impl ContextState {
    pub(super) fn new(budget: Budget) -> ContextState {
        ContextState { budget, estimator: Estimator::default() }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use preflight_protocol::chat::ToolCall;

    fn call(id: &str, path: &str) -> ModelMessage {
        let arguments = format!("{{\"path\":\"{path}\"}}");
        let tool_calls = vec![ToolCall { id: id.into(), name: "read".into(), arguments }];
        ModelMessage::Assistant { content: String::new(), tool_calls }
    }

    fn result(id: &str, bytes: usize) -> ModelMessage {
        ModelMessage::Tool {
            call_id: id.into(),
            name: "read".into(),
            content: "x".repeat(bytes),
            is_error: false,
            images: vec![],
        }
    }

    fn history() -> Vec<ModelMessage> {
        vec![
            ModelMessage::user("read them"),
            call("c1", "a.rs"),
            result("c1", 12_000),
            call("c2", "b.rs"),
            result("c2", 300),
            call("c3", "c.rs"),
            result("c3", 12_000),
        ]
    }

    #[test]
    fn rounds_keep_a_call_with_its_results() {
        assert_eq!(rounds(&history()), [0..1, 1..3, 3..5, 5..7]);
    }

    #[test]
    fn elision_goes_oldest_first_never_touches_the_last_round_and_names_the_call() {
        let mut messages = history();
        let estimator = Estimator::default();
        let shed = elide_old_results(&mut messages, &estimator, u64::MAX);
        let ModelMessage::Tool { content, .. } = &messages[2] else { panic!() };
        assert!(content.contains("output of read {\"path\":\"a.rs\"}, 12 KB"), "{content}");
        assert!(shed > 2_900, "{shed}");
        assert!(
            matches!(&messages[4], ModelMessage::Tool { content, .. } if content.len() == 300),
            "small results stay"
        );
        assert!(
            matches!(&messages[6], ModelMessage::Tool { content, .. } if content.len() == 12_000),
            "the last round stays"
        );
        let again = elide_old_results(&mut messages, &estimator, u64::MAX);
        assert_eq!(again, 0, "a stub is never elided again");
    }

    fn with_images(mut message: ModelMessage, data: &[&str]) -> ModelMessage {
        let image = |data: &&str| preflight_protocol::chat::ImagePart::new("image/png", *data);
        *message.images_mut().unwrap() = data.iter().map(image).collect();
        message
    }

    /// Images are counted at their fixed figure and stubbed oldest first; the latest user
    /// message's and the last round's stay.
    #[test]
    fn old_images_are_elided_first_and_the_latest_users_stay() {
        let estimator = Estimator::default();
        let photo = "A".repeat(400_000);
        let mut messages = vec![
            with_images(ModelMessage::user("look"), &[&photo]),
            call("c1", "shot"),
            with_images(result("c1", 10), &["BBBB"]),
            with_images(ModelMessage::user("and this?"), &["CCCC"]),
            call("c2", "shot"),
            with_images(result("c2", 10), &["DDDD"]),
        ];
        let counted = estimator.message(&messages[0]);
        assert!((IMAGE_TOKENS..IMAGE_TOKENS + 10).contains(&counted), "{counted}, not its bytes");
        let shed = elide_old_images(&mut messages, &estimator, 1);
        assert!(shed > 1_500, "{shed}");
        let ModelMessage::User { content, images } = &messages[0] else { panic!() };
        assert!(images.is_empty(), "the oldest went first");
        assert!(content.ends_with("[image image/png, 293 KB, elided by Preflight to keep the conversation within the model's context]"), "{content}");
        assert_eq!(messages[2].images().len(), 1, "one was enough");
        elide_old_images(&mut messages, &estimator, u64::MAX);
        let left: Vec<usize> = messages.iter().map(|m| m.images().len()).collect();
        assert_eq!(left, [0, 0, 0, 1, 0, 1], "the latest user message's and the last round's stay");
    }

    #[test]
    fn a_compaction_span_is_whole_rounds_after_the_task_and_before_the_last_round() {
        let messages = history();
        let estimator = Estimator::default();
        assert_eq!(compaction_span(&messages, &estimator, 1, 1), Some(1..3));
        assert_eq!(compaction_span(&messages, &estimator, 1, u64::MAX), Some(1..5));
        let summary_only = vec![
            ModelMessage::user("task"),
            ModelMessage::user("summary"),
            call("c", "x"),
            result("c", 10),
        ];
        assert_eq!(compaction_span(&summary_only, &estimator, 1, u64::MAX), None);
    }

    #[test]
    fn estimates_learn_from_the_providers_count() {
        let request = ModelRequest { system: "s".repeat(4000), ..ModelRequest::default() };
        let mut estimator = Estimator::default();
        assert_eq!(estimator.request(&request), 1000);
        estimator.correct(1000, 1500);
        assert_eq!(estimator.request(&request), 1500);
        estimator.correct(1500, 1_000_000);
        assert_eq!(estimator.request(&request), 4000, "bounded at 4×");
    }

    #[test]
    fn the_budget_comes_from_the_settings_then_the_model_then_the_default() {
        use preflight_llm::Budget;
        assert_eq!(
            Budget::for_model(Some(16_000), "gpt-4o", None),
            Budget { window: 16_000, reserve: 4_000 }
        );
        assert_eq!(Budget::for_model(None, "openai/gpt-4o-mini", Some(1000)).window, 128_000);
        assert_eq!(Budget::for_model(None, "my-local-model", None).window, 32_768);
        assert_eq!(
            Budget::for_model(Some(1000), "x", Some(4000)).reserve,
            500,
            "a reserve never takes over half"
        );
    }
}
