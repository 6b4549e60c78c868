//! The MCP server: lists the four tools and runs them for one workspace. One `Sandbox` owns
//! the jail, the interpreter choice and the venv's creation lock.

use crate::adopt::{self, Verdict};
use crate::confine::{Confinement, Jail};
use crate::error::SandboxError;
use crate::info::{self, Package, Standing};
use crate::quarantine::Guard;
use crate::request::{Network, Reach, RunRequest};
use crate::run::{run, RunOutcome};
use crate::tools::{self, InstallPackagesArgs, RunCommandArgs, RunPythonArgs};
use crate::venv::{self, Python, Records};
use crate::{env, outbound, paths};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, Implementation, ListToolsResult,
    PaginatedRequestParams, ServerCapabilities, ServerConfig,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData as McpError, RoleServer, ServerHandler};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

/// The server's state, shared by concurrent calls.
#[derive(Debug)]
pub struct Sandbox {
    pub jail: Jail,
    pub python: Python,
    /// The venvs this sandbox made (only those are used).
    pub records: Records,
    /// The server's environment, read once at start; runs see only its allowlist.
    pub server_env: Vec<(String, String)>,
    /// pip may build source distributions (`--allow-sdists`); else wheels only.
    pub allow_sdists: bool,
    venv_creation: tokio::sync::Mutex<()>,
    /// The last verdict on an unrecorded venv, by the venv's identity: what its refusal says
    /// (adoption itself always examines afresh).
    verdict: std::sync::Mutex<Option<(String, Verdict)>>,
    /// Snapshots the workspace's `.git` entries around each run and quarantines new ones.
    guard: Guard,
}

/// The rmcp handler around a shared [`Sandbox`].
#[derive(Debug, Clone)]
pub struct SandboxServer(pub Arc<Sandbox>);

impl Sandbox {
    pub fn new(
        jail: Jail,
        python: Python,
        records: Records,
        server_env: Vec<(String, String)>,
        allow_sdists: bool,
    ) -> Sandbox {
        let venv_creation = tokio::sync::Mutex::new(());
        let guard = Guard::default();
        let verdict = std::sync::Mutex::new(None);
        Sandbox { jail, python, records, server_env, allow_sdists, venv_creation, verdict, guard }
    }

    pub fn workspace(&self) -> &Path {
        &self.jail.workspace
    }

    pub fn venv(&self) -> PathBuf {
        venv::venv_dir(self.workspace())
    }

    /// Creates the venv on first need; concurrent first calls create it once. An unrecorded
    /// venv is refused either way; one an earlier Preflight made says it can be adopted.
    pub async fn ensure_venv(&self) -> Result<(), SandboxError> {
        let _creating = self.venv_creation.lock().await;
        match venv::ensure(&self.python, &self.venv(), &self.records).await {
            Err(SandboxError::VenvForeign(venv)) => match self.adoption_verdict().await {
                Verdict::Adoptable => Err(SandboxError::VenvAdoptable(venv)),
                Verdict::Refused(_) => Err(SandboxError::VenvForeign(venv)),
            },
            other => other,
        }
    }

    /// Whether the workspace's unrecorded venv could be adopted, examined once per venv.
    async fn adoption_verdict(&self) -> Verdict {
        let venv = self.venv();
        let key = venv::identity(&venv).unwrap_or_default();
        let cached = self.verdict.lock().ok().and_then(|slot| slot.clone());
        if let Some((_, verdict)) = cached.filter(|(seen, _)| *seen == key) {
            return verdict;
        }
        let verdict = adopt::examine(&venv, self.workspace(), &self.python).await;
        if let Ok(mut slot) = self.verdict.lock() {
            *slot = Some((key, verdict.clone()));
        }
        verdict
    }

    /// The venv when it is there and this sandbox made it: only then is its `bin` on PATH
    /// and its interpreter run (a repository's own `.sandbox/venv` could fake any program).
    pub fn usable_venv(&self) -> Option<PathBuf> {
        let venv = self.venv();
        (venv::venv_python(&venv).exists() && self.records.is_ours(&venv)).then_some(venv)
    }

    /// A run of `argv` in `cwd`: the allowlisted environment without pip's settings, the
    /// network only when the server was started with it, the venv read-only, nothing on stdin.
    pub fn request(&self, argv: Vec<String>, cwd: PathBuf, timeout: Duration) -> RunRequest {
        let env = self.environment(false);
        let network = if self.jail.network { Network::Host } else { Network::None };
        let reach = Reach { network, read_only: Vec::new(), state_writable: false };
        RunRequest { argv, cwd, timeout, env, reach, stdin: None, protected: None }
    }

    /// The allowlisted environment, its `HOME` the empty home the jail made (at the home's
    /// canonical path, so a `HOME` through a link still names a folder that exists inside).
    fn environment(&self, pip: bool) -> Vec<(String, String)> {
        let venv = self.usable_venv();
        let mut env = env::allowlisted(self.server_env.iter().cloned(), venv.as_deref(), pip);
        if let (true, Some(home)) = (self.jail.is_confined(), &self.jail.home) {
            for (key, value) in &mut env {
                if key == "HOME" {
                    *value = home.display().to_string();
                }
            }
        }
        env
    }

