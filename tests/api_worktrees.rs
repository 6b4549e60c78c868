//! Chats in their own worktrees (issue 54, DESIGN §18), black-box through the API with a
//! scripted model, the real code sandbox and real git: two chats on one repository, each in
//! its own worktree, execute at the same time and edit the same file differently; neither
//! sees the other's change and the user's checkout is untouched; the first merges cleanly;
//! the second's preview lists the conflict and its merge changes nothing. A sandboxed
//! command in a worktree cannot write into the main repository's `.git`. A vanished folder
//! is said and made again from the branch; Keep as branch leaves the work on its branch;
//! deleting a chat removes its worktree.

mod support;

use std::path::Path;
use std::time::{Duration, Instant};

use preflight_testkit::{Matcher, Reply, Script, ScriptedServer};
use serde_json::{json, Value};
use support::script::{done, plan, run};
use support::{git, openai_config, Serve};

/// The user's repository on `main`: `prices.txt` and a README, committed.
fn repository() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    git(root, &["init", "-q", "-b", "main"]);
    std::fs::write(root.join("prices.txt"), "apple 1\n").unwrap();
    std::fs::write(root.join("README.md"), "# Shop\n").unwrap();
    std::fs::write(root.join(".gitignore"), ".sandbox/\n").unwrap();
    git(root, &["add", "."]);
    git(root, &["commit", "-q", "-m", "start"]);
    dir
}

/// Each chat's plan and run, told apart by what its requests carry: the planner's holds the
/// user's task, the executor's the plan's title. Each run sleeps a moment first, so the two
/// overlap.
fn two_chats() -> Script {
    let executor = |price: &str| {
        [
            run(&format!("sleep 1.5 && printf 'apple {price}\\n' > prices.txt")),
            done(1),
            Reply::text("Prices set."),
        ]
    };
    Script::new()
        .route(Matcher::body_contains("Alpha prices"), executor("2"))
        .route(Matcher::body_contains("Beta prices"), executor("3"))
        .route(Matcher::body_contains("task alpha"), [plan("Alpha prices", &["Set apple to 2"])])
        .route(Matcher::body_contains("task beta"), [plan("Beta prices", &["Set apple to 3"])])
}

async fn new_worktree_chat(serve: &Serve, root: &Path) -> (String, Value) {
    let body = json!({"workspace": root, "worktree": true, "save_plans": false});
    let (status, chat) = serve.post("/v1/chats", body).await;
    assert_eq!(status, 201, "{chat}");
    (chat["id"].as_str().unwrap().to_owned(), chat)
}

fn read(dir: &str, name: &str) -> String {
    std::fs::read_to_string(Path::new(dir).join(name)).unwrap_or_default()
}

#[tokio::test]
async fn two_chats_work_apart_at_once_the_first_merges_and_the_seconds_conflict_changes_nothing() {
    let repo = repository();
    let root = repo.path();
    let provider = ScriptedServer::start(two_chats()).await.unwrap();
    let serve = Serve::start(&openai_config(&provider.openai_url()));
    let (alpha, chat_a) = new_worktree_chat(&serve, root).await;
    let (beta, chat_b) = new_worktree_chat(&serve, root).await;
    let (tree_a, tree_b) = (
        chat_a["worktree"]["path"].as_str().unwrap(),
        chat_b["worktree"]["path"].as_str().unwrap(),
    );
    assert_eq!(chat_a["workspace"], chat_a["worktree"]["path"], "{chat_a:#}");
    assert_eq!(chat_a["worktree"]["repository"], json!(root), "{chat_a:#}");
    assert_eq!(chat_a["worktree"]["base_branch"], "main");
    assert!(chat_a["worktree"]["branch"].as_str().unwrap().starts_with("preflight/"));
    assert!(tree_a.starts_with(serve.home_path().join("worktrees").to_str().unwrap()));

    let mut events = [serve.events(&alpha).await, serve.events(&beta).await];
    for (id, task) in [(&alpha, "task alpha"), (&beta, "task beta")] {
        serve.post(&format!("/v1/chats/{id}/messages"), json!({"content": task})).await;
    }
    for stream in &mut events {
        stream.wait_for_phase("awaiting_approval").await;
    }
    for id in [&alpha, &beta] {
        let (status, body) = serve.post(&format!("/v1/chats/{id}/plan/approve"), json!(null)).await;
        assert_eq!(status, 202, "{body}");
    }
    let overlapped = both_executing(&serve, [&alpha, &beta]).await;
    for stream in &mut events {
        stream.wait_for_phase("idle").await;
    }
    assert!(overlapped, "the two chats were never executing at the same moment");
    assert_eq!(read(tree_a, "prices.txt"), "apple 2\n");
    assert_eq!(read(tree_b, "prices.txt"), "apple 3\n", "neither sees the other's change");
    assert_eq!(
        read(root.to_str().unwrap(), "prices.txt"),
        "apple 1\n",
        "the checkout is untouched"
    );
    assert!(git(root, &["status", "--porcelain"]).is_empty());

    let (status, view) = serve.get(&format!("/v1/chats/{alpha}/worktree")).await;
    assert_eq!(status, 200, "{view}");
    assert_eq!(view["files"][0]["path"], "prices.txt", "{view:#}");
    assert_eq!(view["stat"], json!({"files": 1, "additions": 1, "deletions": 1}));

    merge_first_then_refuse_second(&serve, root, &alpha, &beta).await;
}

