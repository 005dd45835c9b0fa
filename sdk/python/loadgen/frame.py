"""Reports as a pandas DataFrame: one row per report, its fields
flattened with `_` as the CSV output names them (histograms left out)."""

from .report import Report


def _flatten(prefix, value, row):
    if isinstance(value, dict):
        for key, inner in value.items():
            _flatten(f"{prefix}_{key}" if prefix else key, inner, row)
    elif isinstance(value, list):
        row[prefix] = value
    else:
        row[prefix] = value


def to_dataframe(reports):
    """A DataFrame with one row per report (Report objects or dicts)."""
    import pandas

    rows = []
    for report in reports:
        document = report.to_dict() if isinstance(report, Report) else report
        row = {}
        for key, value in document.items():
            if key in ("histograms", "intervals"):
                continue
            _flatten(key, value, row)
        rows.append(row)
    return pandas.DataFrame(rows)
