//! Where the server's figures come from, and one reading of them.

use super::{cgroup, procfs};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The server's CPU time so far and its memory now.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Reading {
    pub cpu: Duration,
    pub rss_bytes: u64,
    /// Processes given (or the cgroup, as 0) that were gone at this reading
    /// and not at the one before.
    pub exited: Vec<u32>,
}

/// Processes, each counted with its descendants, or one cgroup.
#[derive(Debug)]
pub enum Source {
    Processes(Processes),
    Cgroup { dir: PathBuf, gone: bool, last: u64 },
}

#[derive(Debug)]
pub struct Processes {
    roots: Vec<u32>,
    ticks_per_second: u64,
    /// Each process counted at the last reading: its parent and CPU ticks.
    seen: BTreeMap<u32, procfs::ProcessUse>,
    /// Ticks of processes gone that no process counted took over as its
    /// children's time (a given process that exited, a child of one).
    departed_ticks: u64,
    gone: BTreeSet<u32>,
}

impl Source {
    /// The processes `pids` and their descendants; an error names the first
    /// PID that is not a running process.
    pub fn processes(pids: &[u32]) -> Result<Source, String> {
        for &pid in pids {
            match procfs::process_use(pid) {
                Some(process) if !process.zombie => {}
                Some(_) => return Err(format!("process {pid} has exited (a zombie)")),
                None => return Err(format!("no process {pid}")),
            }
        }
        let mut roots = pids.to_vec();
        roots.dedup();
        Ok(Source::Processes(Processes {
            roots,
            ticks_per_second: procfs::ticks_per_second(),
            seen: BTreeMap::new(),
            departed_ticks: 0,
            gone: BTreeSet::new(),
        }))
    }

    /// A cgroup v2 directory: a path under `/sys/fs/cgroup`, or the group as
    /// `/proc/PID/cgroup` names it (`/system.slice/nginx.service`).
    pub fn cgroup(path: &Path) -> Result<Source, String> {
        let under_root = Path::new("/sys/fs/cgroup").join(path.strip_prefix("/").unwrap_or(path));
        let dir = [path.to_path_buf(), under_root]
            .into_iter()
            .find(|dir| dir.join("cpu.stat").is_file())
            .ok_or_else(|| {
                format!(
                    "{} is not a cgroup v2 directory (no cpu.stat there or under /sys/fs/cgroup)",
                    path.display()
                )
            })?;
        let last = cgroup::usage_usec(&dir).ok_or_else(|| {
            format!(
                "cannot read usage_usec in {}",
                dir.join("cpu.stat").display()
            )
        })?;
        Ok(Source::Cgroup {
            dir,
            gone: false,
            last,
        })
    }

    pub fn read(&mut self) -> Reading {
        match self {
            Source::Processes(processes) => processes.read(),
            Source::Cgroup { dir, gone, last } => match cgroup::usage_usec(dir) {
                Some(usec) => {
                    *last = usec;
                    Reading {
                        cpu: Duration::from_micros(usec),
                        rss_bytes: cgroup::memory_bytes(dir),
                        exited: Vec::new(),
                    }
                }
                None => Reading {
                    cpu: Duration::from_micros(*last),
                    rss_bytes: 0,
                    exited: if std::mem::replace(gone, true) {
                        Vec::new()
                    } else {
                        vec![0]
                    },
                },
            },
        }
    }
}

impl Processes {
    fn read(&mut self) -> Reading {
        let mut now = BTreeMap::new();
        let mut exited = Vec::new();
        for &root in &self.roots {
            let alive = procfs::process_use(root).is_some_and(|p| !p.zombie);
            if !alive {
                if self.gone.insert(root) {
                    exited.push(root);
                }
                continue;
            }
            for pid in procfs::tree(root) {
                if now.contains_key(&pid) {
                    continue;
                }
                if let Some(process) = procfs::process_use(pid) {
                    now.insert(pid, process);
                }
            }
        }
        // A child reaped by a parent still counted moved into the parent's
        // children's time; any other process gone takes its last time along.
        for (pid, before) in &self.seen {
            if !now.contains_key(pid) && !now.contains_key(&before.parent) {
                self.departed_ticks += before.cpu_ticks;
            }
        }
        let ticks = self.departed_ticks + now.values().map(|p| p.cpu_ticks).sum::<u64>();
        let rss_bytes = now
            .iter()
            .filter(|(_, p)| !p.zombie)
            .map(|(pid, _)| procfs::resident_bytes(*pid))
            .sum();
        self.seen = now;
        Reading {
            cpu: procfs::ticks_to_duration(ticks, self.ticks_per_second),
            rss_bytes,
            exited,
        }
    }

    /// How many processes the last reading counted.
    pub fn counted(&self) -> usize {
        self.seen.len()
    }
}
