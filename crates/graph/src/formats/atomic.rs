//! Output files that appear whole or not at all.
//!
//! An [`AtomicFile`] is written under a temporary name beside its target and renamed over the
//! target by [`AtomicFile::commit`] once complete: a reader never sees half a file, two
//! writers never interleave their lines (the last to commit wins), and a write that fails
//! leaves the previous file as it was. Targets that are not regular files (`/dev/null`, a
//! pipe, a terminal) are written in place, since renaming over them would replace them.

use std::fs::File;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// A file being written; see the module documentation.
pub struct AtomicFile {
    inner: Inner,
}

enum Inner {
    /// A temporary file beside `target`, renamed over it on commit.
    Staged {
        temp: tempfile::NamedTempFile,
        target: PathBuf,
    },
    /// A device or pipe, written directly.
    Direct(File),
}

impl AtomicFile {
    /// Starts writing `target`.
    ///
    /// # Errors
    /// The target's folder does not exist or does not let a file be created.
    pub fn create(target: &Path) -> io::Result<AtomicFile> {
        if let Ok(meta) = std::fs::metadata(target) {
            if !meta.is_file() && !meta.is_dir() {
                let file = File::options().write(true).truncate(true).open(target)?;
                return Ok(AtomicFile {
                    inner: Inner::Direct(file),
                });
            }
        }
        let folder = match target.parent() {
            Some(p) if !p.as_os_str().is_empty() => p,
            _ => Path::new("."),
        };
        let name = target
            .file_name()
            .map_or_else(|| "output".into(), |n| n.to_string_lossy());
        let temp = tempfile::Builder::new()
            .prefix(&format!(".{name}."))
            .suffix(".partial")
            .tempfile_in(folder)
            // Say what went wrong without the temporary file's name: the folder's own error
            // where it cannot be read, else the kind of failure.
            .map_err(|e| match std::fs::metadata(folder) {
                Err(folder_error) => folder_error,
                Ok(_) => io::Error::new(
                    e.kind(),
                    format!(
                        "cannot create a file in {} ({})",
                        folder.display(),
                        e.kind()
                    ),
                ),
            })?;
        Ok(AtomicFile {
            inner: Inner::Staged {
                temp,
                target: target.to_path_buf(),
            },
        })
    }

    /// Puts the complete file in place of the target, with the target's permissions where
    /// it existed, else the usual ones for a new file. Dropping an `AtomicFile` without
    /// committing it removes what was written.
    ///
    /// # Errors
    /// The file cannot be flushed or renamed.
    pub fn commit(self) -> io::Result<()> {
        match self.inner {
            Inner::Direct(mut file) => file.flush(),
            Inner::Staged { mut temp, target } => {
                temp.flush()?;
                let permissions = match std::fs::metadata(&target) {
                    Ok(meta) => meta.permissions(),
                    Err(_) => new_file_permissions(),
                };
                temp.as_file().set_permissions(permissions)?;
                temp.persist(&target).map_err(|e| e.error)?;
                Ok(())
            }
        }
    }

    fn writer(&mut self) -> &mut dyn Write {
        match &mut self.inner {
            Inner::Staged { temp, .. } => temp,
            Inner::Direct(file) => file,
        }
    }
}

impl Write for AtomicFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.writer().write(buf)
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        self.writer().write_all(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.writer().flush()
    }
}

/// What `File::create` would give a new file: read and write for all, less the umask.
#[cfg(unix)]
fn new_file_permissions() -> std::fs::Permissions {
    use std::os::unix::fs::PermissionsExt;
    let umask = std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|status| {
            let line = status.lines().find(|l| l.starts_with("Umask:"))?;
            u32::from_str_radix(line["Umask:".len()..].trim(), 8).ok()
        })
        .unwrap_or(0o022);
    std::fs::Permissions::from_mode(0o666 & !umask)
}

#[cfg(not(unix))]
fn new_file_permissions() -> std::fs::Permissions {
    tempfile::tempfile()
        .and_then(|f| f.metadata())
        .map(|m| m.permissions())
        .expect("a temporary file")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_target_changes_only_on_commit() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("out.txt");
        std::fs::write(&target, "old\n").unwrap();
        let mut file = AtomicFile::create(&target).unwrap();
        file.write_all(b"new\n").unwrap();
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "old\n");
        file.commit().unwrap();
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "new\n");
        // Nothing is left beside it.
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    #[test]
    fn a_dropped_file_leaves_the_old_one_and_no_litter() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("out.txt");
        std::fs::write(&target, "old\n").unwrap();
        let mut file = AtomicFile::create(&target).unwrap();
        file.write_all(b"half a li").unwrap();
        drop(file);
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "old\n");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    #[cfg(unix)]
    #[test]
    fn devices_are_written_in_place() {
        let mut file = AtomicFile::create(Path::new("/dev/null")).unwrap();
        file.write_all(b"gone\n").unwrap();
        file.commit().unwrap();
        assert!(!std::fs::metadata("/dev/null").unwrap().is_file());
    }

    #[test]
    fn a_missing_folder_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        assert!(AtomicFile::create(&dir.path().join("no/such/folder/x")).is_err());
    }
}
