//! The scripted server: hyper on 127.0.0.1:0, one task per connection, the script and the
//! record of requests behind one mutex that is never held across an `.await`.

use std::collections::VecDeque;
use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex, PoisonError};

use bytes::Bytes;
use futures_util::stream::{self, StreamExt};
use http_body_util::combinators::BoxBody;
use http_body_util::{BodyExt, Full, StreamBody};
use hyper::body::{Frame as BodyFrame, Incoming};
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use serde_json::Value;
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;

use crate::recorded::RecordedRequest;
use crate::render::{error_body, frames, Api, Frame};
use crate::script::{Matcher, Reply, Script};

type Body = BoxBody<Bytes, std::io::Error>;

/// A running scripted server; it stops when dropped.
pub struct ScriptedServer {
    address: SocketAddr,
    state: Arc<Mutex<State>>,
    /// Woken at every request received, for `wait_for_requests`.
    received: Arc<tokio::sync::Notify>,
    shutdown: CancellationToken,
}

struct State {
    routes: Vec<LiveRoute>,
    context_limit: Option<u64>,
    latency: Option<std::time::Duration>,
    requests: Vec<RecordedRequest>,
    /// Appends each request as a JSON line (the binary's `--requests`).
    log: Option<std::fs::File>,
    received: Arc<tokio::sync::Notify>,
}

struct LiveRoute {
    when: Matcher,
    replies: VecDeque<Reply>,
    repeat_last: bool,
}

impl ScriptedServer {
    /// Binds 127.0.0.1 on a free port and serves `script`. Call inside a tokio runtime.
    pub async fn start(script: Script) -> std::io::Result<ScriptedServer> {
        ScriptedServer::start_logging(script, None).await
    }

    pub(crate) async fn start_logging(
        script: Script,
        log: Option<std::fs::File>,
    ) -> std::io::Result<ScriptedServer> {
        let listener = TcpListener::bind("127.0.0.1:0").await?;
        let address = listener.local_addr()?;
        let routes = script
            .routes
            .into_iter()
            .map(|route| LiveRoute {
                when: route.when,
                replies: route.replies.into(),
                repeat_last: route.repeat_last,
            })
            .collect();
        let received = Arc::new(tokio::sync::Notify::new());
        let state = Arc::new(Mutex::new(State {
            routes,
            context_limit: script.context_limit,
            latency: script.latency_ms.map(std::time::Duration::from_millis),
            requests: Vec::new(),
            log,
            received: received.clone(),
        }));
        let shutdown = CancellationToken::new();
        tokio::spawn(accept(listener, state.clone(), shutdown.clone()));
        Ok(ScriptedServer { address, state, shutdown, received })
    }

    /// `http://127.0.0.1:PORT`: the Anthropic base URL.
    pub fn url(&self) -> String {
        format!("http://{}", self.address)
    }

    /// `http://127.0.0.1:PORT/v1`: the OpenAI-compatible base URL.
    pub fn openai_url(&self) -> String {
        format!("{}/v1", self.url())
    }

    /// Every request received so far, in order.
    pub fn requests(&self) -> Vec<RecordedRequest> {
        lock(&self.state).requests.clone()
    }

    /// Waits (without polling) until at least `count` requests have been received.
    pub async fn wait_for_requests(&self, count: usize) {
        loop {
            // Created before the check: a request arriving in between still wakes it.
            let notified = self.received.notified();
            if lock(&self.state).requests.len() >= count {
                return;
            }
            notified.await;
        }
    }

    /// Adds replies to the route at `route` (in script order), e.g. after a first exchange.
    pub fn push_replies(&self, route: usize, replies: impl IntoIterator<Item = Reply>) {
        lock(&self.state).routes[route].replies.extend(replies);
    }

    /// Adds a route tried before every other (the soak bench's per-turn script, ahead of its
    /// fallback); the indices [`ScriptedServer::push_replies`] takes then shift by one.
    pub fn add_route_first(&self, when: Matcher, replies: impl IntoIterator<Item = Reply>) {
        let replies = replies.into_iter().collect();
        lock(&self.state).routes.insert(0, LiveRoute { when, replies, repeat_last: false });
    }

