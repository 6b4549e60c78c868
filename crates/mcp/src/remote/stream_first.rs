//! The server's own event stream is open before the session's first request goes out.
//!
//! rmcp opens a session's GET event stream in a task of its own right after
//! `notifications/initialized`, and sends the next requests at the same time. A server that
//! answers a request with a request of its own on that stream (an elicitation, a sampling
//! request) may send it before the GET has arrived; a server holding no stream yet drops
//! such a message (the TypeScript SDK's transport does, as the spec allows), and the tool
//! call then waits for an answer to a question nobody received. [`StreamFirst`] holds a
//! session's requests until the GET has been answered (opened, or refused by a server that
//! has no such stream), or [`HOLD`] has passed.
//!
//! Only requests wait: `initialize` and notifications go at once (the GET starts after
//! `notifications/initialized`), and so do the client's answers to the server. A 2026-07-28
//! connection has no session (and no such stream: a server's questions come back in its
//! `input_required` answers), so nothing of it waits.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use futures_util::stream::BoxStream;
use http::{HeaderName, HeaderValue};
use rmcp::model::{ClientJsonRpcMessage, ClientRequest, JsonRpcMessage};
use rmcp::transport::streamable_http_client::{
    StreamableHttpClient, StreamableHttpError, StreamableHttpPostResponse,
    StreamableHttpResponseLimits,
};
use sse_stream::{Error as SseError, Sse};
use tokio::sync::watch;

/// How long a request waits for the event stream before going anyway.
pub(crate) const HOLD: Duration = Duration::from_secs(3);

/// An HTTP client for rmcp's transport that sends requests only once the session's event
/// stream has been answered.
#[derive(Clone)]
pub(crate) struct StreamFirst<C> {
    inner: C,
    answered: Arc<watch::Sender<bool>>,
}

impl<C> StreamFirst<C> {
    pub(crate) fn new(inner: C) -> Self {
        Self { inner, answered: Arc::new(watch::channel(false).0) }
    }

    /// Waits (at most [`HOLD`]) for the GET when `message` is a request of a session.
    async fn wait_for_stream(&self, message: &ClientJsonRpcMessage, session: bool) {
        if !session || !holds(message) {
            return;
        }
        let mut answered = self.answered.subscribe();
        if tokio::time::timeout(HOLD, answered.wait_for(|answered| *answered)).await.is_err() {
            tracing::debug!("the server's event stream did not answer in time; sending anyway");
        }
    }

    fn stream_answered(&self) {
        self.answered.send_replace(true);
    }
}

/// Whether `message` waits for the event stream: a request other than `initialize`.
fn holds(message: &ClientJsonRpcMessage) -> bool {
    match message {
        JsonRpcMessage::Request(request) => {
            !matches!(request.request, ClientRequest::InitializeRequest(_))
        }
        _ => false,
    }
}

type PostResult<E> = Result<StreamableHttpPostResponse, StreamableHttpError<E>>;
type GetResult<E> = Result<BoxStream<'static, Result<Sse, SseError>>, StreamableHttpError<E>>;

impl<C: StreamableHttpClient + Sync> StreamableHttpClient for StreamFirst<C> {
    type Error = C::Error;

    async fn post_message(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> PostResult<C::Error> {
        self.wait_for_stream(&message, session_id.is_some()).await;
        self.inner.post_message(uri, message, session_id, auth_header, custom_headers).await
    }

    async fn post_message_with_max_sse_event_size(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
        max_sse_event_size: usize,
    ) -> PostResult<C::Error> {
        self.wait_for_stream(&message, session_id.is_some()).await;
        self.inner
            .post_message_with_max_sse_event_size(
                uri,
                message,
                session_id,
                auth_header,
                custom_headers,
                max_sse_event_size,
            )
            .await
    }

    async fn post_message_with_response_limits(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
        limits: StreamableHttpResponseLimits,
    ) -> PostResult<C::Error> {
        self.wait_for_stream(&message, session_id.is_some()).await;
        self.inner
            .post_message_with_response_limits(
                uri,
                message,
                session_id,
                auth_header,
                custom_headers,
                limits,
            )
            .await
    }

    async fn delete_session(
        &self,
        uri: Arc<str>,
        session_id: Arc<str>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<(), StreamableHttpError<C::Error>> {
        self.inner.delete_session(uri, session_id, auth_header, custom_headers).await
    }

    async fn get_stream(
        &self,
        uri: Arc<str>,
        session_id: Option<Arc<str>>,
        last_event_id: Option<String>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> GetResult<C::Error> {
        let stream = self
            .inner
            .get_stream(uri, session_id, last_event_id, auth_header, custom_headers)
            .await;
        self.stream_answered();
        stream
    }

    async fn get_stream_with_max_sse_event_size(
        &self,
        uri: Arc<str>,
        session_id: Option<Arc<str>>,
        last_event_id: Option<String>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
        max_sse_event_size: usize,
    ) -> GetResult<C::Error> {
        let stream = self
            .inner
            .get_stream_with_max_sse_event_size(
                uri,
                session_id,
                last_event_id,
                auth_header,
                custom_headers,
                max_sse_event_size,
            )
            .await;
        self.stream_answered();
        stream
    }
}
