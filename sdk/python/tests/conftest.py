"""The built-in target (`loadgen serve`) on free loopback ports, and the
`loadgen` binary the tests compare the library with.

The tests import the `loadgen` package that is installed (`pip install
./sdk/python`); PYTHONPATH=sdk/python runs them on the checkout's instead."""

import os
import socket
import subprocess
import time
from pathlib import Path

import pytest


def loadgen_binary():
    named = os.environ.get("LOADGEN_BIN")
    if named:
        return named
    repo = Path(__file__).resolve().parents[3]
    target = Path(os.environ.get("CARGO_TARGET_DIR") or repo / "target")
    for profile in ("debug", "library", "release"):
        path = target / profile / "loadgen"
        if path.exists():
            return str(path)
    pytest.fail("the loadgen binary was not found: build it (cargo build -p loadgen) or set LOADGEN_BIN")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="session")
def loadgen_bin():
    return loadgen_binary()


@pytest.fixture(scope="session")
def target(loadgen_bin):
    """The base URL of a `loadgen serve` started for the tests."""
    port, tls_port = free_port(), free_port()
    server = subprocess.Popen(
        [loadgen_bin, "serve", "--listen", f"127.0.0.1:{port}", "--tls-listen", f"127.0.0.1:{tls_port}"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 30
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            break
        except OSError:
            if time.monotonic() > deadline or server.poll() is not None:
                server.kill()
                pytest.fail("loadgen serve did not start")
            time.sleep(0.05)
    yield f"http://127.0.0.1:{port}"
    server.terminate()
    server.wait(timeout=10)
