#!/usr/bin/env python3
"""What a schema cannot see in deploy/kubernetes.

First, that the files agree: the shards' count in the Indexed Job, in
`--shard I/N` and in the merge's files; the workers' count and names in the
StatefulSet and in the controller's `--workers`; the target Service, the
workers' `--allow-target` and the runs' URI; the Secret, the claim and the
variables that args name. Then that their commands work: every container's
args run here with loadgen (target, workers and controller; the shards and
their merge), with the cluster's names replaced by loopback addresses, the
mounts by a temporary directory and the runs' -D by 2s.

Usage: check_manifests.py DIR LOADGEN
"""

import json
import pathlib
import re
import socket
import subprocess
import sys
import tempfile
import time
from urllib.parse import urlsplit

import yaml


def load(directory):
    resources = {}
    for path in sorted(pathlib.Path(directory).glob("*.yaml")):
        for doc in yaml.safe_load_all(path.read_text()):
            resources[(doc["kind"], doc["metadata"]["name"])] = doc
    return resources


def pod(resource):
    return resource["spec"]["template"]["spec"]


def pod_labels(resource):
    return resource["spec"]["template"]["metadata"]["labels"]


def container(resource):
    (only,) = pod(resource)["containers"]
    return only


def values(args, flag):
    return [args[i + 1] for i, arg in enumerate(args[:-1]) if arg == flag]


def value(args, flag):
    (only,) = values(args, flag)
    return only


def mounted_from(resource, path, source):
    """The `source` (secret, persistentVolumeClaim) mounted where `path` is."""
    spec = pod(resource)
    (mount,) = [m for m in container(resource)["volumeMounts"] if path.startswith(m["mountPath"] + "/")]
    (volume,) = [v for v in spec["volumes"] if v["name"] == mount["name"]]
    return volume[source], mount["mountPath"]


def check_agreement(res):
    target = res[("Service", "loadgen-target")]
    target_addr = f"loadgen-target:{target['spec']['ports'][0]['port']}"

    workers = res[("StatefulSet", "loadgen-worker")]
    headless = res[("Service", workers["spec"]["serviceName"])]
    assert headless["spec"]["clusterIP"] == "None", "the workers' Service must be headless"
    wargs = container(workers)["args"]
    port = value(wargs, "--listen").rsplit(":", 1)[1]
    assert str(headless["spec"]["ports"][0]["port"]) == port, "the headless Service's port"
    names = [f"{workers['metadata']['name']}-{i}.{headless['metadata']['name']}:{port}"
             for i in range(workers["spec"]["replicas"])]
    controller = res[("Job", "loadgen-controller")]
    cargs = container(controller)["args"]
    assert value(cargs, "--workers").split(",") == [f"http://{n}" for n in names], (
        "--workers must name each StatefulSet replica")
    assert target_addr in values(wargs, "--allow-target"), "the workers must allow the target"

    policy = res[("NetworkPolicy", "loadgen-workers")]["spec"]
    assert policy["podSelector"]["matchLabels"] == pod_labels(workers), "the policy's workers"
    (rule,) = policy["ingress"]
    assert rule["from"][0]["podSelector"]["matchLabels"] == pod_labels(controller), (
        "the policy must let the controller in")
    assert [str(p["port"]) for p in rule["ports"]] == [port], "the policy's port"

    secret, _ = mounted_from(workers, value(wargs, "--token-file"), "secret")
    secret2, _ = mounted_from(controller, value(cargs, "--token-file"), "secret")
    assert secret["secretName"] == secret2["secretName"], "one token Secret"

    shards = res[("Job", "loadgen-shards")]
    sargs = container(shards)["args"]
    count = shards["spec"]["completions"]
    assert shards["spec"]["completionMode"] == "Indexed"
    assert shards["spec"]["parallelism"] == count, "every shard must run at once"
    assert value(sargs, "--shard") == f"$(JOB_COMPLETION_INDEX)/{count}", "--shard's N"
    merge = res[("Job", "loadgen-merge")]
    for job in (shards, merge):
        declared = {e["name"] for e in container(job).get("env", [])}
        used = set(re.findall(r"\$\((\w+)\)", " ".join(container(job)["args"])))
        assert used <= declared, f"args use undeclared variables {used - declared}"

    margs = container(merge)["args"]
    out = value(sargs, "-o")
    files = [out.replace("$(JOB_COMPLETION_INDEX)", str(i)) for i in range(count)]
    assert margs[-count:] == files, f"the merge must name the {count} shards' reports: {files}"
    claim = res[("PersistentVolumeClaim", "loadgen-reports")]["metadata"]["name"]
    for job, path in ((shards, out), (merge, files[0])):
        volume, _ = mounted_from(job, path, "persistentVolumeClaim")
        assert volume["claimName"] == claim, "the reports' claim"

    for args in (cargs, sargs):
        assert urlsplit(args[-1]).netloc == target_addr, f"{args[-1]} is not the target"
    print(f"manifests agree: {len(names)} workers, {count} shards, target {target_addr}")
    return names, count


