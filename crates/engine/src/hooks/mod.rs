//! The user's hooks (DESIGN §17): programs `hooks.json` names, run at the points of a turn.
//! `$PREFLIGHT_HOME/hooks.json` always runs; a workspace's `.preflight/hooks.json` only
//! while the user trusts that folder for hooks, by its canonical path (`trust.rs`). Each file
//! is read again when it changes (its size or modification time; a stat per event), so an
//! edit needs no restart; a file with an error runs none of its hooks, and says why in the
//! view (`GET /v1/hooks`).
//!
//! **Invariant:** only `PreToolUse` and `UserPromptSubmit` may stop anything, and only by a
//! clear block (exit 2, or `{"decision":"block"}` on stdout); any other end of a hook (another
//! status, a timeout, a crash, garbage) is logged and what it was about goes on.
//!
//! **Boundary:** no lifecycle here: the caller says which chat, which workspace and what the
//! event carries (`lifecycle/hooks.rs`).

mod event;
mod file;
mod host;
mod run;
mod tool;
mod trust;
mod view;

pub use event::HookEvent;
pub use file::{parse_hooks, HookCommand, HookFile, HookFileError, DEFAULT_TIMEOUT, MAX_TIMEOUT_S};
pub use host::{Decision, HookScene, Hooks, HOOKS_FILE, WORKSPACE_HOOKS_FILE};
pub use run::{hook_env, run_command, HookExit, HookRun, OUTPUT_CAP};
pub use tool::ChatToolHooks;
pub use trust::{HookTrustError, Trust, TRUST_FILE};
pub use view::{HookFileProblem, HooksView, LoadedHook, WorkspaceHooks};
