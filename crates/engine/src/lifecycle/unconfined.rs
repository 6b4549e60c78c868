//! Unconfined runs as the user's choice (DESIGN §11): whether the chat's code sandbox would
//! confine runs on this machine, the plan card's notice when it would not, approval's check,
//! and the refusal a chat gets for its sandbox calls and gates without that choice.
//!
//! **Invariant:** in `auto` mode on a machine where bubblewrap cannot confine, no code of a
//! chat runs unless the user approved its plan with "run unconfined"; auto-approve holds
//! such a plan for the user. `[sandbox] confinement = "off"` is the user's choice already.
//!
//! **Invariant:** where the engine found bubblewrap working, the sandbox server starts with
//! `--confinement bubblewrap` (it refuses to start rather than fall back), and whatever a code
//! sandbox says of itself at start is checked against the chat's choice before each call
//! (`McpHost::with_unconfined_consent`): the engine's belief is never the only guard.

use std::path::PathBuf;
use std::sync::OnceLock;

use preflight_mcp::confinement::{probe, ConfinementMode, Probe, UnconfinedNotice};
use preflight_mcp::SandboxDefault;
use preflight_protocol::chat::Chat;
use preflight_protocol::planner::PlanDocument;

/// How the user approves a plan.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ApproveChoice {
    /// The user allows the plan's code to run unconfined ("Run unconfined" on the card,
    /// `{"unconfined": true}`); needed, and only then recorded, where the sandbox cannot
    /// confine runs.
    pub run_unconfined: bool,
}

/// What tells whether the supplied sandbox confines runs: its program, environment and
/// mode; the probe is asked once, when the engine opens (a fact of the machine).
pub(crate) struct Confinement {
    mode: ConfinementMode,
    pub(crate) program: PathBuf,
    pub(crate) env: Vec<(String, String)>,
    /// The sandbox's `--state-dir`, where the venvs it made (or adopted) are recorded.
    pub(crate) state_dir: PathBuf,
    probe: OnceLock<Probe>,
}

impl Confinement {
    pub(crate) fn new(sandbox: &SandboxDefault, data_dir: &std::path::Path) -> Confinement {
        Confinement {
            mode: sandbox.confinement,
            program: sandbox.program.clone(),
            env: sandbox.env.clone(),
            state_dir: preflight_mcp::sandbox_state_dir(data_dir),
            probe: OnceLock::new(),
        }
    }

    /// The mode the supplied sandbox server is started with: `auto` becomes `bubblewrap` where
    /// the probe found bubblewrap working, so that a server whose own probe then fails refuses
    /// to start instead of running unconfined without the user's choice; it stays `auto` only
    /// where the probe failed (every chat reaching the sandbox then has the user's choice).
    /// Asks the probe (blocking) in `auto` mode.
    pub(crate) fn server_mode(&self) -> ConfinementMode {
        if self.mode != ConfinementMode::Auto || !self.program.is_file() {
            return self.mode;
        }
        match self.probe.get_or_init(|| probe(&self.program, &self.env)) {
            Probe::Confined => ConfinementMode::Bubblewrap,
            Probe::Unconfined { .. } => ConfinementMode::Auto,
        }
    }

    fn notice(&self) -> Option<UnconfinedNotice> {
        if self.mode == ConfinementMode::Bubblewrap || !self.program.is_file() {
            return None; // no unconfined run can happen: the sandbox refuses, or is missing
        }
        let probe = self.probe.get_or_init(|| probe(&self.program, &self.env));
        UnconfinedNotice::of(self.mode, probe)
    }
}

/// The notice for `chat`: `None` when its runs are confined or it has no code sandbox.
pub(crate) fn chat_notice(
    confinement: Option<&Confinement>,
    chat: &Chat,
) -> Option<UnconfinedNotice> {
    chat.workspace.as_ref()?;
    confinement?.notice()
}

/// Whether the chat's code may run unconfined: the user set `[sandbox] confinement = "off"`,
/// or (in `auto` mode) approved its `plan` with "Run unconfined". A code sandbox that runs
/// unconfined is used by the chat only then.
pub(crate) fn unconfined_allowed(
    confinement: Option<&Confinement>,
    plan: Option<&PlanDocument>,
) -> bool {
    match confinement.map(|confinement| confinement.mode) {
        Some(ConfinementMode::Off) => true,
        Some(ConfinementMode::Auto) => plan.is_some_and(|plan| plan.run_unconfined),
        Some(ConfinementMode::Bubblewrap) | None => false,
    }
}

/// Whether approving (or auto-approving) needs the user's "run unconfined" first.
pub(crate) fn needs_consent(confinement: Option<&Confinement>, chat: &Chat) -> bool {
    chat_notice(confinement, chat).is_some_and(|notice| notice.needs_consent)
}

/// The notice of `chat` when its code may not run now: its runs would be unconfined and its
/// `plan` was not approved with "Run unconfined"; `None` when it may run.
pub(crate) fn held(
    confinement: Option<&Confinement>,
    chat: &Chat,
    plan: Option<&PlanDocument>,
) -> Option<UnconfinedNotice> {
    let notice = chat_notice(confinement, chat)?;
    let chosen = plan.is_some_and(|plan| plan.run_unconfined);
    (notice.needs_consent && !chosen).then_some(notice)
}

/// Why `chat`'s code may not run now, given its approved `plan`; `None` when it may.
pub(crate) fn refusal(
    confinement: Option<&Confinement>,
    chat: &Chat,
    plan: Option<&PlanDocument>,
) -> Option<String> {
    let notice = held(confinement, chat, plan)?;
    Some(format!(
        "Refused, nothing ran: this chat is not allowed to run unconfined, and the code sandbox \
         cannot confine runs on this machine ({}). The user allows it by approving a plan with \
         \"Run unconfined\", or by setting [sandbox] confinement = \"off\". Do not try other \
         ways to run code; tell the user.",
        notice.reason
    ))
}

/// Approval's refusal when the user's choice is missing.
pub(crate) fn consent_missing(notice: &UnconfinedNotice) -> String {
    format!(
        "The code sandbox cannot confine this plan's runs on this machine ({}). Approve with \
         \"Run unconfined\" ({{\"unconfined\": true}}) to let them run with your user's rights, \
         or set [sandbox] confinement = \"off\" in config.toml.",
        notice.reason
    )
}
