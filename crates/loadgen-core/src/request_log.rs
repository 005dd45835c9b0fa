//! h2load's `--log-file`: one line per measured request,
//! `START<TAB>STATUS<TAB>DURATION`, START in µs since the Unix epoch when the
//! request was sent, STATUS the response's code or -1 when none came (error,
//! reset, timeout), DURATION in µs from the send to the end of the response
//! or of the failure.
//!
//! Each worker thread fills a buffer of its own and appends it to the file
//! whenever it holds [`FLUSH_AT`] bytes, in whole lines: threads never split
//! each other's lines and nothing is shared per request. With one thread the
//! lines come in the order requests ended; with several, in runs per thread.

use crate::plan_error::{PlanError, PlanField};
use crate::whole_file;
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Instant, SystemTime, UNIX_EPOCH};

const FLUSH_AT: usize = 64 * 1024;

/// The log file of a run, written whole or not at all ([`whole_file`]).
pub struct LogFile {
    file: Arc<File>,
    path: PathBuf,
    tmp: PathBuf,
    done: bool,
}

impl LogFile {
    pub fn create(path: &Path) -> Result<LogFile, PlanError> {
        if path.is_dir() {
            return Err(PlanError::new(
                PlanField::LogFile,
                format!("cannot write {}: it is a directory", path.display()),
            ));
        }
        let tmp = whole_file::tmp_path(path);
        // Appending: every thread's writes land after each other, never over.
        let file = OpenOptions::new()
            .create(true)
            .append(true)
            .open(&tmp)
            .and_then(|file| file.set_len(0).map(|()| file))
            .map_err(|e| {
                PlanError::new(
                    PlanField::LogFile,
                    format!("cannot write {}: {e}", path.display()),
                )
            })?;
        Ok(LogFile {
            file: Arc::new(file),
            path: path.to_path_buf(),
            tmp,
            done: false,
        })
    }

    /// A log for one worker thread, on the run's start at both clocks.
    pub fn thread_log(&self, origin: Instant, origin_wall: SystemTime) -> RequestLog {
        RequestLog::new(self.file.clone(), origin, origin_wall)
    }

    /// Puts the log in place, unless a thread could not write its part
    /// (`error`); returns why the log is missing, if it is.
    pub fn finish(mut self, error: Option<String>) -> Option<PlanError> {
        self.done = true;
        if let Some(error) = error {
            let _ = std::fs::remove_file(&self.tmp);
            return Some(PlanError::new(PlanField::LogFile, error));
        }
        whole_file::put_in_place(&self.tmp, &self.path)
            .err()
            .map(|e| {
                PlanError::new(
                    PlanField::LogFile,
                    format!("cannot write {}: {e}", self.path.display()),
                )
            })
    }
}

impl Drop for LogFile {
    fn drop(&mut self) {
        if !self.done {
            let _ = std::fs::remove_file(&self.tmp);
        }
    }
}

#[derive(Clone, Debug)]
pub struct RequestLog {
    file: Arc<File>,
    buffer: Vec<u8>,
    /// The run's start on both clocks, to turn an `Instant` into wall time.
    origin: Instant,
    origin_unix_us: u64,
    /// The first write error; logging stops there.
    error: Option<String>,
}

impl RequestLog {
    fn new(file: Arc<File>, origin: Instant, origin_wall: SystemTime) -> Self {
        let origin_unix_us = origin_wall
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_micros() as u64);
        RequestLog {
            file,
            buffer: Vec::with_capacity(FLUSH_AT + 64),
            origin,
            origin_unix_us,
            error: None,
        }
    }

    /// One request: `status` is `None` when no response came.
    pub fn record(&mut self, sent: Instant, status: Option<u16>, end: Instant) {
        if self.error.is_some() {
            return;
        }
        // Measured requests are sent after the run's start, the origin.
        let start_us =
            self.origin_unix_us + sent.saturating_duration_since(self.origin).as_micros() as u64;
        let status = status.map_or(-1, i32::from);
        let duration_us = end.saturating_duration_since(sent).as_micros();
        // Writing into a Vec cannot fail.
        let _ = writeln!(self.buffer, "{start_us}\t{status}\t{duration_us}");
        if self.buffer.len() >= FLUSH_AT {
            self.flush();
        }
    }

    /// Appends what is buffered to the file.
    pub fn flush(&mut self) {
        if self.error.is_some() || self.buffer.is_empty() {
            return;
        }
        // One write call per flush: with O_APPEND it lands whole at the end.
        if let Err(e) = (&*self.file).write_all(&self.buffer) {
            self.error = Some(format!("write failed: {e}; no log written"));
        }
        self.buffer.clear();
    }

    pub fn error(&self) -> Option<&str> {
        self.error.as_deref()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn lines_carry_wall_start_status_and_duration() {
        let dir = std::env::temp_dir().join(format!("loadgen-log-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("requests.log");
        let file = LogFile::create(&path).unwrap();
        let origin = Instant::now();
        let wall = UNIX_EPOCH + Duration::from_secs(1_700_000_000);
        let mut log = file.thread_log(origin, wall);
        let sent = origin + Duration::from_micros(250);
        log.record(sent, Some(200), sent + Duration::from_micros(1234));
        log.record(sent, None, sent + Duration::from_micros(7));
        log.flush();
        assert!(!path.exists(), "only the finished log takes the name");
        assert_eq!(file.finish(log.error().map(str::to_string)), None);
        let text = std::fs::read_to_string(&path).unwrap();
        assert_eq!(
            text,
            "1700000000000250\t200\t1234\n1700000000000250\t-1\t7\n"
        );
        // A run that fails leaves no log behind.
        drop(LogFile::create(&path.with_extension("other")).unwrap());
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 1);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn an_unwritable_path_is_one_line() {
        let error = LogFile::create(Path::new("/nonexistent/dir/requests.log"))
            .err()
            .unwrap();
        assert_eq!(error.field, PlanField::LogFile);
        let error = error.to_string();
        assert!(error.starts_with("log_file: cannot write /nonexistent/dir/requests.log"));
        assert!(!error.contains('\n'));
    }
}
