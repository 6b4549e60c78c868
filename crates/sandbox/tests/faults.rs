//! Black-box faults (DESIGN §11): floods, timeouts, fork bombs, runaway memory, writes
//! outside the workspace, the user's home, background children, killing the server.

mod support;

use anyhow::Result;
use serde_json::json;
use support::{marker, processes_running, start, Run};

#[tokio::test(flavor = "multi_thread")]
async fn a_flood_keeps_the_last_64_kib_of_each_stream() -> Result<()> {
    let server = start(&[], &[]).await?;
    let run = server
        .run("yes 0123456789 | head -c 2999997; yes e | head -c 500000 >&2; echo END", 60)
        .await?;
    assert_eq!(run.exit_code, 0);
    assert!(run.truncated);
    assert!(run.stdout.len() <= 64 * 1024 && run.stdout.len() > 60 * 1024, "{}", run.stdout.len());
    assert!(run.stdout.ends_with("0123456789\nEND\n"));
    assert!(run.stderr.len() <= 64 * 1024 && run.stderr.ends_with("e\n"));
    assert!(run.text.contains("output truncated"));
    Ok(())
}

#[tokio::test(flavor = "multi_thread")]
async fn a_timeout_kills_the_whole_group_and_says_so() -> Result<()> {
    let server = start(&[], &[]).await?;
    let n = marker();
    let run = server.run(&format!("sleep {n} & echo started; sleep {}", n + 1), 1).await?;
    assert!(run.timed_out, "{}", run.text);
    assert_eq!(run.exit_code, 137);
    assert!(run.duration_ms < 15_000, "{}", run.duration_ms);
    assert_eq!(run.stdout, "started\n");
    assert!(
        run.text.starts_with("exit code 137 in ") && run.text.contains(" (timed out"),
        "{}",
        run.text
    );
    for words in [["sleep".to_string(), n.to_string()], ["sleep".to_string(), (n + 1).to_string()]]
    {
        assert!(
            processes_running(&[&words[0], &words[1]]).is_empty(),
            "{words:?} outlived the call"
        );
    }
    Ok(())
}

#[tokio::test(flavor = "multi_thread")]
async fn a_background_child_does_not_outlive_the_call() -> Result<()> {
    for confinement in ["auto", "none"] {
        let server = start(&["--confinement", confinement], &[]).await?;
        let (a, b) = (marker(), marker() + 1);
        let run = server.run(&format!("sleep {a} & setsid sleep {b} & echo left"), 30).await?;
        assert_eq!((run.exit_code, run.timed_out), (0, false), "{}", run.text);
        for n in [a, b] {
            assert!(
                processes_running(&["sleep", &n.to_string()]).is_empty(),
                "{confinement}: sleep {n} survived"
            );
        }
    }
    Ok(())
}

#[tokio::test(flavor = "multi_thread")]
async fn a_fork_bomb_is_bounded_by_the_process_limit() -> Result<()> {
    let server = start(&["--max-processes", "64"], &[]).await?;
    let code = "import os, time\npids = []\ntry:\n    for _ in range(5000):\n        pid = os.fork()\n        if pid == 0:\n            time.sleep(60)\n            os._exit(0)\n        pids.append(pid)\nexcept OSError as e:\n    print('refused after', len(pids), e.errno)\n";
    let run = Run::from(server.call("run_python", json!({"code": code, "timeout_s": 60})).await?)?;
    let count: usize =
        run.stdout.split_whitespace().nth(2).and_then(|n| n.parse().ok()).unwrap_or(usize::MAX);
    assert!(count < 64, "{}", run.text);
    assert!(run.text.contains("the process limit was reached"), "{}", run.text);
    // The classic shell bomb ends with the timeout and the server answers on.
    let bomb = server.run("f() { f | f & }; f; sleep 30", 3).await?;
    assert!(bomb.timed_out || bomb.exit_code != 0, "{}", bomb.text);
    assert_eq!(server.run("echo alive", 30).await?.stdout, "alive\n");
    Ok(())
}

#[tokio::test(flavor = "multi_thread")]
async fn runaway_allocation_ends_the_command_not_the_machine() -> Result<()> {
    let server = start(&["--memory-mib", "200"], &[]).await?;
    let code = "chunks = []\nwhile True:\n    chunks.append(bytearray(16 * 1024 * 1024))\n";
    let run = Run::from(server.call("run_python", json!({"code": code, "timeout_s": 60})).await?)?;
    assert!(!run.timed_out, "{}", run.text);
    assert_ne!(run.exit_code, 0, "{}", run.text);
    assert!(run.text.contains("the memory limit was reached"), "{}", run.text);
    Ok(())
}

#[tokio::test(flavor = "multi_thread")]
async fn the_system_is_read_only_tmp_private_and_home_empty() -> Result<()> {
    let server = start(&[], &[]).await?;
    let n = marker();
    let script = format!(
        "touch /usr/preflight-{n} || echo usr-refused; echo x > /etc/preflight-{n} || echo etc-refused; \
         echo private > /tmp/preflight-{n} && echo tmp-ok; ls -A \"$HOME\"; echo home-listed; \
         cat \"$HOME/secret.txt\" || echo no-secret; echo made > inside.txt"
    );
    let run = server.run(&script, 30).await?;
    assert_eq!(
        run.stdout, "usr-refused\netc-refused\ntmp-ok\nhome-listed\nno-secret\n",
        "{}",
        run.text
    );
    assert!(run.stderr.contains("Read-only file system"), "{}", run.stderr);
    assert!(!std::path::Path::new(&format!("/usr/preflight-{n}")).exists());
    assert!(!std::path::Path::new(&format!("/tmp/preflight-{n}")).exists());
    assert!(server.home.path().join("secret.txt").exists());
    assert_eq!(std::fs::read_to_string(server.workspace().join("inside.txt"))?, "made\n");
    Ok(())
}

