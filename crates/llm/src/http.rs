//! The HTTP side both providers share: a client with timeouts and the platform's
//! certificate roots, a streaming POST with retries before the first event, and the reader
//! that turns response bytes into stream events with an idle timeout and cancellation.
//!
//! **Boundary:** no wire format here. A provider passes its pure decoder and its error
//! classifier ([`Wire`]); this file only moves bytes and enforces time.

use std::collections::VecDeque;
use std::future::Future;
use std::time::Duration;

use bytes::Bytes;
use reqwest::header::{HeaderMap, HeaderValue, ACCEPT, CONTENT_TYPE};
use serde::Serialize;
use tokio_util::sync::CancellationToken;

use super::error::SetupError;
use super::retry::{with_retry, RetryPolicy};
use super::sse::{SseDecoder, SseEvent};
use super::{LlmError, ProviderSettings, ResponseStream, StreamEvent, Timeouts};

/// A wire format's streaming decoder: SSE events in, stream events out. Pure.
pub(crate) trait ChunkDecoder: Send {
    /// Decodes one event; an error event of the API becomes `Err`.
    fn decode(&mut self, event: &SseEvent, out: &mut VecDeque<StreamEvent>)
        -> Result<(), LlmError>;
    /// Whether the answer's final event has come: nothing more is read.
    fn is_done(&self) -> bool;
    /// The connection closed: the last events, or `StreamCut` if the answer is incomplete.
    fn finish(&mut self, out: &mut VecDeque<StreamEvent>) -> Result<(), LlmError>;
}

/// What the HTTP layer needs from a wire format.
#[derive(Clone, Copy)]
pub(crate) struct Wire {
    pub decoder: fn() -> Box<dyn ChunkDecoder>,
    /// Classifies an error status and its body.
    pub error: fn(u16, Option<Duration>, &str) -> LlmError,
}

/// One streaming request, ready to send (and to send again).
pub(crate) struct PostRequest {
    pub url: String,
    pub headers: HeaderMap,
    pub body: Bytes,
}

/// A provider's streaming endpoint: JSON posted to `{base_url}{path}`, SSE read back in the
/// provider's wire format. What differs between providers is the path, their own headers
/// (the key) and the body they build.
pub(crate) struct Endpoint {
    http: HttpClient,
    /// The settings' base URL, for the provider's other paths.
    base: String,
    url: String,
    headers: HeaderMap,
    wire: Wire,
}

impl Endpoint {
    /// `headers` are the provider's own, added to the JSON and SSE ones.
    pub fn new(
        settings: &ProviderSettings,
        path: &str,
        headers: HeaderMap,
        wire: Wire,
    ) -> Result<Endpoint, SetupError> {
        let http = HttpClient::new(&settings.base_url, settings.timeouts, settings.retry)?;
        let mut all = HeaderMap::new();
        all.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
        all.insert(ACCEPT, HeaderValue::from_static("text/event-stream"));
        all.extend(headers);
        let url = format!("{}{path}", settings.base_url.trim_end_matches('/'));
        Ok(Endpoint { http, base: settings.base_url.clone(), url, headers: all, wire })
    }

    /// Posts `body` and streams the answer (see [`HttpClient::post_sse`]).
    pub async fn stream(
        &self,
        body: &impl Serialize,
        cancel: &CancellationToken,
    ) -> Result<ResponseStream, LlmError> {
        let request = self.request(body, None)?;
        self.http.post_sse(request, self.wire, cancel).await
    }

    /// Posts `body` (which asks for no stream) and reads the whole answer, handed on as the
    /// events its stream would have been (see [`HttpClient::post_whole`]).
    pub async fn whole(
        &self,
        body: &impl Serialize,
        cancel: &CancellationToken,
    ) -> Result<ResponseStream, LlmError> {
        let request = self.request(body, Some(HeaderValue::from_static("application/json")))?;
        self.http.post_whole(request, self.wire, cancel).await
    }

    /// One GET of `{base_url}{path}` with the provider's headers (no retries), read as JSON.
    pub async fn get_json(
        &self,
        path: &str,
        cancel: &CancellationToken,
    ) -> Result<serde_json::Value, LlmError> {
        let url = format!("{}{path}", self.base.trim_end_matches('/'));
        let mut headers = self.headers.clone();
        headers.remove(CONTENT_TYPE);
        headers.remove(ACCEPT);
        self.http.get_json(&url, headers, self.wire.error, cancel).await
    }

