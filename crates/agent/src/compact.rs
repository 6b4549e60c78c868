//! Compaction (DESIGN §13): the oldest rounds of the model's view replaced by a summary
//! that the same model writes in a quiet call. The rounds stay in the store; the summary is
//! stored beside them as a compaction record (`role: compaction`, `covers: [first, last]`),
//! so the next turn, or the same chat after a restart, sees the same view.

use std::collections::HashMap;
use std::ops::Range;

use preflight_llm::{LlmError, ModelMessage, ModelRequest, Provider, RECORD_TOOL, SUMMARY_HEADER};
use preflight_protocol::chat::{Message, MessageBody};
use preflight_protocol::ids::MessageId;
use tokio_util::sync::CancellationToken;

use crate::context::{compaction_span, elide_old_images, elide_old_results};
use crate::events::Event;
use crate::images::ImageLoader;
use crate::turn_loop::{AgentError, Interrupt, Reply, Run};

/// The summary call's instructions. Never names the planner's fences.
pub const SUMMARY_PROMPT: &str = "You summarise an agent's earlier work so that it can go on without the full transcript.\n\
Write a compact account of what was asked, what was done and found (file names, commands, results, numbers, decisions), what failed and why, and what was about to happen next.\n\
Keep every identifier, path and figure that later steps may need. Do not invent anything. Plain text, no preamble.";

/// The most of one message the summary call is shown.
const TRANSCRIPT_MESSAGE_CHARS: usize = 4000;

/// The summary of `messages` from the model, or why it could not be had.
pub async fn summarise(
    provider: &dyn Provider,
    messages: &[ModelMessage],
    cancel: &CancellationToken,
) -> Result<String, LlmError> {
    let request = ModelRequest {
        system: SUMMARY_PROMPT.to_owned(),
        messages: vec![ModelMessage::user(transcript(messages))],
        ..ModelRequest::default()
    };
    let answer = provider.complete(&request, cancel).await?;
    let summary = answer.text.trim().to_owned();
    if summary.is_empty() {
        return Err(LlmError::bad_response("the summary call answered nothing"));
    }
    Ok(summary)
}

/// The messages as a readable transcript, each cut to a readable length.
pub fn transcript(messages: &[ModelMessage]) -> String {
    let mut text = String::from("The transcript to summarise:\n");
    for message in messages {
        let (who, mut body) = match message {
            ModelMessage::User { content, .. } => ("user".to_owned(), content.clone()),
            ModelMessage::Assistant { content, tool_calls } => {
                let calls: Vec<String> = tool_calls
                    .iter()
                    .map(|c| format!("calls {}({})", c.name, c.arguments))
                    .collect();
                ("assistant".to_owned(), [content.clone(), calls.join("\n")].join("\n"))
            }
            ModelMessage::Tool { name, content, is_error, .. } => {
                let what = if *is_error { "error" } else { "result" };
                (format!("{name} {what}"), content.clone())
            }
            ModelMessage::Record { note, data, .. } => {
                (format!("user, then {RECORD_TOOL}'s data"), format!("{note}\n{data}"))
            }
        };
        // The summary call is shown no image: it reads that there were some.
        let images = message.images();
        if !images.is_empty() {
            body.push_str(&format!("\n[{} image(s) shown to the model]", images.len()));
        }
        text.push_str(&format!("\n[{who}]\n{}\n", cut(body.trim(), TRANSCRIPT_MESSAGE_CHARS)));
    }
    text
}

fn cut(text: &str, chars: usize) -> String {
    match text.char_indices().nth(chars) {
        Some((at, _)) => format!("{}… ({} more bytes)", &text[..at], text.len() - at),
        None => text.to_owned(),
    }
}

/// The stored record of a compaction covering `first..=last` of the view.
pub fn compaction_record(summary: &str, first: MessageId, last: MessageId) -> Message {
    Message {
        id: MessageId::new(),
        created_at: preflight_dwp::now_rfc3339(),
        body: MessageBody::Compaction { content: summary.to_owned(), covers: [first, last] },
    }
}

