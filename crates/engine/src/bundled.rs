//! The programs Preflight runs beside itself: the filesystem MCP server (an npm package
//! set-up installs under `runtime/node_modules`, the `.deb` under `/usr/lib/Preflight`) and
//! the code sandbox (`preflight-sandbox`, built or installed beside the binary). The rules
//! take an environment variable's value and the binary's path as arguments; the
//! `*_of_this_process` functions apply them to the running process, once at start, for both
//! adapters (`preflight` and the desktop shell).
//!
//! A path found here is absolute: a relative one would be looked up in the chat's workspace
//! (a cloned repository) when the server starts.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use preflight_mcp::SandboxDefault;

/// The npm package path of the filesystem server below a `node_modules` folder.
pub const FS_SERVER_ENTRY: &str = "@modelcontextprotocol/server-filesystem/dist/index.js";
/// The code sandbox's binary name.
pub const SANDBOX_PROGRAM: &str = "preflight-sandbox";
/// Where an installed package keeps its resources, below the prefix its binaries are in:
/// Tauri's bundler puts `bundle.resources` in `<prefix>/lib/<productName>` beside
/// `<prefix>/bin` (the `.deb`: `/usr/lib/Preflight`), where Tauri's own `resource_dir`
/// looks too. The desktop shell's tests keep it in step with `tauri.conf.json`.
pub const INSTALLED_RESOURCES: &str = "lib/Preflight";

/// `$PREFLIGHT_FS_SERVER` (made absolute against the working folder now), else the installed
/// package's `<prefix>/lib/Preflight/node_modules/…` for a binary in `<prefix>/bin`, else
/// `runtime/node_modules/…` in a folder above the binary (`target/<profile>/preflight` in a
/// checkout). `None` when none: the engine reports it as not installed. The working folder
/// is never looked in.
pub fn fs_server(var: Option<OsString>, exe: Option<&Path>) -> Option<PathBuf> {
    if let Some(path) = var.filter(|value| !value.is_empty()) {
        return std::path::absolute(path).ok();
    }
    let exe = exe?;
    let installed = exe
        .parent()
        .and_then(Path::parent)
        .map(|prefix| prefix.join(INSTALLED_RESOURCES).join("node_modules").join(FS_SERVER_ENTRY));
    let checkout =
        exe.ancestors().skip(1).map(|dir| dir.join("runtime/node_modules").join(FS_SERVER_ENTRY));
    installed.into_iter().chain(checkout).find(|candidate| candidate.is_file())
}

/// `$PREFLIGHT_SANDBOX_SERVER` (made absolute now), else `preflight-sandbox` in the binary's
/// own folder (where cargo builds it and the package installs it). Always a path: a missing
/// file is reported as not installed when a chat needs it, never replaced by a guess.
pub fn sandbox_server(var: Option<OsString>, exe: Option<&Path>) -> PathBuf {
    if let Some(path) = var.filter(|value| !value.is_empty()) {
        return std::path::absolute(&path).unwrap_or_else(|_| PathBuf::from(path));
    }
    match exe.and_then(Path::parent) {
        Some(dir) => dir.join(SANDBOX_PROGRAM),
        None => PathBuf::from(SANDBOX_PROGRAM),
    }
}

/// The sandbox server for the host: `program`, the network on (`[sandbox]` may turn it off)
/// and the `PIP_*` settings of `vars` (an index, find-links, a proxy), which DESIGN §11 lets
/// into runs.
pub fn sandbox_default(
    program: PathBuf,
    vars: impl Iterator<Item = (OsString, OsString)>,
) -> SandboxDefault {
    let mut env: Vec<(String, String)> = vars
        .filter_map(|(name, value)| Some((name.into_string().ok()?, value.into_string().ok()?)))
        .filter(|(name, _)| name.starts_with("PIP_"))
        .collect();
    env.sort();
    SandboxDefault {
        program,
        network: true,
        max_file_mib: None,
        confinement: Default::default(),
        allow_sdists: false,
        env,
    }
}