    /// Drops the routes whose `when` is exactly `when`, with the replies they had left (a
    /// turn that ended early leaves no reply for a later request); how many replies went.
    pub fn remove_routes(&self, when: &Matcher) -> usize {
        let mut state = lock(&self.state);
        let left = state.routes.iter().filter(|r| r.when == *when).map(|r| r.replies.len()).sum();
        state.routes.retain(|route| route.when != *when);
        left
    }
}

impl Drop for ScriptedServer {
    fn drop(&mut self) {
        self.shutdown.cancel();
    }
}

fn lock(state: &Mutex<State>) -> std::sync::MutexGuard<'_, State> {
    state.lock().unwrap_or_else(PoisonError::into_inner)
}

async fn accept(listener: TcpListener, state: Arc<Mutex<State>>, shutdown: CancellationToken) {
    loop {
        let stream = tokio::select! {
            _ = shutdown.cancelled() => return,
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => stream,
                Err(_) => continue,
            },
        };
        let _ = stream.set_nodelay(true);
        let (state, stop_service, stop_connection) =
            (state.clone(), shutdown.clone(), shutdown.clone());
        tokio::spawn(async move {
            let service =
                service_fn(move |request| handle(request, state.clone(), stop_service.clone()));
            let connection = http1::Builder::new().serve_connection(TokioIo::new(stream), service);
            tokio::select! {
                _ = stop_connection.cancelled() => {}
                _ = connection => {}
            }
        });
    }
}

async fn handle(
    request: Request<Incoming>,
    state: Arc<Mutex<State>>,
    shutdown: CancellationToken,
) -> Result<Response<Body>, Infallible> {
    let path = request.uri().path().to_owned();
    if path.ends_with("/models") {
        return Ok(model_list(request.headers()));
    }
    let api = if path.ends_with("/chat/completions") {
        Api::OpenAi
    } else if path.ends_with("/v1/messages") {
        Api::Anthropic
    } else {
        return Ok(plain(StatusCode::NOT_FOUND, format!("no route {path}")));
    };
    let headers = request
        .headers()
        .iter()
        .map(|(name, value)| (name.as_str().to_owned(), value.to_str().unwrap_or("").to_owned()))
        .collect();
    let bytes = match request.into_body().collect().await {
        Ok(collected) => collected.to_bytes(),
        Err(error) => return Ok(plain(StatusCode::BAD_REQUEST, error.to_string())),
    };
    let body: Value = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
    let tokens = crate::render::count_tokens(&body);
    let limit = lock(&state).context_limit;
    let too_long = limit.is_some_and(|limit| tokens > limit);
    let recorded = RecordedRequest { api, path, headers, body, too_long };
    if too_long {
        record(&state, &recorded);
        let error = crate::render::context_error_body(api, tokens, limit.unwrap_or_default());
        return Ok(plain(StatusCode::BAD_REQUEST, error));
    }
    let reply = record_and_choose(&state, &recorded);
    let latency = lock(&state).latency;
    if let Some(latency) = latency {
        tokio::time::sleep(latency).await;
    }
    let reply = match (reply, limit) {
        (Some(Reply::Answer(mut answer)), Some(_)) => {
            let output = answer.usage.map_or(answer.steps.len() as u64, |(_, output)| output);
            answer.usage = Some((tokens, output));
            Some(Reply::Answer(answer))
        }
        (reply, _) => reply,
    };
    Ok(respond(api, &recorded.body, reply, shutdown))
}