/// How a summary stands in the model's view (as a stored compaction does).
pub fn summary_message(summary: &str) -> ModelMessage {
    ModelMessage::user(format!("{SUMMARY_HEADER}\n{summary}"))
}

/// The model's view of stored messages with their compactions in place: each compaction,
/// in the order it was made, replaces the messages it covers (an earlier summary among
/// them) with its summary. A compaction whose covered messages are not in the view (edited
/// away) is left out. `images` shows the messages' images (or not, for a blind model).
/// Returns the view and the id of each of its messages.
pub fn view_of(
    stored: &[&Message],
    images: &mut ImageLoader,
) -> (Vec<ModelMessage>, Vec<Option<MessageId>>) {
    let mut view: Vec<(MessageId, ModelMessage)> = stored
        .iter()
        .filter(|message| !matches!(message.body, MessageBody::Compaction { .. }))
        .map(|message| (message.id.clone(), ModelMessage::from_stored(message)))
        .collect();
    for message in stored {
        let MessageBody::Compaction { covers: [first, last], .. } = &message.body else { continue };
        let start = view.iter().position(|(id, _)| id == first);
        let end = view.iter().position(|(id, _)| id == last);
        match (start, end) {
            (Some(start), Some(end)) if start <= end => {
                let summary = (message.id.clone(), ModelMessage::from_stored(message));
                view.splice(start..=end, [summary]);
            }
            _ => {
                tracing::warn!(id = %message.id, "a compaction whose messages are gone is left out")
            }
        }
    }
    // Images are read for the messages left in the view only: a compacted one's never.
    let by_id: HashMap<&MessageId, &Message> = stored.iter().map(|m| (&m.id, *m)).collect();
    for (id, message) in &mut view {
        if let Some(original) = by_id.get(id) {
            images.show(original, message);
        }
    }
    view.into_iter().map(|(id, message)| (message, Some(id))).unzip()
}

/// Elision sheds down to this share of the limit, compaction to the lower one: a request
/// that just fits would need it again at the next round.
const AFTER_ELISION: f64 = 0.8;
const AFTER_COMPACTION: f64 = 0.6;
/// Summary calls one fit may make before it gives up (each sheds a span of rounds).
const MAX_SUMMARIES: usize = 8;
/// The messages of the view never compacted: the user's task at its start.
const KEEP_FIRST: usize = 1;

impl Run<'_, '_> {
    /// The round's answer from a request made to fit the budget. A provider's context-length
    /// error makes the estimates stricter, fits again and retries once, instead of failing
    /// the turn.
    pub(super) async fn fitted_reply(
        &mut self,
        id: &MessageId,
        cancel: &CancellationToken,
    ) -> Result<Reply, Interrupt> {
        let mut retried = false;
        loop {
            let estimate = self.fit(cancel).await?;
            match self.model_reply(id, cancel).await {
                Ok(reply) => {
                    self.context.estimator.correct(estimate, reply.usage.input_tokens);
                    return Ok(reply);
                }
                Err(Interrupt::Failed(AgentError::Provider(LlmError::ContextTooLong {
                    message,
                }))) if !retried => {
                    tracing::info!(%message, estimate, "the provider found the request too long; compacting");
                    retried = true;
                    let window = u64::from(self.context.budget.window);
                    self.context.estimator.correct(estimate, window + window / 8);
                }
                Err(interrupt) => return Err(interrupt),
            }
        }
    }

    /// Brings the request within the budget: old images elided first, then old tool
    /// results, then the oldest rounds summarised (a turn that stores nothing, the
    /// planner's, only elides). Returns the request's estimate.
    async fn fit(&mut self, cancel: &CancellationToken) -> Result<u64, Interrupt> {
        let limit = self.context.budget.limit();
        let mut estimate = self.context.estimator.request(&self.request);
        if estimate <= limit {
            return Ok(estimate);
        }
        let over = estimate - (limit as f64 * AFTER_ELISION) as u64;
        let (messages, estimator) = (&mut self.request.messages, &self.context.estimator);
        let shed = elide_old_images(messages, estimator, over);
        elide_old_results(messages, estimator, over.saturating_sub(shed));
        estimate = self.context.estimator.request(&self.request);
        if estimate <= limit || self.turn.recorder.is_none() {
            return Ok(estimate);
        }
        let target = (limit as f64 * AFTER_COMPACTION) as u64;
        for _ in 0..MAX_SUMMARIES {
            if estimate <= target {
                break;
            }
            let most = limit / 2;
            let over = (estimate - target).min(most);
            let estimator = &self.context.estimator;
            let Some(span) = compaction_span(&self.request.messages, estimator, KEEP_FIRST, over)
            else {
                break;
            };
            self.compact(span, cancel).await?;
            estimate = self.context.estimator.request(&self.request);
        }
        Ok(estimate)
    }

