"""Batch runs: a plan made into a handle, run to its report."""

import json
from typing import Any, Dict, Mapping, Union

from ._handle import Handle
from ._library import check_handle, check_status, encode, library, take_string
from .report import Report

Plan = Union[Mapping[str, Any], str]
"""A plan: a `PlanInput` as a dict, or as JSON text (docs/ffi.md)."""


class Batch(Handle):
    """A plan ready to run. `run()` blocks (the engine runs on threads of
    its own, outside the GIL); `snapshot()` and `cancel()` work from other
    threads meanwhile. Use it in a `with` block, or `close()` it."""

    _destroy = "loadgen_destroy"

    def __init__(self, plan: Plan) -> None:
        """Checks `plan` and prepares it; raises `LoadgenError` naming the
        field at fault when it is invalid."""
        self._handle = check_handle(library().loadgen_create(encode(plan)), "loadgen_create")

    def run(self) -> Report:
        """Runs the plan to its end (or to `cancel()`) and returns the report."""
        return Report(take_string(library().loadgen_run(self._handle), "loadgen_run"))

    def snapshot(self) -> Dict[str, Any]:
        """Progress so far (docs/ffi.md): `running`, `elapsed_s`,
        `progress_percent`, `responses`, `errors`, `status_codes`,
        `req_per_s`, ..."""
        text = take_string(library().loadgen_metrics_snapshot(self._handle), "loadgen_metrics_snapshot")
        return json.loads(text)

    def cancel(self) -> None:
        """Stops the run as the end of `-D` does; `run()` returns what was done."""
        check_status(library().loadgen_cancel(self._handle), "loadgen_cancel")


def run(plan: Plan) -> Report:
    """Runs a benchmark and returns its report, as `loadgen -o FILE.json` would.

    `plan` is a `PlanInput` as a dict (or JSON text); every field may be
    left out and takes the default of the command line's flag:

        loadgen.run({"uris": ["http://127.0.0.1:8080/"], "clients": 4,
                     "threads": 1, "mode": {"requests": 1000}})

    `mode` is `{"requests": N}` (`-n`) or `{"duration": {"duration":
    {"secs": 30, "nanos": 0}, "warm_up": {"secs": 0, "nanos": 0}}}` (`-D`);
    other fields: `max_concurrent_streams` (`-m`), `method`, `headers`
    (`[["name", "value"]]`), `body` (base64), `alpn` (`["h3"]` for HTTP/3),
    `cleartext` (`"http1"` or `"h2c"`), `tls`, `load` (rates, ramps,
    stages), `timeouts` (docs/ffi.md, "The JSON").

    Blocks until the run ends; the engine runs on threads of its own,
    outside the GIL. Raises `LoadgenError` with the library's message when
    the plan is invalid or the target cannot be reached. For progress or
    cancelling from another thread, use `Batch`.
    """
    with Batch(plan) as batch:
        return batch.run()
