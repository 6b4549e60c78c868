//! Three rounds of edits, creates and deletes (text, binary, the executable bit, symlinks, a
//! rename, a new folder, ignored files, a file too large to keep), a checkpoint after each:
//! every diff exact, and a restore to the first checkpoint gives back every file byte for
//! byte. The same in a plain folder and in a folder that is a git repository.

mod support;

use std::collections::BTreeMap;

use expect_test::{expect, Expect};
use preflight_checkpoints::{DiffStat, ShadowRepo, SkipReason, Skipped};
use support::{render, Entry, Setup};

const BIG: usize = 6 * 1024 * 1024;

fn round_zero(setup: &Setup) {
    setup.write(".gitignore", "target/\n*.log\n");
    setup.write("README.md", "# Demo\n\nA small project.\n");
    setup.write("notes.txt", "remember the milk\n");
    setup.write("src/main.rs", "fn main() {\n    println!(\"hello\");\n}\n");
    setup.write("data.bin", [0u8, 1, 2, 3, 0, 255]);
    setup.write("run.sh", "#!/bin/sh\necho run\n");
    setup.symlink("README.md", "link");
    setup.write("target/out.o", "ignored build output");
    setup.write("debug.log", "ignored log\n");
    setup.write("big.bin", vec![7u8; BIG]);
}

fn round_one(setup: &Setup) {
    setup.write("src/main.rs", "fn main() {\n    println!(\"hello, world\");\n}\n");
    setup.chmod("run.sh", 0o755);
    setup.write("data.bin", [0u8, 1, 2, 4, 0, 255, 9]);
    setup.write("docs/guide.md", "# Guide\n\nStep one.\nStep two.\nStep three.\nStep four.\n");
    setup.remove("notes.txt");
    setup.write("debug.log", "ignored log, longer now\n");
}

fn round_two(setup: &Setup) {
    setup.symlink("src/main.rs", "link");
    setup.remove("docs/guide.md");
    setup.write("docs/manual.md", "# Guide\n\nStep one.\nStep two.\nStep three.\nStep four!\n");
    setup.symlink("README.md", "notes-moved.txt");
    setup.symlink("docs/manual.md", "README.md");
    setup.write("src/util.rs", "pub fn util() {}\n");
}

fn round_three(setup: &Setup) {
    std::fs::remove_dir_all(setup.ws().join("docs")).unwrap();
    setup.write("a/b/c/deep.txt", "deep\n");
    setup.write("big.bin", vec![8u8; BIG + 1]);
    setup.write("target/more.o", "more ignored output");
}

/// The scenario, in whatever folder `setup` has; checks everything but the diffs' text,
/// which it returns (one per round) for the caller to compare.
fn three_rounds(setup: &Setup) -> Vec<String> {
    let repo = setup.repo();
    round_zero(setup);
    let first = repo.snapshot("round 0").unwrap();
    assert_eq!(first.skipped, vec![big(BIG)]);
    assert_eq!(first.changed, 7, "the seven files kept");
    let at_first = setup.tree();
    let (commits, rendered) = edit_and_diff(setup, &repo, first.commit);
    let skipped_last = repo.snapshot("again").unwrap().skipped;
    assert_eq!(skipped_last, vec![big(BIG + 1)], "a file still too large is reported again");
    restore_to_first(setup, &repo, &commits, at_first);
    rendered
}

fn big(bytes: usize) -> Skipped {
    Skipped { path: "big.bin".into(), bytes: bytes as u64, reason: SkipReason::TooLarge }
}

/// Rounds one to three, a checkpoint and a diff after each: the commits and the diffs.
fn edit_and_diff(setup: &Setup, repo: &ShadowRepo, first: String) -> (Vec<String>, Vec<String>) {
    let mut commits = vec![first];
    let mut rendered = Vec::new();
    let rounds = [(round_one as fn(&Setup), 5), (round_two, 6), (round_three, 2)];
    for (round, (edit, changed)) in (1..).zip(rounds) {
        edit(setup);
        let snapshot = repo.snapshot(&format!("round {round}")).unwrap();
        assert_eq!(snapshot.changed, changed, "round {round}");
        let (from, to) = (commits.last().unwrap().clone(), snapshot.commit.clone());
        let diff = repo.diff(&from, &to).unwrap();
        let figures = DiffStat {
            files: diff.files.len(),
            additions: diff.additions,
            deletions: diff.deletions,
        };
        assert_eq!(
            repo.stat(&from, &to).unwrap(),
            figures,
            "stat agrees with diff in round {round}"
        );
        rendered.push(render(&diff));
        commits.push(snapshot.commit);
    }
    (commits, rendered)
}

