//! `--hdr-log` interval logs merged by tag: intervals with the same tag
//! that start in the same wall-clock second (the whole second nearest their
//! start, as for a report's rows, see [`super::intervals`]) are added into
//! one interval, which starts with the earliest of them and lasts until the
//! latest ends. The histograms add up exactly, so each merged interval holds
//! every sample its parts held.
//!
//! Interval start times are read as HdrHistogram's readers read them: after
//! a `BaseTime` relative to it; else, after a `StartTime`, relative to it
//! when they are more than a year smaller, absolute otherwise; else absolute.
//! The histograms must have loadgen's shape (1 µs to 1 hour, three
//! significant digits), which every loadgen log has; the merged log is
//! written as `--hdr-log` writes one ([`HdrLog`]), values in microseconds.

use super::wall_clock::{later, nearest_second};
use super::MergeError;
use crate::HdrLog;
use hdrhistogram::serialization::interval_log::{
    IntervalLogIterator, LogEntry, LogIteratorError, Tag,
};
use hdrhistogram::Histogram;
use loadgen_core::histogram_codec::decode;
use std::collections::BTreeMap;
use std::path::Path;
use std::time::{Duration, SystemTime};

/// HdrHistogram's readers take an interval's timestamp for an offset from
/// `StartTime` when it is this much smaller than it.
const YEAR: Duration = Duration::from_secs(365 * 24 * 3600);

/// An interval log, its times on the wall clock.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct IntervalLog {
    /// The earliest `StartTime` the log (or its parts) declared.
    pub start_time: Option<SystemTime>,
    pub intervals: Vec<LogInterval>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct LogInterval {
    pub tag: Option<String>,
    pub start: SystemTime,
    pub length: Duration,
    pub histogram: Histogram<u64>,
}

/// The interval log in the file at `path`.
pub fn read_log(path: &Path) -> Result<IntervalLog, MergeError> {
    let name = path.display().to_string();
    let bytes = std::fs::read(path).map_err(|error| MergeError::Read {
        name: name.clone(),
        error,
    })?;
    parse_log(&name, &bytes)
}

/// The interval log in `bytes`, named `name` in errors.
pub fn parse_log(name: &str, bytes: &[u8]) -> Result<IntervalLog, MergeError> {
    let mut log = IntervalLog::default();
    let mut base_time: Option<Duration> = None;
    let mut start_time: Option<Duration> = None;
    let mut entries = 0;
    for entry in IntervalLogIterator::new(bytes) {
        let entry =
            entry.map_err(
                |LogIteratorError::ParseError { offset }| MergeError::NotAReport {
                    name: name.to_string(),
                    why: format!(
                        "is not an HdrHistogram interval log (unreadable at byte {offset})"
                    ),
                },
            )?;
        entries += 1;
        // A time no clock can show: the log was altered.
        let beyond = |what: String, why: String| MergeError::Invalid {
            name: name.to_string(),
            why: format!("{what}: {why}"),
        };
        match entry {
            LogEntry::BaseTime(at) => base_time = Some(at),
            LogEntry::StartTime(at) => {
                start_time = Some(at);
                let at = later(SystemTime::UNIX_EPOCH, at)
                    .map_err(|why| beyond("StartTime".into(), why))?;
                log.start_time = Some(log.start_time.map_or(at, |t| t.min(at)));
            }
            LogEntry::Interval(interval) => {
                let index = log.intervals.len() + 1;
                let stamp = interval.start_timestamp();
                let since_epoch = match (base_time, start_time) {
                    (Some(base), _) => base.checked_add(stamp),
                    (None, Some(start)) if stamp.saturating_add(YEAR) < start => {
                        start.checked_add(stamp)
                    }
                    _ => Some(stamp),
                };
                let start = since_epoch
                    .and_then(|since| later(SystemTime::UNIX_EPOCH, since).ok())
                    .ok_or_else(|| {
                        beyond(
                            format!("interval {index}"),
                            "its start lies after 9999-12-31, beyond any time a report's clock can show".into(),
                        )
                    })?;
                // Checked once here, so that merging can add lengths freely.
                later(start, interval.duration())
                    .map_err(|why| beyond(format!("interval {index}: its length"), why))?;
                let tag = interval.tag().map(|t| t.as_str().to_string());
                // The reader takes a tag up to the next comma, across line
                // ends; a tag no writer could write would be lost, or merged
                // with the untagged intervals, when the merged log is written.
                if let Some(bad) = tag.as_deref().filter(|t| Tag::new(t).is_none()) {
                    return Err(MergeError::NotAReport {
                        name: name.to_string(),
                        why: format!(
                            "is not an HdrHistogram interval log: interval {index} has the tag \
                             {bad:?}, which holds a space or a line end"
                        ),
                    });
                }
                let histogram =
                    decode(interval.encoded_histogram()).map_err(|e| MergeError::Invalid {
                        name: name.to_string(),
                        why: format!(
                            "interval {index} (tag {}): {e}",
                            tag.as_deref().unwrap_or("none")
                        ),
                    })?;
                log.intervals.push(LogInterval {
                    tag,
                    start,
                    length: interval.duration(),
                    histogram,
                });
            }
        }
    }
    if entries == 0 {
        return Err(MergeError::NotAReport {
            name: name.to_string(),
            why: "is not an HdrHistogram interval log: no StartTime, BaseTime or interval".into(),
        });
    }
    Ok(log)
}

