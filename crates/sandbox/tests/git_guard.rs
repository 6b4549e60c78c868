//! Issue 46: a `.git` the jailed code plants, anywhere in the workspace, must never run a
//! program as the user at their next `git status`. Each layout the issue names, with real git
//! and real bubblewrap: a workspace without `.git` (`git init` and `core.fsmonitor`), a
//! repository with a submodule (`lib/.git` replaced), a nested repository (its config
//! written), the `.dwp` plan folder, and a home folder inside the workspace.

mod support;

use anyhow::{ensure, Result};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use support::{start_in, Run, Server};

/// Runs real git in `dir` as the test's user, outside any sandbox, with no user or system
/// config and no repository above `dir` (its parent is a ceiling).
fn git(dir: &Path, args: &[&str]) -> Result<Output> {
    let home = tempfile::tempdir()?;
    let ceiling = dir.parent().unwrap_or(dir);
    let output = Command::new("git")
        .args(["-c", "user.name=Test", "-c", "user.email=test@example.com"])
        .args(["-c", "protocol.file.allow=always", "-c", "init.defaultBranch=main"])
        .args(args)
        .current_dir(dir)
        .env("HOME", home.path())
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CEILING_DIRECTORIES", ceiling)
        .output()?;
    Ok(output)
}

fn git_ok(dir: &Path, args: &[&str]) -> Result<()> {
    let output = git(dir, args)?;
    let stderr = String::from_utf8_lossy(&output.stderr);
    ensure!(output.status.success(), "git {args:?} in {}: {stderr}", dir.display());
    Ok(())
}

/// A file outside the workspace that a planted `core.fsmonitor` would create.
struct Marker {
    _dir: tempfile::TempDir,
    path: PathBuf,
}

fn marker() -> Result<Marker> {
    let dir = tempfile::tempdir()?;
    let path = dir.path().join("pwned");
    Ok(Marker { _dir: dir, path })
}

/// The script that plants `core.fsmonitor` in the repository of folder `at`.
fn plant_fsmonitor(at: &str, marker: &Marker) -> String {
    format!("git -C {at} config core.fsmonitor 'touch {}' && echo planted", marker.path.display())
}

/// The paths the result says were quarantined, and where each went.
fn quarantined(run: &Run) -> Vec<(String, String)> {
    let list = run.structured["quarantined"].as_array().cloned().unwrap_or_default();
    let pair = |entry: &Value| {
        let path = entry["path"].as_str().unwrap_or_default().to_owned();
        (path, entry["moved_to"].as_str().unwrap_or_default().to_owned())
    };
    list.iter().map(pair).collect()
}

async fn served(workspace: tempfile::TempDir) -> Result<Server> {
    start_in(workspace, &[], &[]).await
}

#[tokio::test(flavor = "multi_thread")]
async fn a_git_made_where_there_was_none_is_quarantined_and_never_runs() -> Result<()> {
    let server = served(tempfile::tempdir()?).await?;
    let ws = server.workspace();
    let marker = marker()?;
    let script = format!(
        "git init -q . && echo a > a.txt && git add a.txt && {}",
        plant_fsmonitor(".", &marker)
    );
    let run = server.run(&script, 60).await?;
    assert_eq!(run.stdout, "planted\n", "{}", run.text);
    let moved = ".git.quarantined-by-preflight-1";
    assert_eq!(quarantined(&run), [(".git".to_owned(), moved.to_owned())], "{}", run.text);
    assert!(run.text.contains("QUARANTINED .git: this run created it"), "{}", run.text);
    assert!(run.text.contains(&format!("mv '{moved}' '.git'")), "{}", run.text);
    assert!(!ws.join(".git").exists());
    let kept = std::fs::read_to_string(ws.join(moved).join("config"))?;
    assert!(kept.contains("fsmonitor"), "nothing deleted: {kept}");

    let status = git(&ws, &["status"])?;
    assert!(!status.status.success(), "no repository is left for git to find");
    assert!(!marker.path.exists(), "the planted fsmonitor ran as the user");
    Ok(())
}

