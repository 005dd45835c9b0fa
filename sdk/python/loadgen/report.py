"""Reports: the JSON `loadgen -o FILE.json` writes, and their merge."""

import json
from typing import Any, Dict, Iterable, Mapping, Union

from ._library import encode, library, take_string


class Report:
    """One report. `to_dict()` is the whole document (docs/output.md);
    the properties are the figures read most."""

    def __init__(self, document: Union[str, Dict[str, Any]]) -> None:
        self._text = document if isinstance(document, str) else json.dumps(document)
        self._dict = json.loads(self._text) if isinstance(document, str) else document

    def to_dict(self) -> Dict[str, Any]:
        """The whole report as a dict (docs/output.md)."""
        return self._dict

    def to_json(self) -> str:
        """The report as JSON text, histograms included (`loadgen merge` reads it)."""
        return self._text

    @property
    def requests(self) -> Dict[str, int]:
        """`total`, `started`, `done`, `succeeded`, `failed`, `errored`, ..."""
        return self._dict["requests"]

    @property
    def succeeded(self) -> int:
        """How many requests got a response counted as a success."""
        return self._dict["requests"]["succeeded"]

    @property
    def status_codes(self) -> Dict[str, Any]:
        """Responses by status class (`2xx`, ...) and by code (`by_code`)."""
        return self._dict["status_codes"]

    def __repr__(self) -> str:
        r = self.requests
        return f"Report(total={r['total']}, succeeded={r['succeeded']}, failed={r['failed']}, errored={r['errored']})"


ReportLike = Union[Report, Mapping[str, Any], str]
"""A report: a `Report`, its dict, or its JSON text."""


def merge(reports: Iterable[ReportLike]) -> Report:
    """Adds `reports` (Report objects, dicts, or JSON texts of reports with
    histograms) up into one, as `loadgen merge` does: counts added,
    percentiles from the added histograms. Raises `LoadgenError` for an
    empty list or reports of different tests."""
    documents = [r.to_dict() if isinstance(r, Report) else (json.loads(r) if isinstance(r, str) else r) for r in reports]
    text = take_string(library().loadgen_merge_reports(encode(documents)), "loadgen_merge_reports")
    return Report(text)
