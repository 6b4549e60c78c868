//! Black-box: the venv (created once, reused, never deleted), run_python, install_packages
//! from a wheel built here (no network), pip's errors, and sandbox_info.

mod support;

use anyhow::Result;
use serde_json::json;
use support::{build_wheel, start, start_in, text, Run};

#[tokio::test(flavor = "multi_thread")]
async fn python_runs_in_the_venv_and_packages_install_from_local_wheels() -> Result<()> {
    let workspace = tempfile::tempdir()?;
    let wheels = workspace.path().join("wheels");
    build_wheel(&wheels, "preflighttiny", "0.1.0")?;
    let links = wheels.display().to_string();
    let env = [("PIP_NO_INDEX", "1"), ("PIP_FIND_LINKS", links.as_str())];
    let server = start_in(workspace, &[], &env).await?;
    let code = "import sys; print(sys.prefix); print(sys.version_info[:2] >= (3, 8))";
    let run = Run::from(server.call("run_python", json!({"code": code})).await?)?;
    let venv = server.workspace().join(".sandbox/venv");
    assert_eq!(run.stdout, format!("{}\nTrue\n", venv.display()), "{}", run.text);

    let install = server.call("install_packages", json!({"packages": ["preflighttiny"]})).await?;
    let install = Run::from(install)?;
    assert_eq!(install.exit_code, 0, "{}", install.text);
    assert!(install.text.contains("installed: preflighttiny 0.1.0"), "{}", install.text);
    assert_eq!(
        install.structured["installed"],
        json!([{"name": "preflighttiny", "version": "0.1.0"}])
    );
    let import = "import preflighttiny; print(preflighttiny.VERSION)";
    let run = Run::from(server.call("run_python", json!({"code": import})).await?)?;
    assert_eq!(run.stdout, "0.1.0\n", "{}", run.text);

    let unknown =
        server.call("install_packages", json!({"packages": ["no-such-package-preflight"]})).await?;
    let unknown = Run::from(unknown)?;
    assert_ne!(unknown.exit_code, 0);
    assert!(unknown.stderr.contains("No matching distribution found"), "{}", unknown.text);
    assert!(unknown.text.contains("installed: nothing"), "{}", unknown.text);

    let option =
        server.call("install_packages", json!({"packages": ["--index-url=http://evil"]})).await?;
    assert_eq!(option.is_error, Some(true));

    let info = server.call("sandbox_info", json!({})).await?;
    let words = text(&info);
    assert!(
        words.contains("Python: /usr/bin/python3 (Debian's system Python), version 3."),
        "{words}"
    );
    assert!(
        words.contains("preflighttiny 0.1.0") && words.contains("Confined by bubblewrap"),
        "{words}"
    );
    let structured = info.structured_content.unwrap();
    assert_eq!(structured["venv"]["exists"], json!(true));
    assert!(structured["limits"].as_str().unwrap().contains("processes"), "{structured}");
    Ok(())
}

#[tokio::test(flavor = "multi_thread")]
async fn the_venv_is_reused_and_a_broken_one_is_refused_not_deleted() -> Result<()> {
    let server = start(&[], &[]).await?;
    // The venv is read-only inside: the marker is left from outside, as by the user.
    server.run("true", 60).await?;
    std::fs::write(server.workspace().join(".sandbox/venv/marker"), "")?;
    let workspace = server.workspace;
    drop(server.client);
    let again = start_in(workspace, &[], &[]).await?;
    let run = again
        .run("ls .sandbox/venv/marker && python -c 'import sys; print(sys.prefix)'", 60)
        .await?;
    assert!(run.stdout.starts_with(".sandbox/venv/marker\n"), "{}", run.text);

    let broken = tempfile::tempdir()?;
    std::fs::create_dir_all(broken.path().join(".sandbox/venv"))?;
    std::fs::write(broken.path().join(".sandbox/venv/keep.txt"), "mine")?;
    let server = start_in(broken, &[], &[]).await?;
    let refused = server.call("run_python", json!({"code": "print(1)"})).await?;
    assert_eq!(refused.is_error, Some(true));
    assert!(text(&refused).contains("never deletes it"), "{}", text(&refused));
    assert!(server.workspace().join(".sandbox/venv/keep.txt").exists());
    Ok(())
}

#[tokio::test(flavor = "multi_thread")]
async fn a_python_without_venv_support_names_python3_venv() -> Result<()> {
    let server = start(&["--python", "/bin/false"], &[]).await?;
    let refused = server.call("run_python", json!({"code": "print(1)"})).await?;
    assert_eq!(refused.is_error, Some(true));
    assert!(text(&refused).contains("install python3-venv"), "{}", text(&refused));
    // A shell command still runs, and says why there is no venv.
    let run = server.run("echo fine", 30).await?;
    assert!(
        run.text.contains("note: no Python venv on PATH") && run.stdout == "fine\n",
        "{}",
        run.text
    );
    Ok(())
}
