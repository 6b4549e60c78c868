//! A real terminal for black-box tests of `preflight chat`: a tmux server of the test's own
//! (its own socket), one 80×24 window running the built binary under `sh`, which prints
//! `[tty sane]` when the terminal is back in cooked mode after the program, then `[exited N]`,
//! and waits, so the screen after exit can be read.
//! Keys go in with `send-keys`; the screen comes out with `capture-pane`. Waits poll the
//! screen until what is looked for shows, or fail with the screen as it was.

use std::path::Path;
use std::process::{Command, Output};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// How long a screen may take to show what a test waits for (a debug build, a planner turn).
const PATIENCE: Duration = Duration::from_secs(60);
const POLL: Duration = Duration::from_millis(100);

/// A tmux server with one window; killed when dropped, a failing test included.
pub struct Pane {
    socket: String,
}

impl Pane {
    /// `preflight ARGS` in an 80×24 terminal, with `env` on top of a UTF-8 locale.
    pub fn start(args: &[&str], env: &[(&str, String)]) -> Pane {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let socket = format!(
            "preflight-test-{}-{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::SeqCst)
        );
        let pane = Pane { socket };
        let mut command =
            vec!["-f", "/dev/null", "new-session", "-d", "-s", "t", "-x", "80", "-y", "24"];
        let mut pairs: Vec<String> =
            vec!["LANG=C.UTF-8".into(), "LC_ALL=".into(), "RUST_LOG=warn".into()];
        pairs.extend(env.iter().map(|(name, value)| format!("{name}={value}")));
        for pair in &pairs {
            command.extend(["-e", pair.as_str()]);
        }
        let program = env!("CARGO_BIN_EXE_preflight");
        // After the program: whether the terminal is back in cooked mode, then its status.
        let script = r#""$0" "$@"; status=$?; stty -a | tr ' ;' '\n\n' | grep -qx icanon && echo "[tty sane]"; echo "[exited $status]"; read line"#;
        command.extend(["sh", "-c", script, program]);
        command.extend(args);
        let started = pane.tmux(&command);
        assert!(started.status.success(), "tmux: {}", String::from_utf8_lossy(&started.stderr));
        pane
    }

    fn tmux(&self, args: &[&str]) -> Output {
        Command::new("tmux")
            .args(["-u", "-L", &self.socket])
            .args(args)
            .output()
            .expect("tmux runs")
    }

    /// Keys by tmux's names: "Enter", "Down", "Escape", "C-x".
    pub fn keys(&self, keys: &[&str]) {
        let mut args = vec!["send-keys", "-t", "t"];
        args.extend(keys);
        assert!(self.tmux(&args).status.success());
    }

    /// Resizes the terminal, as a user dragging the window does.
    pub fn resize(&self, width: u16, height: u16) {
        let (width, height) = (width.to_string(), height.to_string());
        let args = ["resize-window", "-t", "t", "-x", &width, "-y", &height];
        assert!(self.tmux(&args).status.success());
    }

    /// Text typed as it is.
    pub fn type_text(&self, text: &str) {
        assert!(self.tmux(&["send-keys", "-t", "t", "-l", text]).status.success());
    }

    /// The screen as plain text.
    pub fn screen(&self) -> String {
        String::from_utf8_lossy(&self.tmux(&["capture-pane", "-p", "-J", "-t", "t"]).stdout)
            .into_owned()
    }

    /// The screen with its colours and attributes as escape sequences.
    pub fn screen_with_styles(&self) -> String {
        let output = self.tmux(&["capture-pane", "-p", "-J", "-e", "-t", "t"]);
        String::from_utf8_lossy(&output.stdout).into_owned()
    }

    /// Waits until the screen holds every one of `texts`; returns that screen.
    pub async fn wait_for(&self, texts: &[&str]) -> String {
        self.wait_until(&format!("{texts:?}"), |screen| texts.iter().all(|t| screen.contains(t)))
            .await
    }

    /// Waits until the screen no longer holds `text`.
    pub async fn wait_gone(&self, text: &str) -> String {
        self.wait_until(&format!("{text:?} gone"), |screen| !screen.contains(text)).await
    }

    async fn wait_until(&self, what: &str, done: impl Fn(&str) -> bool) -> String {
        let start = Instant::now();
        loop {
            let screen = self.screen();
            if done(&screen) {
                return screen;
            }
            if start.elapsed() > PATIENCE {
                panic!("waited {PATIENCE:?} for {what}; the screen:\n{screen}");
            }
            tokio::time::sleep(POLL).await;
        }
    }
}

impl Drop for Pane {
    fn drop(&mut self) {
        let _ = self.tmux(&["kill-server"]);
    }
}

/// The environment of a `preflight chat` on `home`, with the filesystem server tests use.
pub fn chat_env(home: &Path) -> Vec<(&'static str, String)> {
    vec![
        ("PREFLIGHT_HOME", home.display().to_string()),
        ("PREFLIGHT_FS_SERVER", super::fs_server().display().to_string()),
    ]
}
