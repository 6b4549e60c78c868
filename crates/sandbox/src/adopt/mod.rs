//! A `.sandbox/venv` this sandbox has no record of, told apart: one an earlier Preflight made
//! (before venvs were recorded, `/usr/bin/python3 -m venv`) from one a repository planted.
//! Only the first may be adopted, and only when the user asks (`--adopt-venv`, which the
//! engine runs for the window's "Use this environment"); it is then recorded exactly as a
//! freshly made venv is ([`Records::record`]).
//!
//! **Invariant:** no code of the venv runs here. Its files are read as data: the layout in
//! Rust ([`layout`]), `site-packages` by the allowed interpreter (`-I`, from `/`), which
//! compares it with that interpreter's own bundled wheels (`site_packages.py`).
//!
//! What an attacker who controls the repository could plant, and what refuses it:
//! - `bin/python` a script or another interpreter (or `pyvenv.cfg` naming one): the python
//!   links must end at the allowed interpreter, and `home` must be its folder.
//! - a link out of the workspace, a device, a FIFO, a hard link to a file elsewhere, a
//!   set-uid bit, a file of another user: none is in a venv Preflight made; all refused.
//! - a program in `bin` that shadows a command (`ls`, `git`, `sh`) on the jail's `PATH`:
//!   every executable there must be a console-script launcher naming this venv's python, and
//!   none may carry the name of a program in the system's `bin` folders (pip's own launchers
//!   excepted when they are pip's).
//! - code that runs at every start of Python or in pip's networked runs: a `.pth` file,
//!   `sitecustomize`, a rewritten pip (its sources or its `.pyc`), a module pip imports when
//!   present (`_manylinux`, `keyring`, …): pip and its bundled companions must be the bytes
//!   of the interpreter's bundled wheels (a `.pyc` must be what their source compiles to),
//!   and no other top-level module may carry a name their code imports.

mod layout;

use crate::error::SandboxError;
use crate::venv::{Python, Records};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The longest the interpreter may take to compare `site-packages` with its wheels.
const SITE_CHECK_LIMIT: Duration = Duration::from_secs(120);

const SITE_PACKAGES_CHECK: &str = include_str!("site_packages.py");

/// Whether a venv without a record could be adopted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// It looks in every checked respect like a venv an earlier Preflight made.
    Adoptable,
    /// It does not, and why, in plain words.
    Refused(String),
}

/// Examines `venv` (the workspace's `.sandbox/venv`) against the interpreter the sandbox
/// would make it with. Reads only; runs nothing of the venv.
pub async fn examine(venv: &Path, workspace: &Path, python: &Python) -> Verdict {
    let interpreter = match python.interpreter.canonicalize() {
        Ok(path) => path,
        Err(e) => {
            return refused(format!(
                "the interpreter {} cannot be found: {e}",
                python.interpreter.display()
            ))
        }
    };
    let version = match python.version().await {
        Some(version) => version,
        None => {
            return refused(format!("{} did not say its version", python.interpreter.display()))
        }
    };
    let expected =
        layout::Expected { venv, workspace, interpreter: &interpreter, version: &version };
    let site = match layout::check(&expected) {
        Ok(site) => site,
        Err(why) => return refused(why),
    };
    check_site_packages(python, &site).await
}

/// Records `venv` as this sandbox's when [`examine`] finds it adoptable; otherwise changes
/// nothing and says why.
pub async fn adopt(
    venv: &Path,
    workspace: &Path,
    python: &Python,
    records: &Records,
) -> Result<(), SandboxError> {
    if records.is_ours(venv) {
        return Ok(());
    }
    if std::fs::symlink_metadata(venv).is_err() {
        let reason = "there is no venv there to adopt".to_owned();
        return Err(SandboxError::VenvNotAdoptable { venv: venv.to_path_buf(), reason });
    }
    match examine(venv, workspace, python).await {
        Verdict::Adoptable => records.record(venv),
        Verdict::Refused(why) => {
            Err(SandboxError::VenvNotAdoptable { venv: venv.to_path_buf(), reason: why })
        }
    }
}

fn refused(why: String) -> Verdict {
    Verdict::Refused(why)
}

/// Asks the allowed interpreter, isolated, to compare `site` with its bundled wheels.
async fn check_site_packages(python: &Python, site: &PathBuf) -> Verdict {
    let run = crate::venv::isolated(&python.interpreter)
        .arg("-c")
        .arg(SITE_PACKAGES_CHECK)
        .arg(site)
        .output();
    let out = match tokio::time::timeout(SITE_CHECK_LIMIT, run).await {
        Err(_) => {
            return refused("comparing site-packages with the bundled wheels took too long".into())
        }
        Ok(Err(e)) => return refused(format!("site-packages could not be checked: {e}")),
        Ok(Ok(out)) => out,
    };
    let answer: serde_json::Value = match serde_json::from_slice(&out.stdout) {
        Ok(answer) if out.status.success() => answer,
        _ => {
            let stderr = String::from_utf8_lossy(&out.stderr);
            let last = stderr.trim().lines().last().unwrap_or("no answer").to_owned();
            return refused(format!("site-packages could not be checked: {last}"));
        }
    };
    match (answer["adoptable"].as_bool(), answer["reason"].as_str()) {
        (Some(true), _) => Verdict::Adoptable,
        (_, Some(reason)) => refused(format!("site-packages: {reason}")),
        _ => refused("site-packages could not be checked: no readable answer".into()),
    }
}
