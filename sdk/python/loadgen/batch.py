"""Batch runs: a plan made into a handle, run to its report."""

import json

from ._handle import Handle
from ._library import check_handle, check_status, encode, library, take_string
from .report import Report


class Batch(Handle):
    """A plan ready to run. `run()` blocks (the engine runs on threads of
    its own, outside the GIL); `snapshot()` and `cancel()` work from other
    threads meanwhile."""

    _destroy = "loadgen_destroy"

    def __init__(self, plan):
        self._handle = check_handle(library().loadgen_create(encode(plan)), "loadgen_create")

    def run(self):
        return Report(take_string(library().loadgen_run(self._handle), "loadgen_run"))

    def snapshot(self):
        """Progress so far (docs/ffi.md): responses, errors, elapsed_s, ..."""
        text = take_string(library().loadgen_metrics_snapshot(self._handle), "loadgen_metrics_snapshot")
        return json.loads(text)

    def cancel(self):
        check_status(library().loadgen_cancel(self._handle), "loadgen_cancel")


def run(plan):
    """Runs `plan` (a `PlanInput` as a dict or JSON text: docs/ffi.md) and returns its `Report`."""
    with Batch(plan) as batch:
        return batch.run()
