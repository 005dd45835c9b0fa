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

/// Renames the finished `tmp` to `path`; on failure removes `tmp`.
pub fn put_in_place(tmp: &Path, path: &Path) -> io::Result<()> {
    std::fs::rename(tmp, path).inspect_err(|_| {
        let _ = std::fs::remove_file(tmp);
    })
}
