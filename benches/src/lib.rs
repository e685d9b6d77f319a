//! Shared helpers of the benchmark programs in `src/bin/`. Each program prints its figures; none
//! asserts a time.

/// Go accuracy against a go/types oracle (`benches/accuracy/`), shared by the `accuracy` program
/// and the fixture guard test.
pub mod accuracy;

/// Peak resident set size of this process so far, in KiB (`VmHWM`), if the platform reports it.
pub fn peak_rss_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches(" kB").trim().parse().ok())
}

/// Current resident set size in KiB (`VmRSS`).
pub fn rss_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches(" kB").trim().parse().ok())
}

/// Median of a sample, in place.
pub fn median(xs: &mut [f64]) -> f64 {
    xs.sort_by(|a, b| a.total_cmp(b));
    if xs.is_empty() { 0.0 } else { xs[xs.len() / 2] }
}
