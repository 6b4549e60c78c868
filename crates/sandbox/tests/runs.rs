//! Black-box: ordinary runs, their result shape, `cwd`, the environment allowlist and the
//! unconfined mode, through rmcp's client against the built server.

mod support;

use anyhow::Result;
use serde_json::json;
use support::{start, text, Run, PROVIDER_KEY};

#[tokio::test(flavor = "multi_thread")]
async fn a_run_returns_text_and_structured_content_and_a_failure_is_a_result() -> Result<()> {
    let server = start(&[], &[]).await?;
    let ok = server.run("echo hello; echo oops >&2; pwd", 30).await?;
    assert_eq!(ok.exit_code, 0, "{}", ok.text);
    assert_eq!(ok.stdout, format!("hello\n{}\n", server.workspace().display()));
    assert_eq!(ok.stderr, "oops\n");
    assert!(ok.text.starts_with("exit code 0 in ") && ok.text.contains(" ms\n"), "{}", ok.text);
    assert!(!ok.timed_out && !ok.truncated);
    let keys: Vec<&String> = ok.structured.as_object().unwrap().keys().collect();
    assert_eq!(keys, ["exit_code", "stdout", "stderr", "timed_out", "truncated", "duration_ms"]);
    let failed = server.run("echo partial; exit 3", 30).await?;
    assert_eq!((failed.exit_code, failed.stdout.as_str()), (3, "partial\n"));
    assert!(failed.text.starts_with("exit code 3 in "), "{}", failed.text);
    Ok(())
}

#[tokio::test(flavor = "multi_thread")]
async fn cwd_stays_inside_the_workspace() -> Result<()> {
    let server = start(&[], &[]).await?;
    std::fs::create_dir_all(server.workspace().join("src/deep"))?;
    std::os::unix::fs::symlink("/etc", server.workspace().join("etc-link"))?;
    let inside = server.call("run_command", json!({"command": "pwd", "cwd": "src/deep"})).await?;
    let inside = Run::from(inside)?;
    assert_eq!(inside.stdout.trim(), server.workspace().join("src/deep").display().to_string());
    for (cwd, why) in [
        ("../", "`..` would leave the workspace"),
        ("etc-link", "symbolic link"),
        ("/etc", "relative"),
    ] {
        let refused = server.call("run_command", json!({"command": "pwd", "cwd": cwd})).await?;
        assert_eq!(refused.is_error, Some(true), "{cwd}");
        assert!(text(&refused).contains(why), "{cwd}: {}", text(&refused));
    }
    let too_long =
        server.call("run_command", json!({"command": "true", "timeout_s": 1801})).await?;
    assert_eq!(too_long.is_error, Some(true));
    assert!(text(&too_long).contains("between 1 and 1800"), "{}", text(&too_long));
    Ok(())
}

#[tokio::test(flavor = "multi_thread")]
async fn provider_keys_never_reach_a_command_and_the_allowlist_does() -> Result<()> {
    let server =
        start(&[], &[("PIP_NO_INDEX", "1"), ("LANG", "C.UTF-8"), ("PREFLIGHT_HOME", "/data")])
            .await?;
    let run = server.run("env", 60).await?;
    assert!(!run.stdout.contains(PROVIDER_KEY), "{}", run.stdout);
    let keys: Vec<&str> =
        run.stdout.lines().filter_map(|l| l.split_once('=')).map(|(k, _)| k).collect();
    // What sh itself sets (PWD, …) aside, only the allowlist arrives (TERM if the machine has
    // it); pip's settings are for install_packages only, never a command's.
    let allowed = ["HOME", "LANG", "PATH", "VIRTUAL_ENV", "TERM", "PWD", "OLDPWD", "SHLVL", "_"];
    assert!(keys.iter().all(|k| allowed.contains(k)), "{}", run.stdout);
    for required in ["HOME", "LANG", "PATH", "VIRTUAL_ENV"] {
        assert!(keys.contains(&required), "{required} missing: {}", run.stdout);
    }
    let venv = server.workspace().join(".sandbox/venv");
    assert!(run.stdout.contains(&format!("VIRTUAL_ENV={}\n", venv.display())));
    assert!(run.stdout.contains(&format!("PATH={}/bin:", venv.display())));
    Ok(())
}

#[tokio::test(flavor = "multi_thread")]
async fn unconfined_is_said_in_every_description_and_on_every_result() -> Result<()> {
    let server = start(&["--confinement", "none"], &[]).await?;
    let tools = server.tools().await?;
    assert_eq!(tools.len(), 4);
    for tool in &tools {
        assert!(tool.description.as_deref().unwrap_or("").contains("UNCONFINED"), "{}", tool.name);
    }
    let run = server.run("echo hi", 30).await?;
    assert!(run.text.starts_with("UNCONFINED (started with --confinement none)"), "{}", run.text);
    assert!(
        run.text.lines().nth(1).is_some_and(|line| line.starts_with("exit code 0 in ")),
        "{}",
        run.text
    );
    let info = server.call("sandbox_info", json!({})).await?;
    assert!(text(&info).starts_with("UNCONFINED"), "{}", text(&info));
    assert_eq!(info.structured_content.unwrap()["confined"], json!(false));
    Ok(())
}

#[tokio::test(flavor = "multi_thread")]
async fn confined_descriptions_say_what_holds() -> Result<()> {
    let server = start(&["--no-network"], &[]).await?;
    for tool in server.tools().await? {
        let description = tool.description.as_deref().unwrap_or("");
        assert!(description.contains("Confined by bubblewrap"), "{description}");
        assert!(description.contains("commands and Python have no network"), "{description}");
        assert_eq!(tool.annotations.as_ref().and_then(|a| a.read_only_hint), Some(false));
    }
    // Only loopback exists in the sandbox's network namespace.
    let run = server.run("cat /proc/net/dev", 30).await?;
    let interfaces: Vec<&str> =
        run.stdout.lines().skip(2).filter_map(|l| l.split(':').next()).map(str::trim).collect();
    assert_eq!(interfaces, ["lo"], "{}", run.stdout);
    Ok(())
}

/// The initialize result says whether runs are confined, under the key the engine reads.
#[tokio::test(flavor = "multi_thread")]
async fn the_confinement_is_in_the_initialize_result() -> Result<()> {
    for (args, confined) in [(&["--confinement", "none"][..], false), (&[][..], true)] {
        let server = start(args, &[]).await?;
        let info = server.client.peer_info().expect("initialized");
        let experimental = info.capabilities.experimental.clone().unwrap_or_default();
        let report = &experimental["preflight/confinement"];
        assert_eq!(report["confined"], json!(confined), "{report:?}");
        let reason = report["reason"].as_str();
        match confined {
            true => assert_eq!(report["reason"], json!(null)),
            false => assert_eq!(reason, Some("started with --confinement none")),
        }
    }
    Ok(())
}