    fn request(
        &self,
        body: &impl Serialize,
        accept: Option<HeaderValue>,
    ) -> Result<PostRequest, LlmError> {
        // Our own request types always serialise; kept typed rather than a panic all the same.
        let body = serde_json::to_vec(body).map_err(|error| LlmError::BadResponse {
            detail: format!("the request could not be written: {error}"),
        })?;
        let mut headers = self.headers.clone();
        if let Some(accept) = accept {
            headers.insert(ACCEPT, accept);
        }
        Ok(PostRequest { url: self.url.clone(), headers, body: Bytes::from(body) })
    }
}

/// A header value that `Debug` output and reqwest's logs show as `Sensitive`.
pub(crate) fn secret_header(value: &str) -> Result<HeaderValue, SetupError> {
    let mut header = HeaderValue::from_str(value).map_err(|_| SetupError::KeyStore {
        detail: "the API key holds characters an HTTP header cannot carry".into(),
    })?;
    header.set_sensitive(true);
    Ok(header)
}

pub(crate) struct HttpClient {
    client: reqwest::Client,
    idle: Duration,
    retry: RetryPolicy,
}

impl HttpClient {
    /// A client for `base_url`. Loopback servers (Ollama, llama.cpp) are never reached
    /// through a proxy from the environment.
    pub fn new(
        base_url: &str,
        timeouts: Timeouts,
        retry: RetryPolicy,
    ) -> Result<HttpClient, SetupError> {
        let url =
            reqwest::Url::parse(base_url).map_err(|error| bad_url(base_url, error.to_string()))?;
        if !matches!(url.scheme(), "http" | "https") {
            return Err(bad_url(base_url, "the scheme must be http or https".into()));
        }
        let mut builder = reqwest::Client::builder()
            .redirect(same_origin_redirects())
            .connect_timeout(timeouts.connect)
            .tls_built_in_native_certs(true)
            .user_agent(concat!("preflight/", env!("CARGO_PKG_VERSION")));
        if is_loopback(&url) {
            builder = builder.no_proxy();
        }
        let client =
            builder.build().map_err(|error| SetupError::Http { detail: error_chain(&error) })?;
        Ok(HttpClient { client, idle: timeouts.idle, retry })
    }

    /// Sends `request` and streams the answer. Failures up to the answer's first event are
    /// retried by the policy; later ones end the stream with an error.
    pub async fn post_sse(
        &self,
        request: PostRequest,
        wire: Wire,
        cancel: &CancellationToken,
    ) -> Result<ResponseStream, LlmError> {
        let reader = with_retry(&self.retry, cancel, || self.open(&request, wire, cancel)).await?;
        Ok(ResponseStream::new(futures_util::stream::unfold(reader, |mut reader| async move {
            let item = reader.next_event().await?;
            Some((item, reader))
        })))
    }

    /// Sends `request` and reads the whole answer as one payload of the wire format (its
    /// decoder reads it as a single chunk), then hands on the events it makes. For servers
    /// that can only answer whole (`compat.rs`); retried as a stream's head is.
    pub async fn post_whole(
        &self,
        request: PostRequest,
        wire: Wire,
        cancel: &CancellationToken,
    ) -> Result<ResponseStream, LlmError> {
        // The head comes only once the whole answer is made: the idle limit between two reads
        // becomes a limit on all of it, once (a retry would make the server answer again,
        // behind the answer it is still making for the request given up on).
        let limit = self.idle.saturating_mul(WHOLE_ANSWER_IDLE_FACTOR);
        let attempts = with_retry(&self.retry, cancel, || async {
            let response = self.send(&request, wire, limit, cancel).await?;
            let body = within(limit, cancel, response.text())
                .await?
                .map_err(|error| LlmError::StreamCut { detail: error_chain(&error) })?;
            decode_whole(&body, wire)
        });
        let events = match tokio::time::timeout(limit, attempts).await {
            Ok(events) => events?,
            Err(_) => return Err(LlmError::IdleTimeout { after: limit }),
        };
        Ok(ResponseStream::new(futures_util::stream::iter(events.into_iter().map(Ok))))
    }

    /// Posts `request`: the response once its head says success, else the classified error.
    async fn send(
        &self,
        request: &PostRequest,
        wire: Wire,
        head_within: Duration,
        cancel: &CancellationToken,
    ) -> Result<reqwest::Response, LlmError> {
        let send = self
            .client
            .post(&request.url)
            .headers(request.headers.clone())
            .body(request.body.clone())
            .send();
        let response = within(head_within, cancel, send).await?.map_err(send_error)?;
        let status = response.status().as_u16();
        if !response.status().is_success() {
            let retry_after = retry_after(response.headers());
            let body = within(self.idle, cancel, response.text()).await?.unwrap_or_default();
            return Err((wire.error)(status, retry_after, &body));
        }
        Ok(response)
    }

