//! The connections: one tokio task owns every server connection, keyed by (server, workspace),
//! and takes messages; `McpHost` handles talk to it over a channel with oneshot replies.
//!
//! **Invariant:** only this task touches a connection's state (start, health, respawn,
//! shutdown); callers get cheap `Live` clones (rmcp peers) and make their calls outside it,
//! so a slow call never holds up another chat, and no lock exists to be held across an
//! `.await`. Starts run in their own tasks and report back here, so a hanging start holds up
//! nobody but its own waiters.
//!
//! A server is used when a turn asks for the servers of its profile (`Prepare`): a running
//! one answers at once; one whose transport closed or whose process exited is dropped (its
//! group killed) and started again; a start that failed answers with its error for
//! `retry_after` before it is tried again.
//!
//! When every server of a (profile, workspace) runs, the task builds that turn view
//! once and publishes it on a `watch` channel: immutable snapshots, written only here.
//! Handles use a published view while all its connections look open (transport open,
//! process not exited), which spares a call the round trip through this task; anything else
//! (a start, a dead server) goes through `Prepare`. Removing a connection unpublishes every
//! view that used it.

use std::collections::HashMap;
use std::ops::ControlFlow;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::sync::{mpsc, oneshot, watch};
use tokio::task::{JoinHandle, JoinSet};

use crate::config::ServerEntry;
use crate::connection::{self, Connection, StartLimits};
use crate::error::McpError;
use crate::key::ServerKey;
use crate::live::{Live, RemoteTool};
use crate::local::BaseEnvironment;
use crate::remote::TokenVault;
use crate::status::{ServerState, ServerStatus};
use crate::target::Target;
use crate::turn::{server_in_profile, Profile, TurnView};

pub(crate) type Ready = oneshot::Receiver<Result<Live, McpError>>;

/// A server of the asked profile, ready now or when its start ends.
pub(crate) struct Pending {
    pub server: Arc<str>,
    pub ready: Ready,
}

/// A running server's process, for diagnostics and tests.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunningServer {
    pub server: String,
    pub workspace: Option<PathBuf>,
    /// `None` for a remote server.
    pub pid: Option<u32>,
}

/// The published views: by workspace, then planning and execution.
pub(crate) type Views = HashMap<Option<PathBuf>, [Option<Arc<TurnView>>; 2]>;

pub(crate) fn profile_index(profile: Profile) -> usize {
    match profile {
        Profile::Planning => 0,
        Profile::Execution => 1,
    }
}

/// The answer to `Prepare`.
pub(crate) enum Prepared {
    /// Every server of the profile is running: the turn's view, shared while none changes.
    Ready(Arc<TurnView>),
    /// Some are starting (or failed): the caller waits for each and builds the view.
    Pending(Vec<Pending>),
}

pub(crate) enum Request {
    /// The servers a turn with `profile` in `workspace` uses, started if needed.
    Prepare {
        profile: Profile,
        workspace: Option<PathBuf>,
        reply: oneshot::Sender<Prepared>,
    },
    /// A caller found this connection closed (its request could not be written, or the
    /// connection ended before the answer).
    Dead {
        key: ServerKey,
        generation: u64,
    },
    /// New entries from `mcp.json`: servers whose entry changed or went are stopped.
    Reload {
        servers: Vec<ServerEntry>,
        reply: oneshot::Sender<()>,
    },
    Running {
        reply: oneshot::Sender<Vec<RunningServer>>,
    },
    Status {
        reply: oneshot::Sender<Vec<ServerStatus>>,
    },
    /// Stops every instance of `server`; the reply counts them.
    Restart {
        server: String,
        reply: oneshot::Sender<usize>,
    },
    Shutdown {
        reply: oneshot::Sender<()>,
    },
}

#[derive(Debug, Clone)]
pub(crate) struct Limits {
    pub start_timeout: Duration,
    pub max_message_bytes: usize,
    pub shutdown_grace: Duration,
    pub retry_after: Duration,
    pub tokens: Option<TokenVault>,
}

/// What every server starts from (`local/launch.rs`).
pub(crate) type Base = Arc<BaseEnvironment>;

struct Started {
    key: ServerKey,
    generation: u64,
    outcome: Result<Connection, McpError>,
}

type Waiter = oneshot::Sender<Result<Live, McpError>>;