/// A repository whose `lib` is a submodule: `lib/.git` is the file `gitdir: ../.git/modules/lib`.
fn repository_with_submodule() -> Result<(tempfile::TempDir, tempfile::TempDir)> {
    let origin = tempfile::tempdir()?;
    git_ok(origin.path(), &["init", "-q", "."])?;
    std::fs::write(origin.path().join("lib.txt"), "lib")?;
    git_ok(origin.path(), &["add", "lib.txt"])?;
    git_ok(origin.path(), &["commit", "-qm", "lib"])?;
    let workspace = tempfile::tempdir()?;
    let ws = workspace.path();
    git_ok(ws, &["init", "-q", "."])?;
    let origin_path = origin.path().display().to_string();
    git_ok(ws, &["submodule", "add", "-q", &origin_path, "lib"])?;
    git_ok(ws, &["commit", "-qm", "with lib"])?;
    Ok((workspace, origin))
}

#[tokio::test(flavor = "multi_thread")]
async fn a_submodules_git_file_cannot_be_replaced_and_a_replacement_is_quarantined() -> Result<()> {
    let (workspace, _origin) = repository_with_submodule()?;
    let pointer = std::fs::read_to_string(workspace.path().join("lib/.git"))?;
    assert!(pointer.starts_with("gitdir: ../.git/modules/lib"), "{pointer}");
    let server = served(workspace).await?;
    let ws = server.workspace();
    let refused = "mv lib/.git lib/moved 2>/dev/null || echo move-refused; \
                   rm -rf lib/.git 2>/dev/null || echo remove-refused; \
                   echo 'gitdir: ../planted' > lib/.git 2>/dev/null || echo write-refused; \
                   echo x >> .git/modules/lib/config 2>/dev/null || echo module-refused";
    let run = server.run(refused, 60).await?;
    let expected = "move-refused\nremove-refused\nwrite-refused\nmodule-refused\n";
    assert_eq!(run.stdout, expected, "{}", run.text);
    assert!(quarantined(&run).is_empty(), "{}", run.text);
    assert_eq!(std::fs::read_to_string(ws.join("lib/.git"))?, pointer);

    // Around the mount: the folder holding it moved away, and a repository planted in its place.
    let marker = marker()?;
    let plant = format!(
        "mv lib lib-away && mkdir lib && git init -q lib && {}",
        plant_fsmonitor("lib", &marker)
    );
    let run = server.run(&plant, 60).await?;
    assert_eq!(run.stdout, "planted\n", "{}", run.text);
    let paths: Vec<String> = quarantined(&run).into_iter().map(|(path, _)| path).collect();
    assert!(paths.contains(&"lib/.git".to_owned()), "{}", run.text);
    // The submodule's own pointer, moved along with its folder, is set aside too, and said.
    assert!(run.text.contains("QUARANTINED lib-away/.git: this run moved it here from lib/.git"));
    assert!(!ws.join("lib/.git").exists());
    let status = git(&ws.join("lib"), &["status"])?;
    assert!(!marker.path.exists(), "the planted fsmonitor ran: {status:?}");
    Ok(())
}

#[tokio::test(flavor = "multi_thread")]
async fn a_nested_repository_and_a_git_in_any_case_are_read_only_inside() -> Result<()> {
    let workspace = tempfile::tempdir()?;
    let nested = workspace.path().join("vendor/x");
    std::fs::create_dir_all(&nested)?;
    git_ok(&nested, &["init", "-q", "."])?;
    std::fs::create_dir_all(workspace.path().join("other/.GIT"))?;
    let config = std::fs::read_to_string(nested.join(".git/config"))?;
    let server = served(workspace).await?;
    let ws = server.workspace();
    let marker = marker()?;
    let script = format!(
        "printf '[core]\\n\\tfsmonitor = touch {}\\n' >> vendor/x/.git/config 2>/dev/null || echo config-refused; \
         echo '#!/bin/sh' > vendor/x/.git/hooks/pre-commit 2>/dev/null || echo hook-refused; \
         mv vendor/x/.git vendor/x/moved 2>/dev/null || echo move-refused; \
         rm -rf vendor/x/.git 2>/dev/null || echo remove-refused; \
         touch other/.GIT/config 2>/dev/null || echo case-refused; \
         echo fine > vendor/x/code.txt && echo work-tree-writable",
        marker.path.display()
    );
    let run = server.run(&script, 60).await?;
    let expected = "config-refused\nhook-refused\nmove-refused\nremove-refused\ncase-refused\nwork-tree-writable\n";
    assert_eq!(run.stdout, expected, "{}", run.text);
    assert_eq!(std::fs::read_to_string(ws.join("vendor/x/.git/config"))?, config);
    assert!(!ws.join("vendor/x/.git/hooks/pre-commit").exists());
    git(&ws.join("vendor/x"), &["status"])?;
    assert!(!marker.path.exists());
    Ok(())
}

