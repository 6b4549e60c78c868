//! The `git` a checkpoint runs is never the workspace's, however the PATH spells the folder
//! holding it: through a symbolic link, or with `..` on the way (issue 46). Alone in its test
//! binary because it sets the process's PATH.

mod support;

use std::os::unix::fs::PermissionsExt;

use support::Setup;

#[test]
fn a_git_in_the_workspace_is_never_run_however_the_path_names_it() {
    let setup = Setup::new();
    let elsewhere = tempfile::tempdir().unwrap();
    let marker = elsewhere.path().join("ran");
    let real_git = std::env::split_paths(&std::env::var_os("PATH").unwrap())
        .map(|folder| folder.join("git"))
        .find(|git| git.is_file())
        .expect("git on the PATH");
    // The workspace's own `git`: leaves the marker, then behaves like git.
    let script =
        format!("#!/bin/sh\ntouch '{}'\nexec '{}' \"$@\"\n", marker.display(), real_git.display());
    setup.write("bin/git", script);
    setup.chmod("bin/git", 0o755);
    setup.write("a.txt", "a\n");
    let link = elsewhere.path().join("tools");
    std::os::unix::fs::symlink(setup.ws().join("bin"), &link).unwrap();
    // `<elsewhere>/../<ws>/bin` (both are in the temp folder): a raw spelling that does not
    // start with the workspace's path.
    let name = setup.ws().file_name().unwrap().to_owned();
    let roundabout = elsewhere.path().join("..").join(name).join("bin");
    let path = std::env::join_paths(
        [link.clone(), roundabout, setup.ws().join(".").join("bin")]
            .into_iter()
            .chain(std::env::split_paths(&std::env::var_os("PATH").unwrap())),
    )
    .unwrap();
    // The only test of this binary: no other thread reads the environment meanwhile.
    std::env::set_var("PATH", path);

    let repo = setup.repo();
    let first = repo.snapshot("first").unwrap();
    setup.write("a.txt", "b\n");
    let second = repo.snapshot("second").unwrap();
    repo.diff(&first.commit, &second.commit).unwrap();
    support::restore(&repo, &first.commit, &second.commit, true).unwrap();
    assert!(!marker.exists(), "the workspace's bin/git ran");
    assert_eq!(setup.read("a.txt"), b"a\n", "the real git did the work");
    assert!(std::fs::metadata(link.join("git")).unwrap().permissions().mode() & 0o111 != 0);
}
