//! Output files that hold a whole result or none: written as `PATH.tmp` and
//! renamed to PATH once complete, so a reader never sees half a file and a
//! failed run leaves nothing behind.

use std::io;
use std::path::{Path, PathBuf};

/// Where the file for `path` is written before it is complete.
pub fn tmp_path(path: &Path) -> PathBuf {
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(".tmp");
    PathBuf::from(tmp)
}

/// Checks, before a run, that its result can be written to `path` later:
/// not a directory, an existing file open to appending, and a directory
/// that lets `PATH.tmp` be made (and removed again at once).
pub fn check_writable(path: &Path) -> io::Result<()> {
    if path.is_dir() {
        return Err(io::Error::other("it is a directory"));
    }
    if path.exists() {
        std::fs::OpenOptions::new().append(true).open(path)?;
    }
    let tmp = tmp_path(path);
    std::fs::File::create(&tmp)?;
    std::fs::remove_file(&tmp)
}

/// Renames the finished `tmp` to `path`; on failure removes `tmp`.
pub fn put_in_place(tmp: &Path, path: &Path) -> io::Result<()> {
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
}