    /// A run of pip: its `PIP_*` settings, an outbound-only network of its own, its local
    /// `find-links` folders visible read-only, the venv writable. It starts in `/`, outside
    /// the workspace, so no `pip.py` there is imported in its place.
    pub fn pip_request(&self, argv: Vec<String>, timeout: Duration) -> RunRequest {
        let mut request = self.request(argv, PathBuf::from("/"), timeout);
        request.env = self.environment(true);
        let read_only = env::local_find_links(&request.env);
        request.reach = Reach { network: Network::Outbound, read_only, state_writable: true };
        request
    }

    /// Runs `request` confined, ending it when the call is cancelled: the workspace's `.git`
    /// entries and `.dwp` read-only during it, and any it created or replaced renamed aside
    /// after it (`quarantine.rs`), even when the run failed.
    pub async fn execute(
        &self,
        mut request: RunRequest,
        context: &RequestContext<RoleServer>,
    ) -> Result<RunOutcome, SandboxError> {
        let before = self.guard.before(self.workspace()).await;
        request.protected = Some(before.protected(self.workspace()));
        let outcome = run(&self.jail, &request, context.ct.cancelled()).await;
        let report = self.guard.after(self.workspace(), before).await;
        outcome.map(|outcome| RunOutcome { guard: report, ..outcome })
    }

    /// The venv's packages, read from its `site-packages` (no code of the venv runs), or
    /// `None` when there is no venv of ours.
    pub fn installed(&self) -> Option<Vec<Package>> {
        info::installed(&self.usable_venv()?)
    }

    /// `sandbox_info`: the jail, the interpreter, the venv and its packages.
    async fn sandbox_info(&self) -> CallToolResult {
        let version = self.python.version().await;
        let venv = self.venv();
        let standing = match (self.usable_venv().is_some(), venv::venv_python(&venv).exists()) {
            (true, _) => Standing::Ours,
            (false, false) => Standing::Absent,
            (false, true) => match self.adoption_verdict().await {
                Verdict::Adoptable => Standing::Adoptable,
                Verdict::Refused(why) => Standing::Foreign(why),
            },
        };
        let packages = self.installed();
        info::sandbox_info(&self.jail, &self.python, version, &venv, &standing, packages)
    }

    async fn run_command(
        &self,
        args: RunCommandArgs,
        cx: &RequestContext<RoleServer>,
    ) -> Result<CallToolResult, SandboxError> {
        let timeout = tools::timeout(args.timeout_s)?;
        let cwd = paths::resolve_cwd(self.workspace(), args.cwd.as_deref())?;
        // A command works without the venv; it only says why there is none.
        let notes: Vec<String> = match self.ensure_venv().await {
            Ok(()) => Vec::new(),
            Err(e) => vec![format!("note: no Python venv on PATH: {e}")],
        };
        let argv = vec!["/bin/sh".into(), "-c".into(), args.command];
        let outcome = self.execute(self.request(argv, cwd, timeout), cx).await?;
        Ok(tools::run_result(self.jail.result_banner().as_deref(), &outcome, &notes))
    }

    async fn run_python(
        &self,
        args: RunPythonArgs,
        cx: &RequestContext<RoleServer>,
    ) -> Result<CallToolResult, SandboxError> {
        let timeout = tools::timeout(args.timeout_s)?;
        self.ensure_venv().await?;
        // The code goes in on the run's stdin (`python -` reads the whole program, then runs
        // it): nothing is written in the workspace from out here, where a link planted by an
        // earlier run could point a write at any file of the user's.
        let python = venv::venv_python(&self.venv()).display().to_string();
        let argv = vec![python, "-".into()];
        let mut request = self.request(argv, self.workspace().to_path_buf(), timeout);
        request.stdin = Some(args.code.into_bytes());
        let outcome = self.execute(request, cx).await?;
        Ok(tools::run_result(self.jail.result_banner().as_deref(), &outcome, &[]))
    }

    async fn install_packages(
        &self,
        args: InstallPackagesArgs,
        cx: &RequestContext<RoleServer>,
    ) -> Result<CallToolResult, SandboxError> {
        let timeout = tools::timeout(args.timeout_s)?;
        if args.packages.is_empty() {
            return Err(SandboxError::Arguments("packages must name at least one package".into()));
        }
        args.packages.iter().try_for_each(|p| tools::check_package(p))?;
        self.ensure_venv().await?;
        let before = self.installed().unwrap_or_default();
        let mut outcome =
            self.execute(self.pip_request(self.pip_install(args.packages), timeout), cx).await?;
        if self.jail.is_confined() {
            outcome.stderr = outbound::without_noise(&outcome.stderr);
        }
        let after = self.installed().unwrap_or_default();
        let changed = info::changed(&before, &after);
        let line = match (outcome.exit_code, changed.is_empty()) {
            (0, true) => "installed: nothing new (already satisfied)".to_string(),
            (_, true) => "installed: nothing (see pip's error below)".to_string(),
            _ => format!("installed: {}", info::names_and_versions(&changed)),
        };
        let mut result = tools::run_result(self.jail.result_banner().as_deref(), &outcome, &[line]);
        if let Some(serde_json::Value::Object(object)) = result.structured_content.as_mut() {
            object.insert("installed".into(), serde_json::to_value(&changed).unwrap_or_default());
        }
        Ok(result)
    }