/// [`fs_server`] for this process: `$PREFLIGHT_FS_SERVER` and its own path.
pub fn fs_server_of_this_process() -> Option<PathBuf> {
    let exe = std::env::current_exe().ok();
    fs_server(std::env::var_os("PREFLIGHT_FS_SERVER"), exe.as_deref())
}

/// [`sandbox_default`] for this process: `$PREFLIGHT_SANDBOX_SERVER` or the binary beside
/// its own, with its `PIP_*` settings.
pub fn sandbox_of_this_process() -> SandboxDefault {
    let exe = std::env::current_exe().ok();
    let program = sandbox_server(std::env::var_os("PREFLIGHT_SANDBOX_SERVER"), exe.as_deref());
    sandbox_default(program, std::env::vars_os())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sandbox_is_the_variable_made_absolute_or_the_binary_beside_this_one() {
        let exe = Path::new("/opt/preflight/bin/preflight");
        let beside = sandbox_server(None, Some(exe));
        assert_eq!(beside, Path::new("/opt/preflight/bin/preflight-sandbox"));
        let relative = sandbox_server(Some("box/preflight-sandbox".into()), Some(exe));
        assert!(relative.is_absolute() && relative.ends_with("box/preflight-sandbox"));
        let empty = sandbox_server(Some("".into()), Some(exe));
        assert_eq!(empty, beside);
    }

    #[test]
    fn only_pip_settings_reach_the_sandbox() {
        let vars = [("PIP_NO_INDEX", "1"), ("OPENAI_API_KEY", "sk"), ("PIP_FIND_LINKS", "/w")];
        let vars = vars.iter().map(|(k, v)| (OsString::from(k), OsString::from(v)));
        let sandbox = sandbox_default(PathBuf::from("/b/preflight-sandbox"), vars);
        let want = [("PIP_FIND_LINKS", "/w"), ("PIP_NO_INDEX", "1")];
        let want: Vec<(String, String)> =
            want.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        assert_eq!(sandbox.env, want);
        assert!(sandbox.network);
    }

    #[test]
    fn the_filesystem_server_is_found_above_the_binary() {
        let root = tempfile::tempdir().unwrap();
        let script = root.path().join("runtime/node_modules").join(FS_SERVER_ENTRY);
        std::fs::create_dir_all(script.parent().unwrap()).unwrap();
        std::fs::write(&script, "").unwrap();
        let exe = root.path().join("target/debug/preflight");
        assert_eq!(fs_server(None, Some(&exe)), Some(script));
        assert_eq!(fs_server(None, Some(Path::new("/nowhere/preflight"))), None);
        let given = fs_server(Some("fs.js".into()), Some(&exe)).unwrap();
        assert!(given.is_absolute() && given.ends_with("fs.js"));
    }

    /// The `.deb`'s layout: `/usr/bin/preflight` and `/usr/bin/preflight-desktop`, the
    /// bundled npm package in `/usr/lib/Preflight/node_modules`; the sandbox in `/usr/bin`.
    #[test]
    fn an_installed_package_finds_its_own_resources_by_absolute_path() {
        let root = tempfile::tempdir().unwrap();
        let prefix = root.path().join("usr");
        let script = prefix.join("lib/Preflight/node_modules").join(FS_SERVER_ENTRY);
        std::fs::create_dir_all(script.parent().unwrap()).unwrap();
        std::fs::create_dir_all(prefix.join("bin")).unwrap();
        std::fs::write(&script, "").unwrap();
        for program in ["preflight", "preflight-desktop"] {
            let exe = prefix.join("bin").join(program);
            assert_eq!(fs_server(None, Some(&exe)), Some(script.clone()), "{program}");
            let sandbox = sandbox_server(None, Some(&exe));
            assert_eq!(sandbox, prefix.join("bin").join(SANDBOX_PROGRAM));
        }
        let given = fs_server(Some("/dev/fs.js".into()), Some(&prefix.join("bin/preflight")));
        assert_eq!(given, Some(PathBuf::from("/dev/fs.js")), "the variable still wins");
    }
}
