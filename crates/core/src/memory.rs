//! Host memory: how much this process may use, and the join's default budget, one rule for
//! every front end (the `gsi` command and the Python package alike).
//!
//! What the process may use is the least of the machine's RAM, the address-space limit
//! (`ulimit -v`) and the memory limit of the process's control group (a container's limit).
//! The join's default budget is half of it: the data graph, its index and the output need
//! the rest.

use std::fmt;
use std::path::Path;

/// What bounds this process's memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LimitSource {
    /// The machine's RAM (`MemTotal`).
    Ram,
    /// The address-space limit (`ulimit -v`, `RLIMIT_AS`).
    AddressSpace,
    /// The control group's memory limit.
    Cgroup,
    /// Nothing could be read: an assumed 8 GiB.
    Assumed,
}

/// The memory this process may use.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MemoryLimit {
    /// Bytes.
    pub bytes: u64,
    /// Which limit that is.
    pub source: LimitSource,
}

impl fmt::Display for MemoryLimit {
    /// `23.4 GiB (RAM)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let what = match self.source {
            LimitSource::Ram => "the machine's RAM",
            LimitSource::AddressSpace => "the address-space limit, ulimit -v",
            LimitSource::Cgroup => "the control group's memory limit",
            LimitSource::Assumed => "assumed: the machine's memory could not be read",
        };
        write!(
            f,
            "{:.1} GiB ({what})",
            self.bytes as f64 / (1u64 << 30) as f64
        )
    }
}

/// The least of RAM, `RLIMIT_AS` and the cgroup limit, read once per process.
pub fn process_limit() -> MemoryLimit {
    static LIMIT: std::sync::OnceLock<MemoryLimit> = std::sync::OnceLock::new();
    *LIMIT.get_or_init(read_process_limit)
}

fn read_process_limit() -> MemoryLimit {
    let candidates = [
        (ram_bytes(), LimitSource::Ram),
        (address_space_limit(), LimitSource::AddressSpace),
        (cgroup_limit(), LimitSource::Cgroup),
    ];
    candidates
        .into_iter()
        .filter_map(|(bytes, source)| {
            Some(MemoryLimit {
                bytes: bytes?,
                source,
            })
        })
        .min_by_key(|limit| limit.bytes)
        .unwrap_or(MemoryLimit {
            bytes: 8 << 30,
            source: LimitSource::Assumed,
        })
}

fn ram_bytes() -> Option<u64> {
    meminfo_total(&std::fs::read_to_string("/proc/meminfo").ok()?)
}

/// `MemTotal` of a `/proc/meminfo` text, in bytes.
fn meminfo_total(text: &str) -> Option<u64> {
    let line = text.lines().find(|l| l.starts_with("MemTotal:"))?;
    let kib: u64 = line.split_ascii_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

fn address_space_limit() -> Option<u64> {
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit writes one `rlimit` through a valid pointer.
    let ok = unsafe { libc::getrlimit(libc::RLIMIT_AS, &mut limit) } == 0;
    (ok && limit.rlim_cur != libc::RLIM_INFINITY).then_some(limit.rlim_cur)
}

/// The memory limit of this process's control group (v2 `memory.max`, v1
/// `memory.limit_in_bytes`), looked up at its path and at the root of the hierarchy (which
/// is the process's own group inside most containers).
fn cgroup_limit() -> Option<u64> {
    let groups = std::fs::read_to_string("/proc/self/cgroup").unwrap_or_default();
    let mut files = Vec::new();
    for line in groups.lines() {
        let mut fields = line.splitn(3, ':');
        let (_, controllers, path) = (fields.next(), fields.next()?, fields.next()?);
        let path = path.trim_start_matches('/');
        if controllers.is_empty() {
            files.push(Path::new("/sys/fs/cgroup").join(path).join("memory.max"));
        } else if controllers.split(',').any(|c| c == "memory") {
            let root = Path::new("/sys/fs/cgroup/memory");
            files.push(root.join(path).join("memory.limit_in_bytes"));
        }
    }
    files.push("/sys/fs/cgroup/memory.max".into());
    files.push("/sys/fs/cgroup/memory/memory.limit_in_bytes".into());
    files
        .iter()
        .filter_map(|f| cgroup_value(&std::fs::read_to_string(f).ok()?))
        .min()
}

/// A cgroup limit file's value: `max` (v2) and the v1 "no limit" (close to `i64::MAX`) mean
/// none.
fn cgroup_value(text: &str) -> Option<u64> {
    let bytes: u64 = text.trim().parse().ok()?;
    (bytes < 1 << 62).then_some(bytes)
}

/// The join's default memory budget: half of what the process may use.
pub fn default_budget() -> usize {
    usize::try_from(process_limit().bytes / 2).unwrap_or(usize::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits_are_read_from_their_files() {
        assert_eq!(
            meminfo_total("MemTotal:       24576000 kB\nMemFree: 1 kB\n"),
            Some(24576000 * 1024)
        );
        assert_eq!(meminfo_total("MemFree: 1 kB\n"), None);
        assert_eq!(cgroup_value("max\n"), None);
        assert_eq!(cgroup_value("9223372036854771712\n"), None);
        assert_eq!(cgroup_value("4294967296\n"), Some(1 << 32));
        let limit = process_limit();
        assert!(limit.bytes > 0);
        if cfg!(target_os = "linux") {
            assert_ne!(limit.source, LimitSource::Assumed);
        }
    }

    #[test]
    fn limits_print_in_gib_with_their_source() {
        let limit = MemoryLimit {
            bytes: 3 << 29,
            source: LimitSource::AddressSpace,
        };
        assert_eq!(
            limit.to_string(),
            "1.5 GiB (the address-space limit, ulimit -v)"
        );
    }
}
