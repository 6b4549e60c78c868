//! The `.lock` folder through the command line: a stale lock reported and broken only on
//! request, and concurrent updaters serialised.

use std::process::Command;

use preflight_dwp::PlanFolder;

use super::{dwp, state, workspace, PLAN};

/// Linux: the lock's owner must be on this host (read from /proc) for its death to be confirmed.
#[cfg(target_os = "linux")]
#[test]
fn dwp_a_stale_lock_is_reported_and_broken_only_on_request() {
    let ws = workspace();
    let lock = ws.path().join(".dwp/plans").join(PLAN).join(".lock");
    std::fs::create_dir(&lock).unwrap();
    let host = std::fs::read_to_string("/proc/sys/kernel/hostname").unwrap_or_default();
    std::fs::write(
        lock.join("owner"),
        format!("pid=2147483647\nhost={}\nsince=2026-06-09T14:00:00Z\n", host.trim()),
    )
    .unwrap();
    let (status, _, stderr) = dwp(ws.path(), &["update", PLAN, "--task", "2", "--start"]);
    assert_eq!(status, 1);
    assert!(
        stderr.contains(".lock")
            && stderr.contains("stale")
            && stderr.contains("--break-stale-lock"),
        "{stderr}"
    );
    assert!(lock.exists(), "never broken silently");
    let (status, stdout, _) = dwp(ws.path(), &["verify", PLAN]);
    assert_eq!(status, 1);
    assert!(stdout.contains("[interrupted] the .lock folder is stale"), "{stdout}");
    let (status, _, stderr) =
        dwp(ws.path(), &["update", PLAN, "--task", "2", "--start", "--break-stale-lock"]);
    assert_eq!(status, 0, "{stderr}");
    assert!(stderr.contains("removed a stale lock (pid 2147483647"), "{stderr}");
    assert!(!lock.exists());
}

#[test]
fn dwp_concurrent_cli_updaters_serialise_through_the_lock() {
    let ws = workspace();
    let spawned: Vec<_> = (0..4)
        .map(|n| {
            Command::new(env!("CARGO_BIN_EXE_preflight"))
                .args([
                    "dwp",
                    "update",
                    PLAN,
                    "--task",
                    "1",
                    "--gate",
                    &format!("parallel {n}|0|ok"),
                ])
                .current_dir(ws.path())
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    for child in spawned {
        let output = child.wait_with_output().unwrap();
        assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    }
    let gates = state(ws.path())["tasks"][0]["gates"].as_array().unwrap().len();
    assert_eq!(gates, 4, "four concurrent runs, none lost");
    let dir = PlanFolder::open(ws.path().join(".dwp/plans").join(PLAN)).unwrap();
    let (status, stdout, _) = dwp(ws.path(), &["verify", dir.path().to_str().unwrap()]);
    assert_eq!(status, 0, "{stdout}");
}
