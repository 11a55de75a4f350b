//! Progress of long CLI runs on stderr (stdout keeps the results): a progress bar when stderr is a terminal,
//! otherwise one whole line per tenth of the work (`packlab admit: 120 of 1200 simulation runs (10%)`), so
//! that logs and captured stderr get proper lines instead of carriage returns that run together. Lines start
//! only once a run has taken [`QUIET_SECONDS`], so quick runs stay silent.

use std::io::IsTerminal;
use std::time::{Duration, Instant};

/// Seconds of work before progress lines (not the bar) begin.
pub const QUIET_SECONDS: u64 = 2;

/// A progress reporter for `done` of `total` units of work.
pub struct Progress {
    what: &'static str,
    unit: &'static str,
    #[cfg(not(target_arch = "wasm32"))]
    bar: Option<indicatif::ProgressBar>,
    /// Tenths of the work reported so far as lines.
    tenths: usize,
    started: Instant,
}

impl Progress {
    /// A reporter for the command `what` (e.g. "packlab admit") counting `unit`s (e.g. "simulation runs").
    pub fn new(what: &'static str, unit: &'static str) -> Progress {
        Progress {
            what,
            unit,
            #[cfg(not(target_arch = "wasm32"))]
            bar: std::io::stderr().is_terminal().then(|| {
                let bar = indicatif::ProgressBar::new(0);
                let style = indicatif::ProgressStyle::with_template(
                    "{prefix} [{bar:32}] {pos}/{len} {msg} ({percent}%, {elapsed_precise}, ETA {eta})",
                )
                .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar())
                .progress_chars("=> ");
                bar.set_style(style);
                bar.set_prefix(what);
                bar.set_message(unit);
                bar
            }),
            tenths: 0,
            started: Instant::now(),
        }
    }

    /// Reports `done` of `total`; returns true (never cancels), to serve as a progress hook.
    pub fn update(&mut self, done: usize, total: usize) -> bool {
        #[cfg(not(target_arch = "wasm32"))]
        if let Some(bar) = &self.bar {
            bar.set_length(total as u64);
            bar.set_position(done as u64);
            return true;
        }
        let tenths = (done * 10).checked_div(total).unwrap_or(0).min(10);
        if tenths > self.tenths && self.started.elapsed() >= Duration::from_secs(QUIET_SECONDS) {
            self.tenths = tenths;
            eprintln!(
                "{}: {done} of {total} {} ({}%)",
                self.what,
                self.unit,
                (done * 100).checked_div(total).unwrap_or(0)
            );
        }
        true
    }

    /// Clears the bar (lines stay).
    pub fn finish(&self) {
        #[cfg(not(target_arch = "wasm32"))]
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}
