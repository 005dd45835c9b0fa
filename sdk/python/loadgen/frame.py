"""Reports as a pandas DataFrame: one row per report, its fields
flattened with `_` as the CSV output names them (histograms left out)."""

from typing import TYPE_CHECKING, Any, Dict, Iterable, Mapping, Union

from .report import Report

if TYPE_CHECKING:
    import pandas


def _flatten(prefix: str, value: Any, row: Dict[str, Any]) -> None:
    if isinstance(value, dict):
        for key, inner in value.items():
            _flatten(f"{prefix}_{key}" if prefix else key, inner, row)
    else:
        row[prefix] = value


def to_dataframe(reports: Iterable[Union[Report, Mapping[str, Any]]]) -> "pandas.DataFrame":
    """A DataFrame with one row per report (Report objects or dicts);
    needs pandas (`pip install './sdk/python[pandas]'`)."""
    import pandas

    rows = []
    for report in reports:
        document = report.to_dict() if isinstance(report, Report) else report
        row: Dict[str, Any] = {}
        for key, value in document.items():
            if key in ("histograms", "intervals"):
                continue
            _flatten(key, value, row)
        rows.append(row)
    return pandas.DataFrame(rows)
