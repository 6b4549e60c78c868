//! The embedded model behind the engine's [`Provider`] trait: each call generates on a
//! blocking thread and streams text back over a channel; a stop ends the stream at once and
//! the generation at its next token. The model is loaded by the first call that needs it
//! ([`ModelHandle`]), so an app that never asks the embedded model never pays its memory or
//! its load time, and start-up does not wait for it.
//!
//! Honest by construction: a planner card says it came from a tiny offline model and that a
//! real one plans far better, and an executor answer to a turn that offered tools says
//! the model cannot use them yet. These notes are text the provider adds, outside what the
//! model samples.

use std::sync::{Arc, Mutex, PoisonError};

use futures_util::stream;
use preflight_llm::{
    LlmError, ModelRequest, OutputConstraint, Provider, ResponseStream, SetupError, StreamEvent,
    Usage,
};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use crate::model::{EmbeddedModel, GenerateOptions};
use crate::threads::Threads;

/// Events buffered between the generating thread and the reader.
const CHANNEL: usize = 256;

/// Loads the model a handle names.
pub type Loader = Box<dyn Fn() -> Result<Arc<EmbeddedModel>, SetupError> + Send + Sync>;

/// A provider's model: loaded already, or on first use and then kept. Concurrent first uses
/// (the planner and the executor) wait for one load.
pub struct ModelHandle {
    name: String,
    model: Mutex<Option<Arc<EmbeddedModel>>>,
    load: Option<Loader>,
}

impl ModelHandle {
    pub fn loaded(model: Arc<EmbeddedModel>) -> ModelHandle {
        ModelHandle { name: model.name().to_owned(), model: Mutex::new(Some(model)), load: None }
    }

    /// `name` is what the window and the notes call the model before it is loaded.
    pub fn lazy(name: impl Into<String>, load: Loader) -> ModelHandle {
        ModelHandle { name: name.into(), model: Mutex::new(None), load: Some(load) }
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    /// The model, loading it now if it is not yet (blocking: call off the async threads).
    pub fn get(&self) -> Result<Arc<EmbeddedModel>, SetupError> {
        let mut model = self.model.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(model) = &*model {
            return Ok(Arc::clone(model));
        }
        let load = self
            .load
            .as_ref()
            .ok_or_else(|| SetupError::EmbeddedModel { detail: "no model to load".into() })?;
        let loaded = load()?;
        *model = Some(Arc::clone(&loaded));
        Ok(loaded)
    }

    /// Whether the model is in memory.
    pub fn is_loaded(&self) -> bool {
        self.model.lock().unwrap_or_else(PoisonError::into_inner).is_some()
    }
}

pub struct EmbeddedProvider {
    model: Arc<ModelHandle>,
    /// `model()`'s answer: the model's name, marked as embedded.
    label: String,
    max_tokens: u32,
    threads: Threads,
}

impl EmbeddedProvider {
    pub fn new(model: Arc<EmbeddedModel>, max_tokens: u32, threads: Threads) -> EmbeddedProvider {
        EmbeddedProvider::with_handle(ModelHandle::loaded(model), max_tokens, threads)
    }

    pub fn with_handle(model: ModelHandle, max_tokens: u32, threads: Threads) -> EmbeddedProvider {
        let label = format!("{} (embedded)", model.name());
        EmbeddedProvider { model: Arc::new(model), label, max_tokens, threads }
    }

    /// Whether the model has been loaded (by a first call).
    pub fn is_loaded(&self) -> bool {
        self.model.is_loaded()
    }

    /// The line that opens an answer, if it needs one.
    fn note(&self, request: &ModelRequest) -> Option<String> {
        match request.output {
            OutputConstraint::PlannerFence => Some(planner_note(self.model.name())),
            OutputConstraint::Free if !request.tools.is_empty() => Some(TOOLS_NOTE.to_owned()),
            OutputConstraint::Free => None,
        }
    }
}

/// Opens every card the embedded model plans.
pub fn planner_note(model: &str) -> String {
    format!(
        "_Planned offline by the embedded tiny model ({model}). A real model — Ollama, an \
         OpenAI-compatible server or Anthropic, set in Settings — gives far better plans._\n\n"
    )
}

/// Opens an executor answer when the turn offered tools.
pub const TOOLS_NOTE: &str =
    "_The embedded tiny model cannot use tools yet, so this is a plain-text answer; \
     a real model (Ollama, an OpenAI-compatible server or Anthropic) can work on your files._\n\n";

#[async_trait::async_trait]
impl Provider for EmbeddedProvider {
    fn model(&self) -> &str {
        &self.label
    }

    fn calls_tools(&self) -> bool {
        false
    }