enum Slot {
    Starting { generation: u64, waiters: Vec<Waiter>, task: JoinHandle<()> },
    Running(Box<Connection>),
    Failed { error: McpError, at: Instant },
}

struct Connections {
    servers: Vec<ServerEntry>,
    slots: HashMap<ServerKey, Slot>,
    /// Views over running servers, reused while their generations are unchanged, and
    /// published to the handles.
    views: Views,
    published: watch::Sender<Arc<Views>>,
    next_generation: u64,
    limits: Limits,
    base: Base,
    requests: mpsc::Receiver<Request>,
    started_tx: mpsc::UnboundedSender<Started>,
    started_rx: mpsc::UnboundedReceiver<Started>,
}

/// Starts the connections task; it ends after `Shutdown` or when every sender is gone.
pub(crate) fn spawn(
    servers: Vec<ServerEntry>,
    limits: Limits,
    base: Base,
) -> (mpsc::Sender<Request>, watch::Receiver<Arc<Views>>) {
    let (tx, requests) = mpsc::channel(256);
    let (started_tx, started_rx) = mpsc::unbounded_channel();
    let (published, views) = watch::channel(Arc::new(Views::new()));
    let connections = Connections {
        servers,
        slots: HashMap::new(),
        views: Views::new(),
        published,
        next_generation: 1,
        limits,
        base,
        requests,
        started_tx,
        started_rx,
    };
    tokio::spawn(connections.run());
    (tx, views)
}

impl Connections {
    async fn run(mut self) {
        loop {
            tokio::select! {
                request = self.requests.recv() => match request.map(|r| self.handle(r)) {
                    Some(ControlFlow::Continue(())) => {}
                    Some(ControlFlow::Break(reply)) => {
                        self.shutdown().await;
                        let _ = reply.send(());
                        return;
                    }
                    None => return self.shutdown().await,
                },
                Some(started) = self.started_rx.recv() => self.on_started(started),
            }
        }
    }

    /// Serves one request; `Break` carries the reply of a `Shutdown`.
    fn handle(&mut self, request: Request) -> ControlFlow<oneshot::Sender<()>> {
        match request {
            Request::Prepare { profile, workspace, reply } => {
                let prepared = self.prepare(profile, workspace);
                let _ = reply.send(prepared);
            }
            Request::Dead { key, generation } => self.forget_dead(&key, generation),
            Request::Reload { servers, reply } => {
                self.reload(servers);
                let _ = reply.send(());
            }
            Request::Running { reply } => {
                let _ = reply.send(self.running());
            }
            Request::Status { reply } => {
                let _ = reply.send(self.status());
            }
            Request::Restart { server, reply } => {
                let keys: Vec<ServerKey> =
                    self.slots.keys().filter(|key| *key.server == *server).cloned().collect();
                keys.iter().for_each(|key| drop(self.remove_slot(key)));
                let _ = reply.send(keys.len());
            }
            Request::Shutdown { reply } => return ControlFlow::Break(reply),
        }
        ControlFlow::Continue(())
    }

    fn prepare(&mut self, profile: Profile, workspace: Option<PathBuf>) -> Prepared {
        let keys = self.keys_of(profile, workspace.as_ref());
        if let Some(view) = self.running_view(profile, workspace, &keys) {
            return Prepared::Ready(view);
        }
        let mut pending = Vec::with_capacity(keys.len());
        for (index, key) in keys {
            let (waiter, ready) = oneshot::channel();
            pending.push(Pending { server: key.server.clone(), ready });
            self.acquire(index, key, waiter);
        }
        Prepared::Pending(pending)
    }

    /// The servers (entry index and key) a turn with `profile` in `workspace` uses.
    fn keys_of(&self, profile: Profile, workspace: Option<&PathBuf>) -> Vec<(usize, ServerKey)> {
        let mut keys = Vec::new();
        for (index, entry) in self.servers.iter().enumerate() {
            let planning_marked = profile == Profile::Planning && entry.read_while_planning;
            if !server_in_profile(profile, entry.class) && !planning_marked {
                continue;
            }
            let workspace = match (entry.uses_workspace(), workspace) {
                (true, None) => continue,
                (true, Some(folder)) => Some(folder.clone()),
                (false, _) => None,
            };
            keys.push((index, ServerKey { server: entry.name.as_str().into(), workspace }));
        }
        keys
    }

