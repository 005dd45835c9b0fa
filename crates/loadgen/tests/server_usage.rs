//! `--server-pid`: the server's CPU time as the report gives it, checked
//! against `/proc` read by the test itself right before and right after the
//! run, for the built-in target (a `loadgen serve` process of its own) and
//! for nginx (its master's PID given: the worker must be counted).

mod common;

use common::*;
use serde_json::Value;

/// A tick of `/proc/PID/stat` is 1/CLK_TCK s (10 ms on Linux). The report
/// and the test read the same counters, around the same idle moments, so
/// they can differ by about a tick: 2% of the CPU time is at least that
/// once the server has used half a second, which the runs below are sized
/// (by `-n`) to exceed.
const LEAST_CPU_S: f64 = 0.5;
const AGREEMENT: f64 = 0.02;

#[test]
fn built_in_target_cpu_agrees_with_proc() {
    let (server, addr) = serve_on_free_ports();
    let pid = server.0.id();
    let url = format!("http://{addr}/");
    let report = compare_with_proc(pid, &["-n", "150000", "-c", "8", "-t", "1", &url]);
    assert_eq!(field(&report, "/server/pids"), &serde_json::json!([pid]));
}

#[test]
fn nginx_master_and_worker_cpu_agrees_with_proc() {
    let nginx = Nginx::start();
    let master = nginx.pid();
    let workers = children(master);
    assert!(!workers.is_empty(), "nginx {master} has no worker");
    let url = nginx.http1("/");
    let before_master = own_ticks(master);
    let report = compare_with_proc(master, &["-n", "150000", "-c", "10", "--h1", &url]);
    // The master only watches its worker: nearly all of the CPU time is
    // the worker's, which only summing descendants finds.
    let master_s = (own_ticks(master) - before_master) as f64 / ticks_per_second();
    let server_s = report["server"]["cpu_s"].as_f64().unwrap();
    assert!(
        master_s < server_s / 2.0,
        "master {master_s}s of {server_s}s"
    );
}

#[test]
fn a_process_gone_is_said_once_and_counted_until_then() {
    let (server, addr) = serve_on_free_ports();
    let mut short_lived = std::process::Command::new("sleep")
        .arg("1.5")
        .spawn()
        .expect("run sleep");
    let gone = short_lived.id();
    // Reaped as soon as it exits, so /proc no longer lists it.
    let reaper = std::thread::spawn(move || short_lived.wait());
    let pids = [server.0.id().to_string(), gone.to_string()];
    let (report, output) = run_json(&[
        "-D",
        "3s",
        "-c",
        "2",
        "--rate",
        "200",
        "--server-pid",
        &pids[0],
        "--server-pid",
        &pids[1],
        &format!("http://{addr}/"),
    ]);
    reaper.join().unwrap().unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", describe(&output));
    let said = stderr(&output)
        .lines()
        .filter(|l| l.contains(&format!("server process {gone} went away")))
        .count();
    assert_eq!(said, 1, "{}", describe(&output));
    let exited = field(&report, "/server/exited").as_array().unwrap();
    assert_eq!(exited.len(), 1, "{report:#}");
    assert_eq!(exited[0]["pid"], gone);
    // Seen gone by a reading of the run (one a second, and the last at its
    // end), however slowly this machine ran it.
    let at = exited[0]["at_s"].as_f64().unwrap();
    let elapsed = field(&report, "/elapsed_s").as_f64().unwrap();
    assert!(
        at > 0.0 && at <= elapsed + 1.0,
        "went away at {at}s of {elapsed}s"
    );
    // The rest was read to the end: every second has the target's memory.
    for row in field(&report, "/intervals").as_array().unwrap() {
        assert!(row["server"]["rss_bytes"].as_u64().unwrap() > 0, "{row}");
    }
}