async fn merge_first_then_refuse_second(serve: &Serve, root: &Path, alpha: &str, beta: &str) {
    let (status, preview) =
        serve.post(&format!("/v1/chats/{alpha}/merge"), json!({"preview": true})).await;
    assert_eq!(status, 200, "{preview}");
    assert_eq!(
        (preview["merged"].clone(), preview["can_merge"].clone()),
        (json!(false), json!(true))
    );
    assert!(
        preview["message"].as_str().unwrap().starts_with("Alpha prices\n\nPrices set."),
        "{preview:#}"
    );
    let head = git(root, &["rev-parse", "main"]);
    assert_eq!(git(root, &["rev-parse", "main"]), head, "a preview changes nothing");

    let (status, merged) =
        serve.post(&format!("/v1/chats/{alpha}/merge"), json!({"mode": "merge"})).await;
    assert_eq!(status, 200, "{merged}");
    assert_eq!(merged["merged"], true);
    assert_eq!(git(root, &["rev-parse", "main"]).trim(), merged["commit"].as_str().unwrap());
    assert_eq!(std::fs::read_to_string(root.join("prices.txt")).unwrap(), "apple 2\n");
    assert_eq!(merged["chat"]["worktree"]["state"]["state"], "merged", "{merged:#}");

    let after_first = git(root, &["rev-parse", "main"]);
    let (status, preview) =
        serve.post(&format!("/v1/chats/{beta}/merge"), json!({"preview": true})).await;
    assert_eq!(status, 200, "{preview}");
    assert_eq!(preview["conflicts"], json!(["prices.txt"]), "{preview:#}");
    assert_eq!(preview["can_merge"], false);
    let (status, refused) = serve.post(&format!("/v1/chats/{beta}/merge"), json!({})).await;
    assert_eq!(status, 409, "{refused}");
    assert_eq!(refused["error"]["code"], "ERR_MERGE_CONFLICTS", "{refused}");
    assert!(refused["error"]["message"].as_str().unwrap().contains("prices.txt"));
    assert_eq!(git(root, &["rev-parse", "main"]), after_first, "nothing changed");
    assert_eq!(std::fs::read_to_string(root.join("prices.txt")).unwrap(), "apple 2\n");
    let beta_chat = serve.chat(beta).await;
    assert_eq!(beta_chat["worktree"]["state"]["state"], "active", "{beta_chat:#}");
}

