//! Output files that hold a whole result or none: written as `PATH.tmp` and
//! renamed to PATH once complete, so a reader never sees half a file and a
//! failed run leaves nothing behind.
//!
//! A PATH that is no regular file (`/dev/null`, `/dev/stdout`, a FIFO) is
//! not renamed over, which would replace the device or the pipe with a
//! file: the result is written to a file in the temporary directory and
//! copied into PATH once complete.

use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// Where the file for `path` is written before it is complete.
pub fn tmp_path(path: &Path) -> PathBuf {
    if is_special(path) {
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        return std::env::temp_dir().join(format!("loadgen-{}-{n}.tmp", std::process::id()));
    }
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(".tmp");
    PathBuf::from(tmp)
}

/// Whether `path` is there but is neither a regular file nor a directory
/// (a device, a FIFO, a socket; links followed).
fn is_special(path: &Path) -> bool {
    std::fs::metadata(path).is_ok_and(|m| !m.is_file() && !m.is_dir())
}

/// Checks, before a run, that its result can be written to `path` later:
/// not a directory, an existing file open to appending, and a directory
/// that lets `PATH.tmp` be made (and removed again at once).
pub fn check_writable(path: &Path) -> io::Result<()> {
    if path.is_dir() {
        return Err(io::Error::other("it is a directory"));
    }
    if is_special(path) {
        // Opened only at the end: a FIFO's open waits for its reader.
        return Ok(());
    }
    if path.exists() {
        std::fs::OpenOptions::new().append(true).open(path)?;
    }
    let tmp = tmp_path(path);
    std::fs::File::create(&tmp)?;
    std::fs::remove_file(&tmp)
}

/// Renames the finished `tmp` to `path`, or copies it into a `path` that
/// is no regular file; in every case `tmp` is gone after.
pub fn put_in_place(tmp: &Path, path: &Path) -> io::Result<()> {
    if is_special(path) {
        let copied = std::fs::File::open(tmp).and_then(|mut from| {
            let mut to = std::fs::OpenOptions::new().write(true).open(path)?;
            io::copy(&mut from, &mut to).map(drop)
        });
        let _ = std::fs::remove_file(tmp);
        return copied;
    }
    std::fs::rename(tmp, path).inspect_err(|_| {
        let _ = std::fs::remove_file(tmp);
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn directories_and_missing_directories_are_refused() {
        let dir = std::env::temp_dir().join(format!("loadgen-whole-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        assert!(check_writable(&dir).is_err());
        assert!(check_writable(&dir.join("missing/report.json")).is_err());
        let file = dir.join("report.json");
        check_writable(&file).unwrap();
        assert!(
            !file.exists() && !tmp_path(&file).exists(),
            "the check leaves nothing behind"
        );
        std::fs::write(&file, "kept").unwrap();
        check_writable(&file).unwrap();
        assert_eq!(std::fs::read_to_string(&file).unwrap(), "kept");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// `-o /dev/null` run as root once renamed a file over the device.
    #[test]
    fn a_fifo_gets_the_result_and_stays_a_fifo() {
        use std::os::unix::fs::FileTypeExt;
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("results");
        let name = std::ffi::CString::new(fifo.as_os_str().as_encoded_bytes()).unwrap();
        assert_eq!(unsafe { libc::mkfifo(name.as_ptr(), 0o600) }, 0);
        check_writable(&fifo).unwrap();
        let tmp = tmp_path(&fifo);
        assert!(!tmp.starts_with(dir.path()), "{}", tmp.display());
        std::fs::write(&tmp, "whole").unwrap();
        let reader = {
            let fifo = fifo.clone();
            std::thread::spawn(move || std::fs::read_to_string(fifo).unwrap())
        };
        put_in_place(&tmp, &fifo).unwrap();
        assert!(std::fs::metadata(&fifo).unwrap().file_type().is_fifo());
        assert!(!tmp.exists());
        assert_eq!(reader.join().unwrap(), "whole");
    }
}
