//! The hooks of one data folder: its files as read (again when they change), which run for a
//! chat, and running an event's hooks to a decision.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::SystemTime;

use preflight_protocol::ids::ChatId;
use serde_json::{Map, Value};

use super::event::HookEvent;
use super::file::{parse_hooks, HookCommand, HookFile, HookFileError};
use super::run::{hook_env, run_command, HookExit, HookRun};
use super::trust::Trust;

/// The user's own hooks file in the data folder.
pub const HOOKS_FILE: &str = "hooks.json";
/// A workspace's hooks file, run only while the workspace is trusted for hooks.
pub const WORKSPACE_HOOKS_FILE: &str = ".preflight/hooks.json";

/// What the hooks of an event decided.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decision {
    Go,
    /// A `PreToolUse` or `UserPromptSubmit` hook blocked it, for this reason.
    Block(String),
}

/// Where an event happened.
#[derive(Debug, Clone, Copy)]
pub struct HookScene<'a> {
    pub chat_id: &'a ChatId,
    pub workspace: Option<&'a Path>,
}

/// A file as last read, and the size and modification time it was read at.
struct Cached {
    stamp: Option<(u64, SystemTime)>,
    read: Arc<Result<HookFile, HookFileError>>,
}

/// The hooks of one data folder: its files as read, and the trusted workspaces.
pub struct Hooks {
    home: PathBuf,
    /// Variables `config.toml` names for API keys: never in a hook's environment.
    secrets: Vec<String>,
    files: Mutex<HashMap<PathBuf, Cached>>,
    /// The workspaces the user trusts for hooks.
    pub trust: Trust,
}

impl Hooks {
    /// The hooks of `home`, with the trusted workspaces as its trust file lists them.
    pub fn open(home: &Path, secrets: Vec<String>) -> Hooks {
        Hooks { trust: Trust::open(home), home: home.to_owned(), secrets, files: Mutex::default() }
    }

    /// The hooks of `home`; the variables `config` names for API keys never reach them.
    pub fn for_config(home: &Path, config: &crate::config::Config) -> Hooks {
        let providers = [Some(&config.provider), config.planner.as_ref()].into_iter().flatten();
        let named = config.providers.iter().map(|named| &named.settings);
        let secrets = providers.chain(named).filter_map(|settings| settings.api_key_env.clone());
        Hooks::open(home, secrets.collect())
    }

    pub fn user_file(&self) -> PathBuf {
        self.home.join(HOOKS_FILE)
    }

    /// `path` as it is now: read again when its size or modification time changed; a file
    /// that is not there has no hooks.
    pub(super) fn read(&self, path: &Path) -> Arc<Result<HookFile, HookFileError>> {
        let stamp = std::fs::metadata(path)
            .ok()
            .map(|meta| (meta.len(), meta.modified().unwrap_or(SystemTime::UNIX_EPOCH)));
        let mut files = self.files.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(cached) = files.get(path).filter(|cached| cached.stamp == stamp) {
            return Arc::clone(&cached.read);
        }
        let read = match stamp {
            None => Ok(HookFile::default()),
            Some(_) => match std::fs::read_to_string(path) {
                Ok(text) => parse_hooks(path, &text),
                Err(error) => Err(HookFileError {
                    file: path.display().to_string(),
                    what: format!("cannot be read: {error}"),
                }),
            },
        };
        if let Err(error) = &read {
            tracing::warn!(%error, "a hooks file runs none of its hooks");
        }
        let read = Arc::new(read);
        files.insert(path.to_owned(), Cached { stamp, read: Arc::clone(&read) });
        read
    }

    /// The files that run for a chat in `workspace`: the user's, then the workspace's when
    /// it is trusted.
    fn sources(&self, workspace: Option<&Path>) -> Vec<Arc<Result<HookFile, HookFileError>>> {
        let mut sources = vec![self.read(&self.user_file())];
        if let Some(folder) = workspace.and_then(|folder| self.trust.folder(folder)) {
            sources.push(self.read(&folder.join(WORKSPACE_HOOKS_FILE)));
        }
        sources
    }

    /// Whether any hook runs at one of `events` for a chat in `workspace`.
    pub fn any(&self, workspace: Option<&Path>, events: &[HookEvent]) -> bool {
        let sources = self.sources(workspace);
        let has = |file: &HookFile| events.iter().any(|event| file.has(*event));
        sources.iter().any(|read| read.as_ref().as_ref().is_ok_and(has))
    }

