"""Reports: the JSON `loadgen -o FILE.json` writes, and their merge."""

import json

from ._library import encode, library, take_string


class Report:
    """One report. `to_dict()` is the whole document (docs/output.md);
    the properties are the figures read most."""

    def __init__(self, document):
        self._text = document if isinstance(document, str) else json.dumps(document)
        self._dict = json.loads(self._text) if isinstance(document, str) else document

    def to_dict(self):
        return self._dict

    def to_json(self):
        return self._text

    @property
    def requests(self):
        return self._dict["requests"]

    @property
    def succeeded(self):
        return self._dict["requests"]["succeeded"]

    @property
    def status_codes(self):
        return self._dict["status_codes"]

    def __repr__(self):
        r = self.requests
        return f"Report(total={r['total']}, succeeded={r['succeeded']}, failed={r['failed']}, errored={r['errored']})"


def merge(reports):
    """Adds `reports` (Report objects, dicts, or JSON texts of reports with
    histograms) up into one, as `loadgen merge` does."""
    documents = [r.to_dict() if isinstance(r, Report) else (json.loads(r) if isinstance(r, str) else r) for r in reports]
    text = take_string(library().loadgen_merge_reports(encode(documents)), "loadgen_merge_reports")
    return Report(text)
