//! Raw flags to a validated configuration: every check on flag values happens here.

use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::Result;
use gsi_core::{EngineKind, MatchOptions, Semantics};
use gsi_graph::formats::Format;

use crate::exit::InputError;
use crate::flags::{EngineArg, FormatArg, MatchArgs};

/// Everything `gsi match` needs, checked.
#[derive(Debug)]
pub struct MatchConfig {
    pub data: PathBuf,
    pub queries: Vec<PathBuf>,
    pub format: Format,
    pub directed: bool,
    pub options: MatchOptions,
    pub timeout: Option<Duration>,
    pub engine: EngineKind,
    pub device: usize,
    pub threads: Option<usize>,
    pub output: Option<PathBuf>,
    pub explain: bool,
    pub json: bool,
    pub quiet: bool,
}

fn input_error(message: String) -> anyhow::Error {
    InputError(message).into()
}

impl MatchConfig {
    pub fn from_args(args: MatchArgs) -> Result<MatchConfig> {
        let timeout = match args.timeout {
            None => None,
            Some(s) if s.is_finite() && s > 0.0 && s < 1e9 => Some(Duration::from_secs_f64(s)),
            Some(s) => {
                return Err(input_error(format!(
                    "--timeout {s}: expected a positive number of seconds"
                )))
            }
        };
        let memory_budget = match &args.memory_limit {
            Some(text) => parse_size(text)?,
            None => default_memory_budget(),
        };
        if args.threads == Some(0) {
            return Err(input_error(
                "--threads 0: expected at least one thread".into(),
            ));
        }
        if args.limit == Some(0) {
            return Err(input_error("--limit 0: expected at least one match".into()));
        }
        let mut queries = Vec::new();
        for path in &args.query {
            expand_query_path(path, &mut queries)?;
        }
        Ok(MatchConfig {
            data: args.data,
            queries,
            format: format_of(args.format),
            directed: args.directed,
            options: MatchOptions {
                semantics: if args.homomorphism {
                    Semantics::Homomorphism
                } else {
                    Semantics::Isomorphism
                },
                limit: args.limit,
                deadline: None,
                memory_budget,
            },
            timeout,
            engine: engine_kind(args.engine),
            device: args.device,
            threads: args.threads,
            output: args.output,
            explain: args.explain,
            json: args.json,
            quiet: args.quiet,
        })
    }
}

pub fn format_of(arg: FormatArg) -> Format {
    match arg {
        FormatArg::Auto => Format::Auto,
        FormatArg::Sunluo => Format::SunLuo,
    }
}

pub fn engine_kind(arg: EngineArg) -> EngineKind {
    match arg {
        EngineArg::Auto => EngineKind::Auto,
        EngineArg::Cpu => EngineKind::Cpu,
        EngineArg::Gpu => EngineKind::Gpu,
    }
}

/// Parses sizes such as `512MiB`, `4GiB`, `1.5G` or `1000000` (bytes).
pub fn parse_size(text: &str) -> Result<usize> {
    let bytes = parse_size::Config::new()
        .with_binary()
        .parse_size(text)
        .map_err(|e| {
            input_error(format!(
                "--memory-limit {text}: {e}; expected a size such as 512MiB or 4GiB"
            ))
        })?;
    if bytes < 1024 {
        return Err(input_error(format!(
            "--memory-limit {text}: at least 1KiB is needed"
        )));
    }
    Ok(usize::try_from(bytes).unwrap_or(usize::MAX))
}

/// Half of the machine's RAM, or 4 GiB where it cannot be read.
fn default_memory_budget() -> usize {
    let total_kib = std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|text| {
            text.lines()
                .find(|l| l.starts_with("MemTotal:"))
                .and_then(|l| l.split_ascii_whitespace().nth(1)?.parse::<usize>().ok())
        });
    total_kib.map_or(4 << 30, |kib| kib * 1024 / 2)
}

/// A query path is a file, or a directory whose visible files are taken in natural order.
pub fn expand_query_path(path: &Path, out: &mut Vec<PathBuf>) -> Result<()> {
    let meta = std::fs::metadata(path)
        .map_err(|e| input_error(format!("query {}: {e}", path.display())))?;
    if !meta.is_dir() {
        out.push(path.to_path_buf());
        return Ok(());
    }
    let entries = std::fs::read_dir(path)
        .map_err(|e| input_error(format!("query directory {}: {e}", path.display())))?;
    let mut files: Vec<PathBuf> = entries
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| {
            p.is_file()
                && !p
                    .file_name()
                    .and_then(|n| n.to_str())
                    .is_some_and(|n| n.starts_with('.'))
        })
        .collect();
    if files.is_empty() {
        return Err(input_error(format!(
            "query directory {} holds no files",
            path.display()
        )));
    }
    files.sort_by_cached_key(|p| natural_key(&p.to_string_lossy()));
    out.extend(files);
    Ok(())
}

/// Sort key that orders `q_2` before `q_10`: runs of digits compare as numbers.
fn natural_key(name: &str) -> Vec<(String, u128)> {
    let mut key = Vec::new();
    let mut text = String::new();
    let mut chars = name.chars().peekable();
    while let Some(c) = chars.next() {
        if c.is_ascii_digit() {
            let mut digits = c.to_string();
            while let Some(d) = chars.peek().filter(|d| d.is_ascii_digit()) {
                digits.push(*d);
                chars.next();
            }
            key.push((
                std::mem::take(&mut text),
                digits.parse().unwrap_or(u128::MAX),
            ));
        } else {
            text.push(c);
        }
    }
    key.push((text, 0));
    key
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_parse_with_binary_units() {
        assert_eq!(parse_size("16MiB").unwrap(), 16 << 20);
        assert_eq!(parse_size("2GiB").unwrap(), 2 << 30);
        assert_eq!(parse_size("4096").unwrap(), 4096);
        assert!(parse_size("lots").is_err());
        assert!(parse_size("10").is_err());
    }

    #[test]
    fn natural_order_puts_2_before_10() {
        let mut names = vec!["q_10", "q_2", "q_1", "p_3"];
        names.sort_by_cached_key(|n| natural_key(n));
        assert_eq!(names, vec!["p_3", "q_1", "q_2", "q_10"]);
    }
}