/// `GET …/models` (OpenAI's `/v1/models`, Anthropic's `/v1/models`): the models the server
/// "serves", `scripted` and `scripted-large`; a request whose key is `wrong` (as a bearer
/// token or `x-api-key`) is refused with 401, as a real provider refuses a bad key.
fn model_list(headers: &hyper::HeaderMap) -> Response<Body> {
    let header = |name: &str| headers.get(name).and_then(|value| value.to_str().ok());
    if header("authorization") == Some("Bearer wrong") || header("x-api-key") == Some("wrong") {
        let body = r#"{"error":{"type":"authentication_error","message":"invalid api key"}}"#;
        return plain(StatusCode::UNAUTHORIZED, body.to_owned());
    }
    let body = r#"{"object":"list","data":[{"id":"scripted-large"},{"id":"scripted"}]}"#;
    plain(StatusCode::OK, body.to_owned())
}

/// Records a request that gets no scripted reply.
fn record(state: &Mutex<State>, request: &RecordedRequest) {
    let mut state = lock(state);
    state.requests.push(request.clone());
    state.received.notify_waiters();
}

/// Records the request and takes the reply of the first matching route with one left.
fn record_and_choose(state: &Mutex<State>, request: &RecordedRequest) -> Option<Reply> {
    let mut state = lock(state);
    if let Some(log) = state.log.as_mut() {
        use std::io::Write;
        let _ = writeln!(log, "{}", serde_json::to_string(request).unwrap_or_default());
    }
    state.requests.push(request.clone());
    state.received.notify_waiters();
    let route = state
        .routes
        .iter_mut()
        .find(|route| !route.replies.is_empty() && request.matches(&route.when))?;
    if route.repeat_last && route.replies.len() == 1 {
        return route.replies.front().cloned();
    }
    route.replies.pop_front()
}

fn respond(
    api: Api,
    body: &Value,
    reply: Option<Reply>,
    shutdown: CancellationToken,
) -> Response<Body> {
    match reply {
        None => plain(
            StatusCode::INTERNAL_SERVER_ERROR,
            "{\"error\":{\"message\":\"the script has no reply left for this request\"}}".into(),
        ),
        Some(Reply::Status { status, retry_after, body: error }) => {
            let status = StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
            let mut response =
                plain(status, error.unwrap_or_else(|| error_body(api, status.as_u16())));
            if let Some(wait) = retry_after.and_then(|wait| wait.parse().ok()) {
                response.headers_mut().insert("retry-after", wait);
            }
            response
        }
        Some(Reply::Answer(answer)) => {
            let model = body.get("model").and_then(Value::as_str).unwrap_or("scripted");
            let include_usage = body
                .pointer("/stream_options/include_usage")
                .and_then(Value::as_bool)
                .unwrap_or(false);
            streamed(frames(api, &answer, model, include_usage), shutdown)
        }
    }
}

/// A streamed 200: data frames as they are, a cut as a body error (hyper then aborts the
/// connection mid-body), a stall as a body that waits until the server stops.
fn streamed(frames: Vec<Frame>, shutdown: CancellationToken) -> Response<Body> {
    let body = stream::iter(frames).then(move |frame| {
        let shutdown = shutdown.clone();
        async move {
            match frame {
                Frame::Data(bytes) => Ok(BodyFrame::data(bytes)),
                Frame::Cut => {
                    // Pending first, so hyper flushes what was sent before the connection drops.
                    tokio::task::yield_now().await;
                    Err(std::io::Error::other("scripted cut"))
                }
                Frame::Stall => {
                    shutdown.cancelled().await;
                    Err(std::io::Error::other("server stopped"))
                }
            }
        }
    });
    Response::builder()
        .header("content-type", "text/event-stream")
        .header("cache-control", "no-cache")
        .body(BodyExt::boxed(StreamBody::new(body)))
        .unwrap_or_else(|_| plain(StatusCode::INTERNAL_SERVER_ERROR, String::new()))
}

fn plain(status: StatusCode, text: String) -> Response<Body> {
    let body = Full::new(Bytes::from(text)).map_err(|never: Infallible| match never {});
    let mut response = Response::new(BodyExt::boxed(body));
    *response.status_mut() = status;
    response
        .headers_mut()
        .insert("content-type", hyper::header::HeaderValue::from_static("application/json"));
    response
}
