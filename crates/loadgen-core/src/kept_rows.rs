//! The one-second rows a run keeps until its report is made.
//!
//! A row is a few hundred bytes, and about a kilobyte more when the report
//! carries each second's histograms: in memory, a long run would grow by
//! that much every second (a day's run by about 100 MB). So the rows go to
//! an unnamed temporary file as they come, one JSON line each, and are read
//! back once for the report. Where no temporary file can be made or
//! written (a read-only or full disk), the rows from then on stay in
//! memory, as before.

use crate::interval::{IntervalRow, KeptRow};
use std::fs::File;
use std::io::{BufRead, BufReader, Read, Seek, SeekFrom, Write};

/// The rows of one run (or of one worker, at the controller), in order.
#[derive(Debug)]
pub struct KeptRows {
    /// The first rows; `None` if no file could be made.
    spool: Option<Spool>,
    /// The rows after those in the file.
    in_memory: Vec<KeptRow>,
}

#[derive(Debug)]
struct Spool {
    file: File,
    /// Bytes written and known good.
    len: u64,
    rows: usize,
    /// Set when a write failed: the file keeps the rows it has, and takes
    /// no more.
    full: bool,
    /// One row's line, reused so that a second costs no allocation once
    /// the buffer has reached a row's size.
    line: Vec<u8>,
}

/// Empty and in memory: what `std::mem::take` leaves, with no file opened.
impl Default for KeptRows {
    fn default() -> Self {
        Self::in_memory()
    }
}

impl KeptRows {
    /// Rows kept in a temporary file, or in memory if none can be made.
    pub fn new() -> KeptRows {
        let spool = tempfile::tempfile().ok().map(|file| Spool {
            file,
            len: 0,
            rows: 0,
            full: false,
            line: Vec::new(),
        });
        KeptRows {
            spool,
            in_memory: Vec::new(),
        }
    }

    /// Rows kept in memory only.
    pub fn in_memory() -> KeptRows {
        KeptRows {
            spool: None,
            in_memory: Vec::new(),
        }
    }

    pub fn push(&mut self, row: KeptRow) {
        match &mut self.spool {
            Some(spool) if !spool.full => {
                let row = row.into_row();
                if spool.append(&row).is_err() {
                    // A full or failing disk: what was written stays
                    // readable, what comes next stays here.
                    spool.full = true;
                    self.in_memory.push(KeptRow::of_row(row));
                }
            }
            _ => self.in_memory.push(row),
        }
    }

    pub fn len(&self) -> usize {
        self.spool.as_ref().map_or(0, |spool| spool.rows) + self.in_memory.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Every row, in the order pushed.
    pub fn into_rows(self) -> Result<Vec<IntervalRow>, String> {
        let mut rows = Vec::with_capacity(self.len());
        if let Some(spool) = self.spool {
            read_back(spool.file, spool.len, spool.rows, &mut rows)
                .map_err(|e| format!("cannot read back the run's one-second rows: {e}"))?;
        }
        rows.extend(self.in_memory.into_iter().map(KeptRow::into_row));
        Ok(rows)
    }
}

impl Spool {
    fn append(&mut self, row: &IntervalRow) -> std::io::Result<()> {
        self.line.clear();
        serde_json::to_writer(&mut self.line, row)?;
        self.line.push(b'\n');
        if let Err(e) = self.file.write_all(&self.line) {
            // A short write leaves part of a line: cut it off, so that the
            // file ends on a whole row.
            let _ = self.file.set_len(self.len);
            return Err(e);
        }
        self.len += self.line.len() as u64;
        self.rows += 1;
        Ok(())
    }
}

fn read_back(
    mut file: File,
    len: u64,
    count: usize,
    rows: &mut Vec<IntervalRow>,
) -> std::io::Result<()> {
    file.seek(SeekFrom::Start(0))?;
    let reader = BufReader::new(file.take(len));
    for line in reader.lines() {
        let row: IntervalRow = serde_json::from_str(&line?)?;
        rows.push(row);
    }
    if rows.len() != count {
        return Err(std::io::Error::other(format!(
            "{} of {count} rows in the temporary file",
            rows.len()
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::histogram::record;
    use crate::interval::{Interval, Window};
    use std::time::{Duration, SystemTime};

    fn interval(second: u64, responses: u64) -> Interval {
        let mut window = Window {
            responses,
            ..Window::default()
        };
        window.status_classes[2] = responses;
        for us in 1..=responses {
            record(&mut window.request_time, us * 37);
            record(&mut window.request_time_raw, us * 31);
        }
        Interval {
            index: second as u32,
            offset: Duration::from_secs(second),
            started_at: SystemTime::UNIX_EPOCH + Duration::from_secs(second),
            length: Duration::from_secs(1),
            window,
        }
    }

    #[test]
    fn rows_come_back_from_the_file_as_they_went_in() {
        let mut kept = KeptRows::new();
        let mut memory = KeptRows::in_memory();
        for second in 0..50 {
            let interval = interval(second, second * 7 + 1);
            kept.push(KeptRow::of(&interval, true));
            memory.push(KeptRow::of(&interval, true));
        }
        assert!(kept.spool.is_some(), "a temporary file opens here");
        assert_eq!(kept.len(), 50);
        assert_eq!(kept.into_rows().unwrap(), memory.into_rows().unwrap());
    }

    #[test]
    fn rows_after_a_failed_file_stay_in_memory_and_in_order() {
        let mut kept = KeptRows::new();
        let mut memory = KeptRows::in_memory();
        for second in 0..10 {
            let interval = interval(second, second + 1);
            if second == 4 {
                // What a failed write leaves.
                kept.spool.as_mut().unwrap().full = true;
            }
            kept.push(KeptRow::of(&interval, false));
            memory.push(KeptRow::of(&interval, false));
        }
        assert_eq!(kept.len(), 10);
        assert_eq!(kept.into_rows().unwrap(), memory.into_rows().unwrap());
    }
}
