//! A provider whose every request carries an output constraint: how a turn that needs a
//! shape (the planner's fence) asks for it without the agent loop knowing about shapes.

use tokio_util::sync::CancellationToken;

use super::{LlmError, ModelRequest, OutputConstraint, Provider, ResponseStream};

/// `inner`, with `output` set on each request it is sent.
pub struct Constrained<'a> {
    inner: &'a dyn Provider,
    output: OutputConstraint,
}

impl<'a> Constrained<'a> {
    pub fn new(inner: &'a dyn Provider, output: OutputConstraint) -> Constrained<'a> {
        Constrained { inner, output }
    }
}

#[async_trait::async_trait]
impl Provider for Constrained<'_> {
    fn model(&self) -> &str {
        self.inner.model()
    }

    fn budget(&self) -> super::Budget {
        self.inner.budget()
    }

    fn calls_tools(&self) -> bool {
        self.inner.calls_tools()
    }

    fn sees_images(&self) -> bool {
        self.inner.sees_images()
    }

    async fn stream(
        &self,
        request: &ModelRequest,
        cancel: &CancellationToken,
    ) -> Result<ResponseStream, LlmError> {
        let request = ModelRequest { output: self.output, ..request.clone() };
        self.inner.stream(&request, cancel).await
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Mutex;

    use super::*;
    use crate::{FinishReason, StreamEvent};

    /// Remembers the constraint of the last request.
    #[derive(Default)]
    struct Recorder(Mutex<Option<OutputConstraint>>);

    #[async_trait::async_trait]
    impl Provider for Recorder {
        fn model(&self) -> &str {
            "recorder"
        }

        async fn stream(
            &self,
            request: &ModelRequest,
            _: &CancellationToken,
        ) -> Result<ResponseStream, LlmError> {
            *self.0.lock().unwrap() = Some(request.output);
            Ok(ResponseStream::new(futures_util::stream::iter([Ok(StreamEvent::Finished(
                FinishReason::Stop,
            ))])))
        }
    }

    #[tokio::test]
    async fn every_request_carries_the_constraint() {
        let recorder = Recorder::default();
        let planner = Constrained::new(&recorder, OutputConstraint::PlannerFence);
        assert_eq!(planner.model(), "recorder");
        planner.complete(&ModelRequest::default(), &CancellationToken::new()).await.unwrap();
        assert_eq!(*recorder.0.lock().unwrap(), Some(OutputConstraint::PlannerFence));
        recorder.complete(&ModelRequest::default(), &CancellationToken::new()).await.unwrap();
        assert_eq!(
            *recorder.0.lock().unwrap(),
            Some(OutputConstraint::Free),
            "the default is free text"
        );
    }
}