    async fn stream(
        &self,
        request: &ModelRequest,
        cancel: &CancellationToken,
    ) -> Result<ResponseStream, LlmError> {
        let (sender, receiver) = mpsc::channel(CHANNEL);
        if let Some(note) = self.note(request) {
            let _ = sender.try_send(Ok(StreamEvent::TextDelta(note)));
        }
        let handle = Arc::clone(&self.model);
        let request = request.clone();
        let options =
            GenerateOptions { max_tokens: self.max_tokens, threads: self.threads, seed: seed() };
        let worker_cancel = cancel.clone();
        tokio::task::spawn_blocking(move || {
            let mut on_text = |text: &str| {
                sender.blocking_send(Ok(StreamEvent::TextDelta(text.to_owned()))).is_ok()
            };
            let generated = handle
                .get()
                .map_err(not_loaded)
                .and_then(|model| model.generate(&request, &options, &worker_cancel, &mut on_text));
            let events = match generated {
                Ok(done) => vec![
                    Ok(StreamEvent::Usage(Usage {
                        input_tokens: done.stats.prompt_tokens as u64,
                        output_tokens: done.stats.output_tokens as u64,
                        cached_input_tokens: 0,
                    })),
                    Ok(StreamEvent::Finished(done.finish)),
                ],
                Err(error) => vec![Err(error)],
            };
            for event in events {
                if sender.blocking_send(event).is_err() {
                    break;
                }
            }
        });
        Ok(ResponseStream::new(events(receiver, cancel.clone())))
    }
}

/// A model that would not load, as the error of the call that needed it.
fn not_loaded(error: SetupError) -> LlmError {
    LlmError::Unavailable { status: None, message: error.to_string() }
}

/// The channel's events until the last one, an error, or the token firing (then
/// `Cancelled`, and nothing after it).
fn events(
    receiver: mpsc::Receiver<Result<StreamEvent, LlmError>>,
    cancel: CancellationToken,
) -> impl futures_util::Stream<Item = Result<StreamEvent, LlmError>> + Send {
    stream::unfold(Some((receiver, cancel)), |state| async move {
        let (mut receiver, cancel) = state?;
        let event = tokio::select! {
            biased;
            () = cancel.cancelled() => Err(LlmError::Cancelled),
            event = receiver.recv() => event.unwrap_or_else(|| Err(LlmError::StreamCut { detail: "the embedded model stopped".into() })),
        };
        let last = matches!(event, Err(_) | Ok(StreamEvent::Finished(_)));
        Some((event, (!last).then_some((receiver, cancel))))
    })
}

/// A new seed per answer, so that asking again can give another answer.
fn seed() -> u32 {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    nanos ^ std::process::id()
}

#[cfg(test)]
mod tests {
    use futures_util::StreamExt;
    use preflight_llm::FinishReason;

    use super::*;

    #[tokio::test]
    async fn the_stream_ends_with_its_last_event_or_the_stop() {
        let (sender, receiver) = mpsc::channel(4);
        sender.send(Ok(StreamEvent::TextDelta("a".into()))).await.unwrap();
        sender.send(Ok(StreamEvent::Finished(FinishReason::Stop))).await.unwrap();
        sender.send(Ok(StreamEvent::TextDelta("after".into()))).await.unwrap();
        let seen: Vec<_> = events(receiver, CancellationToken::new()).collect().await;
        assert_eq!(
            seen,
            [Ok(StreamEvent::TextDelta("a".into())), Ok(StreamEvent::Finished(FinishReason::Stop))]
        );

        let (sender, receiver) = mpsc::channel(4);
        let cancel = CancellationToken::new();
        let mut stream = Box::pin(events(receiver, cancel.clone()));
        sender.send(Ok(StreamEvent::TextDelta("a".into()))).await.unwrap();
        assert_eq!(stream.next().await, Some(Ok(StreamEvent::TextDelta("a".into()))));
        cancel.cancel();
        assert_eq!(stream.next().await, Some(Err(LlmError::Cancelled)));
        assert_eq!(stream.next().await, None, "nothing after the stop");

        let (sender, receiver) = mpsc::channel::<Result<StreamEvent, LlmError>>(4);
        drop(sender);
        let seen: Vec<_> = events(receiver, CancellationToken::new()).collect().await;
        assert!(matches!(seen.as_slice(), [Err(LlmError::StreamCut { .. })]));
    }

    #[tokio::test]
    async fn the_model_loads_at_the_first_call_and_a_failed_load_fails_that_call() {
        use std::sync::atomic::{AtomicUsize, Ordering};
        let loads = Arc::new(AtomicUsize::new(0));
        let counted = Arc::clone(&loads);
        let loader: Loader = Box::new(move || {
            counted.fetch_add(1, Ordering::SeqCst);
            Err(SetupError::EmbeddedModel { detail: "the model file is truncated".into() })
        });
        let provider =
            EmbeddedProvider::with_handle(ModelHandle::lazy("Tiny", loader), 16, Threads::Fixed(1));
        assert_eq!(provider.model(), "Tiny (embedded)", "named before it is loaded");
        assert_eq!(loads.load(Ordering::SeqCst), 0, "opening the provider loads nothing");
        for attempt in 1..=2 {
            let error = provider
                .stream(&ModelRequest::default(), &CancellationToken::new())
                .await
                .unwrap()
                .collect()
                .await
                .unwrap_err();
            assert!(
                matches!(&error, LlmError::Unavailable { message, .. } if message.contains("truncated")),
                "{error}"
            );
            assert_eq!(
                loads.load(Ordering::SeqCst),
                attempt,
                "a failed load is tried again by the next call"
            );
        }
        assert!(!provider.is_loaded());
    }
}