    /// One attempt: the response's head, then its first event.
    async fn open(
        &self,
        request: &PostRequest,
        wire: Wire,
        cancel: &CancellationToken,
    ) -> Result<SseReader, LlmError> {
        let response = self.send(request, wire, self.idle, cancel).await?;
        let mut reader = SseReader {
            response,
            sse: SseDecoder::new(),
            decoder: (wire.decoder)(),
            events: Vec::new(),
            pending: VecDeque::new(),
            idle: self.idle,
            cancel: cancel.clone(),
            finished: false,
        };
        match reader.next_event().await {
            Some(Ok(first)) => reader.pending.push_front(first),
            Some(Err(error)) => return Err(error),
            None => return Err(LlmError::StreamCut { detail: "the answer was empty".into() }),
        }
        Ok(reader)
    }
}

impl HttpClient {
    /// One GET of a JSON document (no retries: a person is waiting for the answer); an error
    /// status is classified by `error` as a stream's would be.
    pub async fn get_json(
        &self,
        url: &str,
        headers: HeaderMap,
        error: fn(u16, Option<Duration>, &str) -> LlmError,
        cancel: &CancellationToken,
    ) -> Result<serde_json::Value, LlmError> {
        let send = self.client.get(url).headers(headers).header(ACCEPT, "application/json").send();
        let response = within(self.idle, cancel, send).await?.map_err(send_error)?;
        let status = response.status().as_u16();
        let body = within(self.idle, cancel, response.text()).await?.map_err(send_error)?;
        if !(200..300).contains(&status) {
            return Err(error(status, None, &body));
        }
        serde_json::from_str(&body).map_err(|parse| LlmError::BadResponse {
            detail: format!("the answer is not JSON: {parse}"),
        })
    }
}

/// Reads one streaming answer.
struct SseReader {
    response: reqwest::Response,
    sse: SseDecoder,
    decoder: Box<dyn ChunkDecoder>,
    /// Scratch space for the SSE events of one chunk.
    events: Vec<SseEvent>,
    pending: VecDeque<StreamEvent>,
    idle: Duration,
    cancel: CancellationToken,
    finished: bool,
}

impl SseReader {
    /// The next event; `None` after the last one or after an error.
    async fn next_event(&mut self) -> Option<Result<StreamEvent, LlmError>> {
        loop {
            if let Some(event) = self.pending.pop_front() {
                return Some(Ok(event));
            }
            if self.finished {
                return None;
            }
            if let Err(error) = self.read_more().await {
                self.finished = true;
                self.pending.clear();
                return Some(Err(error));
            }
        }
    }

    /// Reads one chunk of the body and decodes what it completes.
    async fn read_more(&mut self) -> Result<(), LlmError> {
        let chunk = within(self.idle, &self.cancel, self.response.chunk())
            .await?
            .map_err(|error| LlmError::StreamCut { detail: error_chain(&error) })?;
        let Some(bytes) = chunk else {
            self.finished = true;
            self.sse.finish(&mut self.events);
            self.decode_events()?;
            return self.decoder.finish(&mut self.pending);
        };
        self.sse.push(&bytes, &mut self.events);
        self.decode_events()?;
        self.finished = self.decoder.is_done();
        Ok(())
    }

    fn decode_events(&mut self) -> Result<(), LlmError> {
        for event in self.events.drain(..) {
            if self.decoder.is_done() {
                break;
            }
            self.decoder.decode(&event, &mut self.pending)?;
        }
        self.events.clear();
        Ok(())
    }
}

/// How many idle limits a whole answer may take in all, retries included (5 × the default
/// 180 s: 15 minutes, a long answer of a CPU model).
const WHOLE_ANSWER_IDLE_FACTOR: u32 = 5;

/// A whole answer's events: `body` decoded as the one chunk it is, then finished. Pure.
fn decode_whole(body: &str, wire: Wire) -> Result<Vec<StreamEvent>, LlmError> {
    if body.trim().is_empty() {
        return Err(LlmError::StreamCut { detail: "the answer was empty".into() });
    }
    let mut decoder = (wire.decoder)();
    let mut out = VecDeque::new();
    decoder.decode(&SseEvent { event: None, data: body.to_owned() }, &mut out)?;
    decoder.finish(&mut out)?;
    Ok(out.into())
}

