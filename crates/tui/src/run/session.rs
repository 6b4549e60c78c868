//! The event loop, kept thin: draw the state, then wait for a key (read on a thread of its
//! own) or an event of the open chat's stream, apply it, and carry out what a key asks; and
//! ring the bell when any chat needs the user (`bell`).

use crossterm::event::Event as TerminalEvent;
use preflight_engine::events::Event;
use preflight_engine::lifecycle::{Attended, AttentionStream, Engine};
use tokio::sync::broadcast::error::{RecvError, TryRecvError};
use tokio::sync::mpsc;

use crate::app::events::After;
use crate::app::keys::handle_key;
use crate::app::state::App;
use crate::error::TuiError;
use crate::run::actions::perform;
use crate::run::bell::Bell;
use crate::run::open_chat::{reload, Events};
use crate::run::terminal::Screen;
use crate::run::worktree::refresh_worktree;
use crate::view::screen::draw;

/// How often the spinner moves while a turn runs (nothing is drawn by time otherwise).
const TICK: std::time::Duration = std::time::Duration::from_millis(200);

/// Runs until the user quits; with `bell`, rings it when a chat needs the user.
pub async fn event_loop(
    engine: &Engine,
    screen: &mut Screen,
    app: &mut App,
    bell: Option<Bell>,
) -> Result<(), TuiError> {
    let mut keys = read_terminal_events();
    let mut attention = bell.map(|_| engine.attention());
    let mut events: Events = app.chat_id().map(|id| engine.subscribe(id)).transpose()?;
    if app.chat_id().is_some() {
        reload(engine, app)?;
        refresh_worktree(engine, app).await;
    }
    let mut ticks = tokio::time::interval(TICK);
    ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
    loop {
        screen.draw(|frame| draw(frame, app))?;
        if app.quit {
            return Ok(());
        }
        tokio::select! {
            input = keys.recv() => match input {
                Some(TerminalEvent::Key(key)) => {
                    if let Some(command) = handle_key(app, key) {
                        perform(engine, app, command, &mut events).await;
                    }
                }
                Some(TerminalEvent::Paste(text)) => app.paste(&text),
                Some(_) => {} // a resize or focus change: drawn again above
                None => return Ok(()),
            },
            event = next_event(&mut events) => {
                // A turn's end (or a wait for the user) may have changed the worktree's files.
                if take_events(engine, app, event, &mut events) && !app.running() {
                    refresh_worktree(engine, app).await;
                }
            }
            attended = next_attended(&mut attention) => match (bell, attended) {
                (Some(bell), Some(attended)) => bell.ring(screen.backend_mut(), &attended, app.words),
                _ => attention = None,
            },
            _ = ticks.tick(), if app.running() => app.tick = app.tick.wrapping_add(1),
        }
    }
}

/// The event, and every other one already waiting, applied before the next drawing;
/// whether the chat was read again.
fn take_events(
    engine: &Engine,
    app: &mut App,
    first: Result<Event, RecvError>,
    events: &mut Events,
) -> bool {
    let mut needs_reload = false;
    let mut next = first;
    loop {
        match next {
            Ok(event) => needs_reload |= app.apply(event) == After::Reload,
            Err(RecvError::Lagged(_)) => needs_reload = true,
            Err(RecvError::Closed) => {
                *events = None;
                break;
            }
        }
        let Some(stream) = events.as_mut() else { break };
        next = match stream.try_recv() {
            Ok(event) => Ok(event),
            Err(TryRecvError::Lagged(missed)) => Err(RecvError::Lagged(missed)),
            Err(TryRecvError::Closed) => Err(RecvError::Closed),
            Err(TryRecvError::Empty) => break,
        };
    }
    if needs_reload {
        if let Err(error) = reload(engine, app) {
            app.notice = Some(error.message);
        }
    }
    needs_reload
}

async fn next_event(events: &mut Events) -> Result<Event, RecvError> {
    match events {
        Some(stream) => stream.recv().await,
        None => std::future::pending().await,
    }
}

async fn next_attended(attention: &mut Option<AttentionStream>) -> Option<Attended> {
    match attention {
        Some(stream) => stream.next().await,
        None => std::future::pending().await,
    }
}

/// The terminal's keys and resizes, read on a thread of their own (crossterm's read
/// blocks). The thread ends when the loop has gone and the next event finds no receiver.
fn read_terminal_events() -> mpsc::Receiver<TerminalEvent> {
    let (sender, receiver) = mpsc::channel(64);
    std::thread::spawn(move || {
        while let Ok(event) = crossterm::event::read() {
            if sender.blocking_send(event).is_err() {
                break;
            }
        }
    });
    receiver
}