    /// Replaces `span` of the view by its summary, stored as a compaction record when the
    /// span's messages are stored ones.
    async fn compact(
        &mut self,
        span: Range<usize>,
        cancel: &CancellationToken,
    ) -> Result<(), Interrupt> {
        if let Some(hooks) = &self.turn.hooks {
            hooks.compacting(self.turn.chat_id, span.len()).await;
        }
        let summary =
            match summarise(self.turn.provider, &self.request.messages[span.clone()], cancel).await
            {
                Ok(summary) => summary,
                Err(LlmError::Cancelled) => return Err(Interrupt::Stopped(String::new())),
                Err(error) => return Err(Interrupt::Failed(error.into())),
            };
        let covers = (self.ids[span.start].clone(), self.ids[span.end - 1].clone());
        let mut id = None;
        if let (Some(first), Some(last), Some(recorder)) = (covers.0, covers.1, self.turn.recorder)
        {
            let record = compaction_record(&summary, first, last);
            recorder.record_compaction(&record).map_err(|e| Interrupt::Failed(e.into()))?;
            id = Some(record.id.clone());
            self.events().emit(Event::Message { message: record });
        }
        tracing::info!(messages = span.len(), "earlier rounds summarised");
        self.request.messages.splice(span.clone(), [summary_message(&summary)]);
        self.ids.splice(span, [id]);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn message(id: &str, body: MessageBody) -> Message {
        Message { id: id.into(), created_at: "t".into(), body }
    }

    fn user(id: &str) -> Message {
        message(
            id,
            MessageBody::User {
                content: id.into(),
                files: vec![],
                attachments: vec![],
                plan_answer: false,
                resume: None,
                stopped: None,
                restored: None,
                review: None,
                typed: None,
            },
        )
    }

    fn compaction(id: &str, first: &str, last: &str) -> Message {
        let content = format!("summary {id}");
        message(id, MessageBody::Compaction { content, covers: [first.into(), last.into()] })
    }

    #[test]
    fn compactions_stand_for_what_they_cover_in_the_order_they_were_made() {
        let stored = [
            user("u1"),
            user("m2"),
            user("m3"),
            compaction("k1", "m2", "m3"),
            user("m4"),
            user("m5"),
            compaction("k2", "k1", "m4"),
            compaction("gone", "x", "y"),
        ];
        let refs: Vec<&Message> = stored.iter().collect();
        let (view, ids) = view_of(&refs, &mut ImageLoader::blind());
        let ids: Vec<String> = ids.into_iter().map(|id| id.unwrap().into_string()).collect();
        assert_eq!(ids, ["u1", "k2", "m5"]);
        assert!(
            matches!(&view[1], ModelMessage::User { content, .. } if content.starts_with(SUMMARY_HEADER) && content.ends_with("summary k2"))
        );
    }

    #[test]
    fn the_transcript_cuts_long_messages_and_names_every_call() {
        let call = preflight_protocol::chat::ToolCall {
            id: "c".into(),
            name: "read".into(),
            arguments: "{\"path\":\"a\"}".into(),
        };
        let messages = [
            ModelMessage::Assistant { content: "reading".into(), tool_calls: vec![call] },
            ModelMessage::Tool {
                call_id: "c".into(),
                name: "read".into(),
                content: "y".repeat(10_000),
                is_error: false,
                images: vec![],
            },
        ];
        let text = transcript(&messages);
        assert!(text.contains("calls read({\"path\":\"a\"})"), "{text}");
        assert!(text.contains("… (6000 more bytes)"), "{text}");
    }
}