def free_ports(count):
    held = [socket.socket() for _ in range(count)]
    for s in held:
        s.bind(("127.0.0.1", 0))
    ports = [s.getsockname()[1] for s in held]
    for s in held:
        s.close()
    return ports


def localize(args, replace):
    out = []
    for i, arg in enumerate(args):
        if i > 0 and args[i - 1] == "-D":
            arg = "2s"
        for old, new in replace.items():
            arg = arg.replace(old, new)
        out.append(arg)
    return out


def start(loadgen, args, ready, log):
    """Starts a server and waits for the line that says it is ready."""
    proc = subprocess.Popen([loadgen, *args], stdout=log, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 15
    while ready not in pathlib.Path(log.name).read_text():
        assert proc.poll() is None and time.monotonic() < deadline, (
            f"{args} did not start: {pathlib.Path(log.name).read_text()}")
        time.sleep(0.05)
    return proc


def run(loadgen, args):
    done = subprocess.run([loadgen, *args], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, f"loadgen {' '.join(args)}: exit {done.returncode}\n{done.stderr}"
    return done.stdout


def check_commands(res, loadgen, names, count):
    tmp = pathlib.Path(tempfile.mkdtemp(prefix="manifests-"))
    (tmp / "reports").mkdir()
    (tmp / "token").write_text("manifest-check-token\n")
    http, tls, *worker_ports = free_ports(2 + len(names))
    replace = {
        "0.0.0.0:8080": f"127.0.0.1:{http}",
        "0.0.0.0:8443": f"127.0.0.1:{tls}",
        "loadgen-target:8080": f"127.0.0.1:{http}",
        "/etc/loadgen/token": str(tmp / "token"),
        "/reports/": f"{tmp}/reports/",
    }
    replace.update({n: f"127.0.0.1:{p}" for n, p in zip(names, worker_ports)})
    servers = []
    try:
        targs = localize(container(res[("Deployment", "loadgen-target")])["args"], replace)
        servers.append(start(loadgen, targs, "serving h3", open(tmp / "target.log", "w")))
        wargs = container(res[("StatefulSet", "loadgen-worker")])["args"]
        for i, port in enumerate(worker_ports):
            args = localize(wargs, {**replace, "0.0.0.0:7070": f"127.0.0.1:{port}"})
            servers.append(start(loadgen, args, "listening on", open(tmp / f"worker{i}.log", "w")))
        text = run(loadgen, localize(container(res[("Job", "loadgen-controller")])["args"], replace))
        assert "workers:" in text, text
        print(f"controller.yaml's run on workers.yaml's {len(names)} workers: exit 0")

        at = f"{time.time() + 3:.3f}"
        sargs = container(res[("Job", "loadgen-shards")])["args"]
        shards = [subprocess.Popen([loadgen, *localize(sargs, {
            **replace, "$(JOB_COMPLETION_INDEX)": str(i), "$(LOADGEN_START_AT)": at})],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True) for i in range(count)]
        for i, shard in enumerate(shards):
            _, err = shard.communicate(timeout=60)
            assert shard.returncode == 0, f"shard {i}: exit {shard.returncode}\n{err}"
        margs = localize(container(res[("Job", "loadgen-merge")])["args"],
                         {**replace, "$(LOADGEN_START_AT)": at})
        merged = json.loads(run(loadgen, margs))
        segments = merged["config"]["segment"].split(",")
        assert len(segments) == count, merged["config"]
        # Shards that started together make a run as long as one of them.
        assert merged["elapsed_s"] < 2.5, f"the shards did not overlap: {merged['elapsed_s']}s"
        assert (tmp / "reports" / f"run-{at}-merged.json").exists(), list((tmp / "reports").iterdir())
        print(f"shards.yaml's {count} shards and merge.yaml: {merged['requests']['succeeded']} "
              f"requests in {merged['elapsed_s']:.2f}s, segments {merged['config']['segment']}")
    finally:
        for server in servers:
            server.terminate()
            server.wait(timeout=10)
        subprocess.run(["rm", "-rf", str(tmp)], check=False)


def main():
    directory, loadgen = sys.argv[1:]
    resources = load(directory)
    names, count = check_agreement(resources)
    check_commands(resources, loadgen, names, count)


if __name__ == "__main__":
    main()
