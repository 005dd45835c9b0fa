"""The loadgen HTTP benchmark engine, over its C ABI (docs/ffi.md).

`run(plan)` runs a plan (a `PlanInput` as a dict) and returns a `Report`;
`merge(reports)` adds reports up as `loadgen merge` does; `StepSession`
sends one scenario step at a time with a cookie jar; `to_dataframe`
turns reports into a pandas DataFrame.

The engine is the shared library `pip install` bundles in this package;
`LOADGEN_FFI_LIB` names another one (docs/ffi.md, "Finding the library").
"""

from ._library import LoadgenError, library_path, version
from .batch import Batch, run
from .report import Report, merge
from .step import StepSession
from .frame import to_dataframe

__all__ = [
    "Batch",
    "LoadgenError",
    "Report",
    "StepSession",
    "library_path",
    "merge",
    "run",
    "to_dataframe",
    "version",
]
