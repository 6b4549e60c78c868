//! The data folder (`$PREFLIGHT_HOME`, DESIGN §10) and its files. Every function takes the
//! folder as an argument: the adapters resolve it once with [`data_home`], handing in how to
//! read their environment, so nothing here reads the environment itself.

use std::ffi::OsString;
use std::io;
use std::path::{Path, PathBuf};

use preflight_files::{Access, FileError};
use preflight_protocol::planner::DEFAULT_PLANNER_PROMPT;

pub fn config_file(home: &Path) -> PathBuf {
    home.join(crate::config::CONFIG_FILE)
}

pub fn prompts_dir(home: &Path) -> PathBuf {
    home.join("prompts")
}

pub fn planner_prompt_file(home: &Path) -> PathBuf {
    prompts_dir(home).join("planner.md")
}

/// The planner's prompt from `prompts/planner.md`, writing the default there first when
/// the file is absent. A file that exists is never overwritten, even if empty: it is the
/// user's. The default is published with `preflight_files::write_new`, so a crash or a
/// concurrent first start never leaves a half-written prompt in its place.
pub fn ensure_planner_prompt(home: &Path) -> Result<String, FileError> {
    let path = planner_prompt_file(home);
    let read = |path: &Path| std::fs::read_to_string(path).map_err(|e| FileError::new(path, e));
    match std::fs::read_to_string(&path) {
        Ok(text) => return Ok(text),
        Err(error) if error.kind() != io::ErrorKind::NotFound => {
            return Err(FileError::new(path, error))
        }
        Err(_) => {}
    }
    let dir = prompts_dir(home);
    std::fs::create_dir_all(&dir).map_err(|error| FileError::new(&dir, error))?;
    match preflight_files::write_new(&path, DEFAULT_PLANNER_PROMPT.as_bytes(), Access::Default) {
        Ok(()) => Ok(DEFAULT_PLANNER_PROMPT.to_owned()),
        // Someone else wrote it first: theirs stands.
        Err(error) if error.is_already_exists() => read(&path),
        Err(error) => Err(error),
    }
}

/// Why the data folder cannot be had.
#[derive(Debug, thiserror::Error)]
pub enum DataHomeError {
    #[error("neither PREFLIGHT_HOME nor HOME is set: cannot tell where to keep data")]
    NoHome,
    /// The io error is in the message (not a `source`): the desktop shows the message alone,
    /// and the CLI's `{:#}` would otherwise print it twice.
    #[error("creating the data folder {}: {error}", path.display())]
    Create { path: PathBuf, error: io::Error },
}

/// The data folder of the CLI and the desktop app alike: `$PREFLIGHT_HOME`, else
/// `$XDG_DATA_HOME/preflight`, else `~/.local/share/preflight`, made absolute and created
/// (0700) when absent. `var` reads one environment variable (the adapters pass
/// `std::env::var_os`); an empty value counts as unset.
pub fn data_home(var: impl Fn(&str) -> Option<OsString>) -> Result<PathBuf, DataHomeError> {
    let non_empty = |name: &str| var(name).filter(|value| !value.is_empty());
    let home = match non_empty("PREFLIGHT_HOME") {
        Some(home) => PathBuf::from(home),
        None => platform_data_dir(non_empty)?.join("preflight"),
    };
    preflight_files::create_private_dir(&home)
        .map_err(|error| DataHomeError::Create { path: error.path, error: error.source })?;
    Ok(std::path::absolute(&home).unwrap_or(home))
}

fn platform_data_dir(var: impl Fn(&str) -> Option<OsString>) -> Result<PathBuf, DataHomeError> {
    if let Some(data) = var("XDG_DATA_HOME") {
        return Ok(PathBuf::from(data));
    }
    match var("HOME") {
        Some(home) => Ok(PathBuf::from(home).join(".local/share")),
        None => Err(DataHomeError::NoHome),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_is_written_once_and_edits_are_kept() {
        let home = tempfile::tempdir().unwrap();
        assert_eq!(ensure_planner_prompt(home.path()).unwrap(), DEFAULT_PLANNER_PROMPT);
        assert_eq!(
            std::fs::read_to_string(planner_prompt_file(home.path())).unwrap(),
            DEFAULT_PLANNER_PROMPT
        );
        std::fs::write(planner_prompt_file(home.path()), "my own planner").unwrap();
        assert_eq!(ensure_planner_prompt(home.path()).unwrap(), "my own planner");
        std::fs::write(planner_prompt_file(home.path()), "").unwrap();
        assert_eq!(
            ensure_planner_prompt(home.path()).unwrap(),
            "",
            "an emptied file is the user's too"
        );
        let leftovers: Vec<_> = std::fs::read_dir(prompts_dir(home.path())).unwrap().collect();
        assert_eq!(leftovers.len(), 1, "no temp file is left behind");
    }

    #[test]
    fn the_data_home_follows_preflight_home_then_xdg_then_home() {
        let root = tempfile::tempdir().unwrap();
        let at = |name: &str| root.path().join(name);
        // (the variables set, the data folder they give; `None`: refused).
        type Case<'a> = (&'a [(&'a str, &'a str)], Option<PathBuf>);
        let cases: [Case; 5] = [
            (&[("PREFLIGHT_HOME", "own"), ("XDG_DATA_HOME", "xdg")], Some(at("own"))),
            (&[("PREFLIGHT_HOME", ""), ("XDG_DATA_HOME", "xdg")], Some(at("xdg/preflight"))),
            (&[("XDG_DATA_HOME", ""), ("HOME", "home")], Some(at("home/.local/share/preflight"))),
            (&[("HOME", "home")], Some(at("home/.local/share/preflight"))),
            (&[("PREFLIGHT_HOME", ""), ("HOME", "")], None),
        ];
        for (vars, expected) in cases {
            let var = |name: &str| {
                let value = vars.iter().find(|(key, _)| *key == name)?.1;
                // An empty value stays empty (unset, to `data_home`); others are folders.
                Some(if value.is_empty() { OsString::new() } else { at(value).into_os_string() })
            };
            match (data_home(var), expected) {
                (Ok(home), Some(expected)) => {
                    assert_eq!(home, expected, "{vars:?}");
                    assert!(home.is_dir(), "{vars:?}: created");
                }
                (Err(DataHomeError::NoHome), None) => {}
                (other, expected) => panic!("{vars:?}: {other:?}, expected {expected:?}"),
            }
        }
    }
}
