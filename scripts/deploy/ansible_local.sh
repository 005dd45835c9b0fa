#!/usr/bin/env bash
# Runs deploy/ansible against this machine (ansible_connection=local): the
# binary installed for three hosts (two workers on two ports, a controller),
# workers started, a run on both against the built-in target, its report
# fetched and its counts checked, then the workers stopped.
# Usage: ansible_local.sh VENV LOADGEN
set -euo pipefail
venv=$1
loadgen=$2
cd "$(dirname "${BASH_SOURCE[0]}")/../.."

requests=2000
tmp=$(mktemp -d)
target_pid=
cleanup() {
    # Workers that a failed playbook left running, then the target.
    for pidfile in "$tmp"/*/worker-*.pid; do
        if [ -f "$pidfile" ]; then kill "$(cat "$pidfile")" 2>/dev/null || true; fi
    done
    if [ -n "$target_pid" ]; then kill "$target_pid" 2>/dev/null || true; fi
    rm -rf "$tmp"
}
trap cleanup EXIT

"$loadgen" serve --listen 127.0.0.1:0 --tls-listen 127.0.0.1:0 >"$tmp/target.out" 2>&1 &
target_pid=$!
for _ in $(seq 100); do
    target=$(sed -n 's|^serving http/1.1+h2c on \(http://.*\)$|\1|p' "$tmp/target.out")
    [ -n "$target" ] && break
    sleep 0.1
done
[ -n "$target" ] || { cat "$tmp/target.out" >&2; echo "the target did not start" >&2; exit 1; }
read -r port1 port2 < <("$venv/bin/python" -c '
import socket
held = [socket.socket() for _ in range(2)]
for s in held:
    s.bind(("127.0.0.1", 0))
print(*(s.getsockname()[1] for s in held))')

cat >"$tmp/inventory.ini" <<INVENTORY
[loadgen_workers]
worker-1 loadgen_worker_port=$port1 loadgen_state_dir=$tmp/worker-1 loadgen_install_dir=$tmp/worker-1/bin
worker-2 loadgen_worker_port=$port2 loadgen_state_dir=$tmp/worker-2 loadgen_install_dir=$tmp/worker-2/bin

[loadgen_controller]
controller loadgen_state_dir=$tmp/controller loadgen_install_dir=$tmp/controller/bin

[all:vars]
ansible_connection=local
ansible_host=127.0.0.1
ansible_python_interpreter=$venv/bin/python
loadgen_worker_listen_address=127.0.0.1
INVENTORY
cat >"$tmp/vars.json" <<VARS
{
  "loadgen_binary": "$loadgen",
  "loadgen_token_source": "$tmp/token",
  "loadgen_results_dir": "$tmp/results",
  "loadgen_allow_targets": ["${target#http://}"],
  "loadgen_target_uri": "$target",
  "loadgen_run_args": ["--h1", "-n", "$requests", "-c", "4"]
}
VARS

export ANSIBLE_HOME=$tmp/ansible-home ANSIBLE_NOCOLOR=1 ANSIBLE_RETRY_FILES_ENABLED=0
playbook() {
    "$venv/bin/ansible-playbook" -i "$tmp/inventory.ini" -e "@$tmp/vars.json" "$@"
}
for book in site stop-workers; do
    playbook --syntax-check "deploy/ansible/$book.yml" >/dev/null
done
echo "ansible-playbook --syntax-check: site.yml, stop-workers.yml"

playbook deploy/ansible/site.yml >"$tmp/site.log" 2>&1 || {
    cat "$tmp/site.log"
    for log in "$tmp"/worker-*/worker-*.log; do echo "--- $log"; cat "$log"; done
    exit 1
}
grep -A4 '^PLAY RECAP' "$tmp/site.log"

"$venv/bin/python" - "$tmp/results" "$requests" "$tmp" <<'CHECK'
import json, pathlib, stat, sys
results, requests, tmp = pathlib.Path(sys.argv[1]), int(sys.argv[2]), pathlib.Path(sys.argv[3])
reports = list(results.glob("run-*.json"))
assert len(reports) == 1, f"expected one fetched report in {results}: {reports}"
report = json.loads(reports[0].read_text())
counts = report["requests"]
assert counts["total"] == counts["succeeded"] == requests, counts
assert report["config"]["segment"] == "0:1/2,1/2:1", report["config"]
workers = report["workers"]
assert [w["state"] for w in workers] == ["reported", "reported"], workers
assert [w["requests"] for w in workers] == [requests // 2] * 2, workers
for name in ("worker-1", "worker-2", "controller"):
    mode = stat.S_IMODE((tmp / name / "token").stat().st_mode)
    assert mode == 0o600, f"{name}'s token file has mode {mode:o}"
print(f"fetched {reports[0].name}: {counts['succeeded']} of {requests} requests succeeded, "
      + ", ".join(f"{w['url']} {w['segment']} {w['requests']}" for w in workers))
CHECK

playbook deploy/ansible/stop-workers.yml >"$tmp/stop.log" 2>&1 || { cat "$tmp/stop.log"; exit 1; }
for port in "$port1" "$port2"; do
    if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
        echo "a worker still listens on port $port after stop-workers.yml" >&2
        exit 1
    fi
done
echo "stop-workers.yml: both workers stopped"
