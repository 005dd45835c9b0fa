"""The Python SDK against the built-in target: the CLI's counts, its
merge, a step session's login and logout, and a DataFrame."""

import json
import subprocess
import threading
import time

import loadgen
import pytest


def counts(report):
    return {key: report[key] for key in ("requests", "status_codes", "errors")}


def cli_report(binary, args, path):
    subprocess.run([binary, "-q", *args, "-o", str(path)], check=True, stdout=subprocess.DEVNULL)
    return json.loads(path.read_text())


def test_a_benchmark_counts_what_the_cli_counts(target, loadgen_bin, tmp_path):
    url = target + "/"
    report = loadgen.run({"uris": [url], "clients": 4, "mode": {"requests": 1000}})
    assert report.succeeded == 1000
    by_cli = cli_report(loadgen_bin, ["-n", "1000", "-c", "4", url], tmp_path / "cli.json")
    assert counts(report.to_dict()) == counts(by_cli)
    assert report.to_dict()["config"] == by_cli["config"]


def test_merge_equals_loadgen_merge(target, loadgen_bin, tmp_path):
    plan = {"uris": [target + "/"], "clients": 2, "mode": {"requests": 200}}
    parts = [loadgen.run(plan) for _ in range(2)]
    files = []
    for index, part in enumerate(parts):
        path = tmp_path / f"part{index}.json"
        path.write_text(part.to_json())
        files.append(str(path))
    out = tmp_path / "merged.json"
    subprocess.run([loadgen_bin, "merge", *files, "-o", str(out)], check=True, stdout=subprocess.DEVNULL)
    merged = loadgen.merge(parts)
    assert merged.succeeded == 400
    assert merged.to_dict() == json.loads(out.read_text())


def test_a_step_session_logs_in_and_out(target):
    with loadgen.StepSession({"base_url": target}) as session:
        page = session.execute({
            "url": "/app/login",
            "extract": [{"type": "dom", "selector": 'form#login input[name="csrf"]',
                         "attribute": "value", "as": "csrf"}],
        })
        assert page["status"] == 200
        csrf = page["extracted"]["csrf"]
        inbox = session.execute({
            "url": "/app/login", "method": "POST",
            "form": {"username": "grace", "password": "secret", "csrf": csrf},
        })
        assert inbox["status"] == 200 and inbox["redirects"] == 1
        assert "Welcome, grace" in inbox["body"]
        token = inbox["body"].split("logout?token=")[1].split('"')[0]
        logout = session.execute({"url": f"/app/logout?token={token}", "follow_redirects": 0})
        assert logout["status"] == 302
        assert ["location", "/app/login"] in logout["headers"]
        after = session.execute({"url": "/app/inbox"})
        assert after["redirects"] == 1 and after["url"].endswith("/app/login")
        session.reset()


def test_cancel_from_another_thread_ends_a_timed_run(target):
    plan = {"uris": [target + "/"],
            "mode": {"duration": {"duration": {"secs": 30, "nanos": 0}, "warm_up": {"secs": 0, "nanos": 0}}}}
    with loadgen.Batch(plan) as batch:
        threading.Timer(1.0, batch.cancel).start()
        started = time.monotonic()
        report = batch.run()
        assert time.monotonic() - started < 5
        assert report.succeeded > 0


def test_errors_are_exceptions():
    with pytest.raises(loadgen.LoadgenError, match="clients"):
        loadgen.run({"uris": ["http://127.0.0.1:1/"], "clients": 0})
    with pytest.raises(loadgen.LoadgenError):
        loadgen.merge([])


def test_reports_become_a_dataframe(target):
    plan = {"uris": [target + "/"], "mode": {"requests": 50}}
    reports = [loadgen.run(plan), loadgen.run(plan)]
    frame = loadgen.to_dataframe(reports)
    assert len(frame) == 2
    assert list(frame["requests_succeeded"]) == [50, 50]
    assert "histograms" not in frame.columns
