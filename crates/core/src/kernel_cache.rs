//! The folder compiled kernels are kept in, and reading and writing its files safely: only an
//! absolute folder of the user's own that no one else can write, files written under a fresh
//! random name (created exclusively, never through a link) and renamed into place.

use std::ffi::OsString;
use std::fs::DirBuilder;
use std::io::{self, Write};
use std::os::unix::fs::{DirBuilderExt, MetadataExt};
use std::path::{Path, PathBuf};

/// Where compiled kernels are kept, given the environment's `GSI_CACHE_DIR`,
/// `XDG_CACHE_HOME` and `HOME` (the caller reads them: this crate reads no environment):
/// `$GSI_CACHE_DIR`, else `$XDG_CACHE_HOME/gsi`, else `~/.cache/gsi`, each with `kernels`
/// below it. An empty or relative value is ignored, as the XDG specification says.
///
/// # Errors
/// Why kernels are not to be kept on disk (for a notice): no absolute folder is named, or the
/// folder is unsafe ([`unsafe_folder`]).
pub fn kernel_cache_dir(
    gsi_cache_dir: Option<OsString>,
    xdg_cache_home: Option<OsString>,
    home: Option<OsString>,
) -> Result<PathBuf, String> {
    let absolute = |value: Option<OsString>| value.map(PathBuf::from).filter(|p| p.is_absolute());
    let base = absolute(gsi_cache_dir)
        .or_else(|| absolute(xdg_cache_home).map(|d| d.join("gsi")))
        .or_else(|| absolute(home).map(|h| h.join(".cache/gsi")))
        .ok_or_else(|| {
            "compiled GPU kernels are not cached: none of GSI_CACHE_DIR, XDG_CACHE_HOME and HOME \
             names an absolute folder"
                .to_string()
        })?;
    let dir = base.join("kernels");
    match unsafe_folder(&dir) {
        Some(why) => Err(format!(
            "compiled GPU kernels are not cached: {} {why}",
            dir.display()
        )),
        None => Ok(dir),
    }
}

/// Why the existing folder `dir` is unsafe to load kernels from: another user owns it, or
/// others may write to it (and so plant a kernel); `None` when it is safe or does not exist.
pub fn unsafe_folder(dir: &Path) -> Option<String> {
    let meta = std::fs::metadata(dir).ok()?;
    // SAFETY: geteuid has no preconditions and cannot fail.
    let me = unsafe { libc::geteuid() };
    if !meta.is_dir() {
        Some("is not a folder".into())
    } else if meta.uid() != me {
        Some(format!("belongs to another user (uid {})", meta.uid()))
    } else if meta.mode() & 0o022 != 0 {
        Some("may be written by other users".into())
    } else {
        None
    }
}

/// The file `name` of the cache `dir`, if the folder is safe and the file is there.
pub fn read(dir: &Path, name: &str) -> Option<Vec<u8>> {
    match unsafe_folder(dir) {
        None => std::fs::read(dir.join(name)).ok(),
        Some(_) => None,
    }
}

/// Writes `bytes` as the file `name` of the cache `dir`, creating the folder (for the user
/// alone) if needed: through a temporary file of a random name, created exclusively, renamed
/// into place once whole.
///
/// # Errors
/// The folder is unsafe, or cannot be created or written.
pub fn write(dir: &Path, name: &str, bytes: &[u8]) -> io::Result<()> {
    DirBuilder::new().recursive(true).mode(0o700).create(dir)?;
    if let Some(why) = unsafe_folder(dir) {
        return Err(io::Error::new(io::ErrorKind::PermissionDenied, why));
    }
    let mut tmp = tempfile::NamedTempFile::new_in(dir)?;
    tmp.write_all(bytes)?;
    tmp.persist(dir.join(name))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::PermissionsExt;

    use super::*;

    fn os(text: &str) -> Option<OsString> {
        Some(text.into())
    }

    #[test]
    fn empty_and_relative_values_are_ignored() {
        let dir = kernel_cache_dir(os(""), os("rel/cache"), os("/home/u")).unwrap();
        assert_eq!(dir, Path::new("/home/u/.cache/gsi/kernels"));
        let dir = kernel_cache_dir(os("cache"), os("/x"), None).unwrap();
        assert_eq!(dir, Path::new("/x/gsi/kernels"));
        let dir = kernel_cache_dir(os("/g"), os("/x"), os("/h")).unwrap();
        assert_eq!(dir, Path::new("/g/kernels"));
        for (g, x, h) in [
            (os(""), os(""), os("")),
            (None, os("."), os("home")),
            (None, None, None),
        ] {
            let why = kernel_cache_dir(g, x, h).unwrap_err();
            assert!(why.contains("absolute"), "{why}");
        }
    }

    #[test]
    fn a_folder_others_may_write_is_not_used() {
        let base = tempfile::tempdir().unwrap();
        let dir = base.path().join("kernels");
        std::fs::create_dir(&dir).unwrap();
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o777)).unwrap();
        let why = kernel_cache_dir(Some(base.path().into()), None, None).unwrap_err();
        assert!(why.contains("may be written by other users"), "{why}");
        assert!(write(&dir, "k.cubin", b"x").is_err());
        std::fs::write(dir.join("k.cubin"), b"planted").unwrap();
        assert_eq!(read(&dir, "k.cubin"), None);
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o700)).unwrap();
        assert_eq!(
            kernel_cache_dir(Some(base.path().into()), None, None),
            Ok(dir)
        );
    }

    #[test]
    fn a_planted_link_is_replaced_not_followed() {
        let base = tempfile::tempdir().unwrap();
        let dir = base.path().join("cache/kernels");
        let victim = base.path().join("victim");
        std::fs::write(&victim, b"keep").unwrap();
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o700)).unwrap();
        // The names the cache once wrote through, and the final name itself.
        let pid = std::process::id();
        std::os::unix::fs::symlink(&victim, dir.join(format!("k.tmp{pid}"))).unwrap();
        std::os::unix::fs::symlink(&victim, dir.join("k.cubin")).unwrap();
        write(&dir, "k.cubin", b"kernel").unwrap();
        assert_eq!(std::fs::read(&victim).unwrap(), b"keep");
        assert_eq!(read(&dir, "k.cubin").unwrap(), b"kernel");
        // Folders the cache makes are the user's alone.
        write(&base.path().join("fresh/kernels"), "k.cubin", b"kernel").unwrap();
        let mode = std::fs::metadata(base.path().join("fresh")).unwrap().mode();
        assert_eq!(mode & 0o777, 0o700);
    }
}
