//! What a benchmark says about the machine it ran on: host, CPU, GPU and peak memory.

/// Peak resident memory of this process in bytes (`VmHWM`), or 0 where it cannot be read.
pub fn peak_rss_bytes() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|status| vm_hwm_bytes(&status))
        .unwrap_or(0)
}

/// The `VmHWM:  123 kB` line of a `/proc/PID/status` text, in bytes.
pub fn vm_hwm_bytes(status: &str) -> Option<u64> {
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let mut words = line["VmHWM:".len()..].split_ascii_whitespace();
    let value: u64 = words.next()?.parse().ok()?;
    let unit = match words.next().map(str::to_ascii_lowercase).as_deref() {
        Some("kb") => 1024,
        Some("mb") => 1024 * 1024,
        Some("gb") => 1024 * 1024 * 1024,
        None | Some("b") => 1,
        Some(_) => return None,
    };
    Some(value * unit)
}

/// The CPU model of a `/proc/cpuinfo` text (`model name`, or `Model` on some ARM systems).
pub fn cpu_model(cpuinfo: &str) -> Option<&str> {
    cpuinfo.lines().find_map(|line| {
        let (key, value) = line.split_once(':')?;
        let value = value.trim();
        (matches!(key.trim(), "model name" | "Model") && !value.is_empty()).then_some(value)
    })
}

/// `host, cpu, gpu`, leaving out what is unknown; `unknown` when nothing is known.
pub fn machine_string(host: Option<&str>, cpu: Option<&str>, gpu: Option<&str>) -> String {
    let parts: Vec<&str> = [host, cpu, gpu]
        .into_iter()
        .flatten()
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .collect();
    if parts.is_empty() {
        "unknown".into()
    } else {
        parts.join(", ")
    }
}

/// This machine: its host name, CPU model and, where given, GPU.
pub fn machine(gpu: Option<&str>) -> String {
    let host = std::fs::read_to_string("/proc/sys/kernel/hostname")
        .or_else(|_| std::fs::read_to_string("/etc/hostname"))
        .ok();
    let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").ok();
    machine_string(host.as_deref(), cpuinfo.as_deref().and_then(cpu_model), gpu)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn peak_memory_comes_from_vm_hwm() {
        let status = "Name:\tgsi\nVmPeak:\t  9000 kB\nVmHWM:\t    1234 kB\nVmRSS:\t 1000 kB\n";
        assert_eq!(vm_hwm_bytes(status), Some(1234 * 1024));
        assert_eq!(vm_hwm_bytes("Name: gsi\n"), None);
        assert_eq!(vm_hwm_bytes("VmHWM: lots kB\n"), None);
        if cfg!(target_os = "linux") {
            assert!(peak_rss_bytes() > 0);
        }
    }

    #[test]
    fn machine_names_host_cpu_and_gpu() {
        let cpuinfo = "processor\t: 0\nvendor_id\t: GenuineIntel\nmodel name\t: Intel(R) Xeon(R) Platinum 8480+\nflags\t\t: fpu\n";
        assert_eq!(cpu_model(cpuinfo), Some("Intel(R) Xeon(R) Platinum 8480+"));
        assert_eq!(
            cpu_model("processor : 0\nModel : Raspberry Pi 4\n"),
            Some("Raspberry Pi 4")
        );
        assert_eq!(cpu_model("processor : 0\n"), None);
        assert_eq!(
            machine_string(Some("node7\n"), Some("Xeon"), Some("NVIDIA H100 (sm_90)")),
            "node7, Xeon, NVIDIA H100 (sm_90)"
        );
        assert_eq!(machine_string(None, Some("Xeon"), None), "Xeon");
        assert_eq!(machine_string(Some(""), None, None), "unknown");
        assert!(!machine(None).is_empty());
    }
}
