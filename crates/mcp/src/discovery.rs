//! The probe of the stateless revision, kept honest: [`Probe`] wraps a connection's
//! transport and turns an answer to `server/discover` that is not a discovery result into
//! the JSON-RPC error an older server gives for a method it does not know.
//!
//! Why: rmcp's negotiation falls back to `initialize` when discovery fails with a JSON-RPC
//! error, but takes any other *result* as a broken server and gives up. Servers of the
//! 2025 revisions that answer every method they do not know with an empty result exist (the
//! conformance suite's own 2025-11-25 test servers are such), and they speak
//! `initialize` perfectly well. A server that does speak 2026-07-28 answers with a
//! `DiscoverResult`, which passes through untouched; so does every other message.

use std::future::Future;

use rmcp::model::{ClientRequest, ErrorCode, ErrorData, JsonRpcMessage, RequestId, ServerResult};
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use rmcp::RoleClient;

/// A transport whose `server/discover` answers are either discovery results or errors.
pub(crate) struct Probe<T> {
    inner: T,
    /// The ids of the `server/discover` requests sent and not yet answered.
    pending: Vec<RequestId>,
}

impl<T> Probe<T> {
    pub(crate) fn new(inner: T) -> Self {
        Probe { inner, pending: Vec::new() }
    }

    /// `message`, or the error it stands for when it answers a discovery with something
    /// else than a discovery result.
    fn judged(&mut self, message: RxJsonRpcMessage<RoleClient>) -> RxJsonRpcMessage<RoleClient> {
        let (id, discovered) = match &message {
            JsonRpcMessage::Response(response) => {
                (&response.id, matches!(response.result, ServerResult::DiscoverResult(_)))
            }
            JsonRpcMessage::Error(error) => match &error.id {
                Some(id) => (id, true),
                None => return message,
            },
            _ => return message,
        };
        let Some(at) = self.pending.iter().position(|pending| pending == id) else {
            return message;
        };
        let id = self.pending.swap_remove(at);
        if discovered {
            return message;
        }
        tracing::debug!(
            "`server/discover` was answered without a discovery result: an older server"
        );
        let error = ErrorData::new(
            ErrorCode::METHOD_NOT_FOUND,
            "server/discover was answered without a discovery result",
            None,
        );
        JsonRpcMessage::error(error, Some(id))
    }
}

impl<T: Transport<RoleClient>> Transport<RoleClient> for Probe<T> {
    type Error = T::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleClient>,
    ) -> impl Future<Output = Result<(), T::Error>> + Send + 'static {
        if let JsonRpcMessage::Request(request) = &item {
            if matches!(request.request, ClientRequest::DiscoverRequest(_)) {
                self.pending.push(request.id.clone());
            }
        }
        self.inner.send(item)
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleClient>> {
        let message = self.inner.receive().await?;
        Some(self.judged(message))
    }

    async fn close(&mut self) -> Result<(), T::Error> {
        self.inner.close().await
    }
}

#[cfg(test)]
mod tests {
    use rmcp::model::{DiscoverRequest, DiscoverRequestParams, NumberOrString};

    use super::*;

    /// A transport that only records: what the probe does to answers is tested alone.
    struct Silent;

    impl Transport<RoleClient> for Silent {
        type Error = std::io::Error;
        fn send(
            &mut self,
            _item: TxJsonRpcMessage<RoleClient>,
        ) -> impl Future<Output = Result<(), std::io::Error>> + Send + 'static {
            std::future::ready(Ok(()))
        }
        async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleClient>> {
            None
        }
        async fn close(&mut self) -> Result<(), std::io::Error> {
            Ok(())
        }
    }

    fn empty_answer(id: i64) -> RxJsonRpcMessage<RoleClient> {
        JsonRpcMessage::response(ServerResult::empty(()), NumberOrString::Number(id))
    }

    #[tokio::test]
    async fn an_empty_answer_to_discovery_is_an_unknown_method_and_nothing_else_changes() {
        let mut probe = Probe::new(Silent);
        let discover =
            ClientRequest::DiscoverRequest(DiscoverRequest::new(DiscoverRequestParams {}));
        probe.send(JsonRpcMessage::request(discover, NumberOrString::Number(7))).await.unwrap();
        let unrelated = probe.judged(empty_answer(8));
        assert!(matches!(unrelated, JsonRpcMessage::Response(_)), "another request's answer stays");
        match probe.judged(empty_answer(7)) {
            JsonRpcMessage::Error(error) => {
                assert_eq!(error.id, Some(NumberOrString::Number(7)));
                assert_eq!(error.error.code, ErrorCode::METHOD_NOT_FOUND);
            }
            other => panic!("expected an error, got {other:?}"),
        }
        let again = probe.judged(empty_answer(7));
        assert!(matches!(again, JsonRpcMessage::Response(_)), "only the one answer is judged");
    }
}