    /// The view over `keys` when every one is running and healthy (cached while their
    /// generations stay the same); `None` when any must start or failed.
    fn running_view(
        &mut self,
        profile: Profile,
        workspace: Option<PathBuf>,
        keys: &[(usize, ServerKey)],
    ) -> Option<Arc<TurnView>> {
        let mut generations = Vec::with_capacity(keys.len());
        for (_, key) in keys {
            let Some(Slot::Running(connection)) = self.slots.get_mut(key) else { return None };
            if !is_healthy(connection) {
                return None;
            }
            generations.push(connection.live.generation);
        }
        let cached =
            self.views.get(&workspace).and_then(|views| views[profile_index(profile)].clone());
        if let Some(view) = cached.filter(|v| v.generations().eq(generations.iter().copied())) {
            return Some(view);
        }
        let lives = keys.iter().filter_map(|(_, key)| match self.slots.get(key) {
            Some(Slot::Running(connection)) => {
                Some((key.server.clone(), Ok(connection.live.clone())))
            }
            _ => None,
        });
        let view = Arc::new(TurnView::new(profile, lives.collect()));
        self.views.entry(workspace).or_default()[profile_index(profile)] = Some(view.clone());
        self.publish();
        Some(view)
    }

    fn acquire(&mut self, index: usize, key: ServerKey, waiter: Waiter) {
        let dead = match self.slots.get_mut(&key) {
            Some(Slot::Running(connection)) => {
                if is_healthy(connection) {
                    let _ = waiter.send(Ok(connection.live.clone()));
                    return;
                }
                true
            }
            Some(Slot::Starting { waiters, .. }) => return waiters.push(waiter),
            Some(Slot::Failed { error, at }) if at.elapsed() < self.limits.retry_after => {
                let _ = waiter.send(Err(error.clone()));
                return;
            }
            Some(Slot::Failed { .. }) | None => false,
        };
        if dead {
            tracing::warn!(server = %key.server, "MCP server died; starting it again");
            self.remove_slot(&key);
        }
        self.begin_start(index, key, waiter);
    }

    fn begin_start(&mut self, index: usize, key: ServerKey, waiter: Waiter) {
        let entry = &self.servers[index];
        if let Some(error) = entry.unusable() {
            tracing::warn!(server = %key.server, "{error}");
            let _ = waiter.send(Err(error.clone()));
            self.slots.insert(key, Slot::Failed { error, at: Instant::now() });
            return;
        }
        let Some(target) = Target::of(entry, key.workspace.as_deref(), &self.base) else {
            // `prepare` gives a key a workspace whenever its entry needs one.
            let message = "it needs a workspace".to_string();
            let _ = waiter.send(Err(McpError::Spawn { server: entry.name.clone(), message }));
            return;
        };
        let generation = self.next_generation;
        self.next_generation += 1;
        let limits = StartLimits {
            start_timeout: self.limits.start_timeout,
            max_message_bytes: self.limits.max_message_bytes,
            tokens: self.limits.tokens.clone(),
        };
        let (class, started_tx, task_key) = (entry.class, self.started_tx.clone(), key.clone());
        let marked = entry.read_while_planning;
        let task = tokio::spawn(async move {
            let outcome = connection::start(task_key.clone(), class, target, generation, limits)
                .await
                .map(|mut connection| {
                    connection.live.marked = marked;
                    connection
                });
            // When the connections task is gone the connection is dropped here, killing its group.
            let _ = started_tx.send(Started { key: task_key, generation, outcome });
        });
        self.slots.insert(key, Slot::Starting { generation, waiters: vec![waiter], task });
    }

    fn on_started(&mut self, started: Started) {
        let current = matches!(self.slots.get(&started.key),
            Some(Slot::Starting { generation, .. }) if *generation == started.generation);
        if !current {
            return; // Its entry was reloaded away meanwhile: dropping it stops the server.
        }
        let Some(Slot::Starting { waiters, .. }) = self.slots.remove(&started.key) else { return };
        let slot = match started.outcome {
            Ok(connection) => {
                waiters.into_iter().for_each(|w| drop(w.send(Ok(connection.live.clone()))));
                Slot::Running(Box::new(connection))
            }
            Err(error) => {
                tracing::warn!(server = %started.key.server, "{error}");
                waiters.into_iter().for_each(|w| drop(w.send(Err(error.clone()))));
                Slot::Failed { error, at: Instant::now() }
            }
        };
        self.slots.insert(started.key, slot);
    }

