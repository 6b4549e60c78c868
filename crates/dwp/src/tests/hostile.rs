//! A workspace is untrusted (issue 14, finding 6): a plan folder reached through a symbolic
//! link, a planted document that is a link or a device, and an oversize document are each
//! refused with a clear error, and nothing is written outside the workspace.

use std::os::unix::fs::symlink;

use super::support::{from_steps, materialised, plan_document, plan_files, workspace, CHAT, STEPS};
use super::{at, read_manifest, read_state, DwpError, PlanFolder, MANIFEST_FILE, STATE_FILE};
use crate::PlanApproval;

#[test]
fn a_dwp_folder_that_is_a_symlink_gets_no_plan_files() {
    let workspace = workspace(true);
    let elsewhere = tempfile::tempdir().unwrap();
    symlink(elsewhere.path(), workspace.path().join(".dwp")).unwrap();
    let document = plan_document("Add webhooks", &STEPS, PlanApproval::Approved);
    let error = plan_files()
        .materialize(workspace.path(), &document, &from_steps(&STEPS), CHAT, &at(0))
        .unwrap_err();
    assert!(matches!(error, DwpError::Unsafe { .. }), "{error}");
    assert!(error.to_string().contains("symbolic link"), "{error}");
    let written: Vec<_> = std::fs::read_dir(elsewhere.path()).unwrap().collect();
    assert!(written.is_empty(), "nothing lands outside the workspace: {written:?}");
}

#[test]
fn a_plans_folder_or_plan_folder_that_is_a_symlink_is_refused() {
    let workspace = workspace(true);
    let (dir, _) = materialised(workspace.path());
    let elsewhere = tempfile::tempdir().unwrap();
    let moved = elsewhere.path().join(dir.name());
    std::fs::rename(dir.path(), &moved).unwrap();
    symlink(&moved, dir.path()).unwrap();
    let error = PlanFolder::open(dir.path()).unwrap_err();
    assert!(matches!(error, DwpError::Unsafe { .. }), "{error}");
}

#[test]
fn a_planted_device_or_link_as_a_document_is_refused_without_reading_it() {
    let workspace = workspace(true);
    let (dir, _) = materialised(workspace.path());
    std::fs::remove_file(dir.file(MANIFEST_FILE)).unwrap();
    symlink("/dev/zero", dir.file(MANIFEST_FILE)).unwrap();
    let error = read_manifest(&dir).unwrap_err();
    assert!(error.to_string().contains("symbolic link"), "{error}");

    let secret = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(secret.path(), "-----BEGIN OPENSSH PRIVATE KEY-----").unwrap();
    std::fs::remove_file(dir.file(STATE_FILE)).unwrap();
    symlink(secret.path(), dir.file(STATE_FILE)).unwrap();
    let error = read_state(&dir).unwrap_err();
    assert!(!error.to_string().contains("PRIVATE KEY"), "{error}");
    assert!(matches!(error, DwpError::Unsafe { .. }), "{error}");
}

#[test]
fn an_oversize_document_is_refused_at_the_cap() {
    let workspace = workspace(true);
    let (dir, _) = materialised(workspace.path());
    let huge = vec![b' '; (crate::disk::folder::MAX_DOCUMENT_BYTES + 1) as usize];
    std::fs::write(dir.file(STATE_FILE), huge).unwrap();
    let error = read_state(&dir).unwrap_err();
    assert!(error.to_string().contains("over 4 MiB"), "{error}");
}
