//! A chat in its own git worktree in the terminal (issue 54, DESIGN §18), against a real git
//! repository: `--worktree` makes it, the scripted executor edits a file there and the
//! user's checkout is untouched; `/diff` shows the change; `/merge` previews a conflict with
//! a commit the user made meanwhile, and the user's own uncommitted change in the way, each
//! said in words with nothing changed; with both gone it previews, n keeps, y merges, and
//! main has the change. Then its folder vanishes: said on the chat's line and as the refusal
//! of the next message, and `/recreate` makes it again; `/keep` leaves it as a branch.

use std::path::Path;

use preflight_testkit::{Reply, Script};
use serde_json::json;
use tempfile::TempDir;

use super::support::git;
use super::support::pane::Pane;
use super::support::script::{anyone, plan, planner, run, tool};
use super::{quit, world, World};

/// The user's repository on `main`: `prices.txt` and a README, committed.
fn repository() -> TempDir {
    let dir = TempDir::new().unwrap();
    let root = dir.path();
    git(root, &["init", "-q", "-b", "main"]);
    std::fs::write(root.join("prices.txt"), "apple 1\n").unwrap();
    std::fs::write(root.join("README.md"), "# Shop\n").unwrap();
    std::fs::write(root.join(".gitignore"), ".sandbox/\n.dwp/\n").unwrap();
    git(root, &["add", "."]);
    git(root, &["commit", "-q", "-m", "start"]);
    dir
}

fn read(root: &Path, name: &str) -> String {
    std::fs::read_to_string(root.join(name)).unwrap()
}

#[tokio::test]
async fn a_chat_in_its_own_worktree_edits_there_then_merges_after_refusals_said_in_words() {
    let script = Script::new().route(planner(), [plan("Price rise", &["Set apple to 2"])]).route(
        anyone(),
        [
            run("printf 'apple 2\\n' > prices.txt"),
            tool(
                "turn_plan",
                json!({"op": "done", "id": 1, "gate": {"command": "grep -q 'apple 2' prices.txt"}}),
            ),
            Reply::text("Prices set."),
        ],
    );
    let mut world = world(script, "").await;
    world.workspace = repository();
    let root = world.workspace.path().to_owned();
    let pane = world.chat(&["--workspace", world.workspace(), "--worktree"], &[]);
    pane.wait_for(&["⎇ a worktree of its own of", "made with the first message"]).await;
    pane.type_text("Raise the apple price");
    pane.keys(&["Enter"]);
    pane.wait_for(&["The plan · revision 1", "Set apple to 2"]).await;
    pane.keys(&["Enter"]);
    pane.wait_for(&["Plan completed ✓ · 1 of 1 done", "Prices set."]).await;
    let screen = pane.wait_for(&["1 file(s) changed, +1 −1  /diff /merge /keep"]).await;
    assert!(screen.contains("⎇ preflight/") && screen.contains(" from main · "), "{screen}");
    assert_eq!(read(&root, "prices.txt"), "apple 1\n", "the checkout is untouched");

    command(&pane, "/diff");
    pane.wait_for(&["its changes since it left main", "changed prices.txt", "+apple 2"]).await;
    pane.keys(&["Escape"]);
    pane.wait_gone("its changes since it left main").await;

    refusals_say_why_and_change_nothing(&pane, &root).await;
    merge_after_a_preview(&pane, &root).await;
    a_vanished_folder_is_said_and_made_again(&pane, &world).await;
    quit(&pane).await;
}

fn command(pane: &Pane, text: &str) {
    pane.type_text(text);
    pane.keys(&["Enter"]);
}

