//! Servers' stderr goes to the log, and a server that writes a lot there does not hang.
//! This binary installs a global `tracing` subscriber that captures the stderr log lines, so
//! tests can also wait on what a server says instead of sleeping.

mod support;

use std::sync::OnceLock;
use std::time::Duration;

use preflight_mcp::Profile;
use serde_json::json;
use support::mcp::{call, fixture_entry, Home};
use tokio::sync::broadcast;
use tokio_util::sync::CancellationToken;
use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing::{Event, Metadata, Subscriber};

const TARGET: &str = "preflight::mcp::stderr";

/// Every `preflight::mcp::stderr` event as "server: line".
struct Capture(broadcast::Sender<String>);

impl Subscriber for Capture {
    fn enabled(&self, metadata: &Metadata<'_>) -> bool {
        metadata.target() == TARGET
    }
    fn new_span(&self, _: &Attributes<'_>) -> Id {
        Id::from_u64(1)
    }
    fn record(&self, _: &Id, _: &Record<'_>) {}
    fn record_follows_from(&self, _: &Id, _: &Id) {}
    fn event(&self, event: &Event<'_>) {
        let mut fields = Fields::default();
        event.record(&mut fields);
        let _ = self.0.send(format!("{}: {}", fields.server, fields.message));
    }
    fn enter(&self, _: &Id) {}
    fn exit(&self, _: &Id) {}
}

#[derive(Default)]
struct Fields {
    server: String,
    message: String,
}

impl Visit for Fields {
    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        match field.name() {
            "server" => self.server = format!("{value:?}"),
            "message" => self.message = format!("{value:?}"),
            _ => {}
        }
    }
}

fn log_lines() -> broadcast::Receiver<String> {
    static SENDER: OnceLock<broadcast::Sender<String>> = OnceLock::new();
    SENDER
        .get_or_init(|| {
            let (sender, _) = broadcast::channel(1 << 16);
            tracing::subscriber::set_global_default(Capture(sender.clone())).unwrap();
            sender
        })
        .subscribe()
}

/// Reads log lines until one equals `want`, failing after a generous safety limit.
async fn expect_line(lines: &mut broadcast::Receiver<String>, want: &str) {
    let found = tokio::time::timeout(Duration::from_secs(30), async {
        loop {
            match lines.recv().await {
                Ok(line) if line == want => return,
                Ok(_) | Err(broadcast::error::RecvError::Lagged(_)) => {}
                Err(broadcast::error::RecvError::Closed) => panic!("log closed"),
            }
        }
    })
    .await;
    assert!(found.is_ok(), "never logged: {want}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_chatty_server_does_not_hang_and_its_stderr_reaches_the_log() {
    let mut lines = log_lines();
    let home = Home::new();
    // 1 MB before answering `initialize` and again before each result: far over a pipe's
    // 64 KiB, so an undrained stderr would block the server for good.
    home.write_mcp_json(
        &json!({"mcpServers": {"chatty": fixture_entry(&["--stderr-flood=1000000"])}}),
    );
    let host = home.host();
    let set = host.tools(Profile::Execution, None).await.unwrap();
    assert!(set.unavailable.is_empty(), "{set:?}");
    for round in 0..3 {
        let text = format!("round {round}");
        let out =
            call(&host, Profile::Execution, None, "mcp_chatty_echo", json!({"text": text})).await;
        assert_eq!(out.content, text);
    }
    let chatter = format!("chatty: {}", "stderr chatter ".repeat(64));
    expect_line(&mut lines, &chatter).await;
    host.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_call_in_flight_is_cancelled_by_its_token_and_the_server_is_told() {
    let mut lines = log_lines();
    let home = Home::new();
    home.write_mcp_json(&json!({"mcpServers": {"waiter": fixture_entry(&["--say-when-called"])}}));
    let host = home.host();
    host.tools(Profile::Execution, None).await.unwrap();
    let cancel = CancellationToken::new();
    let call_in_flight = {
        let (host, cancel) = (host.clone(), cancel.clone());
        tokio::spawn(async move {
            host.call(Profile::Execution, None, "mcp_waiter_hang", json!({}), &cancel).await
        })
    };
    // The server says when the request reached it; only then is it cancelled.
    expect_line(&mut lines, "waiter: called hang").await;
    cancel.cancel();
    let out = call_in_flight.await.unwrap();
    assert_eq!((out.is_error, out.content.as_str()), (true, "`mcp_waiter_hang` was cancelled"));
    let out = call(&host, Profile::Execution, None, "mcp_waiter_cancelled", json!({})).await;
    let cancelled: Vec<serde_json::Value> = serde_json::from_str(&out.content).unwrap();
    assert_eq!(cancelled.len(), 1, "{out:?}");
    host.shutdown().await;
}
