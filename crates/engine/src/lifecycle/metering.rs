//! Every model call of a chat counted (DESIGN §15): [`Metered`] stands in front of the chat's
//! provider for one turn and stores each call's usage, as the provider reported it, when the
//! call ends — its phase, provider, model, window and cost at the user's prices — so the
//! chat's view can sum what planning and execution used and cost.
//!
//! **Invariant:** one row per call that got an answer: at its final event, or when it is cut
//! or dropped after the provider reported usage; never two for one call.

use std::sync::Arc;

use futures_util::StreamExt;
use preflight_llm::{Budget, LlmError, ModelRequest, Provider, ResponseStream, StreamEvent, Usage};
use preflight_protocol::chat::Chat;
use preflight_protocol::ids::ChatId;
use preflight_protocol::usage::{ModelCall, UsagePhase};
use preflight_store::Store;
use tokio_util::sync::CancellationToken;

use crate::lifecycle::providers::{ChatModel, Providers, Role};

/// Where a chat's calls are counted.
struct Meter {
    store: Arc<Store>,
    chat_id: ChatId,
    phase: UsagePhase,
    model: ChatModel,
}

impl Meter {
    fn record(&self, usage: Usage) {
        let call = ModelCall {
            phase: self.phase,
            provider: self.model.choice.provider.clone(),
            model: self.model.choice.model.clone(),
            input_tokens: usage.input_tokens,
            output_tokens: usage.output_tokens,
            cached_input_tokens: usage.cached_input_tokens,
            context_window: Some(self.model.window),
            cost_usd: self.model.prices.cost(
                usage.input_tokens,
                usage.output_tokens,
                usage.cached_input_tokens,
            ),
        };
        if let Err(error) = self.store.record_model_call(&self.chat_id, &call) {
            // A chat deleted under its own turn has nowhere to count; the turn goes on.
            tracing::warn!(chat_id = %self.chat_id, %error, "a model call's usage was not stored");
        }
    }
}

/// The chat's provider, counted.
pub(crate) struct Metered {
    meter: Arc<Meter>,
}

impl Metered {
    /// The provider the chat's next `role` request goes to, counted in the phase the role
    /// works in; why there is none, in words for the chat.
    pub(crate) async fn for_chat(
        store: &Arc<Store>,
        providers: &Providers,
        chat: &Chat,
        role: Role,
    ) -> Result<Metered, String> {
        let model = providers.for_chat(chat, role).await?;
        let phase = match role {
            Role::Planner => UsagePhase::Planning,
            Role::Executor => UsagePhase::Execution,
        };
        let meter = Meter { store: Arc::clone(store), chat_id: chat.id.clone(), phase, model };
        Ok(Metered { meter: Arc::new(meter) })
    }

    fn provider(&self) -> &dyn Provider {
        self.meter.model.provider.as_ref()
    }
}

/// One call's usage so far; stored once, at its end.
struct Tap {
    meter: Arc<Meter>,
    seen: Usage,
    reported: bool,
    stored: bool,
}

impl Tap {
    fn observe(&mut self, event: &Result<StreamEvent, LlmError>) {
        match event {
            Ok(StreamEvent::Usage(usage)) => {
                self.seen.add(*usage);
                self.reported = true;
            }
            Ok(StreamEvent::Finished(_)) => self.store(),
            _ => {}
        }
    }

    fn store(&mut self) {
        if !self.stored {
            self.stored = true;
            self.meter.record(self.seen);
        }
    }
}

impl Drop for Tap {
    /// A call cut or stopped after its usage came is still counted.
    fn drop(&mut self) {
        if self.reported {
            self.store();
        }
    }
}

#[async_trait::async_trait]
impl Provider for Metered {
    fn model(&self) -> &str {
        self.provider().model()
    }

    fn calls_tools(&self) -> bool {
        self.provider().calls_tools()
    }

    fn budget(&self) -> Budget {
        self.provider().budget()
    }

    fn sees_images(&self) -> bool {
        self.provider().sees_images()
    }

    async fn stream(
        &self,
        request: &ModelRequest,
        cancel: &CancellationToken,
    ) -> Result<ResponseStream, LlmError> {
        let stream = self.provider().stream(request, cancel).await?;
        let tap = Tap {
            meter: Arc::clone(&self.meter),
            seen: Usage::default(),
            reported: false,
            stored: false,
        };
        let counted = futures_util::stream::unfold((stream, tap), |(mut stream, mut tap)| async {
            let event = stream.next().await?;
            tap.observe(&event);
            Some((event, (stream, tap)))
        });
        Ok(ResponseStream::new(counted.boxed()))
    }
}
