//! One chat's worker: it sends the chat's turns one after another through the API, each
//! with its script registered on the provider, waits for each to end, and keeps the chat's
//! ledger (what got a 2xx, what was cut by a kill, what the engine recorded after a kill).

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::Context;
use preflight_testkit::{Matcher, ScriptedServer};
use serde_json::{json, Value};
use tokio::sync::watch;

use crate::rng::Rng;
use crate::serve::{descendants_running, kill_all, Endpoint};
use crate::turns::{marker, outcome, replies, Kind};

/// A turn that has not ended after this long is stuck (reported, and stopped).
const STUCK_AFTER: Duration = Duration::from_secs(120);
/// How often a worker reads its chat while a turn runs.
const POLL: Duration = Duration::from_millis(100);

/// What every worker shares.
pub struct Shared {
    pub provider: ScriptedServer,
    pub endpoint: watch::Receiver<Endpoint>,
    pub client: reqwest::Client,
    pub turns: usize,
    /// Turns started so far (the killer's clock).
    pub started: AtomicUsize,
    /// Turns ended so far (the samplers' clock).
    pub ended: AtomicUsize,
    pub done: AtomicBool,
    pub faults: Mutex<Vec<Kind>>,
    /// MCP server processes the bench killed mid-call.
    pub mcp_kills: AtomicUsize,
    /// Restarts refused because the data folder was still locked, with the lock's holders.
    pub refusals: Mutex<Vec<String>>,
}

/// One chat's record of what it sent and saw.
#[derive(Debug, Default)]
pub struct ChatLedger {
    pub id: String,
    pub index: usize,
    /// Markers of the user messages that got a 2xx, in order.
    pub sent: Vec<String>,
    /// Markers whose POST got no answer (the process was killed meanwhile).
    pub uncertain: Vec<String>,
    /// Markers refused with a status other than 2xx, and the status.
    pub refused: Vec<(String, u16)>,
    /// Turns a kill cut (the worker lost the process while waiting for the turn's end).
    pub interrupted: usize,
    /// Of those, how many left tasks open and had the stop recorded (`interrupted` or the
    /// stop the turn reached first); and how many left tasks open without any stop.
    pub interrupted_stopped: usize,
    pub interrupted_unrecorded: Vec<String>,
    /// Turns whose stream was cut or stalled mid-turn with tasks open: how many ended with
    /// the `provider_error` stop recorded, and the others (marker, what the chat showed).
    pub failed_stopped: usize,
    pub failed_unrecorded: Vec<String>,
    /// Such turns whose stop has another reason (the retry got past the fault).
    pub failed_other_stop: Vec<String>,
    /// Such turns that left no task open (the script's list was not made: no stop is due).
    pub failed_without_open: usize,
    pub stuck: Vec<String>,
}

impl Shared {
    fn current(&self) -> Endpoint {
        self.endpoint.borrow().clone()
    }

    /// Waits until a process after `life` listens.
    async fn next_life(&self, life: usize) -> Endpoint {
        let mut receiver = self.endpoint.clone();
        let endpoint = receiver.wait_for(|endpoint| endpoint.life > life).await;
        endpoint.map(|e| e.clone()).unwrap_or_else(|_| self.current())
    }

    async fn send(
        &self,
        endpoint: &Endpoint,
        method: &str,
        path: &str,
        body: Option<Value>,
    ) -> anyhow::Result<(u16, Value)> {
        let method = reqwest::Method::from_bytes(method.as_bytes())?;
        let mut request = self
            .client
            .request(method, format!("{}{path}", endpoint.base))
            .bearer_auth(&endpoint.token);
        if let Some(body) = body {
            request = request.json(&body);
        }
        let response = request.send().await?;
        let status = response.status().as_u16();
        let text = response.text().await?;
        Ok((status, serde_json::from_str(&text).unwrap_or(Value::Null)))
    }

    /// A request retried on every new process until one answers.
    async fn send_surviving(&self, method: &str, path: &str, body: Option<Value>) -> (u16, Value) {
        loop {
            let endpoint = self.current();
            match self.send(&endpoint, method, path, body.clone()).await {
                Ok(answer) => return answer,
                Err(_) => drop(self.next_life(endpoint.life).await),
            }
        }
    }
}