/// Restores to the first checkpoint: its files back byte for byte, mode and symlinks
/// included; the created ones and the folders they leave empty gone; ignored and left-out
/// files as they were.
fn restore_to_first(
    setup: &Setup,
    repo: &ShadowRepo,
    commits: &[String],
    at_first: BTreeMap<String, Entry>,
) {
    let before_restore = setup.tree();
    let report = support::restore(repo, &commits[0], commits.last().unwrap(), false).unwrap();
    assert_eq!(report.kept_user_changes, Vec::<String>::new());
    assert_eq!(report.deleted, ["a/b/c/deep.txt", "notes-moved.txt", "src/util.rs"]);
    let written = ["README.md", "data.bin", "link", "notes.txt", "run.sh", "src/main.rs"];
    assert_eq!(report.written, written);
    let mut expected = at_first;
    for untouched in ["debug.log", "big.bin", "target", "target/out.o", "target/more.o"] {
        expected.insert(untouched.to_owned(), before_restore[untouched].clone());
    }
    assert_eq!(setup.tree(), expected, "the first checkpoint's files, ignored ones as they were");
    assert!(
        !setup.exists("a") && !setup.exists("docs"),
        "the folders the deletion emptied are gone"
    );
    let after = repo.snapshot("after the restore").unwrap();
    assert_eq!(after.changed, 9, "the nine files the restore wrote and deleted");
    let since_first = repo.stat(&commits[0], &after.commit).unwrap();
    assert_eq!(since_first, DiffStat::default(), "the tree is the first checkpoint's");
}

fn check(rendered: &[String], expected: [Expect; 3]) {
    for (text, expect) in rendered.iter().zip(expected) {
        expect.assert_eq(text);
    }
}

fn expected_diffs() -> [Expect; 3] {
    [
        expect![[r#"
            +7 -2
            modified data.bin +0 -0 binary
            added docs/guide.md +6 -0
            diff --git a/docs/guide.md b/docs/guide.md
            new file mode 100644
            index 0000000..1e02d8c
            --- /dev/null
            +++ b/docs/guide.md
            @@ -0,0 +1,6 @@
            +# Guide
            +
            +Step one.
            +Step two.
            +Step three.
            +Step four.
            deleted notes.txt +0 -1
            diff --git a/notes.txt b/notes.txt
            deleted file mode 100644
            index 30c4cc8..0000000
            --- a/notes.txt
            +++ /dev/null
            @@ -1 +0,0 @@
            -remember the milk
            modified run.sh +0 -0
            diff --git a/run.sh b/run.sh
            old mode 100644
            new mode 100755
            modified src/main.rs +1 -1
            diff --git a/src/main.rs b/src/main.rs
            index 7527576..2e6431c 100644
            --- a/src/main.rs
            +++ b/src/main.rs
            @@ -1,3 +1,3 @@
             fn main() {
            -    println!("hello");
            +    println!("hello, world");
             }
        "#]],
        expect![[r#"
            +5 -5
            type_changed README.md +1 -3
            diff --git a/README.md b/README.md
            deleted file mode 100644
            index 6e5bb82..0000000
            --- a/README.md
            +++ /dev/null
            @@ -1,3 +0,0 @@
            -# Demo
            -
            -A small project.
            diff --git a/README.md b/README.md
            new file mode 120000
            index 0000000..5484997
            --- /dev/null
            +++ b/README.md
            @@ -0,0 +1 @@
            +docs/manual.md
            \ No newline at end of file
            renamed docs/manual.md (from docs/guide.md) +1 -1
            diff --git a/docs/guide.md b/docs/manual.md
            similarity index 78%
            rename from docs/guide.md
            rename to docs/manual.md
            index 1e02d8c..c9a4d5b 100644
            --- a/docs/guide.md
            +++ b/docs/manual.md
            @@ -3,4 +3,4 @@
             Step one.
             Step two.
             Step three.
            -Step four.
            +Step four!
            modified link +1 -1
            diff --git a/link b/link
            index 42061c0..f61f281 120000
            --- a/link
            +++ b/link
            @@ -1 +1 @@
            -README.md
            \ No newline at end of file
            +src/main.rs
            \ No newline at end of file
            added notes-moved.txt +1 -0
            diff --git a/notes-moved.txt b/notes-moved.txt
            new file mode 120000
            index 0000000..42061c0
            --- /dev/null
            +++ b/notes-moved.txt
            @@ -0,0 +1 @@
            +README.md
            \ No newline at end of file
            added src/util.rs +1 -0
            diff --git a/src/util.rs b/src/util.rs
            new file mode 100644
            index 0000000..a0b6cfb
            --- /dev/null
            +++ b/src/util.rs
            @@ -0,0 +1 @@
            +pub fn util() {}
        "#]],
        expect![[r#"
            +1 -6
            added a/b/c/deep.txt +1 -0
            diff --git a/a/b/c/deep.txt b/a/b/c/deep.txt
            new file mode 100644
            index 0000000..4cdb226
            --- /dev/null
            +++ b/a/b/c/deep.txt
            @@ -0,0 +1 @@
            +deep
            deleted docs/manual.md +0 -6
            diff --git a/docs/manual.md b/docs/manual.md
            deleted file mode 100644
            index c9a4d5b..0000000
            --- a/docs/manual.md
            +++ /dev/null
            @@ -1,6 +0,0 @@
            -# Guide
            -
            -Step one.
            -Step two.
            -Step three.
            -Step four!
        "#]],
    ]
}

#[test]
fn three_rounds_in_a_plain_folder() {
    let setup = Setup::new();
    check(&three_rounds(&setup), expected_diffs());
}

#[test]
fn three_rounds_in_a_git_repository_give_the_same_diffs() {
    let setup = Setup::new();
    setup.user_git(&["init", "--quiet"]);
    setup.write("committed.txt", "in the user's history\n");
    setup.user_git(&["add", "committed.txt"]);
    setup.user_git(&["commit", "--quiet", "-m", "first"]);
    setup.remove("committed.txt");
    check(&three_rounds(&setup), expected_diffs());
}
