//! One window per data folder. The first window holds the data folder's lock (the engine's
//! `HomeLock`) and listens on `$PREFLIGHT_HOME/window.sock`; a second start on the same
//! folder finds the lock held, asks the first window to come to the front over that socket
//! and exits. When the holder is not a window (`preflight serve`), nothing answers: this
//! window opens and says who holds the folder.
//!
//! A socket in the data folder rather than D-Bus: it works without a session bus (these
//! machines have none) and is keyed by the data folder, so two folders can have two windows.

use std::io::{BufRead, BufReader, Write};
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use preflight_engine::home_lock::{HomeLock, HomeLockError};
use tauri::{AppHandle, Manager};

/// The socket the first window listens on.
const SOCKET_FILE: &str = "window.sock";
/// The one request: bring the window to the front.
const FOCUS: &str = "focus";
const ANSWER: &str = "ok";
/// How long a second start waits for the first window's answer.
const ANSWER_TIMEOUT: Duration = Duration::from_secs(3);

/// What this start of the window is on its data folder.
pub enum Claim {
    /// The first: it holds the lock.
    First(Arc<HomeLock>),
    /// A window already runs there and was brought to the front: this start ends.
    Focused,
    /// Another program holds the folder: this window opens and shows why it cannot work.
    HeldElsewhere(HomeLockError),
}

/// The program name the lock file shows a second process.
pub const PROGRAM: &str = "the Preflight window";

pub fn claim(home: &Path) -> Claim {
    match HomeLock::acquire(home, PROGRAM) {
        Ok(lock) => Claim::First(Arc::new(lock)),
        Err(error @ HomeLockError::Held { .. }) => match ask_to_focus(home) {
            Ok(()) => Claim::Focused,
            Err(reason) => {
                tracing::info!(%reason, "no window answered on the data folder's socket");
                Claim::HeldElsewhere(error)
            }
        },
        Err(error) => Claim::HeldElsewhere(error),
    }
}

fn ask_to_focus(home: &Path) -> std::io::Result<()> {
    let mut stream = UnixStream::connect(socket_path(home))?;
    stream.set_read_timeout(Some(ANSWER_TIMEOUT))?;
    stream.set_write_timeout(Some(ANSWER_TIMEOUT))?;
    writeln!(stream, "{FOCUS}")?;
    let mut answer = String::new();
    BufReader::new(stream).take_line(&mut answer)?;
    if answer.trim() == ANSWER {
        Ok(())
    } else {
        Err(std::io::Error::other(format!("unexpected answer {answer:?}")))
    }
}

/// Listens for later starts (only the lock's holder calls this: a socket file left by a
/// crashed window is replaced).
pub fn listen(home: &Path, app: AppHandle) -> std::io::Result<()> {
    let path = socket_path(home);
    match std::fs::remove_file(&path) {
        Err(error) if error.kind() != std::io::ErrorKind::NotFound => return Err(error),
        _ => {}
    }
    let listener = UnixListener::bind(&path)?;
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600))?;
    }
    std::thread::Builder::new().name("window-socket".into()).spawn(move || {
        for stream in listener.incoming().flatten() {
            answer(stream, &app);
        }
    })?;
    Ok(())
}

fn answer(stream: UnixStream, app: &AppHandle) {
    let _ = stream.set_read_timeout(Some(ANSWER_TIMEOUT));
    let mut request = String::new();
    let mut reader = BufReader::new(&stream);
    if reader.take_line(&mut request).is_err() || request.trim() != FOCUS {
        return;
    }
    tracing::info!("another start on this data folder: bringing the window to the front");
    if let Some(window) = app.get_webview_window("main") {
        let _ = window.unminimize();
        let _ = window.show();
        let _ = window.set_focus();
    }
    let _ = writeln!(&stream, "{ANSWER}");
}

fn socket_path(home: &Path) -> PathBuf {
    home.join(SOCKET_FILE)
}

/// `read_line` with a cap: a peer cannot make us buffer more than a short line.
trait TakeLine {
    fn take_line(&mut self, line: &mut String) -> std::io::Result<usize>;
}

impl<R: BufRead> TakeLine for R {
    fn take_line(&mut self, line: &mut String) -> std::io::Result<usize> {
        std::io::Read::take(self, 64).read_line(line)
    }
}