#[test]
fn a_pid_that_is_no_process_is_one_line_and_exit_2() {
    let output = run(&[
        "-n",
        "1",
        "--server-pid",
        "999999999",
        "http://127.0.0.1:1/",
    ]);
    assert_error(&output, 2, &["--server-pid", "999999999"]);
    assert!(output.stdout.is_empty(), "{}", describe(&output));
    let output = run(&[
        "-n",
        "1",
        "--server-cgroup",
        "/no/such/group",
        "http://127.0.0.1:1/",
    ]);
    assert_error(&output, 2, &["--server-cgroup", "/no/such/group"]);
    let own = std::process::id().to_string();
    let dir = TempDir::new("server-usage");
    let token = dir.write("token", "0123456789abcdef0123456789abcdef\n");
    let output = run(&[
        "-n",
        "1",
        "--server-pid",
        &own,
        "--workers",
        "127.0.0.1:1",
        "--token-file",
        path_str(&token),
        "http://127.0.0.1:1/",
    ]);
    assert_error(&output, 2, &["--server-pid", "--workers"]);
}

/// Runs `loadgen --json -q --server-pid PID <args>` between two readings
/// of PID's tree in `/proc`, and checks the report's CPU seconds, its
/// efficiency and each second's figures against them.
fn compare_with_proc(pid: u32, args: &[&str]) -> Value {
    let pid_arg = pid.to_string();
    let mut full = vec!["--server-pid", pid_arg.as_str()];
    full.extend_from_slice(args);
    let before = tree_ticks(pid);
    let report = run_json_ok(&full);
    let after = tree_ticks(pid);
    let proc_s = (after - before) as f64 / ticks_per_second();
    let server = field(&report, "/server");
    let cpu_s = server["cpu_s"].as_f64().unwrap();
    assert!(
        proc_s >= LEAST_CPU_S,
        "the server used {proc_s}s of CPU: too little to compare within {AGREEMENT}; {server}"
    );
    assert!(
        (cpu_s - proc_s).abs() <= proc_s * AGREEMENT,
        "report {cpu_s}s, /proc {proc_s}s"
    );
    let responses = num(&report, "/requests/succeeded") as f64;
    let efficiency = server["requests_per_cpu_s"].as_f64().unwrap();
    assert!(
        (efficiency - responses / cpu_s).abs() < 1e-6 * efficiency,
        "{server}"
    );
    let per_request = server["cpu_us_per_request"].as_f64().unwrap();
    assert!((per_request - cpu_s * 1e6 / responses).abs() < 1e-6 * per_request);
    assert!(server["samples"].as_u64().unwrap() >= 2, "{server}");
    let rss_max = server["rss_max_bytes"].as_u64().unwrap();
    assert!(rss_max >= server["rss_bytes"].as_u64().unwrap() && rss_max > 1 << 20);
    for row in field(&report, "/intervals").as_array().unwrap() {
        let pct = row["server"]["cpu_pct"].as_f64().unwrap();
        assert!(pct >= 0.0, "{row}");
        assert!(row["server"]["rss_bytes"].as_u64().unwrap() > 0, "{row}");
    }
    report
}

/// CPU ticks of `pid` and every process below it, as `/proc` has them:
/// utime + stime + cutime + cstime, fields 14 to 17 of `stat`.
fn tree_ticks(pid: u32) -> u64 {
    own_ticks(pid) + children(pid).into_iter().map(tree_ticks).sum::<u64>()
}

fn own_ticks(pid: u32) -> u64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
    let fields: Vec<u64> = stat[stat.rfind(')').unwrap() + 2..]
        .split(' ')
        .skip(11)
        .take(4)
        .map(|f| f.parse().unwrap())
        .collect();
    fields.iter().sum()
}

fn children(pid: u32) -> Vec<u32> {
    let mut found = Vec::new();
    for task in std::fs::read_dir(format!("/proc/{pid}/task")).unwrap() {
        let listed = std::fs::read_to_string(task.unwrap().path().join("children")).unwrap();
        found.extend(listed.split_whitespace().map(|c| c.parse::<u32>().unwrap()));
    }
    found
}

fn ticks_per_second() -> f64 {
    let output = std::process::Command::new("getconf")
        .arg("CLK_TCK")
        .output()
        .expect("run getconf CLK_TCK");
    String::from_utf8_lossy(&output.stdout)
        .trim()
        .parse()
        .unwrap()
}
