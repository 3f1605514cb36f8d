//! What a run measures: latency samples and their percentiles, CPU time and resident memory of
//! the processes under test (read from `/proc`), and the load average.

use std::time::Duration;

/// Latency samples in microseconds.
#[derive(Debug, Default, Clone)]
pub struct Latencies(Vec<u64>);

impl Latencies {
    /// Adds one sample.
    pub fn push(&mut self, latency: Duration) {
        self.0
            .push(u64::try_from(latency.as_micros()).unwrap_or(u64::MAX));
    }

    /// Adds every sample of `other`.
    pub fn extend(&mut self, other: Latencies) {
        self.0.extend(other.0);
    }

    /// How many samples there are.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether there are no samples.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// `p50 / p90 / p99 / max` in milliseconds, or "-" without samples.
    pub fn summary(&self) -> String {
        if self.0.is_empty() {
            return "-".into();
        }
        let mut sorted = self.0.clone();
        sorted.sort_unstable();
        let at = |q: f64| {
            let index = ((sorted.len() as f64 * q).ceil() as usize).clamp(1, sorted.len()) - 1;
            sorted[index] as f64 / 1000.0
        };
        format!(
            "p50 {:.2} / p90 {:.2} / p99 {:.2} / max {:.2} ms (n = {})",
            at(0.50),
            at(0.90),
            at(0.99),
            at(1.0),
            sorted.len()
        )
    }

    /// The `q` quantile in milliseconds (0 without samples).
    pub fn quantile_ms(&self, q: f64) -> f64 {
        if self.0.is_empty() {
            return 0.0;
        }
        let mut sorted = self.0.clone();
        sorted.sort_unstable();
        let index = ((sorted.len() as f64 * q).ceil() as usize).clamp(1, sorted.len()) - 1;
        sorted[index] as f64 / 1000.0
    }
}

/// Linux reports process CPU time in `/proc/<pid>/stat` in ticks of `USER_HZ`, which is 100 on
/// every architecture Linux exports to userspace with a fixed value (x86, arm64).
const TICKS_PER_SECOND: u64 = 100;

/// CPU time (user + system) a process has used so far, or zero when it is gone.
pub fn cpu_time(pid: u32) -> Duration {
    let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
        return Duration::ZERO;
    };
    // The command name (field 2) is in parentheses and may contain spaces: fields after the
    // last ')' are space-separated; utime and stime are fields 14 and 15.
    let Some(after_name) = stat.rfind(')').map(|i| &stat[i + 1..]) else {
        return Duration::ZERO;
    };
    let fields: Vec<&str> = after_name.split_whitespace().collect();
    let ticks = |i: usize| {
        fields
            .get(i)
            .and_then(|f| f.parse::<u64>().ok())
            .unwrap_or(0)
    };
    // after_name starts at field 3 (state): utime is field 14, i.e. index 11.
    Duration::from_micros((ticks(11) + ticks(12)) * 1_000_000 / TICKS_PER_SECOND)
}

/// CPU time of several processes together.
pub fn cpu_time_of(pids: &[u32]) -> Duration {
    pids.iter().map(|&pid| cpu_time(pid)).sum()
}

/// Resident memory of a process in bytes (`VmRSS`), or zero when it is gone.
pub fn rss_bytes(pid: u32) -> u64 {
    let Ok(status) = std::fs::read_to_string(format!("/proc/{pid}/status")) else {
        return 0;
    };
    status
        .lines()
        .find_map(|line| line.strip_prefix("VmRSS:"))
        .and_then(|rest| {
            rest.trim()
                .trim_end_matches("kB")
                .trim()
                .parse::<u64>()
                .ok()
        })
        .map_or(0, |kib| kib * 1024)
}

/// The one-minute load average.
pub fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|l| l.split_whitespace().next().map(str::to_owned))
        .unwrap_or_else(|| "?".into())
}

/// Mebibytes, for printing.
pub fn mib(bytes: u64) -> f64 {
    bytes as f64 / (1024.0 * 1024.0)
}
