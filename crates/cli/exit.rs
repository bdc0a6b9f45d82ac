//! Exit codes, in one place: 0 when every query ran (whatever its count, a timeout or a
//! reached limit included), 2 for bad input or usage, 1 for every other failure.

use std::process::ExitCode;

/// An error in what the user gave: a flag value, a path, a file's content.
#[derive(Debug)]
pub struct InputError(pub String);

impl std::fmt::Display for InputError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for InputError {}

/// An error in what the user gave, with `message`.
pub fn input_error(message: String) -> anyhow::Error {
    InputError(message).into()
}

/// How gsi ends.
///
/// Ordered by severity, so that a run reports the worst of its queries' outcomes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Exit {
    /// Every query ran.
    Success = 0,
    /// Something failed that is not the input's fault.
    Failure = 1,
    /// Bad input or usage.
    BadInput = 2,
    /// Stopped by SIGHUP (128 + 1).
    HungUp = 129,
    /// Stopped by SIGINT (128 + 2).
    Interrupted = 130,
    /// Stopped by SIGTERM (128 + 15).
    Terminated = 143,
}

impl Exit {
    /// The exit code an error deserves: bad input when any cause in its chain is one.
    pub fn of_error(err: &anyhow::Error) -> Exit {
        let bad_input = err.chain().any(|cause| {
            cause.is::<InputError>()
                || cause
                    .downcast_ref::<gsi_graph::Error>()
                    .is_some_and(|e| !matches!(e, gsi_graph::Error::Write { .. }))
                || matches!(
                    cause.downcast_ref::<gsi_core::Error>(),
                    Some(gsi_core::Error::EmptyQuery | gsi_core::Error::DirectionMismatch)
                )
        });
        if bad_input {
            Exit::BadInput
        } else {
            Exit::Failure
        }
    }
}

/// An error as one line: its causes joined by `: `, leaving out a cause that the message
/// before it already ends with (readers' errors print their source themselves). Control
/// characters that came from the input (a terminal escape, a carriage return) are shown
/// escaped, never sent to the terminal.
pub fn message(err: &anyhow::Error) -> String {
    let mut text = String::new();
    for cause in err.chain() {
        let part = cause.to_string();
        if text.ends_with(&part) {
            continue;
        }
        if !text.is_empty() {
            text.push_str(": ");
        }
        text.push_str(&part);
    }
    let advice = err
        .chain()
        .find_map(|cause| cause.downcast_ref::<gsi_core::Error>())
        .and_then(crate::messages::advice);
    if let Some(advice) = advice {
        text.push_str("; ");
        text.push_str(advice);
    }
    escape_controls(&text)
}

/// A path as gsi prints it anywhere (tables, `--output` headers, `--explain`, `gsi info`,
/// messages): its control characters escaped, so that a newline or a terminal escape in a
/// file name can neither add lines nor reach the terminal.
pub fn shown(path: &std::path::Path) -> String {
    escape_controls(&path.display().to_string())
}

/// `text` with every control character written as a `\u{..}` escape.
pub fn escape_controls(text: &str) -> String {
    if !text.chars().any(char::is_control) {
        return text.to_string();
    }
    text.chars()
        .map(|c| {
            if c.is_control() {
                c.escape_unicode().to_string()
            } else {
                c.to_string()
            }
        })
        .collect()
}

impl From<Exit> for ExitCode {
    fn from(exit: Exit) -> ExitCode {
        ExitCode::from(exit as u8)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes() {
        assert_eq!(Exit::Success as u8, 0);
        assert_eq!(
            Exit::of_error(&anyhow::anyhow!("disk on fire")),
            Exit::Failure
        );
        let input = anyhow::Error::new(InputError("bad".into())).context("reading");
        assert_eq!(Exit::of_error(&input), Exit::BadInput);
        let graph = anyhow::Error::new(gsi_graph::Error::Build("x".into()));
        assert_eq!(Exit::of_error(&graph), Exit::BadInput);
        let empty = anyhow::Error::new(gsi_core::Error::EmptyQuery);
        assert_eq!(Exit::of_error(&empty), Exit::BadInput);
    }

    #[test]
    fn messages_do_not_repeat_a_cause() {
        let io = std::io::Error::new(std::io::ErrorKind::NotFound, "gone");
        let graph = gsi_graph::Error::Io {
            path: "g.graph".into(),
            source: io,
        };
        let err = anyhow::Error::new(graph).context("reading data graph g.graph");
        assert_eq!(message(&err), "reading data graph g.graph: g.graph: gone");
        let err = anyhow::anyhow!("inner").context("outer");
        assert_eq!(message(&err), "outer: inner");
        let err = anyhow::anyhow!("found `\x1b[31mRED\r`");
        assert_eq!(message(&err), "found `\\u{1b}[31mRED\\u{d}`");
    }
}
