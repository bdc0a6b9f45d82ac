//! Query paths to query files: a file as given (`-` is standard input), a folder's files in
//! natural order (`q_2` before `q_10`). In a folder, what is plainly not a query graph is
//! passed over and said so — hidden files, editor backups, subfolders, dangling links, what is
//! not a regular file (a FIFO would block, a device never end), and (unless the query format
//! is named) files whose content fits no graph format — so that one `README.md` does not fail
//! a run of a thousand queries.

use std::path::{Path, PathBuf};

use anyhow::Result;
use gsi_graph::formats::{detect_format, MemoryBound};

use crate::exit::input_error;

/// The query files of a run, and the files of its folders that were passed over.
#[derive(Debug, Default)]
pub struct QueryFiles {
    pub files: Vec<PathBuf>,
    pub skipped: Vec<(PathBuf, &'static str)>,
}

impl QueryFiles {
    /// Expands `paths`; with `sniff`, each file of a folder is read (within that bound) to
    /// pass over those that fit no format (when the query format is not named).
    ///
    /// # Errors
    /// A path that does not exist, a folder that cannot be read or holds no query file.
    pub fn expand(paths: &[PathBuf], sniff: Option<&MemoryBound>) -> Result<QueryFiles> {
        let mut found = QueryFiles::default();
        for path in paths {
            found.expand_one(path, sniff)?;
        }
        Ok(found)
    }

    fn expand_one(&mut self, path: &Path, sniff: Option<&MemoryBound>) -> Result<()> {
        if path.as_os_str() == "-" {
            self.files.push(path.to_path_buf());
            return Ok(());
        }
        let meta = std::fs::metadata(path)
            .map_err(|e| input_error(format!("query {}: {e}", path.display())))?;
        if !meta.is_dir() {
            self.files.push(path.to_path_buf());
            return Ok(());
        }
        let entries = std::fs::read_dir(path)
            .map_err(|e| input_error(format!("query directory {}: {e}", path.display())))?;
        let mut entries: Vec<PathBuf> = entries.filter_map(|e| e.ok()).map(|e| e.path()).collect();
        entries.sort_by_cached_key(|p| natural_key(&p.to_string_lossy()));
        let before = self.files.len();
        for entry in entries {
            match passed_over(&entry, sniff) {
                None => self.files.push(entry),
                Some(why) => self.skipped.push((entry, why)),
            }
        }
        if self.files.len() == before {
            let what = if self.skipped.is_empty() {
                "no files".to_string()
            } else {
                format!("no query files ({})", self.notes().join("; "))
            };
            return Err(input_error(format!(
                "query directory {} holds {what}",
                path.display()
            )));
        }
        Ok(())
    }

    /// One line per folder that had files passed over, naming a few of them.
    pub fn notes(&self) -> Vec<String> {
        let mut notes: Vec<String> = Vec::new();
        let mut folders: Vec<&Path> = self
            .skipped
            .iter()
            .filter_map(|(p, _)| p.parent())
            .collect();
        folders.dedup();
        for folder in folders {
            let here: Vec<String> = self
                .skipped
                .iter()
                .filter(|(p, _)| p.parent() == Some(folder))
                .map(|(p, why)| {
                    let name = p
                        .file_name()
                        .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
                    format!("{name} ({why})")
                })
                .collect();
            let shown = here.iter().take(5).cloned().collect::<Vec<_>>().join(", ");
            let more = if here.len() > 5 {
                format!(" and {} more", here.len() - 5)
            } else {
                String::new()
            };
            notes.push(format!(
                "{}: passed over {} file{} that {} not query graphs: {shown}{more}",
                folder.display(),
                here.len(),
                if here.len() == 1 { "" } else { "s" },
                if here.len() == 1 { "is" } else { "are" }
            ));
        }
        notes
    }
}

/// Why a folder's entry is not taken as a query, if it is not. Links are followed.
fn passed_over(path: &Path, sniff: Option<&MemoryBound>) -> Option<&'static str> {
    let name = path.file_name()?.to_string_lossy();
    if name.starts_with('.') {
        return Some("hidden");
    }
    let Ok(meta) = std::fs::metadata(path) else {
        return Some(if path.is_symlink() {
            "a dangling link"
        } else {
            "unreadable"
        });
    };
    if meta.is_dir() {
        return Some("a folder");
    }
    if !meta.is_file() {
        return Some("not a regular file");
    }
    let backup = name.ends_with('~')
        || (name.starts_with('#') && name.ends_with('#'))
        || [".bak", ".orig", ".swp", ".tmp", ".rej"]
            .iter()
            .any(|ext| name.ends_with(ext));
    if backup {
        return Some("a backup");
    }
    if sniff.is_some() && detect_format(path, sniff).is_err() {
        return Some("not a graph");
    }
    None
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
    fn natural_order_puts_2_before_10() {
        let mut names = vec!["q_10", "q_2", "q_1", "p_3"];
        names.sort_by_cached_key(|n| natural_key(n));
        assert_eq!(names, vec!["p_3", "q_1", "q_2", "q_10"]);
    }

