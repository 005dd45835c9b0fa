//! For loadgen's tests only: the peers written in Python (grpcio,
//! `websockets`, `h2`, the hdrhistogram reader) run by the test venv's
//! interpreter, which `scripts/test` makes and exports as
//! `LOADGEN_TEST_PYTHON`.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};

/// The test venv's Python: `LOADGEN_TEST_PYTHON`, else the venv in the
/// cache directory where `scripts/test` makes it.
pub fn python() -> String {
    if let Ok(python) = std::env::var("LOADGEN_TEST_PYTHON") {
        return python;
    }
    let cache = std::env::var("XDG_CACHE_HOME")
        .unwrap_or_else(|_| format!("{}/.cache", std::env::var("HOME").unwrap_or_default()));
    let venv = format!("{cache}/loadgen-test/venv/bin/python");
    assert!(
        Path::new(&venv).exists(),
        "the test venv with the peers' Python packages is needed: scripts/test makes it"
    );
    venv
}

/// A peer server written in Python (SCRIPT ARGS, run by [`python`]) that
/// prints its port as its first line, killed when dropped. Its standard
/// input stays open as long as it runs, for servers that stop when it
/// closes.
pub struct PythonServer {
    child: Child,
    pub port: u16,
}

impl PythonServer {
    pub fn start(script: &Path, args: &[&str]) -> PythonServer {
        let mut child = Command::new(python())
            .arg(script)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {}: {e}", script.display()));
        let mut line = String::new();
        let read = BufReader::new(child.stdout.take().expect("piped stdout")).read_line(&mut line);
        match (read, line.trim().parse()) {
            (Ok(_), Ok(port)) => PythonServer { child, port },
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                panic!("{} did not print its port: {line:?}", script.display())
            }
        }
    }
}

impl Drop for PythonServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
