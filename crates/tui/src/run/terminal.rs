//! The terminal taken over and given back: raw mode, the alternate screen and bracketed paste
//! on start, all
//! undone when the session ends, when it fails, and when the program panics (the panic hook
//! restores the terminal before the message is printed, so it is readable).

use std::io::{stdout, Stdout};

use crossterm::event::{DisableBracketedPaste, EnableBracketedPaste};
use crossterm::execute;
use crossterm::terminal::{
    disable_raw_mode, enable_raw_mode, EnterAlternateScreen, LeaveAlternateScreen,
};
use ratatui::backend::CrosstermBackend;
use ratatui::Terminal;

pub type Screen = Terminal<CrosstermBackend<Stdout>>;

/// Holds the terminal; dropping it gives the terminal back.
pub struct TerminalGuard {
    pub screen: Screen,
}

impl TerminalGuard {
    pub fn take() -> std::io::Result<TerminalGuard> {
        install_panic_hook();
        enable_raw_mode()?;
        let entered = execute!(stdout(), EnterAlternateScreen, EnableBracketedPaste);
        if let Err(error) = entered {
            restore();
            return Err(error);
        }
        match Terminal::new(CrosstermBackend::new(stdout())) {
            Ok(screen) => Ok(TerminalGuard { screen }),
            Err(error) => {
                restore();
                Err(error)
            }
        }
    }
}

impl Drop for TerminalGuard {
    fn drop(&mut self) {
        restore();
        let _ = self.screen.show_cursor();
    }
}

/// Leaves the alternate screen and raw mode; harmless when neither is on.
fn restore() {
    let _ =
        execute!(stdout(), DisableBracketedPaste, LeaveAlternateScreen, crossterm::cursor::Show);
    let _ = disable_raw_mode();
}

fn install_panic_hook() {
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        restore();
        previous(info);
    }));
}
