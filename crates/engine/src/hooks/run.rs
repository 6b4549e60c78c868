//! Running one hook: `sh -c COMMAND` on the host, as the user, in a folder given, with the
//! event as JSON on stdin, an environment without secrets ([`hook_env`]), stdout and stderr
//! capped, and a timeout past which its whole process group is killed.

use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncReadExt, AsyncWriteExt};
use tokio::process::Command;

/// What is kept of a hook's stdout and of its stderr; the rest is read and dropped.
pub const OUTPUT_CAP: usize = 64 * 1024;

/// How a hook ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HookExit {
    /// It exited with this status (`None`: killed by a signal).
    Exited(Option<i32>),
    /// It ran past its timeout and was killed with its process group.
    TimedOut,
    /// It could not be started.
    NotStarted(String),
}

/// What one run of a hook gave.
#[derive(Debug, Clone)]
pub struct HookRun {
    pub exit: HookExit,
    pub stdout: String,
    pub stderr: String,
}

/// Runs `command` with `input` on its stdin, in `cwd`, with exactly `env`.
pub async fn run_command(
    command: &str,
    timeout: Duration,
    input: &[u8],
    cwd: &Path,
    env: &[(String, String)],
) -> HookRun {
    let mut child = match Command::new("/bin/sh")
        .arg("-c")
        .arg(command)
        .current_dir(cwd)
        .env_clear()
        .envs(env.iter().map(|(key, value)| (key, value)))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .kill_on_drop(true)
        .spawn()
    {
        Ok(child) => child,
        Err(error) => {
            let exit =
                HookExit::NotStarted(format!("cannot start /bin/sh in {}: {error}", cwd.display()));
            return HookRun { exit, stdout: String::new(), stderr: String::new() };
        }
    };
    let group = child.id();
    let (stdin, stdout, stderr) = (child.stdin.take(), child.stdout.take(), child.stderr.take());
    let input = input.to_vec();
    // A hook that never reads its stdin must not hold the run up: written aside, errors dropped.
    let writer = tokio::spawn(async move {
        if let Some(mut stdin) = stdin {
            let _ = stdin.write_all(&input).await;
        }
    });
    let ran = async {
        let (out, err, status) = tokio::join!(capped(stdout), capped(stderr), child.wait());
        (out, err, status.ok().and_then(|status| status.code()))
    };
    let run = match tokio::time::timeout(timeout, ran).await {
        Ok((stdout, stderr, code)) => HookRun { exit: HookExit::Exited(code), stdout, stderr },
        Err(_) => {
            kill_group(group);
            let _ = child.wait().await;
            HookRun { exit: HookExit::TimedOut, stdout: String::new(), stderr: String::new() }
        }
    };
    writer.abort();
    run
}

/// Kills the hook's process group: the shell and whatever it started.
fn kill_group(group: Option<u32>) {
    let Some(group) = group.and_then(|id| libc::pid_t::try_from(id).ok()) else { return };
    // SAFETY: kill(2) takes plain integers; a negative pid names the group the hook leads
    // (`process_group(0)` made it its own), never Preflight's.
    unsafe {
        libc::kill(-group, libc::SIGKILL);
    }
}

/// Reads `pipe` to its end, keeping the first [`OUTPUT_CAP`] bytes.
async fn capped(pipe: Option<impl AsyncRead + Unpin>) -> String {
    let Some(mut pipe) = pipe else { return String::new() };
    let (mut kept, mut buffer) = (Vec::new(), [0u8; 8192]);
    while let Ok(read @ 1..) = pipe.read(&mut buffer).await {
        let room = OUTPUT_CAP.saturating_sub(kept.len());
        kept.extend_from_slice(&buffer[..read.min(room)]);
    }
    String::from_utf8_lossy(&kept).into_owned()
}

/// Preflight's environment without what a hook must not see: `PREFLIGHT_TOKEN`, the
/// variables `config.toml` names for API keys (`secrets`), and any variable whose name says
/// it holds a secret (`…_KEY`, `…API_KEY…`, `…_TOKEN`, `…_SECRET`, `…_PASSWORD`,
/// `…_CREDENTIALS`).
pub fn hook_env(
    vars: impl IntoIterator<Item = (String, String)>,
    secrets: &[String],
) -> Vec<(String, String)> {
    vars.into_iter().filter(|(name, _)| !is_secret(name, secrets)).collect()
}

fn is_secret(name: &str, secrets: &[String]) -> bool {
    let upper = name.to_ascii_uppercase();
    let endings = ["_KEY", "_TOKEN", "_SECRET", "_PASSWORD", "_CREDENTIALS"];
    secrets.iter().any(|secret| secret == name)
        || upper.starts_with("PREFLIGHT_TOKEN")
        || upper.contains("API_KEY")
        || upper.contains("APIKEY")
        || endings.iter().any(|ending| upper.ends_with(ending))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_stay_out_of_a_hooks_environment() {
        let vars = [
            "PATH",
            "HOME",
            "DISPLAY",
            "OPENAI_API_KEY",
            "anthropic_api_key",
            "PREFLIGHT_TOKEN",
            "GITHUB_TOKEN",
            "MY_PROVIDER",
            "DB_PASSWORD",
            "AWS_SECRET",
            "GOOGLE_APIKEY",
            "DBUS_SESSION_BUS_ADDRESS",
        ];
        let env =
            hook_env(vars.map(|name| (name.to_owned(), "v".to_owned())), &["MY_PROVIDER".into()]);
        let names: Vec<&str> = env.iter().map(|(name, _)| name.as_str()).collect();
        assert_eq!(names, ["PATH", "HOME", "DISPLAY", "DBUS_SESSION_BUS_ADDRESS"]);
    }

    #[tokio::test]
    async fn a_hook_reads_its_stdin_and_a_late_one_is_killed_with_its_children() {
        let dir = tempfile::tempdir().unwrap();
        let env = hook_env(std::env::vars(), &[]);
        let run = run_command(
            "cat; echo oops >&2; exit 3",
            Duration::from_secs(20),
            b"{\"a\":1}",
            dir.path(),
            &env,
        )
        .await;
        assert_eq!(
            (run.exit, run.stdout.as_str(), run.stderr.trim()),
            (HookExit::Exited(Some(3)), "{\"a\":1}", "oops")
        );
        let run =
            run_command("sleep 30 & sleep 30", Duration::from_secs(1), b"", dir.path(), &env).await;
        assert_eq!(run.exit, HookExit::TimedOut);
        let pwd = run_command("pwd", Duration::from_secs(20), b"", dir.path(), &env).await;
        assert_eq!(
            std::path::PathBuf::from(pwd.stdout.trim()).canonicalize().unwrap(),
            dir.path().canonicalize().unwrap()
        );
    }
}
