//! Shared helpers of the benchmark programs in `src/bin/`. Each program prints its figures; none
//! asserts a time.

/// Go accuracy against a go/types oracle (`benches/accuracy/`), shared by the `accuracy` program
/// and the fixture guard test.
pub mod accuracy;

/// Whether a `COMPLETE` verdict holds every use an accuracy oracle knows.
pub mod verdict_check;

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

/// Resident set size split into anonymous memory (`RssAnon`: heap, stacks) and file-backed
/// pages (`RssFile`: the binary and memory-mapped files such as a generation), in KiB. Mapped
/// generation pages count as resident once touched, but they are clean page cache that the
/// kernel can drop and that every process mapping the same files shares.
pub fn rss_parts_kib() -> Option<(u64, u64)> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let field = |name: &str| {
        status
            .lines()
            .find_map(|l| l.strip_prefix(name))
            .and_then(|v| v.trim().trim_end_matches(" kB").trim().parse().ok())
    };
    Some((field("RssAnon:")?, field("RssFile:")?))
}

/// Median of a sample, in place.
pub fn median(xs: &mut [f64]) -> f64 {
    xs.sort_by(|a, b| a.total_cmp(b));
    if xs.is_empty() { 0.0 } else { xs[xs.len() / 2] }
}

/// A small seeded PRNG (SplitMix64). The benches use it instead of a crate so that a seed gives
/// the same graph and the same query mix on every platform and with every dependency version.
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed ^ 0x6a09_e667_f3bc_c909)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (`n` > 0), by multiply-high: no modulo bias worth measuring.
    pub fn below(&mut self, n: usize) -> usize {
        ((self.next_u64() as u128 * n as u128) >> 64) as usize
    }

    /// Uniform in `lo..=hi`.
    pub fn range(&mut self, lo: usize, hi: usize) -> usize {
        lo + self.below(hi - lo + 1)
    }

    /// Uniform in `[0, 1)`.
    pub fn f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    pub fn chance(&mut self, p: f64) -> bool {
        self.f64() < p
    }

    /// A skewed index in `0..n` (`n` > 0): log-uniform, so `P(i)` falls off like `1/(i+1)` (a
    /// Zipf law with exponent 1). Index 0 is the most likely.
    pub fn zipf(&mut self, n: usize) -> usize {
        let x = ((n as f64 + 1.0).powf(self.f64()) - 1.0) as usize;
        x.min(n - 1)
    }

    /// A uniformly chosen element of a non-empty slice.
    /// A skewed index in `0..n` (`n` > 0) with `P(i)` falling off like `(i+1)^-s`, for an
    /// exponent `s` > 1 (a continuous Pareto law, floored). Larger `s`, heavier head.
    pub fn power_law(&mut self, n: usize, s: f64) -> usize {
        let top = (n as f64 + 1.0).powf(1.0 - s);
        let x = (1.0 - self.f64() * (1.0 - top)).powf(1.0 / (1.0 - s)) - 1.0;
        (x as usize).min(n - 1)
    }

    pub fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.below(items.len())]
    }
}

/// The `q`-quantile (0..=1) of a sorted sample, by the nearest-rank method.
pub fn quantile(sorted: &[f64], q: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let rank = (q * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

/// The command line of a bench program: one positional argument (an index directory) first,
/// then `--name value` options and `--name` flags.
pub struct Cli {
    args: Vec<String>,
    usage: &'static str,
}

impl Cli {
    /// This process's arguments; `usage` is the error text when they do not fit.
    pub fn new(usage: &'static str) -> Cli {
        Cli {
            args: std::env::args().skip(1).collect(),
            usage,
        }
    }

    /// The first argument, which must not be an option.
    pub fn positional(&self) -> anyhow::Result<&str> {
        self.args
            .first()
            .filter(|a| !a.starts_with("--"))
            .map(String::as_str)
            .ok_or_else(|| anyhow::anyhow!(self.usage))
    }

    /// The value of option `name`, parsed, or `default` when it is not given.
    pub fn value<T: std::str::FromStr>(&self, name: &str, default: T) -> anyhow::Result<T>
    where
        T::Err: std::fmt::Display,
    {
        match self.args.iter().position(|a| a == name) {
            None => Ok(default),
            Some(i) => {
                let v = self
                    .args
                    .get(i + 1)
                    .ok_or_else(|| anyhow::anyhow!("{name} needs a value; {}", self.usage))?;
                v.parse()
                    .map_err(|e| anyhow::anyhow!("{name} {v:?}: {e}; {}", self.usage))
            }
        }
    }

    /// Whether flag `name` is given.
    pub fn flag(&self, name: &str) -> bool {
        self.args.iter().any(|a| a == name)
    }
}

/// Copies the directory tree `from` to `to` (regular files and directories; anything else is
/// left out), so that a bench can edit its copy.
pub fn copy_tree(from: &std::path::Path, to: &std::path::Path) -> anyhow::Result<()> {
    std::fs::create_dir_all(to)?;
    for e in std::fs::read_dir(from)? {
        let e = e?;
        let ft = e.file_type()?;
        if ft.is_dir() {
            copy_tree(&e.path(), &to.join(e.file_name()))?;
        } else if ft.is_file() {
            std::fs::copy(e.path(), to.join(e.file_name()))?;
        }
    }
    Ok(())
}

/// The `kivgraph-compile` binary built beside the running bench.
pub fn compiler_binary() -> std::path::PathBuf {
    let me = std::env::current_exe().expect("own path");
    me.with_file_name("kivgraph-compile")
}

/// Every file of the generation in `dir` but its manifest (which records the time), by name:
/// what two compiles of the same sources must have byte for byte.
pub fn generation_files(dir: &std::path::Path) -> anyhow::Result<Vec<(String, Vec<u8>)>> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir)? {
        let e = e?;
        if e.file_name() != "manifest.json" {
            out.push((
                e.file_name().to_string_lossy().into_owned(),
                std::fs::read(e.path())?,
            ));
        }
    }
    out.sort();
    Ok(out)
}