#[tokio::test(flavor = "multi_thread")]
async fn a_command_cannot_kill_its_server() -> Result<()> {
    let server = start(&[], &[]).await?;
    let pid = server.pid;
    let run = server.run(&format!("kill -9 {pid} 2>&1; echo rc=$?; kill -9 -1"), 30).await?;
    assert!(run.stdout.contains("rc=1") || run.stdout.contains("No such process"), "{}", run.text);
    assert_eq!(server.run("echo still here", 30).await?.stdout, "still here\n");
    Ok(())
}

/// Runs after the first start from a helper made ready in their cgroups (`prepared.rs`):
/// they are inside a fresh cgroup of their own, limited like the first, with none of the
/// server's environment, and a helper left waiting dies with the server.
#[tokio::test(flavor = "multi_thread")]
async fn runs_from_a_ready_helper_are_confined_and_limited_like_the_first() -> Result<()> {
    let server = start(&["--max-processes", "64"], &[("PREFLIGHT_SECRET", "s3cret")]).await?;
    let mut groups = Vec::new();
    for _ in 0..4 {
        // Inside, a cgroup namespace shows the run's own group as the root; the host sees it.
        let seconds = format!("1.{}", marker());
        let command = format!("grep pids /proc/self/cgroup; env; sleep {seconds}");
        let seen_from_host = async {
            for _ in 0..3000 {
                if let Some(pid) = processes_running(&["sleep", &seconds]).first() {
                    let text = std::fs::read_to_string(format!("/proc/{pid}/cgroup"));
                    return text.unwrap_or_default();
                }
                tokio::time::sleep(std::time::Duration::from_millis(10)).await;
            }
            String::new()
        };
        let (run, host) = tokio::join!(server.run(&command, 30), seen_from_host);
        let run = run?;
        assert_eq!(run.exit_code, 0, "{}", run.text);
        assert!(!run.stdout.contains("s3cret"), "{}", run.stdout);
        assert!(run.stdout.lines().next().is_some_and(|l| l.ends_with(":/")), "{}", run.stdout);
        let group = host.lines().find(|l| l.contains("pids")).unwrap_or_default().to_owned();
        assert!(group.contains("preflight-sandbox-"), "each run in its own cgroup: {host}");
        groups.push(group);
    }
    groups.dedup();
    assert_eq!(groups.len(), 4, "a fresh cgroup per run: {groups:?}");
    let code = "import os, time\nn = 0\ntry:\n    for _ in range(5000):\n        if os.fork() == 0:\n            time.sleep(30)\n            os._exit(0)\n        n += 1\nexcept OSError:\n    print('refused after', n)\n";
    for _ in 0..2 {
        let run =
            Run::from(server.call("run_python", json!({"code": code, "timeout_s": 60})).await?)?;
        assert!(run.stdout.starts_with("refused after"), "{}", run.text);
        assert!(run.text.contains("the process limit was reached"), "{}", run.text);
    }
    let helpers = processes_running(&[env!("CARGO_BIN_EXE_preflight-sandbox"), "--exec-helper"]);
    assert_eq!(helpers.len(), 1, "one helper waits for the next run: {helpers:?}");
    drop(server);
    let gone = (0..100).any(|_| {
        std::thread::sleep(std::time::Duration::from_millis(50));
        helpers.iter().all(|pid| !std::path::Path::new(&format!("/proc/{pid}")).exists())
    });
    assert!(gone, "the waiting helper outlived its server");
    Ok(())
}

/// A run cannot fill the disk with one file: past `--max-file-mib` the write fails (a shell
/// is killed by SIGXFSZ, Python gets "File too large") and the result says which cap it was.
#[tokio::test(flavor = "multi_thread")]
async fn a_file_past_the_write_cap_is_refused_and_said() -> Result<()> {
    let server = start(&["--max-file-mib", "1"], &[]).await?;
    let run = server.run("head -c 3000000 /dev/zero > big.bin", 30).await?;
    assert_eq!(run.exit_code, 153, "{}", run.text);
    assert!(run.text.contains("the file size cap was reached"), "{}", run.text);
    assert!(run.text.contains("1 MiB"), "{}", run.text);
    let written = std::fs::metadata(server.workspace().join("big.bin"))?.len();
    assert!(written <= 1024 * 1024, "{written} bytes written");
    let code = "open('py.bin', 'wb').write(b'x' * 3_000_000)";
    let run = Run::from(server.call("run_python", json!({"code": code})).await?)?;
    assert_ne!(run.exit_code, 0, "{}", run.text);
    assert!(run.stderr.contains("File too large"), "{}", run.text);
    assert!(run.text.contains("the file size cap was reached"), "{}", run.text);
    // Under the cap everything is as before.
    assert_eq!(server.run("head -c 1000 /dev/zero | wc -c", 30).await?.stdout, "1000\n");
    Ok(())
}
