//! Black-box attempts to leave the sandbox (issue 28), each as an attacker's code would try
//! it through `run_command` or `run_python`: a host unix socket, `.git` hooks and config,
//! the loopback network, pip's settings, a link planted where the server would write, and
//! the host folders outside the allowlist. Each held on its own before the fix failed.

mod support;

use anyhow::Result;
use serde_json::json;
use std::io::Read;
use std::os::linux::net::SocketAddrExt;
use std::os::unix::net::UnixListener;
use std::path::PathBuf;
use std::time::Duration;
use support::{marker, start, start_in, Run};

/// A folder for host-side sockets outside the workspace, /tmp and the home: under /run when
/// this user may write there (as CI's root may), else beside the test homes in target/.
fn host_socket_dir() -> Result<tempfile::TempDir> {
    let run = tempfile::Builder::new().prefix("preflight-escape-").tempdir_in("/run");
    match run {
        Ok(dir) => Ok(dir),
        Err(_) => {
            let target = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../target");
            std::fs::create_dir_all(&target)?;
            Ok(tempfile::Builder::new().prefix("preflight-escape-").tempdir_in(target)?)
        }
    }
}

/// Whether anything connected to `listener` (and what it sent) within a short wait.
fn received(listener: &UnixListener) -> Option<String> {
    listener.set_nonblocking(true).ok()?;
    let deadline = std::time::Instant::now() + Duration::from_millis(300);
    while std::time::Instant::now() < deadline {
        if let Ok((mut stream, _)) = listener.accept() {
            let mut bytes = String::new();
            stream.set_read_timeout(Some(Duration::from_millis(300))).ok()?;
            let _ = stream.read_to_string(&mut bytes);
            return Some(bytes);
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    None
}

#[tokio::test(flavor = "multi_thread")]
async fn a_host_unix_socket_cannot_be_reached() -> Result<()> {
    let dir = host_socket_dir()?;
    let path = dir.path().join("bus");
    let listener = UnixListener::bind(&path)?;
    let server = start(&[], &[]).await?;
    let code = format!(
        "import socket\ns = socket.socket(socket.AF_UNIX)\ntry:\n    s.connect({:?})\n    \
         s.sendall(b'escaped')\n    print('connected')\nexcept OSError as e:\n    print('refused', e.errno)\n",
        path.display().to_string()
    );
    let run = Run::from(server.call("run_python", json!({"code": code})).await?)?;
    assert!(run.stdout.starts_with("refused"), "{}", run.text);
    assert_eq!(received(&listener), None, "the host socket got a connection");
    // Nor any path a session puts sockets under: the folder does not exist inside.
    let listing = server.run(&format!("ls {} 2>&1; ls /run", dir.path().display()), 30).await?;
    assert!(listing.stdout.contains("No such file or directory"), "{}", listing.text);
    Ok(())
}

#[tokio::test(flavor = "multi_thread")]
async fn an_abstract_socket_of_the_host_is_out_of_reach_without_the_network() -> Result<()> {
    let name = format!("preflight-escape-{}", marker());
    let socket = std::os::unix::net::SocketAddr::from_abstract_name(name.as_bytes())?;
    let listener = UnixListener::bind_addr(&socket)?;
    let server = start(&[], &[]).await?;
    let code = format!(
        "import socket\ns = socket.socket(socket.AF_UNIX)\ntry:\n    s.connect('\\0{name}')\n    \
         s.sendall(b'escaped')\n    print('connected')\nexcept OSError as e:\n    print('refused', e.errno)\n"
    );
    let run = Run::from(server.call("run_python", json!({"code": code})).await?)?;
    assert!(run.stdout.starts_with("refused"), "{}", run.text);
    assert_eq!(received(&listener), None);
    Ok(())
}

#[tokio::test(flavor = "multi_thread")]
async fn git_hooks_and_config_are_read_only_inside() -> Result<()> {
    let workspace = tempfile::tempdir()?;
    let git = workspace.path().join(".git");
    std::fs::create_dir_all(git.join("hooks"))?;
    std::fs::write(git.join("config"), "[core]\n\tbare = false\n")?;
    let server = start_in(workspace, &[], &[]).await?;
    let script = "printf '[core]\\n\\tfsmonitor = touch /tmp/pwned\\n' >> .git/config || echo config-refused; \
                  printf '#!/bin/sh\\n' > .git/hooks/pre-commit || echo hook-refused; \
                  mv .git .git-moved 2>/dev/null || echo move-refused; \
                  echo fine > tracked.txt && echo workspace-writable";
    let run = server.run(script, 30).await?;
    assert_eq!(
        run.stdout, "config-refused\nhook-refused\nmove-refused\nworkspace-writable\n",
        "{}",
        run.text
    );
    let ws = server.workspace();
    assert_eq!(std::fs::read_to_string(ws.join(".git/config"))?, "[core]\n\tbare = false\n");
    assert!(!ws.join(".git/hooks/pre-commit").exists());
    assert_eq!(std::fs::read_to_string(ws.join("tracked.txt"))?, "fine\n");
    Ok(())
}

#[tokio::test(flavor = "multi_thread")]
async fn commands_have_no_network_and_no_pip_settings_by_default() -> Result<()> {
    let listener = std::net::TcpListener::bind("127.0.0.1:0")?;
    let port = listener.local_addr()?.port();
    let env = [("PIP_INDEX_URL", "https://user:secret@mirror.example/simple")];
    let server = start(&[], &env).await?;
    let code = format!(
        "import os, socket\nprint(sorted(k for k in os.environ if k.startswith('PIP_')))\n\
         try:\n    socket.create_connection(('127.0.0.1', {port}), timeout=2)\n    print('connected')\n\
         except OSError:\n    print('no network')\n"
    );
    let run = Run::from(server.call("run_python", json!({"code": code})).await?)?;
    assert_eq!(run.stdout, "[]\nno network\n", "{}", run.text);

    // `--network` gives commands the host's network (`[sandbox] network = true`).
    let online = start(&["--network"], &[]).await?;
    let code = format!("import socket\nsocket.create_connection(('127.0.0.1', {port}), timeout=5)\nprint('connected')\n");
    let run = Run::from(online.call("run_python", json!({"code": code})).await?)?;
    assert_eq!(run.stdout, "connected\n", "{}", run.text);
    Ok(())
}

#[tokio::test(flavor = "multi_thread")]
async fn run_python_never_writes_through_a_planted_link() -> Result<()> {
    let server = start(&[], &[]).await?;
    let victim = server.home.path().join("victim.txt");
    std::fs::write(&victim, "the user's file")?;
    // Every name the server once used for its scripts, pointed at the victim (planted from
    // outside: `.sandbox` is read-only to commands now).
    server.run("true", 60).await?;
    let tmp = server.workspace().join(".sandbox/tmp");
    std::fs::create_dir_all(&tmp)?;
    for n in 0..4 {
        let name = format!("run_python-{}-{n}.py", server.pid);
        std::os::unix::fs::symlink(&victim, tmp.join(name))?;
    }
    let run = Run::from(server.call("run_python", json!({"code": "print('ran')"})).await?)?;
    assert_eq!(run.stdout, "ran\n", "{}", run.text);
    assert_eq!(std::fs::read_to_string(&victim)?, "the user's file");

    // The program arrives whole however long it is, and its own stdin is empty.
    let long = format!(
        "x = '{}'\nimport sys\nprint(len(x), repr(sys.stdin.read()))\n",
        "a".repeat(300_000)
    );
    let run = Run::from(server.call("run_python", json!({"code": long})).await?)?;
    assert_eq!(run.stdout, "300000 ''\n", "{}", run.stderr);
    Ok(())
}

#[tokio::test(flavor = "multi_thread")]
async fn only_the_allowlisted_host_folders_are_visible() -> Result<()> {
    let server = start(&[], &[]).await?;
    let outside = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let script = format!(
        "for d in /home /root /var/lib /mnt /srv /opt {}; do [ -e \"$d\" ] && echo \"seen $d\"; done; \
         [ -x /usr/bin/env ] && [ -r /etc/passwd ] && echo system-ok",
        outside.display()
    );
    let run = server.run(&script, 30).await?;
    assert_eq!(run.stdout, "system-ok\n", "{}", run.text);
    Ok(())
}

#[tokio::test(flavor = "multi_thread")]
async fn a_venv_the_workspace_brought_is_never_run_nor_on_path() -> Result<()> {
    let workspace = tempfile::tempdir()?;
    let venv = workspace.path().join(".sandbox/venv");
    std::fs::create_dir_all(venv.join("bin"))?;
    std::fs::write(venv.join("pyvenv.cfg"), "home = /usr/bin\n")?;
    let fake =
        "#!/bin/sh\ntouch \"$(dirname \"$0\")/../../../ran-$(basename \"$0\")\"\necho faked\n";
    for program in ["python", "pytest"] {
        let path = venv.join("bin").join(program);
        std::fs::write(&path, fake)?;
        std::fs::set_permissions(&path, std::os::unix::fs::PermissionsExt::from_mode(0o755))?;
    }
    let server = start_in(workspace, &[], &[]).await?;
    let ws = server.workspace();
    let run = server.run("pytest 2>&1 || true; echo \"$PATH\"", 30).await?;
    assert!(!run.stdout.contains("faked") && !run.stdout.contains(".sandbox/venv"), "{}", run.text);
    assert!(run.text.contains("was not made by Preflight's sandbox"), "{}", run.text);
    let python = server.call("run_python", json!({"code": "print(1)"})).await?;
    assert_eq!(python.is_error, Some(true));
    let info = support::text(&server.call("sandbox_info", json!({})).await?);
    assert!(info.contains("NOT USED"), "{info}");
    assert!(!ws.join("ran-python").exists() && !ws.join("ran-pytest").exists());
    assert!(venv_kept(&ws), "the workspace's folder is left as it was");
    Ok(())
}

fn venv_kept(ws: &std::path::Path) -> bool {
    ws.join(".sandbox/venv/bin/python").exists() && ws.join(".sandbox/venv/pyvenv.cfg").exists()
}

/// `--confinement auto` found bubblewrap working at start; when it fails at run time the run
/// fails with bubblewrap's words and is never run again unconfined.
#[tokio::test(flavor = "multi_thread")]
async fn bubblewrap_failing_at_run_time_is_a_failed_run_never_an_unconfined_one() -> Result<()> {
    let bin = tempfile::tempdir()?;
    let fake = bin.path().join("bwrap");
    // Passes the probe at start (it runs /bin/true), then fails every run.
    let script = "#!/bin/sh\nfor last; do :; done\n[ \"$last\" = /bin/true ] && exit 0\n\
                  echo 'bwrap: Creating new namespace failed: Operation not permitted' >&2\nexit 1\n";
    std::fs::write(&fake, script)?;
    std::fs::set_permissions(&fake, std::os::unix::fs::PermissionsExt::from_mode(0o755))?;
    let path = format!("{}:/usr/local/bin:/usr/bin:/bin", bin.path().display());
    let server = start(&["--confinement", "auto"], &[("PATH", path.as_str())]).await?;
    let run = server.run("echo ran > ran.txt; echo ran", 30).await?;
    assert_eq!(run.exit_code, 1, "{}", run.text);
    assert!(run.stderr.contains("Creating new namespace failed"), "{}", run.text);
    assert_eq!(run.stdout, "", "{}", run.text);
    assert!(!server.workspace().join("ran.txt").exists(), "the command ran unconfined");
    Ok(())
}
