//! The HTTP+SSE transport of MCP 2024-11-05, for servers that predate Streamable HTTP:
//! a `GET` opens an event stream whose first `endpoint` event names the URL to `POST`
//! messages to; every reply comes back as a `message` event on the stream.
//!
//! - The POST endpoint must be on the server's own origin: the entry's headers (tokens)
//!   are never sent anywhere else.
//! - The stream is read with a bound: an event over the host's message limit closes the
//!   connection (a server cannot make the host buffer without end).

use std::io;
use std::pin::Pin;
use std::sync::Arc;

use bytes::Bytes;
use futures_util::{Stream, StreamExt};
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use rmcp::RoleClient;

use crate::remote::redirect;

type ByteStream = Pin<Box<dyn Stream<Item = reqwest::Result<Bytes>> + Send>>;

pub(crate) struct LegacySse {
    server: Arc<str>,
    client: reqwest::Client,
    endpoint: url::Url,
    headers: reqwest::header::HeaderMap,
    events: Events,
}

/// `event:`/`data:` blocks of an SSE body, at most `limit` bytes each.
struct Events {
    body: ByteStream,
    buffer: Vec<u8>,
    limit: usize,
}

struct Event {
    name: String,
    data: String,
}

impl Events {
    /// The next complete event; `None` at the end, on a read error or an oversize event.
    async fn next(&mut self) -> Option<Event> {
        loop {
            if let Some(end) = block_end(&self.buffer) {
                let block: Vec<u8> = self.buffer.drain(..end).collect();
                if let Some(event) = parse_block(&String::from_utf8_lossy(&block)) {
                    return Some(event);
                }
                continue;
            }
            if self.buffer.len() > self.limit {
                tracing::warn!("an SSE event over {} bytes: the stream is closed", self.limit);
                return None;
            }
            match self.body.next().await? {
                Ok(chunk) => self.buffer.extend_from_slice(&chunk),
                Err(error) => {
                    tracing::warn!("reading the SSE stream failed: {error}");
                    return None;
                }
            }
        }
    }
}

/// Where the first block ends (after its blank line), for `\n\n` and `\r\n\r\n`.
fn block_end(buffer: &[u8]) -> Option<usize> {
    let lf = buffer.windows(2).position(|w| w == b"\n\n").map(|at| at + 2);
    let crlf = buffer.windows(4).position(|w| w == b"\r\n\r\n").map(|at| at + 4);
    match (lf, crlf) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

fn parse_block(block: &str) -> Option<Event> {
    let (mut name, mut data) = (String::from("message"), Vec::new());
    for line in block.lines() {
        if let Some(value) = line.strip_prefix("event:") {
            name = value.trim().to_owned();
        } else if let Some(value) = line.strip_prefix("data:") {
            data.push(value.strip_prefix(' ').unwrap_or(value).to_owned());
        }
    }
    (!data.is_empty()).then(|| Event { name, data: data.join("\n") })
}

impl LegacySse {
    /// Opens the stream at `url` and waits for its `endpoint` event.
    pub(crate) async fn connect(
        server: Arc<str>,
        url: &str,
        headers: reqwest::header::HeaderMap,
        limit: usize,
    ) -> Result<LegacySse, String> {
        let base = url::Url::parse(url).map_err(|error| error.to_string())?;
        let policy = reqwest::redirect::Policy::custom(|attempt| {
            let verdict = match attempt.previous().first() {
                Some(first) => redirect::verdict(first, attempt.url(), attempt.previous().len()),
                None => Ok(()),
            };
            match verdict {
                Ok(()) => attempt.follow(),
                Err(why) => attempt.error(why),
            }
        });
        let client = reqwest::Client::builder()
            .redirect(policy)
            .connect_timeout(std::time::Duration::from_secs(15))
            .build()
            .map_err(|error| error.to_string())?;
        let response = client
            .get(base.clone())
            .headers(headers.clone())
            .header(reqwest::header::ACCEPT, "text/event-stream")
            .send()
            .await
            .map_err(|error| format!("GET {url} failed: {error}"))?;
        if !response.status().is_success() {
            return Err(format!("GET {url} answered {}", response.status()));
        }
        let body: ByteStream = Box::pin(response.bytes_stream());
        let mut events = Events { body, buffer: Vec::new(), limit };
        let endpoint = loop {
            let event =
                events.next().await.ok_or("the event stream ended before its `endpoint` event")?;
            if event.name == "endpoint" {
                break base.join(event.data.trim()).map_err(|error| error.to_string())?;
            }
        };
        if endpoint.origin() != base.origin() {
            return Err(format!("the server named a POST endpoint on another origin ({endpoint})"));
        }
        Ok(LegacySse { server, client, endpoint, headers, events })
    }
}

impl Transport<RoleClient> for LegacySse {
    type Error = io::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleClient>,
    ) -> impl std::future::Future<Output = Result<(), io::Error>> + Send + 'static {
        let request =
            self.client.post(self.endpoint.clone()).headers(self.headers.clone()).json(&item);
        async move {
            let response = request.send().await.map_err(io::Error::other)?;
            match response.status().is_success() {
                true => Ok(()),
                false => {
                    Err(io::Error::other(format!("the server answered {}", response.status())))
                }
            }
        }
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleClient>> {
        loop {
            let event = self.events.next().await?;
            if event.name != "message" {
                continue;
            }
            match serde_json::from_str(&event.data) {
                Ok(message) => return Some(message),
                Err(error) => {
                    tracing::debug!(server = %self.server, "ignoring an event that is not JSON-RPC: {error}")
                }
            }
        }
    }

    async fn close(&mut self) -> Result<(), io::Error> {
        Ok(())
    }
}
