//! `sandbox_info` and the venv's package list (read with pip inside the sandbox: the venv's
//! code is the workspace's, so it never runs unconfined).

use crate::server::Sandbox;
use crate::venv;
use rmcp::model::{CallToolResult, ContentBlock};
use rmcp::service::RequestContext;
use rmcp::RoleServer;
use serde::{Deserialize, Serialize};
use serde_json::json;
use std::time::Duration;

/// One installed distribution, as `pip list --format=json` gives it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Package {
    pub name: String,
    pub version: String,
}

/// The venv's packages, or `None` when there is no venv or pip could not list them.
pub async fn installed(sandbox: &Sandbox, cx: &RequestContext<RoleServer>) -> Option<Vec<Package>> {
    let python = venv::venv_python(&sandbox.usable_venv()?);
    let argv = [python.display().to_string(), "-m".into(), "pip".into(), "list".into()];
    let mut argv = argv.to_vec();
    argv.extend(["--format=json".into(), "--disable-pip-version-check".into()]);
    let cwd = sandbox.workspace().to_path_buf();
    let request = sandbox.request(argv, cwd, Duration::from_secs(120));
    let outcome = sandbox.execute(request, cx).await.ok()?;
    let mut packages: Vec<Package> = serde_json::from_str(outcome.stdout.trim()).ok()?;
    packages.sort_by_key(|p| p.name.to_lowercase());
    Some(packages)
}

/// Packages in `after` that are new or at another version than in `before`.
pub fn changed(before: &[Package], after: &[Package]) -> Vec<Package> {
    after.iter().filter(|p| !before.contains(p)).cloned().collect()
}

/// `six 1.16.0, tiny 0.1.0`.
pub fn names_and_versions(packages: &[Package]) -> String {
    let words: Vec<String> = packages.iter().map(|p| format!("{} {}", p.name, p.version)).collect();
    words.join(", ")
}

/// The `sandbox_info` result: text in plain words and the same facts structured.
pub async fn sandbox_info(sandbox: &Sandbox, cx: &RequestContext<RoleServer>) -> CallToolResult {
    let jail = &sandbox.jail;
    let python = &sandbox.python;
    let version = python.version().await;
    let venv = sandbox.venv();
    let venv_exists = venv::venv_python(&venv).exists();
    let venv_ours = sandbox.usable_venv().is_some();
    let packages = installed(sandbox, cx).await;
    let mut text = String::new();
    if let Some(banner) = jail.result_banner() {
        text.push_str(&format!("{banner}\n"));
    }
    text.push_str(&format!("Confinement: {}\n", jail.describe()));
    let shown_version = version.as_deref().unwrap_or("unknown (it did not run)");
    text.push_str(&format!(
        "Python: {} ({}), version {shown_version}\n",
        python.interpreter.display(),
        python.chosen_because
    ));
    let state = match (venv_exists, venv_ours) {
        (true, true) => "exists",
        (true, false) => "NOT USED: it was not made by this sandbox (it came with the workspace)",
        (false, _) => "not created yet: made on the first run",
    };
    text.push_str(&format!("Venv: {} ({state})\n", venv.display()));
    let listed = packages.as_deref().map(names_and_versions);
    text.push_str(&format!(
        "Installed packages: {}\n",
        listed.as_deref().unwrap_or("none (no venv yet)")
    ));
    let mut result = CallToolResult::success(vec![ContentBlock::text(text)]);
    result.structured_content = Some(json!({
        "confined": jail.is_confined(),
        "confinement": jail.describe(),
        "network": jail.network,
        "limits": jail.limits.describe(),
        "python": {"interpreter": python.interpreter, "chosen_because": python.chosen_because, "version": version},
        "venv": {"path": venv, "exists": venv_exists, "ours": venv_ours},
        "packages": packages.unwrap_or_default(),
    }));
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    fn package(name: &str, version: &str) -> Package {
        Package { name: name.into(), version: version.into() }
    }

    #[test]
    fn new_and_upgraded_packages_are_reported() {
        let before = [package("pip", "23.0.1"), package("six", "1.15.0")];
        let after = [package("pip", "23.0.1"), package("six", "1.16.0"), package("tiny", "0.1.0")];
        let changed = changed(&before, &after);
        assert_eq!(names_and_versions(&changed), "six 1.16.0, tiny 0.1.0");
        assert!(super::changed(&after, &after).is_empty());
    }
}