/// Polls both chats until neither executes; whether both were executing at one moment.
async fn both_executing(serve: &Serve, ids: [&str; 2]) -> bool {
    let deadline = Instant::now() + Duration::from_secs(60);
    let mut seen = false;
    while Instant::now() < deadline {
        let mut phases = Vec::new();
        for id in ids {
            phases.push(serve.chat(id).await["state"]["phase"].as_str().unwrap_or("").to_owned());
        }
        seen |= phases.iter().all(|phase| phase == "executing");
        if phases.iter().all(|phase| phase == "idle") {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    seen
}

#[tokio::test]
async fn a_sandboxed_command_in_a_worktree_cannot_write_into_the_main_repositorys_git() {
    let repo = repository();
    let root = repo.path();
    let gitdir = root.join(".git");
    let escape = "for target in ../.git/x \"$(sed -n 's/^gitdir: //p' .git)/HEAD\" \
                  \"$(sed -n 's/^gitdir: //p' .git)/../../hooks/post-checkout\"; do \
                  (printf 'echo pwned > /tmp/pwned\\n' > \"$target\") 2>/dev/null \
                  && echo \"WROTE $target\" || echo \"refused $target\"; done; \
                  printf 'gitdir: /tmp/planted\\n' > .git 2>/dev/null && echo 'WROTE .git' || echo 'refused .git'";
    let script = Script::new()
        .route(Matcher::body_contains("Escape plan"), [run(escape), done(1), Reply::text("Tried.")])
        .route(
            Matcher::body_contains("escape"),
            [plan("Escape plan", &["Try to write into .git"])],
        );
    let provider = ScriptedServer::start(script).await.unwrap();
    let serve = Serve::start(&openai_config(&provider.openai_url()));
    let (id, chat) = new_worktree_chat(&serve, root).await;
    let tree = chat["worktree"]["path"].as_str().unwrap().to_owned();
    let pointer = std::fs::read_to_string(Path::new(&tree).join(".git")).unwrap();
    let head = std::fs::read(
        gitdir.join("worktrees").join(Path::new(&tree).file_name().unwrap()).join("HEAD"),
    );
    serve.plan_approve_and_run(&id, "escape").await;

    let output = tool_output(&serve.chat(&id).await);
    assert!(!output.contains("WROTE"), "a write got through: {output}");
    assert!(output.matches("refused").count() >= 4, "{output}");
    assert_eq!(std::fs::read_to_string(Path::new(&tree).join(".git")).unwrap(), pointer);
    let head_after = std::fs::read(
        gitdir.join("worktrees").join(Path::new(&tree).file_name().unwrap()).join("HEAD"),
    );
    assert_eq!(
        head.ok(),
        head_after.ok(),
        "the worktree's HEAD in the main repository is untouched"
    );
    assert!(!gitdir.join("hooks/post-checkout").exists(), "no hook was planted");
    assert!(git(root, &["status", "--porcelain"]).is_empty(), "the checkout is untouched");
}

/// A server whose model answers every message "Hello." (the provider kept alive with it).
async fn hello_serve() -> (ScriptedServer, Serve) {
    let script = Script::new().route(Matcher::default(), [Reply::text("Hello.")]);
    let provider = ScriptedServer::start(script).await.unwrap();
    let serve = Serve::start(&openai_config(&provider.openai_url()));
    (provider, serve)
}

/// The sandbox's output in the chat's tool messages.
fn tool_output(view: &Value) -> String {
    let messages = view["messages"].as_array().unwrap();
    let tools = messages.iter().filter(|m| m["role"] == "tool");
    tools.map(|m| m["content"].to_string()).collect::<Vec<_>>().join("\n")
}

#[tokio::test]
async fn a_vanished_folder_is_said_and_made_again_keep_leaves_a_branch_and_deleting_removes_it() {
    let repo = repository();
    let root = repo.path();
    let (_provider, serve) = hello_serve().await;
    let body = json!({"workspace": root, "worktree": true, "plan_mode": false});
    let (status, chat) = serve.post("/v1/chats", body).await;
    assert_eq!(status, 201, "{chat}");
    let id = chat["id"].as_str().unwrap();
    let tree = chat["worktree"]["path"].as_str().unwrap().to_owned();
    let branch = chat["worktree"]["branch"].as_str().unwrap().to_owned();

    std::fs::remove_dir_all(&tree).unwrap();
    let (status, view) = serve.get(&format!("/v1/chats/{id}/worktree")).await;
    assert_eq!((status, view["missing"].clone()), (200, json!(true)), "{view}");
    let (status, refused) =
        serve.post(&format!("/v1/chats/{id}/messages"), json!({"content": "hi"})).await;
    assert_eq!(status, 409, "{refused}");
    assert_eq!(refused["error"]["code"], "ERR_WORKTREE_MISSING");
    assert!(serve.chat(id).await["messages"].as_array().unwrap().is_empty(), "nothing stored");
    let (status, _) = serve.post(&format!("/v1/chats/{id}/worktree/recreate"), json!(null)).await;
    assert_eq!(status, 200);
    assert!(Path::new(&tree).join("README.md").is_file());

    std::fs::write(Path::new(&tree).join("notes.txt"), "kept\n").unwrap();
    let (status, kept) = serve.post(&format!("/v1/chats/{id}/worktree/keep"), json!(null)).await;
    assert_eq!(status, 200, "{kept}");
    assert_eq!(kept["worktree"]["state"]["state"], "kept", "{kept:#}");
    assert_eq!(kept["workspace"], json!(root), "the chat points at the repository again");
    assert!(!Path::new(&tree).exists());
    assert_eq!(git(root, &["show", &format!("{branch}:notes.txt")]), "kept\n");

    let (status, _) = serve.request("DELETE", &format!("/v1/chats/{id}"), None).await;
    assert_eq!(status, 200);
    assert!(!git(root, &["branch", "--list", &branch]).is_empty(), "a kept branch stays");
    assert_eq!(git(root, &["worktree", "list"]).lines().count(), 1);
}

#[tokio::test]
async fn a_worktree_is_refused_outside_a_repository_and_after_the_first_message() {
    let plain = tempfile::tempdir().unwrap();
    let repo = repository();
    let (_provider, serve) = hello_serve().await;
    let (status, refused) =
        serve.post("/v1/chats", json!({"workspace": plain.path(), "worktree": true})).await;
    assert_eq!(status, 400, "{refused}");
    assert!(refused["error"]["message"].as_str().unwrap().contains("git repository"), "{refused}");
    let (status, chats) = serve.get("/v1/chats").await;
    assert_eq!((status, chats["data"].as_array().map(Vec::len)), (200, Some(0)), "{chats}");

    let id = serve.create_chat(json!({"workspace": repo.path(), "plan_mode": false})).await;
    let mut events = serve.events(&id).await;
    serve.post(&format!("/v1/chats/{id}/messages"), json!({"content": "hi"})).await;
    events.wait_for_phase("idle").await;
    let (status, refused) =
        serve.request("PATCH", &format!("/v1/chats/{id}"), Some(json!({"worktree": true}))).await;
    assert_eq!(status, 400, "{refused}");
    assert!(refused["error"]["message"].as_str().unwrap().contains("before its first message"));
    assert!(serve.chat(&id).await.get("worktree").is_none());
}

#[tokio::test]
async fn a_fork_of_a_worktree_chat_gets_a_worktree_of_its_own_from_the_originals_files() {
    let repo = repository();
    let root = repo.path();
    let (_provider, serve) = hello_serve().await;
    let body = json!({"workspace": root, "worktree": true, "plan_mode": false});
    let (_, original) = serve.post("/v1/chats", body).await;
    let id = original["id"].as_str().unwrap();
    let mut events = serve.events(id).await;
    serve.post(&format!("/v1/chats/{id}/messages"), json!({"content": "hi"})).await;
    events.wait_for_phase("idle").await;
    let tree = original["worktree"]["path"].as_str().unwrap();
    std::fs::write(Path::new(tree).join("draft.txt"), "work so far\n").unwrap();

    let (status, fork) = serve.post(&format!("/v1/chats/{id}/fork"), json!({})).await;
    assert_eq!(status, 201, "{fork}");
    let own = fork["worktree"]["path"].as_str().unwrap();
    assert_ne!(own, tree, "{fork:#}");
    assert_ne!(fork["worktree"]["branch"], original["worktree"]["branch"]);
    assert_eq!(fork["workspace"], fork["worktree"]["path"]);
    assert_eq!(fork["forked_from"]["files"], json!({"kind": "worktree", "repository": root}));
    assert_eq!(read(own, "draft.txt"), "work so far\n", "the original's files as they were");
    std::fs::write(Path::new(own).join("draft.txt"), "the fork's\n").unwrap();
    assert_eq!(read(tree, "draft.txt"), "work so far\n", "neither sees the other's change");
    assert!(git(root, &["status", "--porcelain"]).is_empty(), "the checkout is untouched");
    assert_eq!(git(root, &["worktree", "list"]).lines().count(), 3);
}