/// Awaits `future` unless the idle timeout passes or the call is stopped first.
async fn within<F: Future>(
    idle: Duration,
    cancel: &CancellationToken,
    future: F,
) -> Result<F::Output, LlmError> {
    tokio::select! {
        biased;
        _ = cancel.cancelled() => Err(LlmError::Cancelled),
        output = tokio::time::timeout(idle, future) => output.map_err(|_| LlmError::IdleTimeout { after: idle }),
    }
}

/// How many redirects within the origin are followed, as reqwest does by default.
const MAX_REDIRECTS: usize = 10;

/// Redirects are followed only within the configured server's origin. reqwest's default
/// follows any and drops `Authorization` across hosts, but not Anthropic's `x-api-key`, and
/// a 307 or 308 sends the whole conversation again: another origin gets neither.
fn same_origin_redirects() -> reqwest::redirect::Policy {
    reqwest::redirect::Policy::custom(|attempt| {
        let next = attempt.url().origin();
        let first = attempt.previous().first().map(reqwest::Url::origin);
        if first.is_some_and(|first| first != next) {
            let to = next.ascii_serialization();
            attempt.error(format!(
                "refused a redirect to another origin ({to}): the API key and the \
                 conversation go only to the configured base_url"
            ))
        } else if attempt.previous().len() >= MAX_REDIRECTS {
            attempt.error("too many redirects")
        } else {
            attempt.follow()
        }
    })
}

/// A request that got no response: the server is down, refused, or did not connect in time.
fn send_error(error: reqwest::Error) -> LlmError {
    let message = if error.is_connect() || error.is_timeout() {
        format!("cannot connect: {}", error_chain(&error))
    } else {
        error_chain(&error)
    };
    LlmError::Unavailable { status: None, message }
}

/// `retry-after-ms` (OpenAI) or `retry-after` in seconds; an HTTP date is not honoured.
fn retry_after(headers: &HeaderMap) -> Option<Duration> {
    let number = |name: &str| headers.get(name)?.to_str().ok()?.trim().parse::<f64>().ok();
    let wait = match number("retry-after-ms") {
        Some(ms) => ms / 1000.0,
        None => number("retry-after")?,
    };
    Duration::try_from_secs_f64(wait).ok()
}

/// An error with its causes: reqwest's own message rarely says what happened.
fn error_chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}

fn is_loopback(url: &reqwest::Url) -> bool {
    let host = url.host_str().unwrap_or_default();
    let host = host.trim_start_matches('[').trim_end_matches(']');
    host.eq_ignore_ascii_case("localhost")
        || host.parse::<std::net::IpAddr>().is_ok_and(|ip| ip.is_loopback())
}

fn bad_url(url: &str, reason: String) -> SetupError {
    SetupError::BadBaseUrl { url: url.to_owned(), reason }
}

#[cfg(test)]
mod tests {
    use super::*;
    use reqwest::header::HeaderValue;

    #[test]
    fn retry_after_headers() {
        type Case = (&'static [(&'static str, &'static str)], Option<Duration>);
        let cases: [Case; 5] = [
            (&[("retry-after", "2")], Some(Duration::from_secs(2))),
            (&[("retry-after", "0.5")], Some(Duration::from_millis(500))),
            (&[("retry-after-ms", "250"), ("retry-after", "9")], Some(Duration::from_millis(250))),
            (&[("retry-after", "Wed, 21 Oct 2015 07:28:00 GMT")], None),
            (&[("retry-after", "-1")], None),
        ];
        for (pairs, expected) in cases {
            let mut headers = HeaderMap::new();
            for (name, value) in pairs {
                headers.insert(*name, HeaderValue::from_static(value));
            }
            assert_eq!(retry_after(&headers), expected, "{pairs:?}");
        }
    }

    #[test]
    fn loopback_hosts_and_bad_urls() {
        for (url, loopback) in [
            ("http://127.0.0.1:11434/v1", true),
            ("http://localhost:8080/v1", true),
            ("http://[::1]:1234", true),
            ("https://api.openai.com/v1", false),
        ] {
            assert_eq!(is_loopback(&reqwest::Url::parse(url).unwrap()), loopback, "{url}");
        }
        let timeouts = Timeouts::default();
        assert!(matches!(
            HttpClient::new("ftp://x", timeouts, RetryPolicy::NEVER),
            Err(SetupError::BadBaseUrl { .. })
        ));
        assert!(matches!(
            HttpClient::new("not a url", timeouts, RetryPolicy::NEVER),
            Err(SetupError::BadBaseUrl { .. })
        ));
    }
}
