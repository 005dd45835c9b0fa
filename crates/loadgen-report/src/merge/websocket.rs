//! The `websocket` part of reports added up: counts and close codes add,
//! and the upgrade time is the sum of the reports' upgrade histograms.

use super::counts::Adder;
use super::MergeError;
use hdrhistogram::Histogram;
use loadgen_core::histogram;
use loadgen_core::histogram_codec::{decode, encode};
use loadgen_core::report::{TimeStats, WebSocketStats};
use loadgen_core::Report;

/// The merged `websocket` object and its upgrade histogram (encoded), or
/// `None` when no report has one.
pub fn merge(
    sources: &[super::Source],
    adder: &mut Adder,
) -> Result<Option<(WebSocketStats, String)>, MergeError> {
    let with_websocket: Vec<(&str, &Report, &WebSocketStats)> = sources
        .iter()
        .filter_map(|s| Some((s.name.as_str(), &s.report, s.report.websocket.as_ref()?)))
        .collect();
    if with_websocket.is_empty() {
        return Ok(None);
    }
    let mut sum = WebSocketStats {
        messages_sent: 0,
        messages_received: 0,
        upgrades: 0,
        upgrade_failures: 0,
        close_codes: Default::default(),
        upgrade_time: TimeStats::default(),
    };
    let mut upgrade_time: Histogram<u64> = histogram::new();
    for (name, report, ws) in with_websocket {
        adder.add(
            "websocket.messages_sent",
            &mut sum.messages_sent,
            ws.messages_sent,
        );
        adder.add(
            "websocket.messages_received",
            &mut sum.messages_received,
            ws.messages_received,
        );
        adder.add("websocket.upgrades", &mut sum.upgrades, ws.upgrades);
        adder.add(
            "websocket.upgrade_failures",
            &mut sum.upgrade_failures,
            ws.upgrade_failures,
        );
        for (code, n) in &ws.close_codes {
            let slot = sum.close_codes.entry(code.clone()).or_default();
            adder.add("websocket.close_codes", slot, *n);
        }
        let text = report
            .histograms
            .as_ref()
            .and_then(|h| h.upgrade_time.as_deref())
            .ok_or_else(|| MergeError::Invalid {
                name: name.to_string(),
                why: "has a websocket object but no histograms.upgrade_time".into(),
            })?;
        let theirs = decode(text).map_err(|e| MergeError::Invalid {
            name: name.to_string(),
            why: format!("histograms.upgrade_time: {e}"),
        })?;
        if theirs.len() != ws.upgrade_time.count {
            return Err(MergeError::Invalid {
                name: name.to_string(),
                why: format!(
                    "histograms.upgrade_time holds {} samples where websocket.upgrade_time.count is {}",
                    theirs.len(),
                    ws.upgrade_time.count
                ),
            });
        }
        upgrade_time
            .add(&theirs)
            .expect("histograms of loadgen's shape add up");
    }
    sum.upgrade_time = TimeStats::of(&upgrade_time);
    Ok(Some((sum, encode(&upgrade_time))))
}
