//! The run's figures: API read latency percentiles, and RSS and open-descriptor growth of
//! the serve process per 1,000 turns, measured within one process's life.

use std::time::Duration;

/// One reading of the serve process.
#[derive(Debug, Clone, Copy)]
pub struct Sample {
    pub life: usize,
    /// Turns ended in the whole run when it was taken.
    pub turns: usize,
    pub rss_kib: u64,
    pub fds: usize,
}

/// The `q` quantile (0..=1) of `values`, nearest rank.
pub fn quantile(values: &mut [Duration], q: f64) -> Duration {
    if values.is_empty() {
        return Duration::ZERO;
    }
    values.sort_unstable();
    let rank = ((values.len() as f64 * q).ceil() as usize).clamp(1, values.len());
    values[rank - 1]
}

/// Growth of one life: least-squares slope of the readings over turns ended, per 1,000
/// turns, after the life's warm-up (its first `warm_up` turns); `None` when the life ran
/// fewer than `min_turns` turns after its warm-up.
#[derive(Debug, Clone, Copy)]
pub struct Growth {
    pub turns: usize,
    pub rss_after_warm_up_kib: u64,
    pub rss_end_kib: u64,
    pub rss_kib_per_1000: f64,
    /// The same slope over the first and the second half of the readings: a leak keeps its
    /// slope, a cache or the allocator filling up flattens.
    pub rss_halves_per_1000: (f64, f64),
    pub fds_after_warm_up: usize,
    pub fds_end: usize,
    pub fds_per_1000: f64,
}

pub fn growth(samples: &[Sample], life: usize, warm_up: usize, min_turns: usize) -> Option<Growth> {
    let of_life: Vec<&Sample> = samples.iter().filter(|s| s.life == life).collect();
    let first_turn = of_life.first()?.turns;
    let warm: Vec<&Sample> =
        of_life.into_iter().filter(|s| s.turns >= first_turn + warm_up).collect();
    let (start, end) = (warm.first()?, warm.last()?);
    if end.turns - start.turns < min_turns {
        return None;
    }
    let points = |value: fn(&Sample) -> f64| -> Vec<(f64, f64)> {
        warm.iter().map(|s| (s.turns as f64, value(s))).collect()
    };
    Some(Growth {
        turns: end.turns - start.turns,
        rss_after_warm_up_kib: start.rss_kib,
        rss_end_kib: end.rss_kib,
        rss_kib_per_1000: slope(&points(|s| s.rss_kib as f64)) * 1000.0,
        rss_halves_per_1000: halves(&points(|s| s.rss_kib as f64)),
        fds_after_warm_up: start.fds,
        fds_end: end.fds,
        fds_per_1000: slope(&points(|s| s.fds as f64)) * 1000.0,
    })
}

fn slope(points: &[(f64, f64)]) -> f64 {
    let n = points.len() as f64;
    let (mx, my) = points.iter().fold((0.0, 0.0), |(x, y), p| (x + p.0 / n, y + p.1 / n));
    let (sxy, sxx) = points.iter().fold((0.0, 0.0), |(sxy, sxx), p| {
        (sxy + (p.0 - mx) * (p.1 - my), sxx + (p.0 - mx).powi(2))
    });
    if sxx == 0.0 {
        0.0
    } else {
        sxy / sxx
    }
}

pub fn millis(duration: Duration) -> String {
    format!("{:.1} ms", duration.as_secs_f64() * 1000.0)
}

fn halves(points: &[(f64, f64)]) -> (f64, f64) {
    let (first, second) = points.split_at(points.len() / 2);
    (slope(first) * 1000.0, slope(second) * 1000.0)
}
