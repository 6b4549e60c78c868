//! A workspace that tries to run something through git — an fsmonitor and hooks in its
//! `.git/config`, filter, textconv and diff drivers named by `.gitattributes`, end-of-line
//! conversion and ident expansion — runs nothing, and its files are kept byte for byte.

mod support;

use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use support::{user_git_command, Setup};

/// A script that leaves `marker` behind when run, and passes its input through (as a
/// filter would).
fn trap(dir: &Path, marker: &Path) -> String {
    let script = dir.join("trap.sh");
    std::fs::write(&script, format!("#!/bin/sh\ntouch '{}'\ncat\n", marker.display())).unwrap();
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    script.display().to_string()
}

fn hostile_workspace(setup: &Setup, script: &str) {
    setup.user_git(&["init", "--quiet"]);
    let hooks = setup.ws().join(".git/hooks");
    for hook in
        ["pre-commit", "post-commit", "post-index-change", "post-checkout", "reference-transaction"]
    {
        std::fs::copy(script, hooks.join(hook)).unwrap();
    }
    let settings = [
        ("core.fsmonitor", script),
        ("core.hooksPath", hooks.to_str().unwrap()),
        ("core.pager", script),
        ("filter.evil.clean", script),
        ("filter.evil.smudge", script),
        ("filter.evil.process", script),
        ("filter.evil.required", "true"),
        ("diff.evil.textconv", script),
        ("diff.evil.command", script),
        ("diff.external", script),
    ];
    for (key, value) in settings {
        setup.user_git(&["config", key, value]);
    }
    let attributes = "* filter=evil diff=evil\n*.txt text eol=crlf ident\n";
    setup.write(".gitattributes", attributes);
    setup.write(".git/info/attributes", attributes);
    setup.write("crlf.txt", "one\r\ntwo\r\n");
    setup.write("lf.txt", "one\ntwo\n$Id$\n");
}

#[test]
fn nothing_the_workspace_names_is_run_and_files_stay_byte_for_byte() {
    let setup = Setup::new();
    let traps = tempfile::tempdir().unwrap();
    let marker = traps.path().join("ran");
    let script = trap(traps.path(), &marker);
    hostile_workspace(&setup, &script);

    let repo = setup.repo();
    let first = repo.snapshot("first").unwrap();
    setup.write("crlf.txt", "one\r\ntwo\r\nthree\r\n");
    setup.write("lf.txt", "one\n$Id$\n");
    let second = repo.snapshot("second").unwrap();
    let diff = repo.diff(&first.commit, &second.commit).unwrap();
    assert_eq!(diff.files.len(), 2);
    assert!(diff.files.iter().all(|file| file.patch.is_some() && !file.binary), "{diff:?}");
    let crlf_patch = diff.files[0].patch.as_deref().unwrap();
    assert!(crlf_patch.contains("+three\r\n"), "kept with its CRLFs: {crlf_patch:?}");
    repo.stat(&first.commit, &second.commit).unwrap();
    repo.restore_plan(&first.commit, &second.commit).unwrap();
    support::restore(&repo, &first.commit, &second.commit, true).unwrap();
    repo.forget(&[&second.commit]).unwrap();
    assert_eq!(setup.read("crlf.txt"), b"one\r\ntwo\r\n");
    assert_eq!(setup.read("lf.txt"), b"one\ntwo\n$Id$\n");
    assert!(!marker.exists(), "a checkpoint ran the workspace's script");

    // The trap works: the user's own git, in the same workspace, springs it.
    let _ = user_git_command(setup.ws(), setup.home.path()).args(["diff"]).output().unwrap();
    let _ = user_git_command(setup.ws(), setup.home.path()).args(["status"]).output().unwrap();
    assert!(marker.exists(), "the user's git would have run the script");
}
