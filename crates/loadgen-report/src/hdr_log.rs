//! `--hdr-log FILE`: the run's intervals as an HdrHistogram interval log
//! (format 1.3, V2 compressed histograms, values in microseconds), readable
//! by HdrHistogram's standard log tools. Written to a temporary file and
//! renamed when the run ends, so the file is whole or absent.

use hdrhistogram::serialization::interval_log::{IntervalLogWriterBuilder, Tag};
use hdrhistogram::serialization::V2DeflateSerializer;
use hdrhistogram::Histogram;
use loadgen_core::interval::Interval;
use loadgen_core::whole_file;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

/// The tag of each histogram an interval contributes, in log order.
pub const TAGS: [&str; 4] = ["request", "request_raw", "connect", "first_byte"];

pub struct HdrLog {
    path: PathBuf,
    tmp: PathBuf,
    out: BufWriter<File>,
    serializer: V2DeflateSerializer,
    base: SystemTime,
    error: Option<std::io::Error>,
}

impl HdrLog {
    /// A log for a run about to start, its `StartTime` and `BaseTime` now.
    pub fn create(path: &Path) -> Result<HdrLog, String> {
        let description = format!(
            "loadgen {}: request time (corrected: from the intended start), request_raw \
             (from the send), connect and first_byte; a scenario run adds step:NAME and \
             step:NAME:raw for each step; values in microseconds",
            env!("CARGO_PKG_VERSION")
        );
        HdrLog::create_at(path, SystemTime::now(), &description)
    }

    /// A log whose `StartTime` and `BaseTime` are `base`, every interval
    /// written after it; `description` is its comment line.
    pub fn create_at(path: &Path, base: SystemTime, description: &str) -> Result<HdrLog, String> {
        let tmp = whole_file::tmp_path(path);
        let fail = |e: std::io::Error| format!("--hdr-log: cannot write '{}': {e}", path.display());
        if path.is_dir() {
            return Err(fail(std::io::Error::other("it is a directory")));
        }
        let mut out = BufWriter::new(File::create(&tmp).map_err(fail)?);
        let mut serializer = V2DeflateSerializer::new();
        writeln!(out, "#[Histogram log format version 1.3]").map_err(fail)?;
        IntervalLogWriterBuilder::new()
            .add_comment(description)
            .with_start_time(base)
            .with_base_time(base)
            .with_max_value_divisor(1000.0)
            .begin_log_with(&mut out, &mut serializer)
            .map_err(fail)?;
        // The column legend standard readers expect before the first interval.
        writeln!(
            out,
            "\"StartTimestamp\",\"Interval_Length\",\"Interval_Max\",\"Interval_Compressed_Histogram\""
        )
        .map_err(fail)?;
        Ok(HdrLog {
            path: path.to_path_buf(),
            tmp,
            out,
            serializer,
            base,
            error: None,
        })
    }

    /// Appends one tagged line per histogram of the interval.
    pub fn write(&mut self, interval: &Interval) {
        let w = &interval.window;
        let histograms: [&Histogram<u64>; 4] = [
            &w.request_time,
            &w.request_time_raw,
            &w.connect_time,
            &w.first_byte_time,
        ];
        for (tag, histogram) in TAGS.iter().zip(histograms) {
            self.write_histogram(Some(tag), histogram, interval.started_at, interval.length);
        }
        for step in &w.steps {
            let tag = step_tag(&step.name);
            let raw = format!("{tag}:raw");
            self.write_histogram(
                Some(&tag),
                &step.duration,
                interval.started_at,
                interval.length,
            );
            self.write_histogram(
                Some(&raw),
                &step.duration_raw,
                interval.started_at,
                interval.length,
            );
        }
    }

    /// Appends one line: `histogram`, recorded from `start` for `length`,
    /// with `tag` if any. After a failed write, nothing more is written and
    /// [`HdrLog::finish`] reports the error.
    pub fn write_histogram(
        &mut self,
        tag: Option<&str>,
        histogram: &Histogram<u64>,
        start: SystemTime,
        length: Duration,
    ) {
        if self.error.is_some() {
            return;
        }
        let start = start.duration_since(self.base).unwrap_or_default();
        if let Err(e) = self.write_line(tag, histogram, start, length) {
            self.error = Some(e);
        }
    }

    /// The crate writes lines only through a log writer, which starts with
    /// the header; the header lines of this scratch log are dropped.
    fn write_line(
        &mut self,
        tag: Option<&str>,
        histogram: &Histogram<u64>,
        start: Duration,
        length: Duration,
    ) -> std::io::Result<()> {
        let mut scratch = Vec::new();
        let mut writer = IntervalLogWriterBuilder::new()
            .with_max_value_divisor(1000.0)
            .begin_log_with(&mut scratch, &mut self.serializer)?;
        writer
            .write_histogram(histogram, start, length, tag.and_then(Tag::new))
            .map_err(|e| std::io::Error::other(format!("{e:?}")))?;
        // The scratch log holds only the MaxValueDivisor header before the line.
        let text = String::from_utf8_lossy(&scratch);
        for line in text.lines().filter(|l| !l.starts_with('#')) {
            writeln!(self.out, "{line}")?;
        }
        Ok(())
    }

    /// Appends a comment line, `#TEXT` (line ends in `text` become
    /// spaces); readers of the format skip it.
    pub fn comment(&mut self, text: &str) {
        if self.error.is_some() {
            return;
        }
        let text = text.replace(['\r', '\n'], " ");
        if let Err(e) = writeln!(self.out, "#{text}") {
            self.error = Some(e);
        }
    }

    /// The run failed: no log at all.
    pub fn discard(self) {
        let _ = std::fs::remove_file(&self.tmp);
    }

    pub fn finish(mut self) -> Result<(), String> {
        let fail =
            |e: std::io::Error| format!("--hdr-log: cannot write '{}': {e}", self.path.display());
        let written = match self.error.take() {
            Some(e) => Err(e),
            None => self.out.flush(),
        };
        if let Err(e) = written {
            let _ = std::fs::remove_file(&self.tmp);
            return Err(fail(e));
        }
        whole_file::put_in_place(&self.tmp, &self.path).map_err(fail)
    }
}

/// A scenario step's tag, `step:NAME` (`step:NAME:raw` for the raw
/// latency): a tag may hold neither commas nor white space, so each becomes
/// `_` (`log in` is `step:log_in`).
pub fn step_tag(name: &str) -> String {
    let name: String = name
        .chars()
        .map(|c| {
            if c == ',' || c.is_whitespace() {
                '_'
            } else {
                c
            }
        })
        .collect();
    format!("step:{name}")
}