    /// Runs the hooks of `event` that match `subject` (a tool's name, a notification's kind)
    /// at once, each with `fields` and where it happened on its stdin; what they decided.
    pub async fn fire(
        &self,
        event: HookEvent,
        subject: &str,
        scene: HookScene<'_>,
        fields: Map<String, Value>,
    ) -> Decision {
        let commands: Vec<HookCommand> = self
            .sources(scene.workspace)
            .iter()
            .filter_map(|read| read.as_ref().as_ref().ok())
            .flat_map(|file| file.commands(event, subject))
            .collect();
        if commands.is_empty() {
            return Decision::Go;
        }
        let cwd = scene.workspace.filter(|folder| folder.is_dir()).unwrap_or(&self.home);
        let input = event_input(event, scene, cwd, fields);
        // `vars` would panic on a variable that is not UTF-8: such a one is left out.
        let vars = std::env::vars_os().filter_map(|(name, value)| {
            Some((name.into_string().ok()?, value.into_string().ok()?))
        });
        let env = hook_env(vars, &self.secrets);
        let runs = commands.iter().map(|command| async {
            let run = run_command(&command.command, command.timeout, &input, cwd, &env).await;
            decide(event, &command.command, run)
        });
        let reasons: Vec<String> = futures_util::future::join_all(runs)
            .await
            .into_iter()
            .filter_map(|decision| match decision {
                Decision::Block(reason) => Some(reason),
                Decision::Go => None,
            })
            .collect();
        match reasons.is_empty() {
            true => Decision::Go,
            false => Decision::Block(reasons.join("; ")),
        }
    }

    /// [`Hooks::fire`] from code that cannot await: on a thread of its own, which the
    /// caller waits for.
    pub fn fire_blocking(
        &self,
        event: HookEvent,
        subject: &str,
        scene: HookScene<'_>,
        fields: Map<String, Value>,
    ) -> Decision {
        // On a runtime's worker (an HTTP handler), the runtime is told the thread blocks.
        let multi = tokio::runtime::Handle::try_current().is_ok_and(|handle| {
            handle.runtime_flavor() == tokio::runtime::RuntimeFlavor::MultiThread
        });
        let fire = || self.fire_on_a_thread(event, subject, scene, fields);
        match multi {
            true => tokio::task::block_in_place(fire),
            false => fire(),
        }
    }

    fn fire_on_a_thread(
        &self,
        event: HookEvent,
        subject: &str,
        scene: HookScene<'_>,
        fields: Map<String, Value>,
    ) -> Decision {
        std::thread::scope(|scope| {
            let fired = scope.spawn(|| {
                let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build();
                match runtime {
                    Ok(runtime) => runtime.block_on(self.fire(event, subject, scene, fields)),
                    Err(error) => {
                        tracing::warn!(%error, event = event.name(), "hooks not run");
                        Decision::Go
                    }
                }
            });
            fired.join().unwrap_or(Decision::Go)
        })
    }
}

/// The JSON a hook reads on stdin: the event's name, where it happened, its fields.
fn event_input(
    event: HookEvent,
    scene: HookScene<'_>,
    cwd: &Path,
    fields: Map<String, Value>,
) -> Vec<u8> {
    let mut input = Map::new();
    input.insert("hook_event_name".into(), event.name().into());
    input.insert("session_id".into(), scene.chat_id.as_str().into());
    input.insert("chat_id".into(), scene.chat_id.as_str().into());
    let workspace = scene.workspace.map(|folder| folder.display().to_string());
    input.insert("workspace".into(), workspace.map_or(Value::Null, Value::String));
    input.insert("cwd".into(), cwd.display().to_string().into());
    input.extend(fields);
    serde_json::to_vec(&Value::Object(input)).unwrap_or_default()
}

/// What one run of `command` decided; anything but a clear block is logged and goes on.
fn decide(event: HookEvent, command: &str, run: HookRun) -> Decision {
    let name = event.name();
    match run.exit {
        HookExit::Exited(Some(0)) => match serde_json::from_str::<Value>(run.stdout.trim()) {
            Ok(Value::Object(answer))
                if answer.get("decision").and_then(Value::as_str) == Some("block") =>
            {
                let reason = answer.get("reason").and_then(Value::as_str).unwrap_or("");
                blocked(event, command, reason)
            }
            Ok(_) => Decision::Go,
            Err(_) if run.stdout.trim().is_empty() => Decision::Go,
            Err(error) => {
                tracing::info!(event = name, command, %error, "a hook printed what is not a decision; going on");
                Decision::Go
            }
        },
        HookExit::Exited(Some(2)) => blocked(event, command, run.stderr.trim()),
        HookExit::Exited(code) => {
            let stderr = run.stderr.trim();
            tracing::warn!(event = name, command, ?code, stderr, "a hook failed; going on");
            Decision::Go
        }
        HookExit::TimedOut => {
            tracing::warn!(
                event = name,
                command,
                "a hook ran past its timeout and was killed; going on"
            );
            Decision::Go
        }
        HookExit::NotStarted(why) => {
            tracing::warn!(event = name, command, why, "a hook could not start; going on");
            Decision::Go
        }
    }
}

