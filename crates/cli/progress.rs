//! Progress display on stderr: only for a person at a terminal, never in `--json` or
//! `--quiet` runs or when stderr is piped.

use std::io::IsTerminal;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressStyle};

/// Whether progress should be drawn at all: for a person at a terminal (stderr), with
/// `--json` too (the JSON goes to stdout), never with `--quiet`.
pub fn wanted(quiet: bool) -> bool {
    !quiet && std::io::stderr().is_terminal()
}

/// A spinner with a message, for loads and index builds of unknown length.
pub fn spinner(enabled: bool, message: String) -> ProgressBar {
    if !enabled {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new_spinner().with_message(message);
    bar.enable_steady_tick(Duration::from_millis(120));
    bar
}

/// A bar over `len` queries.
pub fn bar(enabled: bool, len: u64) -> ProgressBar {
    if !enabled || len < 2 {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new(len);
    bar.set_style(
        ProgressStyle::with_template("{bar:40} {pos}/{len} queries  {elapsed} (eta {eta})")
            .expect("valid template"),
    );
    bar
}
