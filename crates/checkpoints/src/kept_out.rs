//! The folders no checkpoint holds, whatever the workspace's `.gitignore` says: the shadow
//! repository's `info/exclude` ranks below a `.gitignore`, so a workspace's `!.sandbox/`
//! would pull the sandbox's virtual environment into a checkpoint (and a restore would then
//! delete it). These paths are dropped by name where files enter a checkpoint (staging) and
//! where a restore decides what to change (its plan), so neither keeps, writes nor deletes
//! them.

/// Whether `path` (relative, `/`-separated, as git names it; a folder may end with `/`) is
/// in, or is, a folder no checkpoint holds: any `.git` (in any case: a case-insensitive
/// file system reads `.GIT` as `.git`), and Preflight's own `.sandbox` and `.dwp` at any
/// depth (as the exclude file names them).
pub(crate) fn never_kept(path: &[u8]) -> bool {
    let path = path.strip_suffix(b"/").unwrap_or(path);
    path.split(|b| *b == b'/')
        .any(|part| part.eq_ignore_ascii_case(b".git") || part == b".sandbox" || part == b".dwp")
}

#[cfg(test)]
mod tests {
    use super::never_kept;

    #[test]
    fn preflights_folders_and_any_git_are_never_kept() {
        let cases: [(&[u8], bool); 10] = [
            (b".sandbox/venv/bin/python", true),
            (b".sandbox/", true),
            (b".dwp/plans/1/plan.md", true),
            (b"sub/.sandbox/x", true),
            (b"sub/.GIT/config", true),
            (b".git", true),
            (b"src/main.rs", false),
            (b".sandboxes/x", false),
            (b"a.dwp", false),
            (b".gitignore", false),
        ];
        for (path, never) in cases {
            assert_eq!(never_kept(path), never, "{}", String::from_utf8_lossy(path));
        }
    }
}
