//! Black-box: `preflight-sandbox --probe` says whether runs can be confined here, and why not
//! when bubblewrap is installed but cannot build namespaces (Ubuntu 24.04's AppArmor rule,
//! containers), which a `bwrap` that fails the same way stands in for.

use serde_json::Value;
use std::os::unix::fs::PermissionsExt;
use std::process::Command;

fn probe(path: &str) -> Value {
    let out = Command::new(env!("CARGO_BIN_EXE_preflight-sandbox"))
        .arg("--probe")
        .env("PATH", path)
        .output()
        .expect("the sandbox binary starts");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).expect("one JSON line")
}

#[test]
fn bubblewrap_that_works_is_reported_confined() {
    let path = std::env::var("PATH").unwrap_or_default();
    assert_eq!(probe(&path), serde_json::json!({ "confined": true }));
}

#[test]
fn bubblewrap_that_cannot_make_namespaces_is_reported_with_its_words() {
    let bin = tempfile::tempdir().unwrap();
    let fake = bin.path().join("bwrap");
    std::fs::write(
        &fake,
        "#!/bin/sh\necho 'bwrap: setting up uid map: Permission denied' >&2\nexit 1\n",
    )
    .unwrap();
    std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).unwrap();
    let report = probe(&format!("{}:/usr/bin:/bin", bin.path().display()));
    assert_eq!(report["confined"], false, "{report}");
    let reason = report["reason"].as_str().unwrap_or_default();
    assert!(reason.contains("cannot confine here") && reason.contains("uid map"), "{reason}");
}