/// The logs added up by tag and wall-clock second, in time order; within a
/// second, tags keep the order in which the logs first name them.
pub fn merge_logs(logs: &[IntervalLog]) -> IntervalLog {
    let mut tags: Vec<Option<&str>> = Vec::new();
    let mut merged: BTreeMap<(u64, usize), LogInterval> = BTreeMap::new();
    for interval in logs.iter().flat_map(|log| &log.intervals) {
        let tag = interval.tag.as_deref();
        let tag_index = tags.iter().position(|t| *t == tag).unwrap_or_else(|| {
            tags.push(tag);
            tags.len() - 1
        });
        let key = (nearest_second(interval.start), tag_index);
        match merged.get_mut(&key) {
            None => {
                merged.insert(key, interval.clone());
            }
            Some(sum) => {
                let end = (sum.start + sum.length).max(interval.start + interval.length);
                sum.start = sum.start.min(interval.start);
                sum.length = end.duration_since(sum.start).unwrap_or_default();
                // Decoded histograms grow to take whatever the other holds.
                sum.histogram
                    .add(&interval.histogram)
                    .expect("histograms of loadgen's shape add up");
            }
        }
    }
    IntervalLog {
        start_time: logs.iter().filter_map(|log| log.start_time).min(),
        intervals: merged.into_values().collect(),
    }
}

/// Writes `log` to `path` as `--hdr-log` writes a run's (to `path.tmp`,
/// renamed when whole); its `StartTime` and `BaseTime` are the earliest of
/// its `StartTime` and its intervals' starts.
pub fn write_log(log: &IntervalLog, path: &Path, sources: usize) -> Result<(), String> {
    let base = log
        .intervals
        .iter()
        .map(|i| i.start)
        .chain(log.start_time)
        .min()
        .unwrap_or_else(SystemTime::now);
    let description = format!(
        "loadgen {}: {sources} interval logs merged; intervals with the same tag starting in \
         the same wall-clock second added; values in microseconds",
        env!("CARGO_PKG_VERSION")
    );
    let mut out = HdrLog::create_at(path, base, &description)?;
    for interval in &log.intervals {
        out.write_histogram(
            interval.tag.as_deref(),
            &interval.histogram,
            interval.start,
            interval.length,
        );
    }
    out.finish()
}

#[cfg(test)]
mod tests {
    use super::*;
    use loadgen_core::histogram;

    fn recorded(values: impl IntoIterator<Item = u64>) -> Histogram<u64> {
        let mut h = histogram::new();
        for v in values {
            histogram::record(&mut h, v);
        }
        h
    }

    struct Dir(std::path::PathBuf);

    impl Dir {
        fn new(tag: &str) -> Dir {
            let nanos = SystemTime::now()
                .duration_since(SystemTime::UNIX_EPOCH)
                .unwrap()
                .subsec_nanos();
            let path = std::env::temp_dir().join(format!(
                "loadgen-report-{tag}-{}-{nanos}",
                std::process::id()
            ));
            std::fs::create_dir_all(&path).unwrap();
            Dir(path)
        }
    }

