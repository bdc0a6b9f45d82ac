//! Output files that appear whole or not at all.
//!
//! An [`AtomicFile`] is written under a temporary name beside its target and renamed over the
//! target by [`AtomicFile::commit`] once complete: a reader never sees half a file, two
//! writers never interleave their lines (the last to commit wins), and a write that fails
//! leaves the previous file as it was. Targets that are not regular files (`/dev/null`, a
//! pipe, a terminal) are written in place, since renaming over them would replace them; a
//! folder is refused at once.
//!
//! The temporary file is named `.NAME.PID.XXXXXX.partial`: a run killed outright (SIGKILL)
//! leaves it behind, and a later run of the same target removes it once its process is gone
//! and it has lain untouched for [`STALE_AFTER`].

use std::fs::File;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

/// How long a partial file of a process that is gone must have lain untouched before a later
/// run removes it (a process of the same number on another machine sharing the folder may
/// still be writing it).
pub const STALE_AFTER: Duration = Duration::from_secs(600);

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
    /// Starts writing `target`, removing stale partial files of earlier runs beside it.
    ///
    /// # Errors
    /// The target is a folder, its folder does not exist or does not let a file be created.
    pub fn create(target: &Path) -> io::Result<AtomicFile> {
        if let Ok(meta) = std::fs::metadata(target) {
            if meta.is_dir() {
                return Err(io::Error::new(
                    io::ErrorKind::IsADirectory,
                    "is a folder; name a file",
                ));
            }
            if !meta.is_file() {
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
        remove_stale_partials(folder, &name);
        let temp = tempfile::Builder::new()
            .prefix(&format!(".{name}.{}.", std::process::id()))
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

    /// Puts the complete file in place of the target, with the permission bits of the
    /// regular file it replaces (never setuid, setgid or sticky), else the usual ones for a
    /// new file (a symbolic link is replaced by a new file, not followed). Dropping an
    /// `AtomicFile` without committing it removes what was written.
    ///
    /// # Errors
    /// The file cannot be flushed or renamed.
    pub fn commit(self) -> io::Result<()> {
        match self.inner {
            Inner::Direct(mut file) => file.flush(),
            Inner::Staged { mut temp, target } => {
                temp.flush()?;
                let permissions = match std::fs::symlink_metadata(&target) {
                    Ok(meta) if meta.is_file() => kept_permissions(meta.permissions()),
                    _ => new_file_permissions(),
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

/// Removes the partial files `.{name}.PID.XXXXXX.partial` in `folder` whose process is gone
/// and which have lain untouched for [`STALE_AFTER`]; a failure only leaves them.
fn remove_stale_partials(folder: &Path, name: &str) {
    let Ok(entries) = std::fs::read_dir(folder) else {
        return;
    };
    let prefix = format!(".{name}.");
    for entry in entries.flatten() {
        let file_name = entry.file_name();
        let Some(middle) = file_name
            .to_str()
            .and_then(|n| n.strip_prefix(&prefix))
            .and_then(|n| n.strip_suffix(".partial"))
        else {
            continue;
        };
        let Some(pid) = middle.split_once('.').and_then(|(pid, _)| pid.parse().ok()) else {
            continue;
        };
        let untouched = entry
            .metadata()
            .ok()
            .filter(std::fs::Metadata::is_file)
            .and_then(|m| m.modified().ok())
            .and_then(|t| SystemTime::now().duration_since(t).ok())
            .is_some_and(|age| age >= STALE_AFTER);
        if untouched && !process_alive(pid) {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

/// Whether process `pid` exists on this machine (as far as it can be told: a process of
/// another user counts).
#[cfg(unix)]
fn process_alive(pid: i32) -> bool {
    // SAFETY: signal 0 only checks that the process exists.
    let sent = unsafe { libc::kill(pid, 0) };
    pid <= 0 || sent == 0 || io::Error::last_os_error().raw_os_error() != Some(libc::ESRCH)
}

#[cfg(not(unix))]
fn process_alive(_pid: i32) -> bool {
    true
}

/// The permissions `permissions` of a file replaced, without setuid, setgid and sticky.
#[cfg(unix)]
fn kept_permissions(permissions: std::fs::Permissions) -> std::fs::Permissions {
    use std::os::unix::fs::PermissionsExt;
    std::fs::Permissions::from_mode(permissions.mode() & 0o777)
}

#[cfg(not(unix))]
fn kept_permissions(permissions: std::fs::Permissions) -> std::fs::Permissions {
    permissions
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
    fn a_folder_is_refused_at_once() {
        let dir = tempfile::tempdir().unwrap();
        let err = AtomicFile::create(dir.path()).err().unwrap();
        assert_eq!(err.kind(), io::ErrorKind::IsADirectory);
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    }

    #[cfg(unix)]
    #[test]
    fn partial_files_of_gone_processes_are_removed_once_stale() {
        let dir = tempfile::tempdir().unwrap();
        let gone = {
            let mut child = std::process::Command::new("true").spawn().unwrap();
            child.wait().unwrap();
            child.id()
        };
        let partial = |pid: u32, random: &str, age: Duration| {
            let path = dir.path().join(format!(".out.txt.{pid}.{random}.partial"));
            let file = File::create(&path).unwrap();
            file.set_modified(SystemTime::now() - age).unwrap();
            path
        };
        let old = STALE_AFTER + Duration::from_secs(60);
        let stale = partial(gone, "AbC123", old);
        let recent = partial(gone, "dEf456", Duration::ZERO);
        let live = partial(std::process::id(), "AbC123", old);
        let other = dir.path().join(".other.txt.1.AbC123.partial");
        File::create(&other)
            .unwrap()
            .set_modified(SystemTime::now() - old)
            .unwrap();
        let file = AtomicFile::create(&dir.path().join("out.txt")).unwrap();
        assert!(!stale.exists());
        assert!(recent.exists() && live.exists() && other.exists());
        drop(file);
    }

    #[cfg(unix)]
    #[test]
    fn a_replaced_file_keeps_its_bits_without_setuid_and_a_link_is_not_followed() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o7777;
        let write = |target: &Path| {
            let mut file = AtomicFile::create(target).unwrap();
            file.write_all(b"new\n").unwrap();
            file.commit().unwrap();
        };
        let setuid = dir.path().join("setuid");
        std::fs::write(&setuid, "old\n").unwrap();
        std::fs::set_permissions(&setuid, std::fs::Permissions::from_mode(0o4750)).unwrap();
        let link = dir.path().join("link");
        std::os::unix::fs::symlink(&setuid, &link).unwrap();
        write(&link);
        assert_eq!(mode(&link), new_file_permissions().mode() & 0o7777);
        assert_eq!(mode(&setuid), 0o4750, "the link's target is left alone");
        assert_eq!(std::fs::read_to_string(&setuid).unwrap(), "old\n");
        write(&setuid);
        assert_eq!(mode(&setuid), 0o750);
    }

    #[test]
    fn a_missing_folder_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        assert!(AtomicFile::create(&dir.path().join("no/such/folder/x")).is_err());
    }
}
