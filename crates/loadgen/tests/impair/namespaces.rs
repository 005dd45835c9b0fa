//! Two network namespaces of a test's own joined by a veth pair, so a link
//! between client and server can lose packets (nftables) or be capped
//! (`tbf`) without touching the host's networking:
//!
//! ```text
//!   client namespace  vc 10.77.0.2 ──veth── 10.77.0.1 vs  server namespace
//! ```
//!
//! Both namespaces are deleted when the pair is dropped.

use std::fs::File;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::os::fd::AsRawFd;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};

use loadgen_target::{Target, TargetConfig};

use crate::common::{TempDir, TestTarget};

pub const SERVER_IP: Ipv4Addr = Ipv4Addr::new(10, 77, 0, 1);
const CLIENT_CIDR: &str = "10.77.0.2/30";
const SERVER_CIDR: &str = "10.77.0.1/30";
/// The veth ends, named the same in every pair: each is alone in its namespace.
const CLIENT_END: &str = "vc";
const SERVER_END: &str = "vs";

pub struct Link {
    pub client: String,
    pub server: String,
}

impl Link {
    /// A new pair of namespaces named after `tag`, this process and a count,
    /// so tests running at once each have their own.
    pub fn create(tag: &str) -> Link {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let base = format!("lgnet-{tag}-{}-{n}", std::process::id());
        let link = Link {
            client: format!("{base}-c"),
            server: format!("{base}-s"),
        };
        // Dropped from here on, whatever fails below, both are deleted.
        ip(&["netns", "add", &link.client]);
        ip(&["netns", "add", &link.server]);
        let (c, s) = (link.client.as_str(), link.server.as_str());
        for args in [
            vec![
                "-n", c, "link", "add", CLIENT_END, "type", "veth", "peer", "name", SERVER_END,
                "netns", s,
            ],
            vec!["-n", c, "addr", "add", CLIENT_CIDR, "dev", CLIENT_END],
            vec!["-n", s, "addr", "add", SERVER_CIDR, "dev", SERVER_END],
            vec!["-n", c, "link", "set", CLIENT_END, "up"],
            vec!["-n", s, "link", "set", SERVER_END, "up"],
            vec!["-n", c, "link", "set", "lo", "up"],
            vec!["-n", s, "link", "set", "lo", "up"],
        ] {
            ip(&args);
        }
        link
    }

    /// The built-in target listening on the server's veth address (cleartext
    /// on 8080, TLS and QUIC on 8443), in this process: its sockets are made
    /// in the server namespace, so its counts can be read as in any test.
    pub fn start_target(&self) -> TestTarget {
        let netns = netns_path(&self.server);
        std::thread::spawn(move || {
            let namespace = File::open(&netns)
                .unwrap_or_else(|e| panic!("cannot open {}: {e}", netns.display()));
            // SAFETY: setns(2) on a namespace file we hold open; it moves
            // this short-lived thread only, which binds the target's sockets.
            let entered = unsafe { libc::setns(namespace.as_raw_fd(), libc::CLONE_NEWNET) };
            assert_eq!(
                entered,
                0,
                "setns {}: {}",
                netns.display(),
                std::io::Error::last_os_error()
            );
            let ip = IpAddr::V4(SERVER_IP);
            let target = Target::start(TargetConfig {
                clear_addr: Some(SocketAddr::new(ip, 8080)),
                tls_addr: Some(SocketAddr::new(ip, 8443)),
                threads: 2,
                ..TargetConfig::default()
            })
            .expect("start the built-in target");
            TestTarget {
                target,
                dir: TempDir::new("netns-target"),
            }
        })
        .join()
        .expect("start the target in the server namespace")
    }

