//! The MCP server: lists the four tools and runs them for one workspace. One `Sandbox` owns
//! the jail, the interpreter choice and the venv's creation lock.

use crate::confine::Jail;
use crate::error::SandboxError;
use crate::info::{self, Package};
use crate::request::{Reach, RunRequest};
use crate::run::{run, RunOutcome};
use crate::tools::{self, InstallPackagesArgs, RunCommandArgs, RunPythonArgs};
use crate::venv::{self, Python, Records};
use crate::{env, paths};
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
    venv_creation: tokio::sync::Mutex<()>,
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
    ) -> Sandbox {
        let venv_creation = tokio::sync::Mutex::new(());
        Sandbox { jail, python, records, server_env, venv_creation }
    }

    pub fn workspace(&self) -> &Path {
        &self.jail.workspace
    }

    pub fn venv(&self) -> PathBuf {
        venv::venv_dir(self.workspace())
    }

    /// Creates the venv on first need; concurrent first calls create it once.
    pub async fn ensure_venv(&self) -> Result<(), SandboxError> {
        let _creating = self.venv_creation.lock().await;
        venv::ensure(&self.python, &self.venv(), &self.records).await
    }

    /// The venv when it is there and this sandbox made it: only then is its `bin` on PATH
    /// and its interpreter run (a repository's own `.sandbox/venv` could fake any program).
    pub fn usable_venv(&self) -> Option<PathBuf> {
        let venv = self.venv();
        (venv::venv_python(&venv).exists() && self.records.is_ours(&venv)).then_some(venv)
    }

    /// A run of `argv` in `cwd`: the allowlisted environment without pip's settings, the
    /// network only when the server was started with it, nothing on stdin.
    pub fn request(&self, argv: Vec<String>, cwd: PathBuf, timeout: Duration) -> RunRequest {
        let env = self.environment(false);
        let reach = Reach { network: self.jail.network, read_only: Vec::new() };
        RunRequest { argv, cwd, timeout, env, reach, stdin: None }
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

    /// A run of pip: its `PIP_*` settings, the network, and its local `find-links` folders
    /// visible read-only.
    pub fn pip_request(&self, argv: Vec<String>, timeout: Duration) -> RunRequest {
        let mut request = self.request(argv, self.workspace().to_path_buf(), timeout);
        request.env = self.environment(true);
        request.reach = Reach { network: true, read_only: env::local_find_links(&request.env) };
        request
    }

    /// Runs `request` confined, ending it when the call is cancelled.
    pub async fn execute(
        &self,
        request: RunRequest,
        context: &RequestContext<RoleServer>,
    ) -> Result<RunOutcome, SandboxError> {
        run(&self.jail, &request, context.ct.cancelled()).await
    }

    /// The venv's packages (`pip list`, run confined: the venv's code is the workspace's), or
    /// `None` when there is no venv or pip could not list them.
    pub async fn installed(&self, cx: &RequestContext<RoleServer>) -> Option<Vec<Package>> {
        let python = venv::venv_python(&self.usable_venv()?);
        let argv = [python.display().to_string(), "-m".into(), "pip".into(), "list".into()];
        let mut argv = argv.to_vec();
        argv.extend(["--format=json".into(), "--disable-pip-version-check".into()]);
        let cwd = self.workspace().to_path_buf();
        let request = self.request(argv, cwd, Duration::from_secs(120));
        let outcome = self.execute(request, cx).await.ok()?;
        info::parse_pip_list(&outcome.stdout)
    }

    /// `sandbox_info`: the jail, the interpreter, the venv and its packages.
    async fn sandbox_info(&self, cx: &RequestContext<RoleServer>) -> CallToolResult {
        let version = self.python.version().await;
        let (venv, venv_ours) = (self.venv(), self.usable_venv().is_some());
        let packages = self.installed(cx).await;
        info::sandbox_info(&self.jail, &self.python, version, &venv, venv_ours, packages)
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
        let before = self.installed(cx).await.unwrap_or_default();
        let python = venv::venv_python(&self.venv()).display().to_string();
        let mut argv = vec![python, "-m".into(), "pip".into(), "install".into()];
        argv.extend(["--disable-pip-version-check".into(), "--no-input".into(), "--".into()]);
        argv.extend(args.packages);
        let outcome = self.execute(self.pip_request(argv, timeout), cx).await?;
        let after = self.installed(cx).await.unwrap_or_default();
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
            "sandbox_info" => Ok(self.sandbox_info(cx).await),
            other => Err(SandboxError::Arguments(format!("unknown tool {other:?}"))),
        }
    }
}

impl ServerHandler for SandboxServer {
    fn get_info(&self) -> ServerConfig {
        let implementation = Implementation::new("preflight-sandbox", env!("CARGO_PKG_VERSION"));
        // Its confinement, for the host to check against the chat's consent (issue 46).
        let reason = match &self.0.jail.confinement {
            crate::confine::Confinement::Bubblewrap { .. } => serde_json::Value::Null,
            crate::confine::Confinement::Unconfined { reason } => reason.clone().into(),
        };
        let report = serde_json::json!({"confined": self.0.jail.is_confined(), "reason": reason});
        let mut capabilities = ServerCapabilities::builder().enable_tools().build();
        capabilities.experimental = Some(
            [("preflight/confinement".to_owned(), report.as_object().cloned().unwrap_or_default())]
                .into(),
        );
        ServerConfig::new(capabilities)
            .with_server_info(implementation)
            .with_instructions(self.0.jail.describe())
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        let tools = tools::definitions(&self.0.jail.describe(), self.0.jail.network);
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
