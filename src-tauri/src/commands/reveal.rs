//! Showing a folder in the system's file manager, without the opener plugin: the window gets
//! no permission to open paths; commands call this with paths the engine resolved.

use std::path::Path;
use std::process::{Command, Stdio};

use preflight_engine::lifecycle::ApiError;

/// The program that opens a folder on this platform; `$PREFLIGHT_OPEN_FOLDER` replaces it
/// (a file manager of the user's choice, or a recorder in the end-to-end tests).
fn opener() -> String {
    let platform = if cfg!(target_os = "macos") {
        "open"
    } else if cfg!(windows) {
        "explorer"
    } else {
        "xdg-open"
    };
    std::env::var("PREFLIGHT_OPEN_FOLDER")
        .ok()
        .filter(|program| !program.trim().is_empty())
        .unwrap_or_else(|| platform.to_owned())
}

/// Starts the file manager on `folder` and returns at once; the child is reaped in the
/// background. A missing opener is a clear error naming the folder, so the user can go there.
pub fn open_folder(folder: &Path) -> Result<(), ApiError> {
    if !folder.is_dir() {
        return Err(ApiError::bad_request(format!("{} is not a folder", folder.display())));
    }
    let program = opener();
    let mut command = Command::new(&program);
    #[cfg(target_os = "linux")]
    crate::nospeech::restore_for_child(&mut command);
    let mut child = command
        .arg(folder)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|error| {
            ApiError::internal(format!(
                "cannot start {program} to show {}: {error}",
                folder.display()
            ))
        })?;
    std::thread::spawn(move || child.wait());
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_path_that_is_not_a_folder_is_refused_before_anything_starts() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("state.json");
        std::fs::write(&file, "{}").unwrap();
        for path in [file, dir.path().join("missing")] {
            let error = open_folder(&path).unwrap_err();
            assert!(error.message.contains("is not a folder"), "{}", error.message);
        }
    }
}