#[tokio::test(flavor = "multi_thread")]
async fn the_plan_folder_is_read_only_and_one_a_run_makes_is_quarantined() -> Result<()> {
    let workspace = tempfile::tempdir()?;
    std::fs::create_dir(workspace.path().join(".dwp"))?;
    std::fs::write(workspace.path().join(".dwp/plan.md"), "# the plan\n")?;
    let server = served(workspace).await?;
    let ws = server.workspace();
    let script = "echo changed >> .dwp/plan.md 2>/dev/null || echo write-refused; \
                  touch .dwp/new.md 2>/dev/null || echo create-refused; \
                  mv .dwp dwp-away 2>/dev/null || echo move-refused";
    let run = server.run(script, 60).await?;
    assert_eq!(run.stdout, "write-refused\ncreate-refused\nmove-refused\n", "{}", run.text);
    assert_eq!(std::fs::read_to_string(ws.join(".dwp/plan.md"))?, "# the plan\n");

    let fresh = served(tempfile::tempdir()?).await?;
    let ws = fresh.workspace();
    let run = fresh.run("mkdir .dwp && echo planted > .dwp/plan.md && echo made", 60).await?;
    assert_eq!(run.stdout, "made\n", "{}", run.text);
    let moved = ".dwp.quarantined-by-preflight-1";
    assert_eq!(quarantined(&run), [(".dwp".to_owned(), moved.to_owned())], "{}", run.text);
    assert!(run.text.contains("Preflight's plan folder"), "{}", run.text);
    assert!(!ws.join(".dwp").exists());
    assert_eq!(std::fs::read_to_string(ws.join(moved).join("plan.md"))?, "planted\n");
    Ok(())
}

#[tokio::test(flavor = "multi_thread")]
async fn overlapping_runs_quarantine_what_either_planted_once() -> Result<()> {
    let server = served(tempfile::tempdir()?).await?;
    let ws = server.workspace();
    // The first plants a repository and waits for the second, which starts while it runs and
    // lets it finish once the repository is there: whichever snapshot saw it, it goes aside.
    let first = "git init -q planted && while [ ! -e go ]; do sleep 0.05; done; echo first";
    let second = "while [ ! -d planted/.git ]; do sleep 0.05; done; touch go; echo second";
    let call =
        |command: &str| server.call("run_command", json!({"command": command, "timeout_s": 60}));
    let (a, b) = tokio::join!(call(first), call(second));
    let (a, b) = (Run::from(a?)?, Run::from(b?)?);
    assert_eq!((a.stdout.as_str(), b.stdout.as_str()), ("first\n", "second\n"));
    let all: Vec<(String, String)> = quarantined(&a).into_iter().chain(quarantined(&b)).collect();
    let moved = "planted/.git.quarantined-by-preflight-1";
    assert_eq!(all, [("planted/.git".to_owned(), moved.to_owned())], "{}\n{}", a.text, b.text);
    assert!(!ws.join("planted/.git").exists() && ws.join(moved).is_dir());
    Ok(())
}

#[tokio::test(flavor = "multi_thread")]
async fn a_home_inside_the_workspace_is_empty_in_a_run() -> Result<()> {
    let workspace = tempfile::tempdir()?;
    let home = workspace.path().canonicalize()?.join("home/u");
    std::fs::create_dir_all(home.join(".ssh"))?;
    std::fs::write(home.join(".ssh/id_rsa"), "PRIVATE KEY")?;
    std::fs::write(workspace.path().join("visible.txt"), "workspace file")?;
    let home_text = home.display().to_string();
    let server = start_in(workspace, &[], &[("HOME", home_text.as_str())]).await?;
    let script = format!(
        "cat visible.txt; echo; cat \"$HOME/.ssh/id_rsa\" {home_text}/.ssh/id_rsa 2>/dev/null; \
         ls -A {home_text}; echo \"home=$HOME\""
    );
    let run = server.run(&script, 60).await?;
    assert_eq!(run.stdout, format!("workspace file\nhome={home_text}\n"), "{}", run.text);
    Ok(())
}
