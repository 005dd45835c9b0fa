//! Processes as `/proc` shows them: CPU time from `/proc/PID/stat`, resident
//! memory from `/proc/PID/status`, children from `/proc/PID/task/*/children`.

use std::collections::BTreeMap;
use std::fs;
use std::time::Duration;

/// What one process has used so far.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ProcessUse {
    pub parent: u32,
    /// utime + stime, and cutime + cstime: its children reaped so far are
    /// counted, so a worker that exits leaves the sum where it was.
    pub cpu_ticks: u64,
    pub zombie: bool,
}

/// The kernel's clock ticks per second, the unit of `/proc/PID/stat`'s times.
pub fn ticks_per_second() -> u64 {
    // SAFETY: sysconf reads a constant of the system; no memory is shared.
    let ticks = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
    u64::try_from(ticks).ok().filter(|t| *t > 0).unwrap_or(100)
}

pub fn ticks_to_duration(ticks: u64, per_second: u64) -> Duration {
    Duration::from_nanos(ticks.saturating_mul(1_000_000_000) / per_second)
}

/// The process's CPU time and parent, or `None` once it is gone.
pub fn process_use(pid: u32) -> Option<ProcessUse> {
    parse_stat(&fs::read_to_string(format!("/proc/{pid}/stat")).ok()?)
}

/// Fields of `/proc/PID/stat` after the command name, which may itself hold
/// spaces and parentheses: state (3), ppid (4), ... utime (14), stime (15),
/// cutime (16), cstime (17).
fn parse_stat(stat: &str) -> Option<ProcessUse> {
    let after_name = &stat[stat.rfind(')')? + 1..];
    let fields: Vec<&str> = after_name.split_whitespace().collect();
    let number = |field: usize| fields.get(field - 3)?.parse::<u64>().ok();
    let cpu_ticks = (14..=17).map(number).sum::<Option<u64>>()?;
    Some(ProcessUse {
        parent: u32::try_from(number(4)?).ok()?,
        cpu_ticks,
        zombie: fields.first() == Some(&"Z"),
    })
}

/// The process's resident memory (`VmRSS`) in bytes; 0 for a zombie or a
/// process gone.
pub fn resident_bytes(pid: u32) -> u64 {
    let Ok(status) = fs::read_to_string(format!("/proc/{pid}/status")) else {
        return 0;
    };
    parse_vm_rss(&status).unwrap_or(0)
}

fn parse_vm_rss(status: &str) -> Option<u64> {
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

/// `pid` and every process below it, each once.
pub fn tree(pid: u32) -> Vec<u32> {
    let mut found = vec![pid];
    let mut next = 0;
    let mut by_parent: Option<BTreeMap<u32, Vec<u32>>> = None;
    while next < found.len() {
        let parent = found[next];
        next += 1;
        let children = match children_of(parent) {
            Some(children) => children,
            // Kernels without CONFIG_PROC_CHILDREN: every process's parent, once.
            None => by_parent
                .get_or_insert_with(parents)
                .get(&parent)
                .cloned()
                .unwrap_or_default(),
        };
        for child in children {
            if !found.contains(&child) {
                found.push(child);
            }
        }
    }
    found
}

/// The children of every thread of `pid`; `None` when the kernel does not
/// list them (or the process is gone).
fn children_of(pid: u32) -> Option<Vec<u32>> {
    let mut children = Vec::new();
    for task in fs::read_dir(format!("/proc/{pid}/task")).ok()? {
        let listed = fs::read_to_string(task.ok()?.path().join("children")).ok()?;
        children.extend(
            listed
                .split_whitespace()
                .filter_map(|c| c.parse::<u32>().ok()),
        );
    }
    Some(children)
}

fn parents() -> BTreeMap<u32, Vec<u32>> {
    let mut by_parent: BTreeMap<u32, Vec<u32>> = BTreeMap::new();
    let Ok(entries) = fs::read_dir("/proc") else {
        return by_parent;
    };
    for entry in entries.flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|n| n.parse::<u32>().ok())
        else {
            continue;
        };
        if let Some(process) = process_use(pid) {
            by_parent.entry(process.parent).or_default().push(pid);
        }
    }
    by_parent
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stat_fields_count_after_the_last_parenthesis() {
        let stat = "4242 (a (weird) name) S 17 4242 4242 0 -1 4194560 100 0 0 0 \
                    250 40 7 3 20 0 1 0 12345 1000000 200 18446744073709551615";
        let process = parse_stat(stat).unwrap();
        assert_eq!(process.parent, 17);
        assert_eq!(process.cpu_ticks, 250 + 40 + 7 + 3);
        assert!(!process.zombie);
        assert!(
            parse_stat("12 (z) Z 1 0 0 0 0 0 0 0 0 0 1 2 0 0")
                .unwrap()
                .zombie
        );
    }

    #[test]
    fn vm_rss_is_read_in_kibibytes() {
        let status = "Name:\tnginx\nVmPeak:\t  10000 kB\nVmRSS:\t    2048 kB\nThreads:\t1\n";
        assert_eq!(parse_vm_rss(status), Some(2 * 1024 * 1024));
        assert_eq!(parse_vm_rss("Name:\tkthreadd\n"), None);
    }

    #[test]
    fn this_process_is_found_with_its_child() {
        let me = std::process::id();
        let mut child = std::process::Command::new("sleep")
            .arg("5")
            .spawn()
            .unwrap();
        let found = tree(me);
        child.kill().unwrap();
        child.wait().unwrap();
        assert_eq!(found[0], me);
        assert!(found.contains(&child.id()), "{found:?}");
        assert!(process_use(me).is_some());
        assert!(resident_bytes(me) > 0);
    }
}