    fn forget_dead(&mut self, key: &ServerKey, generation: u64) {
        if matches!(self.slots.get(key), Some(Slot::Running(c)) if c.live.generation == generation)
        {
            tracing::warn!(server = %key.server, "MCP server connection lost; it starts again on next use");
            self.remove_slot(key);
        }
    }

    /// Drops a connection (a running one's group is killed) and unpublishes its views.
    fn remove_slot(&mut self, key: &ServerKey) -> Option<Slot> {
        let slot = self.slots.remove(key)?;
        let before = self.views.len();
        for views in self.views.values_mut() {
            for view in views.iter_mut() {
                if view.as_ref().is_some_and(|v| v.uses(key)) {
                    *view = None;
                }
            }
        }
        self.views.retain(|_, views| views.iter().any(Option::is_some));
        if self.views.len() != before || matches!(slot, Slot::Running(_)) {
            self.publish();
        }
        Some(slot)
    }

    fn publish(&self) {
        self.published.send_replace(Arc::new(self.views.clone()));
    }

    fn reload(&mut self, servers: Vec<ServerEntry>) {
        let unchanged = |name: &str| {
            let old = self.servers.iter().find(|s| s.name == name);
            old.is_some() && old == servers.iter().find(|s| s.name == name)
        };
        let stale: Vec<ServerKey> =
            self.slots.keys().filter(|k| !unchanged(&k.server)).cloned().collect();
        for key in stale {
            if let Some(Slot::Starting { waiters, task, .. }) = self.remove_slot(&key) {
                task.abort();
                waiters.into_iter().for_each(|w| drop(w.send(Err(McpError::Stopped))));
            }
        }
        self.servers = servers;
        self.views.clear();
        self.publish();
    }

    fn status(&self) -> Vec<ServerStatus> {
        let mut status: Vec<ServerStatus> = self
            .slots
            .iter()
            .map(|(key, slot)| {
                let state = match slot {
                    Slot::Starting { .. } => ServerState::Starting,
                    Slot::Running(c) => ServerState::Running {
                        pid: c.live.pid,
                        tools: c.live.tools.iter().map(RemoteTool::probed).collect(),
                    },
                    Slot::Failed { error, .. } => ServerState::Failed { error: error.to_string() },
                };
                ServerStatus {
                    server: key.server.to_string(),
                    workspace: key.workspace.clone(),
                    state,
                }
            })
            .collect();
        status.sort_by(|a, b| (&a.server, &a.workspace).cmp(&(&b.server, &b.workspace)));
        status
    }

    fn running(&self) -> Vec<RunningServer> {
        let mut running: Vec<RunningServer> = self
            .slots
            .iter()
            .filter_map(|(key, slot)| match slot {
                Slot::Running(c) => Some(RunningServer {
                    server: key.server.to_string(),
                    workspace: key.workspace.clone(),
                    pid: c.live.pid,
                }),
                _ => None,
            })
            .collect();
        running.sort_by(|a, b| (&a.server, &a.workspace).cmp(&(&b.server, &b.workspace)));
        running
    }

    /// Stops everything: starts are aborted (their processes killed), running servers get
    /// their stdin closed, SIGTERM, and SIGKILL for the whole group after the grace time.
    async fn shutdown(&mut self) {
        self.views.clear();
        self.publish();
        let grace = self.limits.shutdown_grace;
        let mut stopping = JoinSet::new();
        let mut aborted = Vec::new();
        for (_, slot) in self.slots.drain() {
            match slot {
                Slot::Starting { waiters, task, .. } => {
                    task.abort();
                    aborted.push(task);
                    waiters.into_iter().for_each(|w| drop(w.send(Err(McpError::Stopped))));
                }
                Slot::Running(connection) => {
                    stopping.spawn(stop(*connection, grace));
                }
                Slot::Failed { .. } => {}
            }
        }
        for task in aborted {
            let _ = task.await;
        }
        while stopping.join_next().await.is_some() {}
    }
}

fn is_healthy(connection: &mut Connection) -> bool {
    // rmcp's `is_closed()` stays false after the server dies; the transport's state and the
    // process's own exit are what tell.
    !connection.live.peer.is_transport_closed()
        && connection.process.as_mut().is_none_or(|process| !process.has_exited())
}

async fn stop(connection: Connection, grace: Duration) {
    connection.stop(grace).await;
}