/// A commit of the user's on main that conflicts, then their own change not committed:
/// each preview says why in words and the merge is not offered; nothing changes.
async fn refusals_say_why_and_change_nothing(pane: &Pane, root: &Path) {
    std::fs::write(root.join("prices.txt"), "apple 5\n").unwrap();
    git(root, &["commit", "-q", "-am", "apples cost 5"]);
    let head = git(root, &["rev-parse", "main"]);
    command(pane, "/merge");
    pane.wait_for(&[
        "Merge preflight/",
        "Conflicts: prices.txt: both sides changed them differently.",
        "It cannot be merged as it stands; nothing was changed.",
    ])
    .await;
    pane.keys(&["y"]);
    pane.wait_gone("Conflicts: prices.txt").await;
    assert_eq!(git(root, &["rev-parse", "main"]), head, "y on a refused preview merges nothing");

    git(root, &["reset", "-q", "--hard", "HEAD~1"]);
    std::fs::write(root.join("prices.txt"), "apple 9\n").unwrap();
    command(pane, "/merge squash");
    pane.wait_for(&[
        "Squash preflight/",
        "You changed prices.txt in your checkout and have not committed them",
        "It cannot be merged as it stands",
    ])
    .await;
    pane.keys(&["Escape"]);
    pane.wait_gone("You changed prices.txt").await;
    assert_eq!(read(root, "prices.txt"), "apple 9\n", "the user's own change stays");
    git(root, &["checkout", "-q", "--", "prices.txt"]);
}

/// The preview names the files and the commit message; n keeps main, y merges.
async fn merge_after_a_preview(pane: &Pane, root: &Path) {
    let head = git(root, &["rev-parse", "main"]);
    command(pane, "/merge");
    let ask = "Merge 1 file(s) into main? [y/N]";
    let screen = pane
        .wait_for(&["Commit message:", "  Price rise", "  Prices set.", "changed prices.txt", ask])
        .await;
    assert!(screen.contains("y merge"), "the keys say what y does:\n{screen}");
    pane.keys(&["n"]);
    pane.wait_gone(ask).await;
    assert_eq!(git(root, &["rev-parse", "main"]), head, "n merges nothing");
    command(pane, "/merge");
    pane.wait_for(&[ask]).await;
    pane.keys(&["y"]);
    pane.wait_for(&["Merged into main: commit ", "merged into main ("]).await;
    assert_eq!(read(root, "prices.txt"), "apple 2\n", "main has the chat's change");
    assert!(git(root, &["status", "--porcelain"]).is_empty(), "and the checkout is clean");
    let message = git(root, &["log", "-1", "--format=%B", "main"]);
    assert!(message.starts_with("Price rise\n\nPrices set."), "{message}");
}

/// The worktree's folder deleted outside Preflight: the next message is refused in words
/// and nothing is sent; `/recreate` brings the folder back from the branch; `/keep` leaves
/// the work as a branch and removes the folder.
async fn a_vanished_folder_is_said_and_made_again(pane: &Pane, world: &World) {
    // `worktrees/<chat>/<the repository's name>`, the chat's only one.
    let chats: Vec<_> = std::fs::read_dir(world.home.path().join("worktrees"))
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .collect();
    assert_eq!(chats.len(), 1, "{chats:?}");
    let folder = &chats[0].join(world.workspace.path().file_name().unwrap());
    std::fs::remove_dir_all(folder).unwrap();
    let asked = world.provider.requests().len();
    command(pane, "Lower it again");
    pane.wait_for(&["The worktree's folder is gone: /recreate makes it again from its branch."])
        .await;
    pane.wait_for(&["from main · its folder is gone: /recreate makes it again"]).await;
    assert_eq!(world.provider.requests().len(), asked, "nothing was sent to the model");
    command(pane, "/recreate");
    pane.wait_for(&["The folder is back, on the branch preflight/"]).await;
    assert_eq!(read(folder, "prices.txt"), "apple 2\n", "made again from its branch");
    command(pane, "/keep");
    pane.wait_for(&["Kept as the branch preflight/", "· kept as a branch: /recreate to work on"])
        .await;
    assert!(!folder.exists(), "keep removes the folder; the branch holds the work");
}
