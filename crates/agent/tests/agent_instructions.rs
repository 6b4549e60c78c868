//! The workspace's own instructions (`AGENTS.md`, `.preflight/instructions.md`) come from a
//! cloned repository: only a regular file inside it is read, and at most 64 KiB of it
//! (issue 14, finding #2). Reads that would block run on another thread with a deadline.

use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::Duration;

use preflight_agent::{executor_system_prompt, workspace_instructions};

const CAP: usize = 64 * 1024;

fn instructions_within_seconds(workspace: &Path) -> Option<String> {
    let workspace: PathBuf = workspace.to_owned();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || tx.send(workspace_instructions(&workspace).ok().flatten()));
    rx.recv_timeout(Duration::from_secs(5)).expect("reading the instructions did not block")
}

#[test]
fn a_symlink_to_a_secret_outside_is_not_read() {
    let outside = tempfile::tempdir().unwrap();
    let key = outside.path().join("id_ed25519");
    std::fs::write(&key, "-----BEGIN OPENSSH PRIVATE KEY----- s3cr3t\n").unwrap();
    let ws = tempfile::tempdir().unwrap();
    symlink(&key, ws.path().join("AGENTS.md")).unwrap();
    let got = instructions_within_seconds(ws.path());
    assert!(!got.unwrap_or_default().contains("s3cr3t"), "the key stays out of the prompt");

    // A symlinked `.preflight` folder is refused as well; a real file there is used.
    std::fs::create_dir(outside.path().join("p")).unwrap();
    std::fs::write(outside.path().join("p/instructions.md"), "s3cr3t").unwrap();
    symlink(outside.path().join("p"), ws.path().join(".preflight")).unwrap();
    assert_eq!(instructions_within_seconds(ws.path()), None);
}

#[test]
fn a_symlink_to_dev_zero_and_a_fifo_are_not_read() {
    let ws = tempfile::tempdir().unwrap();
    symlink("/dev/zero", ws.path().join("AGENTS.md")).unwrap();
    assert_eq!(instructions_within_seconds(ws.path()), None);

    let ws = tempfile::tempdir().unwrap();
    let status = std::process::Command::new("mkfifo")
        .arg(ws.path().join("AGENTS.md"))
        .status()
        .expect("mkfifo runs");
    assert!(status.success());
    std::fs::create_dir(ws.path().join(".preflight")).unwrap();
    std::fs::write(ws.path().join(".preflight/instructions.md"), "Use tabs.").unwrap();
    assert_eq!(
        instructions_within_seconds(ws.path()).as_deref(),
        Some("Use tabs."),
        "a refused AGENTS.md counts as absent"
    );
}

#[test]
fn a_huge_file_is_cut_at_64_kib_and_the_prompt_says_so() {
    let ws = tempfile::tempdir().unwrap();
    std::fs::write(ws.path().join("AGENTS.md"), "Be brief. ".repeat(1 << 17)).unwrap();
    let got = instructions_within_seconds(ws.path()).expect("the start is read");
    assert!(got.starts_with("Be brief. Be brief."), "{}", &got[..40]);
    assert!(got.ends_with("… (truncated at 64 KiB)"), "{}", &got[got.len() - 60..]);
    assert!(got.len() <= CAP + 64, "{} bytes", got.len());
    let prompt = executor_system_prompt("P", Some(&got), None, None);
    assert!(prompt.len() <= CAP + 128, "{} bytes", prompt.len());
}

#[test]
fn a_cut_never_splits_a_character() {
    let ws = tempfile::tempdir().unwrap();
    // 3-byte characters, so 64 KiB falls inside one.
    std::fs::write(ws.path().join("AGENTS.md"), "€".repeat(CAP)).unwrap();
    let got = instructions_within_seconds(ws.path()).unwrap();
    assert!(!got.contains('\u{FFFD}'), "no replacement character at the cut");
    assert!(got.ends_with("(truncated at 64 KiB)"));
}
