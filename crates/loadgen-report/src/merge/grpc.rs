//! The `grpc` part of reports added up: calls by status name add.

use super::counts::Adder;
use loadgen_core::report::GrpcStats;

/// The merged `grpc` object, or `None` when no report has one.
pub fn merge(sources: &[super::Source], adder: &mut Adder) -> Option<GrpcStats> {
    let mut merged: Option<GrpcStats> = None;
    for grpc in sources.iter().filter_map(|s| s.report.grpc.as_ref()) {
        let sum = merged.get_or_insert_with(GrpcStats::default);
        for (name, n) in &grpc.statuses {
            let slot = sum.statuses.entry(name.clone()).or_default();
            adder.add("grpc.statuses", slot, *n);
        }
        // The first report (in the order given) that has one speaks for a status.
        for (name, message) in &grpc.first_messages {
            sum.first_messages
                .entry(name.clone())
                .or_insert_with(|| message.clone());
        }
    }
    merged
}
