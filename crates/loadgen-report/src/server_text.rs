//! The server's lines under h2load's layout (`--server-pid`,
//! `--server-cgroup`), in h2load's units.

use crate::units::{dtos, duration_us, funit};
use loadgen_core::server_usage::ServerStats;
use std::fmt::Write;

pub fn render(server: &ServerStats) -> String {
    let mut o = String::new();
    let what = match &server.cgroup {
        Some(cgroup) => format!("cgroup {cgroup}"),
        None => {
            let pids: Vec<String> = server.pids.iter().map(ToString::to_string).collect();
            format!("pid {} with descendants", pids.join(", "))
        }
    };
    let _ = writeln!(o, "\nserver ({what}), {} samples:", server.samples);
    let _ = writeln!(
        o,
        "CPU time        : {}, {}% of one core",
        duration_us(server.cpu_s * 1e6),
        dtos(server.cpu_pct)
    );
    let _ = writeln!(
        o,
        "efficiency      : {} req/CPU-s, {} CPU per request",
        dtos(server.requests_per_cpu_s),
        duration_us(server.cpu_us_per_request)
    );
    if server.rss_max_bytes == 0 && server.cgroup.is_some() {
        // A cgroup without the memory controller has no memory.current.
        let _ = writeln!(
            o,
            "memory          : not read (no memory.current in the cgroup)"
        );
    } else {
        let _ = writeln!(
            o,
            "memory          : {}B at the end, {}B at most",
            funit(server.rss_bytes as f64),
            funit(server.rss_max_bytes as f64)
        );
    }
    for exited in &server.exited {
        let what = match exited.pid {
            0 => "the cgroup".to_string(),
            pid => format!("pid {pid}"),
        };
        let _ = writeln!(
            o,
            "went away       : {what}, {}s into the run; counted until then",
            dtos(exited.at_s)
        );
    }
    o
}

#[cfg(test)]
mod tests {
    use super::*;
    use loadgen_core::server_usage::ExitedProcess;

    #[test]
    fn shows_totals_and_processes_gone() {
        let server = ServerStats {
            pids: vec![100, 200],
            cgroup: None,
            cpu_s: 1.5,
            cpu_pct: 75.0,
            requests_per_cpu_s: 20000.0,
            cpu_us_per_request: 50.0,
            rss_bytes: 3 * 1024 * 1024,
            rss_max_bytes: 4 * 1024 * 1024,
            samples: 4,
            exited: vec![ExitedProcess {
                pid: 200,
                at_s: 1.0,
            }],
        };
        assert_eq!(
            render(&server),
            "\nserver (pid 100, 200 with descendants), 4 samples:\n\
             CPU time        : 1.50s, 75.00% of one core\n\
             efficiency      : 20000.00 req/CPU-s, 50us CPU per request\n\
             memory          : 3.00MB at the end, 4.00MB at most\n\
             went away       : pid 200, 1.00s into the run; counted until then\n"
        );
    }
}
