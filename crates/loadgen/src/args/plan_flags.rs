//! How the plan's fields are spelled on this command line, so that an
//! error from the engine names the flag the user typed.

use crate::args::bench::BenchArgs;
use loadgen_core::PlanField;

/// The flag that sets `field`, given what was typed (`--h3` or `--alpn-list h3`).
pub fn flag_of(field: PlanField, args: &BenchArgs) -> &'static str {
    match field {
        PlanField::Uris => "URI",
        PlanField::BaseUri => "-B/--base-uri",
        PlanField::ConnectTo => "--connect-to",
        PlanField::Alpn => "--alpn-list",
        PlanField::AlpnHttp3 if args.h3 => "--h3",
        PlanField::AlpnHttp3 => "--alpn-list",
        PlanField::Cleartext => "-p",
        PlanField::Clients => "-c",
        PlanField::Threads => "-t",
        PlanField::MaxConcurrentStreams => "-m",
        PlanField::Requests => "-n",
        PlanField::Duration => "-D",
        PlanField::Method => "--method",
        PlanField::Headers => "-H",
        PlanField::ConnectTimeout => "--connect-timeout",
        PlanField::RequestTimeout => "--request-timeout",
        PlanField::ConnectionActiveTimeout => "-T",
        PlanField::ConnectionInactivityTimeout => "-N",
        PlanField::TlsCaFile => "--tls-ca",
        PlanField::TlsSni => "--sni",
        PlanField::TlsCiphers => "--ciphers",
        PlanField::Tls13Ciphers => "--tls13-ciphers",
        PlanField::TlsGroups => "--groups",
        PlanField::WindowBits => "-w",
        PlanField::ConnectionWindowBits => "-W",
        PlanField::MaxFrameSize => "-f",
        PlanField::HeaderTableSize => "--header-table-size",
        PlanField::MaxUdpPayloadSize => "--max-udp-payload-size",
        PlanField::QlogFileBase => "--qlog-file-base",
        PlanField::Rps => "--rps",
        PlanField::Rate => "--rate",
        PlanField::Stages => "--stages",
        PlanField::TimingScript => "--timing-script-file",
        PlanField::ConnectionRate => "-r/--rate-period",
        PlanField::LogFile => "--log-file",
        PlanField::ExecutionSegment if args.split.shard.is_some() => "--shard",
        PlanField::ExecutionSegment => "--execution-segment",
        PlanField::ExecutionSegmentSequence => "--execution-segment-sequence",
        PlanField::WebSocketMessage if args.ws_message_file.is_some() => "--ws-message-file",
        PlanField::WebSocketMessage => "--ws-message",
        PlanField::WebSocketBinary => "--ws-binary",
        PlanField::WebSocketHttp2 => "--ws-http2",
        PlanField::WebSocketExpect => "--ws-expect",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::{CommandFactory, Parser};

    #[derive(Parser)]
    struct Bench {
        #[command(flatten)]
        bench: BenchArgs,
    }

    #[test]
    fn every_plan_field_names_a_flag_the_command_has() {
        let command = Bench::command();
        let spelled: Vec<String> = command
            .get_arguments()
            .flat_map(|arg| {
                let short = arg.get_short().map(|c| format!("-{c}"));
                let long = arg.get_long().map(|l| format!("--{l}"));
                short.into_iter().chain(long)
            })
            .collect();
        let args = Bench::try_parse_from(["loadgen", "http://a/"])
            .unwrap()
            .bench;
        for field in PlanField::ALL {
            let flag = flag_of(field, &args);
            if flag == "URI" {
                continue;
            }
            for part in flag.split('/') {
                assert!(
                    spelled.iter().any(|s| s == part),
                    "{field:?} maps to {part}, which loadgen does not have"
                );
            }
        }
    }
}