    impl Drop for Dir {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    /// A log as `--hdr-log` writes one, opened at `base`, with one interval
    /// per second from `first` on: `request` holds `requests[i]`, `connect`
    /// one value in the first second only.
    fn write_run_log(path: &Path, base: SystemTime, first: Duration, requests: &[Vec<u64>]) {
        let mut log = HdrLog::create_at(path, base, "test run").unwrap();
        for (i, values) in requests.iter().enumerate() {
            let start = base + first + Duration::from_secs(i as u64);
            let second = Duration::from_secs(1);
            log.write_histogram(Some("request"), &recorded(values.clone()), start, second);
            let connect = recorded(if i == 0 { vec![150] } else { vec![] });
            log.write_histogram(Some("connect"), &connect, start, second);
        }
        log.finish().unwrap();
    }

    /// Every interval of the file, as the standard reader sees it.
    fn read_back(path: &Path) -> Vec<(Option<String>, Duration, Duration, Histogram<u64>)> {
        let text = std::fs::read(path).unwrap();
        assert!(text.starts_with(b"#[Histogram log format version 1.3]\n"));
        let mut intervals = Vec::new();
        for entry in IntervalLogIterator::new(&text) {
            if let LogEntry::Interval(i) = entry.expect("a valid interval log entry") {
                let h = decode(i.encoded_histogram()).expect("a V2 compressed histogram");
                let tag = i.tag().map(|t| t.as_str().to_string());
                intervals.push((tag, i.start_timestamp(), i.duration(), h));
            }
        }
        intervals
    }

    #[test]
    fn intervals_of_the_same_tag_and_second_add_up() {
        let dir = Dir::new("hdr-merge");
        let t0 = SystemTime::UNIX_EPOCH + Duration::from_millis(1_795_314_876_000);
        let a = dir.0.join("a.hlog");
        let b = dir.0.join("b.hlog");
        let a_values = vec![(1..=1000).collect::<Vec<u64>>(), (500..=700).collect()];
        let b_values = vec![vec![5_000; 30], vec![9, 10], vec![77]];
        // `a` runs from t0 + 0.1 s, `b` from t0 + 0.3 s: their seconds line up.
        write_run_log(&a, t0, Duration::from_millis(100), &a_values);
        write_run_log(
            &b,
            t0 + Duration::from_millis(250),
            Duration::from_millis(50),
            &b_values,
        );

        let logs = [read_log(&a).unwrap(), read_log(&b).unwrap()];
        assert_eq!(logs[0].start_time, Some(t0));
        let merged = merge_logs(&logs);
        let out = dir.0.join("merged.hlog");
        write_log(&merged, &out, 2).unwrap();
        let read = read_back(&out);

        let requests: Vec<_> = read
            .iter()
            .filter(|(tag, ..)| tag.as_deref() == Some("request"))
            .collect();
        assert_eq!(requests.len(), 3);
        let first = &requests[0];
        let both: Vec<u64> = a_values[0].iter().chain(&b_values[0]).copied().collect();
        assert_eq!(first.3, recorded(both));
        // Starts are written relative to the merged log's BaseTime, the
        // earliest StartTime (t0); the first second spans both logs' windows.
        assert_eq!(first.1, Duration::from_millis(100));
        assert_eq!(first.2, Duration::from_millis(1200));
        assert_eq!(requests[1].1, Duration::from_millis(1100));
        assert_eq!(requests[1].3.len(), 201 + 2);
        assert_eq!(requests[2].3.len(), 1);
        let connects: Vec<u64> = read
            .iter()
            .filter(|(tag, ..)| tag.as_deref() == Some("connect"))
            .map(|i| i.3.len())
            .collect();
        assert_eq!(connects, [2, 0, 0]);
        // Within a second the tags keep their order.
        let tags: Vec<_> = read.iter().map(|i| i.0.clone().unwrap()).collect();
        assert_eq!(tags[..2], ["request".to_string(), "connect".to_string()]);
    }

    #[test]
    fn intervals_more_than_half_a_second_apart_stay_apart() {
        let dir = Dir::new("hdr-apart");
        let t0 = SystemTime::UNIX_EPOCH + Duration::from_secs(1_795_314_876);
        let a = dir.0.join("a.hlog");
        let b = dir.0.join("b.hlog");
        write_run_log(&a, t0, Duration::ZERO, &[vec![1, 2, 3]]);
        write_run_log(&b, t0, Duration::from_millis(600), &[vec![4]]);
        let merged = merge_logs(&[read_log(&a).unwrap(), read_log(&b).unwrap()]);
        let requests: Vec<u64> = merged
            .intervals
            .iter()
            .filter(|i| i.tag.as_deref() == Some("request"))
            .map(|i| i.histogram.len())
            .collect();
        assert_eq!(requests, [3, 1]);
    }

