//! Progress of long CLI runs on stderr (stdout keeps the results). By default a progress bar with an ETA
//! (indicatif) when stdout and stderr are both terminals and `--json` is not given; silent otherwise, so that
//! piped and captured output stays clean. `PACKLAB_PROGRESS` overrides: `bar` (a bar whenever stderr is a
//! terminal), `lines` (one whole line per tenth of the work, `packlab admit: 120 of 1200 simulation runs
//! (10%)`, for batch logs such as Slurm's; they start once a run has taken [`QUIET_SECONDS`]), `off`.

use std::io::IsTerminal;
use std::time::{Duration, Instant};

/// Seconds of work before progress lines (not the bar) begin.
pub const QUIET_SECONDS: u64 = 2;

/// How progress is shown (see the module documentation).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    Bar,
    Lines,
    Off,
}

/// The mode for this process: `PACKLAB_PROGRESS` if set, else a bar on terminals without `--json`.
fn mode() -> Mode {
    let tty = std::io::stderr().is_terminal();
    match std::env::var("PACKLAB_PROGRESS").as_deref() {
        Ok("lines") => Mode::Lines,
        Ok("off") => Mode::Off,
        Ok("bar") if tty => Mode::Bar,
        Ok("bar") => Mode::Off,
        _ => {
            let json = std::env::args().any(|a| a == "--json");
            if tty && std::io::stdout().is_terminal() && !json {
                Mode::Bar
            } else {
                Mode::Off
            }
        }
    }
}

/// A progress reporter for `done` of `total` units of work.
pub struct Progress {
    what: &'static str,
    unit: &'static str,
    #[cfg(not(target_arch = "wasm32"))]
    bar: Option<indicatif::ProgressBar>,
    /// Whether progress lines are written (mode `lines`).
    lines: bool,
    /// Tenths of the work reported so far as lines.
    tenths: usize,
    started: Instant,
}

impl Progress {
    /// A reporter for the command `what` (e.g. "packlab admit") counting `unit`s (e.g. "simulation runs").
    pub fn new(what: &'static str, unit: &'static str) -> Progress {
        let mode = mode();
        Progress {
            lines: mode == Mode::Lines,
            what,
            unit,
            #[cfg(not(target_arch = "wasm32"))]
            bar: (mode == Mode::Bar).then(|| {
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
        if self.lines
            && tenths > self.tenths
            && self.started.elapsed() >= Duration::from_secs(QUIET_SECONDS)
        {
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
