//! A cgroup v2 directory: `cpu.stat`'s `usage_usec` (every process of the
//! group, those gone included) and `memory.current` (which counts the
//! group's page cache too, not only resident memory).

use std::fs;
use std::path::Path;

/// The group's CPU time in microseconds, or `None` once it is gone.
pub fn usage_usec(dir: &Path) -> Option<u64> {
    parse_usage(&fs::read_to_string(dir.join("cpu.stat")).ok()?)
}

fn parse_usage(cpu_stat: &str) -> Option<u64> {
    cpu_stat
        .lines()
        .find_map(|line| line.strip_prefix("usage_usec "))
        .and_then(|usec| usec.trim().parse().ok())
}

/// The group's memory in bytes; 0 where the memory controller is not
/// enabled for it.
pub fn memory_bytes(dir: &Path) -> u64 {
    fs::read_to_string(dir.join("memory.current"))
        .ok()
        .and_then(|bytes| bytes.trim().parse().ok())
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn usage_is_read_from_cpu_stat() {
        let stat = "usage_usec 1234567\nuser_usec 1000000\nsystem_usec 234567\n";
        assert_eq!(parse_usage(stat), Some(1_234_567));
        assert_eq!(parse_usage("user_usec 1\n"), None);
    }
}