    #[test]
    fn timestamps_follow_base_and_start_time() {
        let histogram = loadgen_core::histogram_codec::encode(&recorded([42]));
        let with_base = format!(
            "#[StartTime: 1000.000 (seconds since epoch)]\n#[BaseTime: 2000.500 (seconds since epoch)]\n\
             Tag=x,1.000,1.000,0.042,{histogram}\n"
        );
        let start_only = format!(
            "#[StartTime: 1795314876.000 (seconds since epoch)]\n1.250,1.000,0.042,{histogram}\n\
             1795314999.000,1.000,0.042,{histogram}\n"
        );
        let neither = format!("1795314876.000,1.000,0.042,{histogram}\n");
        let at = |s: f64| SystemTime::UNIX_EPOCH + Duration::from_secs_f64(s);
        let starts = |text: &str| -> Vec<SystemTime> {
            let log = parse_log("t.hlog", text.as_bytes()).unwrap();
            log.intervals.iter().map(|i| i.start).collect()
        };
        assert_eq!(starts(&with_base), [at(2001.5)]);
        assert_eq!(
            starts(&start_only),
            [at(1_795_314_877.25), at(1_795_314_999.0)]
        );
        assert_eq!(starts(&neither), [at(1_795_314_876.0)]);
        let log = parse_log("t.hlog", with_base.as_bytes()).unwrap();
        assert_eq!(log.intervals[0].tag.as_deref(), Some("x"));
        assert_eq!(log.start_time, Some(at(1000.0)));
    }

    #[test]
    fn refuses_what_is_not_a_loadgen_log() {
        for junk in [&b"hello\n"[..], b"", b"{\"requests\": 1}\n"] {
            let err = parse_log("junk.hlog", junk).unwrap_err();
            assert!(
                err.to_string()
                    .contains("'junk.hlog' is not an HdrHistogram"),
                "{err}"
            );
        }
        let coarse = Histogram::<u64>::new_with_bounds(1, 1000, 2).unwrap();
        let text = format!(
            "Tag=request,0.000,1.000,0.0,{}\n",
            loadgen_core::histogram_codec::encode(&coarse)
        );
        let err = parse_log("coarse.hlog", text.as_bytes()).unwrap_err();
        let message = err.to_string();
        assert!(
            message.contains("coarse.hlog") && message.contains("interval 1 (tag request)"),
            "{message}"
        );
        assert!(!message.contains('\n'));
    }

    #[test]
    fn refuses_times_no_clock_can_show() {
        // Found by the merge_input fuzz target: each of these panicked.
        let histogram = loadgen_core::histogram_codec::encode(&recorded([42]));
        let cases = [
            format!(
                "#[BaseTime: 9223372036.000 (seconds since epoch)]\n\
                 Tag=a,9223372036854775807.000,1.000,0.0,{histogram}\n"
            ),
            format!("Tag=a,1.000,18446744073709551615.000,0.0,{histogram}\n"),
            // Within what a `SystemTime` holds, but written back as
            // 9223372036854775808 s, which no longer is.
            format!(
                "#[BaseTime: 36.000 (seconds since epoch)]\n\
                 Tag=a,9223372036854775806.000,1.000,0.0,{histogram}\n"
            ),
            // A millisecond after the last one of 9999.
            format!("Tag=a,253402300800.000,1.000,0.0,{histogram}\n"),
            format!(
                "#[StartTime: 18446744073709551615.000 (seconds since epoch)]\n\
                 Tag=a,1.000,1.000,0.0,{histogram}\n"
            ),
        ];
        for text in cases {
            let err = parse_log("far.hlog", text.as_bytes()).unwrap_err();
            let message = err.to_string();
            assert!(
                message.contains("'far.hlog'") && message.contains("clock can show"),
                "{message}"
            );
        }
    }

    #[test]
    fn refuses_a_tag_no_log_writer_could_have_written() {
        // The reader takes the tag up to the next comma, here across a
        // line end; written back, the interval would lose its tag.
        let histogram = loadgen_core::histogram_codec::encode(&recorded([42]));
        let text = format!("Tag=request\nTag=connect,0.000,1.000,0.042,{histogram}\n");
        let err = parse_log("torn.hlog", text.as_bytes()).unwrap_err();
        let message = err.to_string();
        assert!(
            message.contains("torn.hlog") && message.contains("interval 1 has the tag"),
            "{message}"
        );
        assert!(!message.contains('\n'), "{message}");
    }
}
