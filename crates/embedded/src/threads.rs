//! How many threads a generation uses: the cores the rest of the machine leaves free.
//!
//! llama.cpp's threads meet at a barrier after every operation of every token. A thread that
//! shares its core with a busy process is descheduled for whole time slices, and the others
//! wait for it: on 2 cores with one kept busy, 2 threads generated at a fraction of the speed
//! of 1 (STACK-NOTES). So before each generation the CPU time of the whole machine is read
//! twice, a moment apart, while this process is idle, and the busy cores are left alone.
//! (llama.cpp is also built without OpenMP, whose spinning waiters make it worse.)

use std::time::Duration;

/// How long the machine is watched before a generation.
const SAMPLE: Duration = Duration::from_millis(60);

/// The thread count: fixed, or chosen per generation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Threads {
    /// The cores that are idle just before the generation, at least one.
    Adaptive,
    Fixed(usize),
}

impl Threads {
    pub fn count(self) -> usize {
        match self {
            Threads::Fixed(count) => count.max(1),
            Threads::Adaptive => {
                let cores = std::thread::available_parallelism().map_or(1, usize::from);
                match busy_cores(SAMPLE) {
                    Some(busy) => threads_for(cores, busy),
                    None => cores,
                }
            }
        }
    }
}

/// The threads to use on `cores` cores of which `busy` (a fraction of cores, from the whole
/// machine's CPU time) are used by others: the idle ones, rounded, at least one.
pub fn threads_for(cores: usize, busy: f64) -> usize {
    let idle = cores as f64 - busy.max(0.0);
    (idle.round() as usize).clamp(1, cores.max(1))
}

/// Cores' worth of CPU time used over `window` by the whole machine (`/proc/stat`); `None`
/// where there is no such file.
fn busy_cores(window: Duration) -> Option<f64> {
    let before = read_cpu_times()?;
    std::thread::sleep(window);
    let after = read_cpu_times()?;
    busy_between(&before, &after)
}

/// The aggregate `cpu` line of `/proc/stat` as (total, idle) jiffies.
fn read_cpu_times() -> Option<CpuTimes> {
    parse_cpu_line(std::fs::read_to_string("/proc/stat").ok()?.lines().next()?)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct CpuTimes {
    total: u64,
    idle: u64,
    cores: usize,
}

fn parse_cpu_line(line: &str) -> Option<CpuTimes> {
    let mut fields = line.split_whitespace();
    if fields.next()? != "cpu" {
        return None;
    }
    let values: Vec<u64> = fields.map(str::parse).collect::<Result<_, _>>().ok()?;
    // user nice system idle iowait irq softirq steal [guest guest_nice: already in user/nice]
    let idle = values.get(3)? + values.get(4).copied().unwrap_or(0);
    let total = values.iter().take(8).sum();
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    Some(CpuTimes { total, idle, cores })
}

fn busy_between(before: &CpuTimes, after: &CpuTimes) -> Option<f64> {
    let total = after.total.checked_sub(before.total)?;
    let idle = after.idle.checked_sub(before.idle)?;
    if total == 0 {
        return None;
    }
    Some((total - idle.min(total)) as f64 / total as f64 * after.cores as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn busy_cores_are_left_alone() {
        let cases = [
            (2, 0.0, 2),
            (2, 0.3, 2),
            (2, 0.6, 1),
            (2, 1.0, 1),
            (2, 2.0, 1),
            (8, 2.2, 6),
            (4, -1.0, 4),
            (1, 0.0, 1),
        ];
        for (cores, busy, threads) in cases {
            assert_eq!(threads_for(cores, busy), threads, "{cores} cores, {busy} busy");
        }
        assert_eq!(Threads::Fixed(0).count(), 1);
        assert_eq!(Threads::Fixed(3).count(), 3);
        assert!(Threads::Adaptive.count() >= 1);
    }

    #[test]
    fn cpu_time_is_read_from_the_aggregate_line() {
        let before = parse_cpu_line("cpu  100 0 50 800 50 0 0 0 0 0").unwrap();
        assert_eq!((before.total, before.idle), (1000, 850));
        let after = CpuTimes { total: 1200, idle: 950, cores: 2 };
        let busy = busy_between(&CpuTimes { cores: 2, ..before }, &after).unwrap();
        assert!((busy - 1.0).abs() < 1e-9, "{busy}");
        assert_eq!(parse_cpu_line("cpu0 1 2 3 4"), None);
        assert_eq!(parse_cpu_line("cpu x"), None);
    }
}
