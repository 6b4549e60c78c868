//! The progress bar of `preflight model fetch` on stderr: redrawn in place on a terminal,
//! a plain line per 10 % elsewhere (a log, CI), then a line for the SHA-256 check.

use std::io::IsTerminal;
use std::time::Duration;

use preflight_fetch::{Phase, Progress};

pub struct Bar {
    name: &'static str,
    terminal: bool,
    last_tenth: u64,
    /// Whether a redrawn line waits for its newline.
    open_line: bool,
}

impl Bar {
    pub fn new(name: &'static str) -> Bar {
        Bar { name, terminal: std::io::stderr().is_terminal(), last_tenth: 0, open_line: false }
    }

    /// One report of the fetch (they come at most every 100 ms, and at each phase change).
    pub fn show(&mut self, progress: Progress) {
        eprint!("{}", self.render(progress));
    }

    /// What `show` prints for `progress`.
    fn render(&mut self, progress: Progress) -> String {
        let line = progress_line(self.name, progress.done, progress.total, progress.elapsed);
        match progress.phase {
            Phase::Downloading if self.terminal => {
                self.open_line = true;
                format!("\r{line}")
            }
            Phase::Downloading => {
                let tenth = (progress.done * 10).checked_div(progress.total).unwrap_or(10);
                if tenth <= self.last_tenth {
                    return String::new();
                }
                self.last_tenth = tenth;
                format!("{line}\n")
            }
            Phase::Verifying => {
                let close = if std::mem::take(&mut self.open_line) { "\n" } else { "" };
                format!("{close}verifying SHA-256…\n")
            }
            Phase::Done => String::new(),
        }
    }
}

impl Drop for Bar {
    /// A redrawn line cut off by an error or a cancel gets its newline.
    fn drop(&mut self) {
        if self.open_line {
            eprintln!();
        }
    }
}

/// `name [#####---------------]  25%  24.6/98.4 MB  12.3 MB/s`
pub fn progress_line(name: &str, done: u64, total: u64, elapsed: Duration) -> String {
    const WIDTH: u64 = 20;
    let done = done.min(total);
    let filled = (done * WIDTH).checked_div(total).unwrap_or(WIDTH) as usize;
    let percent = (done * 100).checked_div(total).unwrap_or(100);
    let rate = done as f64 / 1e6 / elapsed.as_secs_f64().max(1e-3);
    let bar = format!("{}{}", "#".repeat(filled), "-".repeat(WIDTH as usize - filled));
    format!(
        "{name} [{bar}] {percent:>3}%  {:.1}/{:.1} MB  {rate:.1} MB/s",
        done as f64 / 1e6,
        total as f64 / 1e6
    )
}

pub fn megabytes(bytes: u64) -> String {
    format!("{:.1} MB", bytes as f64 / 1e6)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_progress_line_shows_bar_share_sizes_and_rate() {
        let cases = [
            (0, 100_000_000, 1, "m [--------------------]   0%  0.0/100.0 MB  0.0 MB/s"),
            (25_000_000, 100_000_000, 2, "m [#####---------------]  25%  25.0/100.0 MB  12.5 MB/s"),
            (
                100_000_000,
                100_000_000,
                10,
                "m [####################] 100%  100.0/100.0 MB  10.0 MB/s",
            ),
            (5, 0, 1, "m [####################] 100%  0.0/0.0 MB  0.0 MB/s"),
        ];
        for (done, total, seconds, expected) in cases {
            assert_eq!(progress_line("m", done, total, Duration::from_secs(seconds)), expected);
        }
    }

    #[test]
    fn a_terminal_gets_one_redrawn_line_and_a_log_a_line_per_tenth() {
        let report =
            |phase, done| Progress { phase, done, total: 1000, elapsed: Duration::from_secs(1) };
        let reports = [
            report(Phase::Downloading, 50),
            report(Phase::Downloading, 120),
            report(Phase::Downloading, 150),
            report(Phase::Downloading, 1000),
            report(Phase::Verifying, 1000),
            report(Phase::Done, 1000),
        ];
        let printed = |terminal| {
            let mut bar = Bar { name: "m", terminal, last_tenth: 0, open_line: false };
            reports.iter().map(|&progress| bar.render(progress)).collect::<String>()
        };
        let line = |done| progress_line("m", done, 1000, Duration::from_secs(1));
        assert_eq!(
            printed(false),
            format!("{}\n{}\nverifying SHA-256…\n", line(120), line(1000)),
            "a line when a tenth is passed"
        );
        let terminal = printed(true);
        assert_eq!(terminal.matches('\r').count(), 4, "{terminal:?}");
        assert!(terminal.ends_with(&format!("\r{}\nverifying SHA-256…\n", line(1000))));
    }
}
