//! Ways to put a real network between loadgen and a server, for
//! `network.rs`: Toxiproxy for TCP (latency, jitter, bandwidth, slow closes,
//! stalls), a delaying UDP relay for QUIC, and namespaces joined by a veth
//! pair for packet loss (nftables) and a bandwidth cap (`tbf`). This
//! kernel has no netem, so each is built from parts that do exist.

#![allow(dead_code)]

pub mod namespaces;
pub mod toxiproxy;
pub mod udp_relay;
