//! What a fetch reports while it runs, and how often: every phase change, and during the
//! download at most every 100 ms (plus its first and last bytes), so a progress bar on a
//! terminal or in the window can redraw on each report.

use std::time::{Duration, Instant};

/// Where a fetch is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    /// Wheels are arriving: `done` of `total` bytes.
    Downloading,
    /// Every byte is in; the model file is being unpacked and its SHA-256 checked.
    Verifying,
    /// The model is installed and verified.
    Done,
}

/// One report.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Progress {
    pub phase: Phase,
    /// Bytes downloaded so far, of `total` (the wheels' sizes as the index gives them).
    pub done: u64,
    pub total: u64,
    /// Since the download began.
    pub elapsed: Duration,
}

impl Progress {
    /// The average download rate so far.
    pub fn bytes_per_second(&self) -> u64 {
        (self.done as f64 / self.elapsed.as_secs_f64().max(1e-3)) as u64
    }
}

/// How often reports are made during the download.
const EVERY: Duration = Duration::from_millis(100);

/// Counts bytes and decides when to report.
pub(crate) struct Meter<'a> {
    sink: &'a mut (dyn FnMut(Progress) + Send),
    started: Instant,
    reported: Option<Instant>,
    done: u64,
    total: u64,
}

impl<'a> Meter<'a> {
    pub(crate) fn new(sink: &'a mut (dyn FnMut(Progress) + Send), total: u64) -> Meter<'a> {
        Meter { sink, started: Instant::now(), reported: None, done: 0, total }
    }

    /// `bytes` more arrived.
    pub(crate) fn advance(&mut self, bytes: u64) {
        self.done += bytes;
        let due = self.reported.is_none_or(|at| at.elapsed() >= EVERY);
        if due || self.done >= self.total {
            self.report(Phase::Downloading);
        }
    }

    pub(crate) fn report(&mut self, phase: Phase) {
        self.reported = Some(Instant::now());
        let elapsed = self.started.elapsed();
        (self.sink)(Progress { phase, done: self.done, total: self.total, elapsed });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_and_last_bytes_are_reported_and_the_rest_at_most_every_100_ms() {
        let mut seen = Vec::new();
        let mut sink = |progress: Progress| seen.push((progress.phase, progress.done));
        {
            let mut meter = Meter::new(&mut sink, 30);
            for _ in 0..3 {
                meter.advance(10);
            }
            meter.report(Phase::Verifying);
        }
        assert_eq!(
            seen,
            [(Phase::Downloading, 10), (Phase::Downloading, 30), (Phase::Verifying, 30)]
        );
    }

    #[test]
    fn the_rate_is_bytes_over_elapsed_time() {
        let cases = [(12_300_000, 1_000, 12_300_000), (0, 0, 0), (5, 0, 5_000)];
        for (done, millis, expected) in cases {
            let progress = Progress {
                phase: Phase::Downloading,
                done,
                total: done,
                elapsed: Duration::from_millis(millis),
            };
            assert_eq!(progress.bytes_per_second(), expected, "{done} in {millis} ms");
        }
    }
}