fn blocked(event: HookEvent, command: &str, reason: &str) -> Decision {
    if !event.may_block() {
        tracing::info!(
            event = event.name(),
            command,
            "a hook asked to block what it cannot; going on"
        );
        return Decision::Go;
    }
    let reason = match reason.trim() {
        "" => format!("the hook `{command}` gave no reason"),
        reason => reason.to_owned(),
    };
    Decision::Block(reason)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ran(code: Option<i32>, stdout: &str, stderr: &str) -> HookRun {
        HookRun { exit: HookExit::Exited(code), stdout: stdout.into(), stderr: stderr.into() }
    }

    #[test]
    fn only_a_clear_block_of_an_event_that_may_block_stops_anything() {
        let pre = HookEvent::PreToolUse;
        let block = |reason: &str| Decision::Block(reason.into());
        assert_eq!(decide(pre, "c", ran(Some(2), "", " not here \n")), block("not here"));
        assert_eq!(decide(pre, "c", ran(Some(2), "", "")), block("the hook `c` gave no reason"));
        let json = r#"{"decision":"block","reason":"policy"}"#;
        assert_eq!(decide(pre, "c", ran(Some(0), json, "")), block("policy"));
        assert_eq!(
            decide(HookEvent::UserPromptSubmit, "c", ran(Some(0), json, "")),
            block("policy")
        );
        let goes_on = [
            ran(Some(0), "", ""),
            ran(Some(0), "plain words", ""),
            ran(Some(0), "{not json", ""),
            ran(Some(0), r#"{"decision":"approve"}"#, ""),
            ran(Some(1), json, "failed"),
            ran(None, "", ""),
            HookRun { exit: HookExit::TimedOut, stdout: String::new(), stderr: String::new() },
            HookRun {
                exit: HookExit::NotStarted("no sh".into()),
                stdout: String::new(),
                stderr: String::new(),
            },
        ];
        for run in goes_on {
            assert_eq!(decide(pre, "c", run.clone()), Decision::Go, "{run:?}");
        }
        assert_eq!(decide(HookEvent::PostToolUse, "c", ran(Some(2), "", "no")), Decision::Go);
        assert_eq!(decide(HookEvent::Stop, "c", ran(Some(0), json, "")), Decision::Go);
    }

    #[tokio::test]
    async fn an_edit_of_the_file_applies_at_the_next_event_and_an_error_runs_nothing() {
        let home = tempfile::tempdir().unwrap();
        let hooks = Hooks::open(home.path(), Vec::new());
        let chat = ChatId::from("c1");
        let scene = HookScene { chat_id: &chat, workspace: None };
        let file = home.path().join(HOOKS_FILE);
        let blocking = |why: &str| {
            format!(
                r#"{{"hooks":{{"PreToolUse":[{{"matcher":"w.*","hooks":[{{"type":"command","command":"echo {why} >&2; exit 2"}}]}}]}}}}"#
            )
        };
        assert_eq!(
            hooks.fire(HookEvent::PreToolUse, "write", scene, Map::new()).await,
            Decision::Go
        );
        std::fs::write(&file, blocking("first")).unwrap();
        let fire = || hooks.fire(HookEvent::PreToolUse, "write", scene, Map::new());
        assert_eq!(fire().await, Decision::Block("first".into()));
        std::fs::write(&file, blocking("second, longer")).unwrap();
        assert_eq!(fire().await, Decision::Block("second, longer".into()));
        assert_eq!(
            hooks.fire(HookEvent::PreToolUse, "read", scene, Map::new()).await,
            Decision::Go
        );
        std::fs::write(&file, r#"{"hooks":{"PreToolUse":[{"matcher":"(","hooks":[]}]}}"#).unwrap();
        assert_eq!(fire().await, Decision::Go, "a file with an error runs none of its hooks");
        assert!(hooks.view(Vec::new()).errors[0].message.contains("not a regular expression"));
    }
}
