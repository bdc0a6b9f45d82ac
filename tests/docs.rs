//! The maps of the code stay true: every file, type, function and kernel that
//! `docs/paper-map.md` and `docs/ARCHITECTURE.md` name in backticks exists.

use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Every file under `dir` whose name ends with one of `extensions`.
fn files(dir: &Path, extensions: &[&str], out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap().map(Result::unwrap) {
        let path = entry.path();
        if path.is_dir() {
            files(&path, extensions, out);
        } else if extensions
            .iter()
            .any(|e| path.to_string_lossy().ends_with(e))
        {
            out.push(path);
        }
    }
}

/// The text of every Rust, CUDA and Python source of the crates.
struct Sources {
    rust: String,
    cuda: String,
    python: String,
}

impl Sources {
    fn read() -> Sources {
        let read = |extensions: &[&str]| {
            let mut paths = Vec::new();
            files(&root().join("crates"), extensions, &mut paths);
            paths
                .iter()
                .map(|p| std::fs::read_to_string(p).unwrap())
                .collect::<Vec<_>>()
                .join("\n")
        };
        Sources {
            rust: read(&[".rs"]),
            cuda: read(&[".cu", ".cuh"]),
            python: read(&[".py"]),
        }
    }

    /// Whether `word` occurs in `text` with no identifier character on either side.
    fn has_word(text: &str, word: &str) -> bool {
        let ident = |c: char| c.is_alphanumeric() || c == '_';
        text.match_indices(word).any(|(at, _)| {
            let before = text[..at].chars().next_back();
            let after = text[at + word.len()..].chars().next();
            !before.is_some_and(ident) && !after.is_some_and(ident)
        })
    }

    fn defines_type(&self, name: &str) -> bool {
        ["struct", "enum", "trait", "type"]
            .iter()
            .any(|kind| Self::has_word(&self.rust, &format!("{kind} {name}")))
            || Self::has_word(&self.python, &format!("class {name}"))
    }

    /// A function or a field of that name.
    fn defines_member(&self, name: &str) -> bool {
        Self::has_word(&self.rust, &format!("fn {name}"))
            || Self::has_word(&self.rust, &format!("pub {name}:"))
            || Self::has_word(&self.rust, &format!("pub(crate) {name}:"))
    }

    /// Why the name in backticks `span` names nothing, if it does not; `None` also for what
    /// is no code name (flags, values, formulas).
    fn missing(&self, span: &str) -> Option<String> {
        let is_ident = |s: &str| {
            !s.is_empty()
                && s.chars().all(|c| c.is_alphanumeric() || c == '_')
                && !s.starts_with(|c: char| c.is_ascii_digit())
        };
        if span.starts_with("crates/") || span.starts_with("docs/") || span.starts_with("scripts/")
        {
            let path = span.trim_end_matches('/');
            return (!root().join(path).exists()).then(|| format!("no file {span}"));
        }
        if (span.ends_with(".cuh") || span.ends_with(".cu")) && is_ident(&span[..1]) {
            let path = root().join("crates/kernels/cu").join(span);
            return (!path.exists()).then(|| format!("no kernel source {span}"));
        }
        if let Some((owner, members)) = span.split_once("::") {
            if !is_ident(owner) || !owner.starts_with(|c: char| c.is_ascii_uppercase()) {
                return None;
            }
            if !self.defines_type(owner) {
                return Some(format!("no type {owner} (in `{span}`)"));
            }
            let members = members.trim_start_matches('{').trim_end_matches('}');
            for member in members.split(',').map(str::trim) {
                if !is_ident(member) {
                    return None;
                }
                let found = if member.starts_with(|c: char| c.is_ascii_uppercase()) {
                    Self::has_word(&self.rust, member)
                } else {
                    self.defines_member(member)
                };
                if !found {
                    return Some(format!("no {member} of {owner} (in `{span}`)"));
                }
            }
            return None;
        }
        if span.starts_with("gsi_") && is_ident(span) {
            return (!Self::has_word(&self.cuda, span)).then(|| format!("no kernel {span}"));
        }
        let camel = is_ident(span)
            && span.starts_with(|c: char| c.is_ascii_uppercase())
            && span.chars().any(|c| c.is_ascii_lowercase());
        if camel && !self.defines_type(span) && !Self::has_word(&self.rust, span) {
            return Some(format!("no type {span}"));
        }
        None
    }
}

/// The spans between backticks of `text`.
fn code_spans(text: &str) -> Vec<&str> {
    text.split('`').skip(1).step_by(2).collect()
}

#[test]
fn issue_31_every_name_the_code_maps_give_exists() {
    let sources = Sources::read();
    let mut missing = Vec::new();
    for doc in ["docs/paper-map.md", "docs/ARCHITECTURE.md"] {
        let text = std::fs::read_to_string(root().join(doc)).unwrap();
        for span in code_spans(&text) {
            if let Some(why) = sources.missing(span) {
                missing.push(format!("{doc}: {why}"));
            }
        }
    }
    assert!(missing.is_empty(), "{}", missing.join("\n"));
}

#[test]
fn the_map_check_tells_missing_names() {
    let sources = Sources::read();
    assert!(sources.missing("Plan::build").is_none());
    assert!(sources.missing("Plan::no_such_member").is_some());
    assert!(sources.missing("NoSuchType").is_some());
    assert!(sources.missing("crates/core/src/nothing.rs").is_some());
    assert!(sources.missing("gsi_join_nothing").is_some());
    assert!(sources.missing("--balance-from N").is_none());
}
