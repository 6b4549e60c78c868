//! `preflight chat`: a full-screen terminal front end over the same engine as the window
//! (ratatui on crossterm). It opens the data folder itself, so it refuses to start beside
//! a running window or `preflight serve` (the data folder's lock says who holds it).
//!
//! **Invariant:** drawing is pure (state → buffer, `view/`), and so are the state's changes
//! (`app/`); only `run/` does I/O: the terminal, and the engine's own calls and events (no
//! second lifecycle here). Everything the model or a tool wrote is made inert before it is
//! drawn (`sanitize`). The terminal is given back on every exit, a panic included.

mod args;
mod error;
mod help;
mod locale;
mod markdown;
mod sanitize;
mod theme;
mod wrap;

pub mod app;
pub mod run;
pub mod view;

pub use args::ChatArgs;
pub use error::TuiError;
pub use locale::{Language, Words};
pub use theme::Theme;

use preflight_engine::lifecycle::{Engine, EngineOptions, ErrorCode};

use crate::app::state::App;
use crate::run::bell::Bell;
use crate::run::session::event_loop;
use crate::run::terminal::TerminalGuard;

/// `preflight chat --help` in the language of the user's locale.
pub fn help() -> &'static str {
    help::help_text(Language::from_locale(|name| std::env::var(name).ok()))
}

/// Runs `preflight chat` on the data folder of `options` until the user quits. Arguments,
/// the terminal, the data folder's lock and the chat asked for are checked before the screen
/// is taken, so a refusal prints plainly and changes nothing.
pub fn run(mut options: EngineOptions, args: ChatArgs) -> Result<(), TuiError> {
    use std::io::IsTerminal;
    if !std::io::stdin().is_terminal() || !std::io::stdout().is_terminal() {
        return Err(TuiError::NotATerminal);
    }
    options.program = "preflight chat".to_owned();
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build()?;
    runtime.block_on(async {
        let engine = Engine::open(options).await?;
        let result = session(&engine, args).await;
        engine.shutdown().await;
        result
    })
}

async fn session(engine: &Engine, args: ChatArgs) -> Result<(), TuiError> {
    let words = Language::from_locale(|name| std::env::var(name).ok()).words();
    let theme = Theme::from_env(std::env::var_os("NO_COLOR"));
    let workspace = args.workspace.map(|dir| dir.to_string_lossy().into_owned());
    let mut app = App::new(words, theme, workspace);
    app.new_worktree = args.worktree;
    if let Some(chat_id) = &args.chat_id {
        let view =
            engine.chat_view(&chat_id.as_str().into()).map_err(|error| match error.code {
                ErrorCode::NotFound => TuiError::UnknownChat(chat_id.clone()),
                _ => TuiError::Api(error),
            })?;
        app.chat = Some(view);
    }
    let bell = args.bell.then(|| Bell::for_terminal(|name| std::env::var(name).ok()));
    let mut guard = TerminalGuard::take()?;
    event_loop(engine, &mut guard.screen, &mut app, bell).await
}
