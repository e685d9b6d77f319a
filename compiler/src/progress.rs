//! What a compile shows on a terminal while it runs: the phase, and a bar of the files parsed.
//! Nothing at all when stderr is not a terminal or a machine-readable summary was asked for.

use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// The progress display of one compile; shared by the threads that parse.
#[derive(Debug)]
pub(crate) struct Progress {
    bar: Option<ProgressBar>,
}

impl Progress {
    /// A display on stderr when `on`, else one that shows nothing.
    pub(crate) fn new(on: bool) -> Progress {
        let bar = on.then(|| {
            let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
            bar.enable_steady_tick(Duration::from_millis(120));
            bar
        });
        Progress { bar }
    }

    /// A phase without a count (discovering, resolving, writing).
    pub(crate) fn phase(&self, msg: &str) {
        if let Some(b) = &self.bar {
            b.set_style(
                ProgressStyle::with_template("{spinner} {msg} [{elapsed}]")
                    .unwrap_or_else(|_| ProgressStyle::default_spinner()),
            );
            b.set_length(0);
            b.set_position(0);
            b.set_message(msg.to_string());
        }
    }

    /// A phase over `n` files, each counted by [`Progress::file_done`].
    pub(crate) fn files(&self, n: usize, msg: &str) {
        if let Some(b) = &self.bar {
            b.set_style(
                ProgressStyle::with_template("{spinner} {msg} [{bar:25}] {pos}/{len} ({eta} left)")
                    .unwrap_or_else(|_| ProgressStyle::default_bar())
                    .progress_chars("=> "),
            );
            b.set_length(n as u64);
            b.set_position(0);
            b.set_message(msg.to_string());
        }
    }

    /// One more file of the current phase.
    pub(crate) fn file_done(&self) {
        if let Some(b) = &self.bar {
            b.inc(1);
        }
    }

    /// Clears the display; what follows is the summary.
    pub(crate) fn finish(&self) {
        if let Some(b) = &self.bar {
            b.finish_and_clear();
        }
    }
}