    /// `python -I -m pip install …`: isolated (no current folder or script folder on
    /// `sys.path`, no `PYTHON*` variables, no user site), wheels only unless `--allow-sdists`.
    fn pip_install(&self, packages: Vec<String>) -> Vec<String> {
        let python = venv::venv_python(&self.venv()).display().to_string();
        let mut argv = vec![python, "-I".into(), "-m".into(), "pip".into(), "install".into()];
        argv.extend(["--disable-pip-version-check".into(), "--no-input".into()]);
        if !self.allow_sdists {
            argv.push("--only-binary=:all:".into());
        }
        argv.push("--".into());
        argv.extend(packages);
        argv
    }

    async fn dispatch(
        &self,
        request: CallToolRequestParams,
        cx: &RequestContext<RoleServer>,
    ) -> Result<CallToolResult, SandboxError> {
        let args = request.arguments;
        match request.name.as_ref() {
            "run_command" => self.run_command(tools::parse_args(args)?, cx).await,
            "run_python" => self.run_python(tools::parse_args(args)?, cx).await,
            "install_packages" => self.install_packages(tools::parse_args(args)?, cx).await,
            "sandbox_info" => Ok(self.sandbox_info().await),
            other => Err(SandboxError::Arguments(format!("unknown tool {other:?}"))),
        }
    }
}

impl ServerHandler for SandboxServer {
    fn get_info(&self) -> ServerConfig {
        let implementation = Implementation::new("preflight-sandbox", env!("CARGO_PKG_VERSION"));
        let mut capabilities = ServerCapabilities::builder().enable_tools().build();
        capabilities.experimental = Some(confinement_capability(&self.0.jail));
        ServerConfig::new(capabilities)
            .with_server_info(implementation)
            .with_instructions(self.0.jail.describe())
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        let sandbox = &self.0;
        let tools = tools::definitions(
            &sandbox.jail.describe(),
            sandbox.jail.network,
            sandbox.allow_sdists,
        );
        Ok(ListToolsResult::with_all_items(tools))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let result = match self.0.dispatch(request, &context).await {
            Ok(result) => result,
            Err(error) => tools::refusal(self.0.jail.result_banner().as_deref(), &error),
        };
        Ok(result.into())
    }
}

/// The key of [`confinement_capability`], which the engine reads.
pub const CONFINEMENT_CAPABILITY: &str = "preflight/confinement";

/// `{"preflight/confinement": {"confined": bool, "reason": string|null}}`, the server's
/// `capabilities.experimental` in its initialize result: whether runs are confined, so the
/// engine can check what it was told against what the server does.
pub fn confinement_capability(jail: &Jail) -> rmcp::model::ExperimentalCapabilities {
    let reason = match &jail.confinement {
        Confinement::Bubblewrap { .. } => None,
        Confinement::Unconfined { reason } => Some(reason.clone()),
    };
    let mut report = rmcp::model::JsonObject::new();
    report.insert("confined".into(), serde_json::json!(jail.is_confined()));
    report.insert("reason".into(), serde_json::json!(reason));
    [(CONFINEMENT_CAPABILITY.to_string(), report)].into_iter().collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::{ConfinementChoice, Options};

    #[test]
    fn the_confinement_is_advertised_under_its_key() {
        let dir = tempfile::tempdir().unwrap();
        let options = Options {
            workspace: dir.path().to_path_buf(),
            network: false,
            confinement: ConfinementChoice::None,
            max_processes: 64,
            memory_mib: 64,
            max_file_mib: 64,
            python: None,
            state_dir: None,
            allow_sdists: false,
        };
        let mut jail = Jail::detect(&options, dir.path().to_path_buf()).unwrap();
        let unconfined = serde_json::to_value(confinement_capability(&jail)).unwrap();
        assert_eq!(
            unconfined,
            serde_json::json!({"preflight/confinement":
                {"confined": false, "reason": "started with --confinement none"}})
        );
        jail.confinement = Confinement::Bubblewrap { bwrap: "/usr/bin/bwrap".into() };
        let confined = serde_json::to_value(confinement_capability(&jail)).unwrap();
        assert_eq!(
            confined,
            serde_json::json!({"preflight/confinement": {"confined": true, "reason": null}})
        );
    }
}