    #[test]
    fn a_folder_keeps_its_graphs_and_says_what_it_passed_over() {
        let dir = tempfile::tempdir().unwrap();
        let graph = "t 1 0\nv 0 0 0\n";
        for name in [
            "q_10.graph",
            "q_2.graph",
            "q_1.graph~",
            ".q_3.graph",
            "q_4.bak",
        ] {
            std::fs::write(dir.path().join(name), graph).unwrap();
        }
        std::fs::write(
            dir.path().join("README.md"),
            "# Queries\nRun them all with gsi.\n",
        )
        .unwrap();
        std::fs::create_dir(dir.path().join("sub")).unwrap();
        // Reading a FIFO would block, and a device might never end.
        let fifo = std::ffi::CString::new(
            dir.path()
                .join("q_5.graph")
                .into_os_string()
                .into_encoded_bytes(),
        )
        .unwrap();
        // SAFETY: a valid NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o600) }, 0);
        std::os::unix::fs::symlink("/dev/zero", dir.path().join("q_6.graph")).unwrap();
        std::os::unix::fs::symlink("nowhere", dir.path().join("q_7.graph")).unwrap();
        std::os::unix::fs::symlink("q_2.graph", dir.path().join("q_8.graph")).unwrap();
        let bound = MemoryBound {
            bytes: 1 << 20,
            source: "a test".into(),
        };
        let found = QueryFiles::expand(&[dir.path().to_path_buf()], Some(&bound)).unwrap();
        let names: Vec<String> = found
            .files
            .iter()
            .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names, ["q_2.graph", "q_8.graph", "q_10.graph"]);
        let notes = found.notes();
        assert_eq!(notes.len(), 1);
        assert!(notes[0].contains("passed over 8 files"), "{}", notes[0]);
        for (name, why) in [
            ("q_5.graph", "not a regular file"),
            ("q_6.graph", "not a regular file"),
            ("q_7.graph", "a dangling link"),
            ("sub", "a folder"),
        ] {
            let (_, said) = found
                .skipped
                .iter()
                .find(|(p, _)| p.ends_with(name))
                .unwrap();
            assert_eq!(*said, why, "{name}");
        }
        assert!(notes[0].contains("README.md (not a graph)"), "{}", notes[0]);
        assert!(notes[0].contains("q_1.graph~ (a backup)"), "{}", notes[0]);
        // A named query format reads every file as that format: only names decide.
        let named = QueryFiles::expand(&[dir.path().to_path_buf()], None).unwrap();
        assert_eq!(named.files.len(), 4);
        // A file named directly is taken as it is.
        let readme = dir.path().join("README.md");
        assert_eq!(
            QueryFiles::expand(std::slice::from_ref(&readme), Some(&bound))
                .unwrap()
                .files,
            vec![readme]
        );
    }
}