    /// Drops `percent` of the packets crossing the server's veth end, each
    /// way, at random: nftables on the device's ingress and egress hooks,
    /// below the sockets, so senders see a lossy link and no local error.
    pub fn drop_percent(&self, percent: u32, dir: &Path) {
        let rules = format!(
            "table netdev loss {{\n\
             \tchain ingress {{ type filter hook ingress device \"{SERVER_END}\" priority 0; \
             numgen random mod 100 < {percent} counter drop; }}\n\
             \tchain egress {{ type filter hook egress device \"{SERVER_END}\" priority 0; \
             numgen random mod 100 < {percent} counter drop; }}\n\
             }}\n"
        );
        let file = dir.join(format!("{}.nft", self.server));
        std::fs::write(&file, rules).expect("write the nftables rules");
        let file = file.to_str().expect("UTF-8 path");
        checked(&mut in_namespace(&self.server, "nft", &["-f", file]));
    }

    /// Packets dropped so far by [`Link::drop_percent`]'s rules: (towards
    /// the server, towards the client).
    pub fn dropped(&self) -> (u64, u64) {
        let listing = checked(&mut in_namespace(
            &self.server,
            "nft",
            &["list", "table", "netdev", "loss"],
        ));
        let count = |chain: &str| {
            let text = listing.split(&format!("chain {chain} ")).nth(1)?;
            let after = text.split("counter packets ").nth(1)?;
            after.split_whitespace().next()?.parse().ok()
        };
        match (count("ingress"), count("egress")) {
            (Some(to_server), Some(to_client)) => (to_server, to_client),
            _ => panic!("no drop counters in:\n{listing}"),
        }
    }

    /// Caps what the server sends with a token bucket filter (`tbf`) on its
    /// veth end, `rate` as tc spells it (`10mbit`).
    pub fn cap_server_egress(&self, rate: &str) {
        checked(tool("tc").args([
            "-n",
            &self.server,
            "qdisc",
            "add",
            "dev",
            SERVER_END,
            "root",
            "tbf",
            "rate",
            rate,
            "burst",
            "32kbit",
            "latency",
            "400ms",
        ]));
    }

    /// `ip netns exec <client namespace> <program> <args>`.
    pub fn in_client(&self, program: &Path, args: &[&str]) -> Command {
        let mut cmd = tool("ip");
        cmd.args(["netns", "exec", &self.client])
            .arg(program)
            .args(args);
        cmd
    }
}

impl Drop for Link {
    fn drop(&mut self) {
        // Deleting a namespace deletes the veth pair and the rules in it.
        for ns in [&self.client, &self.server] {
            let _ = tool("ip")
                .args(["netns", "del", ns])
                .stdin(Stdio::null())
                .output();
        }
    }
}

fn netns_path(name: &str) -> PathBuf {
    Path::new("/var/run/netns").join(name)
}

fn in_namespace(ns: &str, program: &str, args: &[&str]) -> Command {
    let mut cmd = tool("ip");
    cmd.args(["netns", "exec", ns]).arg(program).args(args);
    cmd
}

/// A system tool from PATH, or where Debian installs it when /usr/sbin is
/// not on PATH; fails the test with what to install when it is missing.
fn tool(name: &str) -> Command {
    let on_path = std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|dir| dir.join(name))
            .find(|p| p.is_file())
    });
    let found = on_path.or_else(|| {
        ["/usr/sbin", "/sbin"]
            .iter()
            .map(|dir| Path::new(dir).join(name))
            .find(|p| p.is_file())
    });
    match found {
        Some(path) => Command::new(path),
        None => panic!(
            "{name} is not installed, and these tests need it: run scripts/test, \
             which installs it, or `apt-get install iproute2 nftables`"
        ),
    }
}

fn ip(args: &[&str]) {
    checked(tool("ip").args(args));
}

/// Runs `cmd`, failing the test with its standard error unless it succeeds;
/// its standard output.
fn checked(cmd: &mut Command) -> String {
    let shown = format!("{cmd:?}");
    let output: Output = cmd
        .stdin(Stdio::null())
        .output()
        .unwrap_or_else(|e| panic!("cannot run {shown}: {e}"));
    assert!(
        output.status.success(),
        "{shown}: {}",
        String::from_utf8_lossy(&output.stderr).trim()
    );
    String::from_utf8_lossy(&output.stdout).into_owned()
}
