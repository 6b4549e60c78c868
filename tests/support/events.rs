//! A chat's SSE stream read as events, waited on with a deadline (never a sleep).

use std::time::Duration;

use futures_util::StreamExt;
use serde_json::Value;

/// How long a test waits for an event before it fails.
pub const EVENT_DEADLINE: Duration = Duration::from_secs(30);

pub struct EventStream {
    bytes:
        std::pin::Pin<Box<dyn futures_util::Stream<Item = reqwest::Result<bytes::Bytes>> + Send>>,
    buffer: String,
    /// Every event read so far, `(type, data)`.
    pub seen: Vec<(String, Value)>,
}

impl EventStream {
    pub async fn connect(client: &reqwest::Client, url: &str, token: &str) -> EventStream {
        let response = client.get(url).bearer_auth(token).send().await.unwrap();
        assert_eq!(response.status().as_u16(), 200);
        let content_type = response.headers()["content-type"].to_str().unwrap().to_owned();
        assert!(content_type.starts_with("text/event-stream"), "{content_type}");
        EventStream {
            bytes: Box::pin(response.bytes_stream()),
            buffer: String::new(),
            seen: Vec::new(),
        }
    }

    /// The next event, `(type, data)`.
    pub async fn next(&mut self) -> (String, Value) {
        tokio::time::timeout(EVENT_DEADLINE, self.read_event()).await.unwrap_or_else(|_| {
            panic!("no event within {EVENT_DEADLINE:?}; seen: {:#?}", self.seen)
        })
    }

    /// Reads events until one satisfies `wanted`; returns its data.
    pub async fn wait_for(&mut self, what: &str, wanted: impl Fn(&str, &Value) -> bool) -> Value {
        self.wait_for_within(EVENT_DEADLINE, what, wanted).await
    }

    /// [`EventStream::wait_for`] with another deadline (a real model on a busy machine).
    pub async fn wait_for_within(
        &mut self,
        limit: Duration,
        what: &str,
        wanted: impl Fn(&str, &Value) -> bool,
    ) -> Value {
        let deadline = tokio::time::Instant::now() + limit;
        loop {
            let event = tokio::time::timeout_at(deadline, self.read_event()).await;
            let Ok((name, data)) = event else {
                panic!("no {what} within {limit:?}; seen: {:#?}", self.seen);
            };
            if wanted(&name, &data) {
                return data;
            }
        }
    }

    /// Waits for `plan_status` with `phase`.
    pub async fn wait_for_phase(&mut self, phase: &str) -> Value {
        self.wait_for(&format!("phase {phase}"), |name, data| {
            name == "plan_status" && data["phase"] == phase
        })
        .await
    }

    async fn read_event(&mut self) -> (String, Value) {
        loop {
            if let Some(end) = self.buffer.find("\n\n") {
                let block: String = self.buffer.drain(..end + 2).collect();
                if let Some(event) = parse_block(&block) {
                    self.seen.push(event.clone());
                    return event;
                }
                continue;
            }
            match self.bytes.next().await {
                Some(Ok(chunk)) => {
                    self.buffer.push_str(&String::from_utf8_lossy(&chunk).replace("\r\n", "\n"))
                }
                Some(Err(error)) => panic!("the event stream failed: {error}"),
                None => panic!("the event stream ended; seen: {:#?}", self.seen),
            }
        }
    }
}

/// One SSE block; comments (keep-alives) give `None`.
fn parse_block(block: &str) -> Option<(String, Value)> {
    let mut name = None;
    let mut data = String::new();
    for line in block.lines() {
        if let Some(value) = line.strip_prefix("event:") {
            name = Some(value.trim().to_owned());
        } else if let Some(value) = line.strip_prefix("data:") {
            data.push_str(value.strip_prefix(' ').unwrap_or(value));
        }
    }
    Some((name?, serde_json::from_str(&data).unwrap_or(Value::Null)))
}
