//! `sandbox_info`'s result and the venv's package list, from the facts the server hands in
//! (the server runs pip, inside the sandbox: the venv's code is the workspace's, so it never
//! runs unconfined).

use crate::confine::Jail;
use crate::venv::{self, Python};
use rmcp::model::{CallToolResult, ContentBlock};
use serde::{Deserialize, Serialize};
use serde_json::json;
use std::path::Path;

/// One installed distribution, as `pip list --format=json` gives it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Package {
    pub name: String,
    pub version: String,
}

/// The packages `pip list --format=json` printed, sorted by name; `None` when it printed
/// something else.
pub fn parse_pip_list(stdout: &str) -> Option<Vec<Package>> {
    let mut packages: Vec<Package> = serde_json::from_str(stdout.trim()).ok()?;
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

/// The `sandbox_info` result: text in plain words and the same facts structured. `version`
/// is the interpreter's, `venv` the workspace's venv folder (`venv_ours` when this sandbox
/// made it) and `packages` what pip listed there.
pub fn sandbox_info(
    jail: &Jail,
    python: &Python,
    version: Option<String>,
    venv: &Path,
    venv_ours: bool,
    packages: Option<Vec<Package>>,
) -> CallToolResult {
    let venv_exists = venv::venv_python(venv).exists();
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
