//! `--hdr-log` for a distributed run: the merged report's seconds (every
//! worker that reported, added up exactly), tagged as a local run's.

use loadgen_core::histogram_codec;
use loadgen_core::Report;
use loadgen_report::hdr_log::TAGS;
use loadgen_report::merge::parse_rfc3339;
use loadgen_report::HdrLog;
use std::time::Duration;

/// Appends every row of `report` to `log`.
pub fn write_rows(report: &Report, log: &mut HdrLog) -> Result<(), String> {
    let started = parse_rfc3339(&report.started_at)?;
    for row in &report.intervals {
        let Some(encoded) = &row.histograms else {
            return Err("--hdr-log: a merged second has no histograms".into());
        };
        let texts = [
            &encoded.request_time,
            &encoded.request_time_raw,
            &encoded.connect_time,
            &encoded.first_byte_time,
        ];
        let start = started + Duration::from_secs_f64(row.start_s.max(0.0));
        let length = Duration::from_secs_f64(row.duration_s.max(0.0));
        for (tag, text) in TAGS.iter().zip(texts) {
            let histogram = histogram_codec::decode(text)
                .map_err(|e| format!("--hdr-log: a merged histogram does not decode: {e}"))?;
            log.write_histogram(Some(tag), &histogram, start, length);
        }
    }
    Ok(())
}