/// Creates chat `index` on a fresh workspace under `root`.
pub async fn create_chat(
    shared: &Shared,
    index: usize,
    root: &std::path::Path,
) -> anyhow::Result<ChatLedger> {
    let workspace = root.join(format!("workspace-{index}"));
    std::fs::create_dir_all(&workspace)?;
    std::fs::write(workspace.join("README.md"), format!("Soak chat {index}\n"))?;
    let body = json!({
        "title": format!("soak {index}"),
        "workspace": workspace,
        "plan_mode": true,
        "auto_approve": true,
        "save_plans": false
    });
    let (status, chat) = shared.send_surviving("POST", "/v1/chats", Some(body)).await;
    anyhow::ensure!(status == 201, "creating a chat: {status} {chat}");
    let id = chat["id"].as_str().context("the chat's id")?.to_owned();
    Ok(ChatLedger { id, index, ..ChatLedger::default() })
}

/// Runs turns in the chat until the run's turns are all started.
pub async fn run_chat(shared: Arc<Shared>, mut ledger: ChatLedger, seed: u64) -> ChatLedger {
    let mut rng = Rng::new(seed ^ (ledger.index as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15));
    let mut n = 0;
    while shared.started.fetch_add(1, Ordering::SeqCst) < shared.turns {
        n += 1;
        let kind = if n == 1 { Kind::Plan } else { Kind::pick(rng.below(100) as u32) };
        run_turn(&shared, &mut ledger, n, kind).await;
        shared.ended.fetch_add(1, Ordering::SeqCst);
    }
    ledger
}

