#!/usr/bin/env python3
"""How late the daemon serves other apps' deadlines while apps load it, and what a crash loop costs it.

    python3 Scripts/lateness.py --scenario tasks  [--runway PATH] [--seconds 30] [--probes 8]
    python3 Scripts/lateness.py --scenario storm  [--runway PATH] [--seconds 30] [--probes 8] [--apps 100]
    python3 Scripts/lateness.py --scenario memory [--runway PATH] [--seconds 60] [--apps 20]

`--restart-rate N` sets `RestartRateLimit` (1000: restarts nearly unpaced). `--realtime N` runs the daemon's loop
thread at SCHED_FIFO N (`LoopRealtimePriority`, needs root or CAP_SYS_NICE), meant to show what the daemon's own work
costs its deadlines on a machine busy with other work; on a loaded two-core machine it showed unexplained stalls of
0.5 to 1 s (Decision 212), so the figures quoted are at normal priority.

It writes a configuration into a temporary directory and starts `runway run` on it (daemon output in the directory,
shown on failure), then loads it:

- `tasks`: six embedded apps each hold `TaskLimitPerApp` (1,000) background tasks begun over the control socket,
  every name `TaskNameByteLimit` (256) control characters, while a client sends `status` 10 times a second;
- `storm`: `--apps` process apps that print a line and exit 1 at once, with `KeepAlive`, `ThrottleInterval` and
  `RestartBackoffLimit` 0.1 s, so each is restarted ten times a second;
- `memory`: `--apps` process apps that print 64 KiB and exit 1, restarted as in `storm`, for `--seconds`; the
  daemon's resident set is sampled every second, then SIGTERM is sent and the time to its exit measured.

In `tasks` and `storm`, `--probes` embedded apps measure lateness meanwhile: each is launched, begins one task and is
sent home, so its budget (1 s) runs out with the task outstanding; the daemon terminates it at the deadline
(`OverrunPolicy` terminate). Its lateness is the instant of that transition (`atSeconds` of the `events` stream, the
daemon's monotonic clock, read at the start of the loop turn that served the deadline) minus the deadline `status`
gave right after the app went home (`deadlineAtSeconds`). The daemon's own histogram of every deadline it served
(warnings, kills, restarts alike: `runway_deadline_lateness_seconds` on the metrics endpoint) is read at the end, as
the share of deadlines served within 5 ms.

It prints the figures and the load (`uptime`) and exits 0 when the checks hold (p99 lateness of the probes at most
5 ms; in `memory`, the resident set within 20 MB of its first sample and the stop within 2 s with no app process
left), 1 otherwise. Only a Unix socket in the temporary directory and a metrics port on 127.0.0.1 are used.
"""

import argparse
import json
import os
import queue
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request

# The plist writers and the scan for a run's processes are the soak's (same directory, on sys.path[0]).
from soak import key, plist, tagged_processes


def write_config(directory, socket_path, run_id, args):
    apps = os.path.join(directory, "Apps")
    os.makedirs(apps)
    settings = [
        key("BackgroundTimeBudget", 1.0), key("ExpirationWarningLead", 0.5), key("TerminationGrace", 1.0),
        key("ControlSocket", socket_path), key("MemoryPressureSource", "off"), key("MetricsAddress", "127.0.0.1:0"),
        key("RestartBackoffLimit", 0.1),
    ]
    if args.restart_rate:
        settings.append(f"<key>RestartRateLimit</key><integer>{args.restart_rate}</integer>")
    if args.realtime:
        settings.append(f"<key>LoopRealtimePriority</key><integer>{args.realtime}</integer>")
    with open(os.path.join(directory, "Runway.plist"), "w") as f:
        f.write(plist(settings))
    names = {"probes": [f"com.lateness.probe{i}" for i in range(args.probes if args.scenario != "memory" else 0)]}
    if args.scenario == "tasks":
        names["hoarders"] = [f"com.lateness.hoarder{i}" for i in range(6)]
        names["loopers"] = []
    else:
        names["hoarders"] = []
        names["loopers"] = [f"com.lateness.looper{i}" for i in range(args.apps)]
    for name in names["probes"] + names["hoarders"]:
        with open(os.path.join(apps, name + ".plist"), "w") as f:
            f.write(plist([key("CFBundleIdentifier", name)]))
    output = "echo crashing; exit 1" if args.scenario == "storm" else "head -c 49152 /dev/urandom | base64; exit 1"
    for name in names["loopers"]:
        entries = [
            key("CFBundleIdentifier", name), key("ProgramArguments", ["/bin/sh", "-c", output]),
            key("EnvironmentVariables", {"RUNWAY_LATENESS": run_id}), key("RunAtLoad", True),
            key("KeepAlive", True), key("ThrottleInterval", 0.1),
        ]
        with open(os.path.join(apps, name + ".plist"), "w") as f:
            f.write(plist(entries))
    return names


