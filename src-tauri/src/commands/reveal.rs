//! Opening things outside the window without the opener plugin: a folder in the system's
//! file manager and a web page in the system's browser. The window gets no permission to open
//! paths or URLs; commands call these with a path or a URL the engine gave.

use std::path::Path;
use std::process::{Command, Stdio};

use preflight_engine::lifecycle::ApiError;

/// The program that opens a folder or a URL on this platform; `$<variable>` replaces it (a
/// program of the user's choice, or a recorder in the end-to-end tests).
fn opener(variable: &str) -> String {
    let platform = if cfg!(target_os = "macos") {
        "open"
    } else if cfg!(windows) {
        "explorer"
    } else {
        "xdg-open"
    };
    std::env::var(variable)
        .ok()
        .filter(|program| !program.trim().is_empty())
        .unwrap_or_else(|| platform.to_owned())
}

/// Starts the file manager on `folder` and returns at once. A missing opener is a clear
/// error naming the folder, so the user can go there.
pub fn open_folder(folder: &Path) -> Result<(), ApiError> {
    if !folder.is_dir() {
        return Err(ApiError::bad_request(format!("{} is not a folder", folder.display())));
    }
    let shown = folder.display().to_string();
    start_detached(&opener("PREFLIGHT_OPEN_FOLDER"), folder.as_os_str(), &shown)
}

/// Starts the browser on `url` (`$PREFLIGHT_OPEN_URL` replaces it) and returns at once. Only
/// an absolute `http` or `https` URL is opened: never a file, a custom scheme or an option.
pub fn open_web_page(url: &str) -> Result<(), ApiError> {
    if !is_web_url(url) {
        return Err(ApiError::bad_request(format!("{url} is not an http or https address")));
    }
    start_detached(&opener("PREFLIGHT_OPEN_URL"), url.as_ref(), url)
}

/// `http://host…` or `https://host…` with no whitespace or control characters in it.
fn is_web_url(url: &str) -> bool {
    let lower = url.to_ascii_lowercase();
    let rest = lower.strip_prefix("https://").or_else(|| lower.strip_prefix("http://"));
    let host_starts = rest.is_some_and(|rest| {
        rest.chars().next().is_some_and(|first| !matches!(first, '/' | '?' | '#' | '@' | ':'))
    });
    host_starts && !url.chars().any(|c| c.is_whitespace() || c.is_control())
}

/// Runs `program target` with no shell and no terminal; the child is reaped in the
/// background.
fn start_detached(program: &str, target: &std::ffi::OsStr, shown: &str) -> Result<(), ApiError> {
    let mut command = Command::new(program);
    #[cfg(target_os = "linux")]
    crate::nospeech::restore_for_child(&mut command);
    let mut child = command
        .arg(target)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|error| {
            ApiError::internal(format!("cannot start {program} to open {shown}: {error}"))
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

    #[test]
    fn only_http_and_https_addresses_are_web_pages() {
        let cases = [
            ("https://auth.example.com/authorize?client_id=a&state=b", true),
            ("http://127.0.0.1:8123/callback", true),
            ("HTTPS://Example.com", true),
            ("file:///etc/passwd", false),
            ("javascript:alert(1)", false),
            ("-https://example.com", false),
            ("https://", false),
            ("https:///path", false),
            ("https://example.com/a b", false),
            ("https://example.com/\nx", false),
            ("ftp://example.com", false),
            ("example.com", false),
        ];
        for (url, expected) in cases {
            assert_eq!(is_web_url(url), expected, "{url}");
        }
        let error = open_web_page("file:///etc/passwd").unwrap_err();
        assert!(error.message.contains("not an http or https address"), "{}", error.message);
    }
}