async fn run_turn(shared: &Arc<Shared>, ledger: &mut ChatLedger, n: usize, kind: Kind) {
    let marker = marker(ledger.index, n);
    let when = Matcher::body_contains(marker.clone());
    shared.provider.add_route_first(when.clone(), replies(kind, &marker));
    let content = format!("{marker} Please do turn {n}: {}.", kind.name());
    let endpoint = shared.current();
    let path = format!("/v1/chats/{}/messages", ledger.id);
    let body = json!({"content": content});
    let mut posted = shared.send(&endpoint, "POST", &path, Some(body.clone())).await;
    // 409: the chat is still busy with the last turn's end (the API's "wait and send again";
    // nothing was stored), as a client would, for up to 10 s.
    for _ in 0..50 {
        if !matches!(posted, Ok((409, _))) {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
        posted = shared.send(&endpoint, "POST", &path, Some(body.clone())).await;
    }
    match posted {
        Ok((status, _)) if (200..300).contains(&status) => ledger.sent.push(marker.clone()),
        Ok((status, _)) => ledger.refused.push((marker.clone(), status)),
        Err(_) => {
            ledger.uncertain.push(marker.clone());
            let _ = shared.next_life(endpoint.life).await;
            after_kill(shared, ledger).await;
        }
    }
    if matches!(&posted, Ok((status, _)) if (200..300).contains(status)) {
        if kind.is_fault() {
            shared.faults.lock().unwrap_or_else(|e| e.into_inner()).push(kind);
        }
        let ended = wait_for_end(shared, ledger, &endpoint, &marker, kind == Kind::McpKilled).await;
        if let (Some(chat), Kind::Cut | Kind::Stall) = (ended, kind) {
            failed_turn(shared, ledger, &marker, &chat).await;
        }
    }
    shared.provider.remove_routes(&when);
}

/// Kills the `everything` MCP servers of `pid` 1 s into the 4 s call.
async fn kill_mcp_later(shared: Arc<Shared>, pid: u32) {
    tokio::time::sleep(Duration::from_secs(1)).await;
    let killed = kill_all(&descendants_running(pid, "server-everything"));
    shared.mcp_kills.fetch_add(killed, Ordering::SeqCst);
}

/// Reads the chat until its turn has ended (phase back to `idle`), across a kill. With
/// `kill_mcp`, the MCP server is killed 1 s after the round before the MCP call is stored
/// (rounds are stored whole, and the call's request follows at once).
async fn wait_for_end(
    shared: &Arc<Shared>,
    ledger: &mut ChatLedger,
    endpoint: &Endpoint,
    marker: &str,
    mut kill_mcp: bool,
) -> Option<Value> {
    let started = Instant::now();
    let path = format!("/v1/chats/{}", ledger.id);
    loop {
        match shared.send(endpoint, "GET", &path, None).await {
            Ok((200, chat)) if chat["state"]["phase"] == "idle" => return Some(chat),
            Ok((200, chat)) if kill_mcp && first_task_done(&chat, marker) => {
                kill_mcp = false;
                tokio::spawn(kill_mcp_later(shared.clone(), endpoint.pid));
            }
            Ok((200, chat)) if chat["state"]["phase"] == "awaiting_approval" => {
                let approve = format!("/v1/chats/{}/plan/approve", ledger.id);
                let _ = shared.send(endpoint, "POST", &approve, Some(json!(null))).await;
            }
            Ok(_) if started.elapsed() > STUCK_AFTER => {
                ledger.stuck.push(marker.to_owned());
                let stop = format!("/v1/chats/{}/stop", ledger.id);
                let _ = shared.send(endpoint, "POST", &stop, Some(json!(null))).await;
                return None;
            }
            Ok(_) => tokio::time::sleep(POLL).await,
            Err(_) => {
                ledger.interrupted += 1;
                let _ = shared.next_life(endpoint.life).await;
                after_kill(shared, ledger).await;
                return None;
            }
        }
    }
}

/// A turn whose stream was cut or stalled mid-turn: when it left tasks open, its stop must
/// be recorded — `provider_error` when the fault ended it; another reason when the engine's
/// retry got past the fault (a retry takes the script's next reply, so the model may then
/// answer with a task open: `answered`).
async fn failed_turn(shared: &Shared, ledger: &mut ChatLedger, marker: &str, chat: &Value) {
    let path = format!("/v1/chats/{}/plan", ledger.id);
    let (_, plan) = shared.send_surviving("GET", &path, None).await;
    let stopped = &chat["state"]["stopped"];
    match (open_tasks(&plan), stopped["reason"].as_str()) {
        (true, Some("provider_error")) => ledger.failed_stopped += 1,
        (true, Some(other)) => ledger.failed_other_stop.push(other.to_owned()),
        (true, None) => ledger.failed_unrecorded.push(format!("{marker}: no stop, tasks open")),
        (false, _) => ledger.failed_without_open += 1,
    }
}

fn open_tasks(plan: &Value) -> bool {
    plan["tasks"].as_array().is_some_and(|tasks| {
        tasks.iter().any(|task| task["status"] == "pending" || task["status"] == "active")
    })
}

/// After a restart: the chat waits for the user again, and open tasks carry their stop.
async fn after_kill(shared: &Shared, ledger: &mut ChatLedger) {
    let (_, chat) = shared.send_surviving("GET", &format!("/v1/chats/{}", ledger.id), None).await;
    let (_, plan) =
        shared.send_surviving("GET", &format!("/v1/chats/{}/plan", ledger.id), None).await;
    let open = open_tasks(&plan);
    let idle = chat["state"]["phase"] == "idle";
    let stopped = !chat["state"]["stopped"].is_null();
    if !idle || (open && !stopped) {
        let phase = &chat["state"]["phase"];
        ledger
            .interrupted_unrecorded
            .push(format!("phase {phase}, tasks open {open}, stop {stopped}"));
    } else if open {
        ledger.interrupted_stopped += 1;
    }
}

/// The turn's `done` of task 1 is stored: the last message is its result.
fn first_task_done(chat: &Value, marker: &str) -> bool {
    let messages = chat["messages"].as_array().map(Vec::as_slice).unwrap_or_default();
    let Some([call, result]) = messages.get(messages.len().saturating_sub(2)..) else {
        return false;
    };
    result["role"] == "tool" && call["tool_calls"].to_string().contains(&outcome(marker, 1))
}