class Client:
    """One control-socket connection: a JSON line out, a JSON line back."""

    def __init__(self, path):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(30)
        self.sock.connect(path)
        self.buffer = b""

    def request(self, obj):
        self.sock.sendall((json.dumps(obj) + "\n").encode())
        return json.loads(self.line())

    def line(self):
        while b"\n" not in self.buffer:
            chunk = self.sock.recv(1 << 20)
            if not chunk:
                raise ConnectionError("daemon closed the connection")
            self.buffer += chunk
        line, self.buffer = self.buffer.split(b"\n", 1)
        return line

    def close(self):
        self.sock.close()


def percentile(values, fraction):
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def metrics_share_within(url, bound="0.005"):
    """The share of deadlines the daemon served within `bound` seconds, and their count, from its histogram."""
    text = urllib.request.urlopen(url, timeout=10).read().decode()
    within = total = None
    for line in text.splitlines():
        if line.startswith("runway_deadline_lateness_seconds_bucket") and f'le="{bound}"' in line:
            within = float(line.split()[-1])
        if line.startswith("runway_deadline_lateness_seconds_count"):
            total = float(line.split()[-1])
    if not total:
        return float("nan"), 0
    return within / total, int(total)


def rss_kib(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def app_processes(run_id):
    return tagged_processes(run_id, variable="RUNWAY_LATENESS")


def follow_events(path, sink, done):
    client = Client(path)
    client.request({"v": 1, "command": "events"})
    client.sock.settimeout(0.5)
    while not done.is_set():
        try:
            line = client.line()
        except socket.timeout:
            continue
        except (ConnectionError, OSError):
            return
        event = json.loads(line).get("event")
        if event and event["app"].startswith("com.lateness.probe"):
            sink[event["app"]].put(event)
    client.close()


def probe(path, app, events, lateness, stop, problems):
    client = Client(path)
    while not stop.is_set():
        client.request({"v": 1, "command": "launch", "app": app})
        client.request({"v": 1, "command": "beginTask", "app": app, "task": "probe"})
        client.request({"v": 1, "command": "home", "app": app})
        row = client.request({"v": 1, "command": "status", "app": app, "history": False})["apps"][0]
        deadline = row.get("deadlineAtSeconds")
        if deadline is None:
            problems.append(f"{app}: no deadline after home: {row['state']}")
            time.sleep(0.1)
            continue
        while True:
            try:
                event = events.get(timeout=10)
            except queue.Empty:
                if not stop.is_set():
                    problems.append(f"{app}: no termination within 10 s of the deadline")
                break
            if event["to"] == "notRunning" and event["atSeconds"] >= deadline - 0.5:
                if event.get("reason") == "budgetOverrun":
                    lateness.append(event["atSeconds"] - deadline)
                break
    client.close()


def hoard(path, app):
    client = Client(path)
    client.request({"v": 1, "command": "launch", "app": app})
    name = "\u0001" * 256
    for _ in range(1000):
        reply = client.request({"v": 1, "command": "beginTask", "app": app, "task": name})
        if not reply.get("ok"):
            raise RuntimeError(f"{app}: beginTask refused: {reply}")
    client.close()


def poll_status(path, stop, sizes):
    client = Client(path)
    while not stop.is_set():
        client.sock.sendall(b'{"v":1,"command":"status"}\n')
        sizes.append(len(client.line()))
        time.sleep(0.1)
    client.close()


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runway", default=".build/release/runway")
    parser.add_argument("--scenario", choices=["tasks", "storm", "memory"], required=True)
    parser.add_argument("--seconds", type=float, default=30)
    parser.add_argument("--probes", type=int, default=8)
    parser.add_argument("--apps", type=int, default=100)
    parser.add_argument("--realtime", type=int, default=0)
    parser.add_argument("--restart-rate", type=int, default=0, help="RestartRateLimit (default: the daemon's)")
    args = parser.parse_args()

    directory = tempfile.mkdtemp(prefix="runway-lateness-")
    socket_path = f"/tmp/runway-lateness-{os.getpid()}.sock"
    run_id = f"{os.getpid()}-{int(time.time())}"
    names = write_config(directory, socket_path, run_id, args)
    log_path = os.path.join(directory, "daemon-output.txt")
    log = open(log_path, "wb")
    print("load before:", subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip())
    daemon = subprocess.Popen(
        [args.runway, "run", "--config", directory, "--state-directory", os.path.join(directory, "state")],
        stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
    )
    ok = True
    stop = threading.Event()
    threads = []
    try:
        metrics_url = None
        for _ in range(300):
            with open(log_path, errors="replace") as f:
                for line in f:
                    if "metrics: http" in line:
                        metrics_url = line.split("metrics: ")[1].split()[0]
            if metrics_url and os.path.exists(socket_path):
                break
            if daemon.poll() is not None:
                raise RuntimeError("the daemon exited early")
            time.sleep(0.1)
        else:
            raise RuntimeError("the daemon did not start")

        for app in names["hoarders"]:
            hoard(socket_path, app)
        sizes = []
        if names["hoarders"]:
            threads.append(threading.Thread(target=poll_status, args=(socket_path, stop, sizes)))
        events = {app: queue.Queue() for app in names["probes"]}
        lateness, problems, rss = [], [], []
        followed = threading.Event()
        follower = threading.Thread(target=follow_events, args=(socket_path, events, followed), daemon=True)
        follower.start()
        for app in names["probes"]:
            arguments = (socket_path, app, events[app], lateness, stop, problems)
            threads.append(threading.Thread(target=probe, args=arguments))
        for thread in threads:
            thread.daemon = True
            thread.start()
        started = time.monotonic()
        while time.monotonic() - started < args.seconds:
            rss.append(rss_kib(daemon.pid))
            time.sleep(1)
        stop.set()
        share, served = metrics_share_within(metrics_url)
        for thread in threads:
            thread.join(timeout=15)
        followed.set()

        print(f"scenario {args.scenario}: {args.seconds:.0f} s, loop priority {args.realtime or 'normal'}, "
              f"{len(names['probes'])} probes, "
              f"{len(names['loopers'])} crash-looping apps, {len(names['hoarders'])} apps at the task limit")
        if sizes:
            print(f"status replies: {len(sizes)}, largest {max(sizes)} bytes")
        if names["probes"]:
            ms = [value * 1000 for value in lateness]
            print(f"probe kills: {len(ms)}; lateness p50 {percentile(ms, 0.5):.3f} ms, "
                  f"p99 {percentile(ms, 0.99):.3f} ms, max {max(ms, default=float('nan')):.3f} ms")
            print("largest:", ", ".join(f"{value:.3f}" for value in sorted(ms)[-5:]), "ms")
            if len(ms) < 50 or percentile(ms, 0.99) > 5:
                ok = False
        print(f"daemon histogram: {share * 100:.2f}% of {served} deadlines served within 5 ms")
        for problem in problems[:5]:
            print("problem:", problem)
        print("daemon RSS every 10 s (MB):", " ".join(f"{value / 1024:.1f}" for value in rss[::10]))
        print(f"daemon RSS: first {rss[0] / 1024:.1f} MB, last {rss[-1] / 1024:.1f} MB, max {max(rss) / 1024:.1f} MB")
        if args.scenario == "memory" and max(rss) - rss[0] > 20 * 1024:
            ok = False

        begin = time.monotonic()
        daemon.send_signal(signal.SIGTERM)
        try:
            daemon.wait(timeout=120)
            stopped = time.monotonic() - begin
        except subprocess.TimeoutExpired:
            stopped = float("inf")
        left = app_processes(run_id)
        print(f"SIGTERM to exit: {stopped:.2f} s (status {daemon.returncode}); app processes left: {len(left)}")
        if args.scenario == "memory" and (stopped > 2 or left):
            ok = False
    except Exception as error:  # noqa: BLE001: reported with the daemon's output
        print("error:", error)
        ok = False
    finally:
        stop.set()
        if daemon.poll() is None:
            daemon.kill()
            daemon.wait()
        print("load after:", subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip())
        if not ok:
            with open(log_path, errors="replace") as f:
                print("daemon output (last 20 lines):", *f.readlines()[-20:], sep="\n")
        for pid in app_processes(run_id):
            os.kill(pid, signal.SIGKILL)
        shutil.rmtree(directory, ignore_errors=True)
    print("PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
