#!/usr/bin/env python3
"""The daemon at fleet scale: `make bench-scale N=1000` (Docs/Benchmarking.md, "Fleet scale").

Generates N `sleep` process apps (RunAtLoad, `SuspensionMechanism` signal, a `MetricsAddress` on loopback) into a
temporary configuration directory, runs the release `runway` on it and measures, in order:

- `validate`: wall and CPU time (the child's user + system time);
- start -> the control socket accepting, and the first `status` reply;
- every RunAtLoad app active (counted from the daemon's timeline, its standard output);
- `status` (a summary above 1,000 apps), `status --summary`, `status --all` (the table of every app) and
  `status --json`: end-to-end time and output size (median of 5);
- deadlines under polling: budget deadlines at known instants (an operator's task, then `enterBackground`, under a
  `BackgroundTimeBudget` of 2 s and `OverrunPolicy` suspend) for DEADLINES apps spread over POLL_SECONDS, first
  with no client, then with a client running `runway status --json` 10 times a second (back to back when a walk
  takes longer); each deadline's lateness is the daemon's own clock at the budgetExpired transition minus the
  instant it was due (the background entry's instant plus the budget), from the event stream; p50, p99 and max;
- `/metrics`: the first scrape and a later one (median of 5), time and size;
- idle: the daemon's CPU and wake-ups per second (voluntary + involuntary context switches of all its threads,
  from /proc/PID/task/*/status) over IDLE_SECONDS with nothing due;
- stop: SIGTERM -> exit with every app running.

Prints a table, then one JSON object (also written to --json FILE when given). Python 3, standard library only.
The figures depend on the machine's load: the table prints `uptime`'s load averages beside them.
"""

import argparse
import json
import os
import resource
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))

APP_PLIST = """<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
<plist version="1.0">
<dict>
    <key>CFBundleIdentifier</key>
    <string>{bundle}</string>
    <key>ProgramArguments</key>
    <array>
        <string>{sleep}</string>
        <string>100000</string>
    </array>
    <key>RunAtLoad</key>
    <{run_at_load}/>
</dict>
</plist>
"""

RUNWAY_PLIST = """<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
<plist version="1.0">
<dict>
    <key>SuspensionMechanism</key>
    <string>signal</string>
    <key>BackgroundTimeBudget</key>
    <real>{budget}</real>
    <key>OverrunPolicy</key>
    <string>suspend</string>
    <key>MetricsAddress</key>
    <string>127.0.0.1:{port}</string>
    <key>ControlSocket</key>
    <string>{socket}</string>
</dict>
</plist>
"""


# The budget of the deadlines under polling: short, so that a deadline falls inside the polling window.
BUDGET_SECONDS = 2.0


def load_average():
    with open("/proc/loadavg") as file:
        return " ".join(file.read().split()[:3])


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def generate(directory, apps, port, control, running):
    os.makedirs(os.path.join(directory, "Apps"))
    sleep = shutil.which("sleep") or "/bin/sleep"
    with open(os.path.join(directory, "Runway.plist"), "w") as file:
        file.write(RUNWAY_PLIST.format(port=port, socket=control, budget=BUDGET_SECONDS))
    for index in range(apps):
        bundle = f"com.example.scale{index:05d}"
        with open(os.path.join(directory, "Apps", bundle + ".plist"), "w") as file:
            run_at_load = "true" if index < running else "false"
            file.write(APP_PLIST.format(bundle=bundle, sleep=sleep, run_at_load=run_at_load))


def timed_run(command, timeout=600):
    """Runs `command`; returns (wall seconds, CPU seconds of the child, stdout bytes, exit status)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.monotonic()
    result = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, timeout=timeout)
    wall = time.monotonic() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, result.stdout, result.returncode


def active_count(log_path):
    with open(log_path, errors="replace") as file:
        return sum(1 for line in file if "inactive -> active" in line)


def launch_span(log_path):
    """Seconds of the daemon's clock from the first `RunAtLoad` line to the last app becoming active."""
    first = last = None
    with open(log_path, errors="replace") as file:
        for line in file:
            fields = line.split()
            if len(fields) < 3 or not fields[1].startswith("t="):
                continue
            at = float(fields[1][2:].rstrip("s"))
            if first is None and "RunAtLoad" in line:
                first = at
            if "inactive -> active" in line:
                last = at
    return None if first is None or last is None else round(last - first, 3)


def socket_accepts(path):
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as client:
        try:
            client.connect(path)
            return True
        except OSError:
            return False


def scrape(url):
    start = time.monotonic()
    with urllib.request.urlopen(url, timeout=60) as reply:
        body = reply.read()
    return time.monotonic() - start, len(body)


def thread_counters(pid):
    """{thread id: (CPU ticks, context switches)} of every thread of `pid`."""
    counters = {}
    task = f"/proc/{pid}/task"
    for thread in os.listdir(task):
        try:
            with open(f"{task}/{thread}/stat") as file:
                fields = file.read().rsplit(")", 1)[1].split()
            switches = 0
            with open(f"{task}/{thread}/status") as file:
                for line in file:
                    if line.startswith(("voluntary_ctxt_switches", "nonvoluntary_ctxt_switches")):
                        switches += int(line.split()[1])
            counters[thread] = (int(fields[11]) + int(fields[12]), switches)
        except (FileNotFoundError, ProcessLookupError):
            continue
    return counters


def counter_growth(before, after):
    """(CPU ticks, context switches) gained over the window by the threads alive at its end; a thread that exited
    during it is not counted (its counters are gone), one started during it counts from zero."""
    ticks = switches = 0
    for thread, (thread_ticks, thread_switches) in after.items():
        start = before.get(thread, (0, 0))
        ticks += thread_ticks - start[0]
        switches += thread_switches - start[1]
    return ticks, switches


def busy_threads(pid, seconds):
    """Threads of `pid` that used CPU over `seconds`: [(name, percent)], busiest first."""

    def sample():
        result = {}
        task = f"/proc/{pid}/task"
        for thread in os.listdir(task):
            try:
                with open(f"{task}/{thread}/stat") as file:
                    text = file.read()
                name = text[text.index("(") + 1 : text.rindex(")")]
                fields = text.rsplit(")", 1)[1].split()
                result[thread] = (name, int(fields[11]) + int(fields[12]))
            except (FileNotFoundError, ProcessLookupError, ValueError):
                continue
        return result

    first = sample()
    time.sleep(seconds)
    second = sample()
    hertz = os.sysconf("SC_CLK_TCK")
    busy = []
    for thread, (name, ticks) in second.items():
        used = ticks - first.get(thread, (name, 0))[1]
        if used > 0:
            busy.append((f"{name}/{thread}", round(100.0 * used / hertz / seconds, 1)))
    return sorted(busy, key=lambda entry: -entry[1])


class ControlConnection:
    """One control-socket connection speaking the JSON lines of Docs/ControlProtocol.md."""

    def __init__(self, path):
        self.socket = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.socket.connect(path)
        self.reader = self.socket.makefile("rb")

    def request(self, **fields):
        self.socket.sendall((json.dumps(fields) + "\n").encode())
        return json.loads(self.reader.readline())

    def close(self):
        self.reader.close()
        self.socket.close()


def percentile(values, fraction):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))] if ordered else None


def deadlines_lateness(runway, control, apps, seconds, poll):
    """Lateness of the budget deadlines of `apps`, begun evenly over `seconds`, with or without a client running
    `runway status --json` 10 times a second. Returns (figures, walks)."""
    events = ControlConnection(control)
    assert events.request(command="events").get("subscribed")
    seen = {}

    def follow():
        try:
            for raw in events.reader:
                event = json.loads(raw).get("event")
                if event and event["app"] in wanted:
                    seen.setdefault(event["app"], []).append(event)
        except (OSError, ValueError):
            return  # the connection was closed at the end of the run

    wanted = set(apps)

    threading.Thread(target=follow, daemon=True).start()
    stop = threading.Event()
    walks = []
    failures = []

    def polling():
        while not stop.is_set():
            began = time.monotonic()
            walk = subprocess.run(
                [runway, "status", "--json", "--socket", control], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
            )
            if walk.returncode != 0:
                failures.append(f"exit status {walk.returncode}: " + walk.stderr.decode(errors="replace").strip())
                continue
            walks.append(time.monotonic() - began)
            stop.wait(max(0.0, 0.1 - (time.monotonic() - began)))

    poller = threading.Thread(target=polling, daemon=True)
    if poll:
        poller.start()
    commands = ControlConnection(control)
    start = time.monotonic()
    for index, app in enumerate(apps):
        time.sleep(max(0.0, start + seconds * index / len(apps) - time.monotonic()))
        commands.request(command="beginTask", app=app, task="bench")
        commands.request(command="home", app=app)
    deadline = time.monotonic() + BUDGET_SECONDS + 5
    while time.monotonic() < deadline and sum(
        1 for app in apps if any(e["cause"] == "budgetExpired" for e in seen.get(app, []))
    ) < len(apps):
        time.sleep(0.05)
    stop.set()
    if poll:
        poller.join()
    lateness = []
    for app in apps:
        entered = [e["atSeconds"] for e in seen.get(app, []) if e["to"] == "background"]
        expired = [e["atSeconds"] for e in seen.get(app, []) if e["cause"] == "budgetExpired"]
        if entered and expired:
            lateness.append(max(0.0, expired[0] - (entered[0] + BUDGET_SECONDS)) * 1000)
    commands.close()
    events.socket.shutdown(socket.SHUT_RDWR)
    events.close()
    if failures:
        print(f"status --json failed {len(failures)} times while polled; the first: {failures[0]}", file=sys.stderr)
    figures = {
        "failed_walks": len(failures),
        "deadlines": len(lateness),
        "p50_ms": round(percentile(lateness, 0.5), 3) if lateness else None,
        "p99_ms": round(percentile(lateness, 0.99), 3) if lateness else None,
        "max_ms": round(max(lateness), 3) if lateness else None,
    }
    return figures, walks


def measure(runway, apps, idle_seconds, keep, metrics=True, deadlines=200, poll_seconds=10.0, running=None):
    running = apps if running is None else min(apps, running)
    directory = tempfile.mkdtemp(prefix=f"runway-scale-{apps}-")
    control = os.path.join(directory, "control.sock")
    port = free_port()
    generate(os.path.join(directory, "Config"), apps, port, control, running)
    config = os.path.join(directory, "Config")
    figures = {"apps": apps, "running": running, "load_before": load_average()}

    wall, cpu, _, status = timed_run([runway, "validate", "--config", config])
    if status != 0:
        raise SystemExit(f"runway validate failed with status {status} on {config}")
    figures["validate_wall_s"] = round(wall, 3)
    figures["validate_cpu_s"] = round(cpu, 3)

    state = os.path.join(directory, "state")
    log = open(os.path.join(directory, "daemon.log"), "w")
    start = time.monotonic()
    daemon = subprocess.Popen(
        # The timeline into the log, which the all-active figures read.
        [runway, "run", "--config", config, "--state-directory", state, "--timeline", "always"],
        stdout=log, stderr=subprocess.STDOUT,
    )
    try:
        while not socket_accepts(control):
            if daemon.poll() is not None:
                raise SystemExit(f"the daemon exited with {daemon.returncode}: see {directory}/daemon.log")
            time.sleep(0.005)
        figures["start_to_socket_s"] = round(time.monotonic() - start, 3)
        status_command = [runway, "status", "--socket", control]
        while timed_run(status_command)[3] != 0:
            time.sleep(0.005)
        figures["start_to_first_status_s"] = round(time.monotonic() - start, 3)

        # Counted from the daemon's timeline (its standard output), not by polling `status`: a poll costs the loop
        # a walk of every app, which would slow the launches it measures.
        log_path = os.path.join(directory, "daemon.log")
        while active_count(log_path) < running:
            if daemon.poll() is not None:
                raise SystemExit(f"the daemon exited with {daemon.returncode}: see {log_path}")
            if time.monotonic() - start > 600:
                raise SystemExit("not every RunAtLoad app became active within 600 s")
            time.sleep(0.01)
        figures["start_to_all_active_s"] = round(time.monotonic() - start, 3)
        figures["launch_span_s"] = launch_span(log_path)

        if metrics:
            url = f"http://127.0.0.1:{port}/metrics"
            first, size = scrape(url)
            figures["metrics_first_s"] = round(first, 3)
            figures["metrics_first_bytes"] = size
            later = [scrape(url) for _ in range(5)]
            figures["metrics_later_s"] = round(statistics.median(t for t, _ in later), 3)
            figures["metrics_later_bytes"] = later[-1][1]

        for name, extra in (
            ("status", []),
            ("status_summary", ["--summary"]),
            ("status_all", ["--all"]),
            ("status_json", ["--json"]),
        ):
            runs = [timed_run(status_command + extra) for _ in range(5)]
            figures[f"{name}_s"] = round(statistics.median(r[0] for r in runs), 3)
            figures[f"{name}_bytes"] = len(runs[-1][2])

        # Deadlines under polling: two disjoint sets of apps, so that every deadline is a first background period.
        count = min(deadlines, running // 2)
        bundles = [f"com.example.scale{index:05d}" for index in range(2 * count)]
        quiet, _ = deadlines_lateness(runway, control, bundles[:count], poll_seconds, poll=False)
        polled, walks = deadlines_lateness(runway, control, bundles[count:], poll_seconds, poll=True)
        for name, value in quiet.items():
            figures[f"deadlines_quiet_{name}"] = value
        for name, value in polled.items():
            figures[f"deadlines_polled_{name}"] = value
        figures["polled_walks"] = len(walks)
        figures["polled_walk_median_s"] = round(statistics.median(walks), 3) if walks else None

        # Settle: a second with nothing asked of the daemon, then the busy threads over 3 s, then the idle window.
        time.sleep(1)
        figures["busy_threads_after_ready"] = busy_threads(daemon.pid, 3)
        hertz = os.sysconf("SC_CLK_TCK")
        before = thread_counters(daemon.pid)
        time.sleep(idle_seconds)
        ticks, switches = counter_growth(before, thread_counters(daemon.pid))
        figures["idle_cpu_percent"] = round(100.0 * ticks / hertz / idle_seconds, 2)
        figures["idle_wakeups_per_s"] = round(switches / idle_seconds, 2)

        stop = time.monotonic()
        daemon.send_signal(signal.SIGTERM)
        daemon.wait(timeout=600)
        figures["stop_s"] = round(time.monotonic() - stop, 3)
        figures["stop_exit_status"] = daemon.returncode
    finally:
        if daemon.poll() is None:
            # SIGTERM first: the daemon ends its apps (P4); a SIGKILLed daemon in signal mode would leave N children
            # running until the next daemon on this socket ends them.
            daemon.send_signal(signal.SIGTERM)
            try:
                daemon.wait(timeout=120)
            except subprocess.TimeoutExpired:
                daemon.kill()
                daemon.wait()
        log.close()
        figures["load_after"] = load_average()
        if not keep:
            shutil.rmtree(directory, ignore_errors=True)
        else:
            figures["directory"] = directory
    return figures


ROWS = [
    ("validate wall / CPU", "validate_wall_s", "validate_cpu_s", "s"),
    ("start -> socket accepting", "start_to_socket_s", None, "s"),
    ("start -> first status", "start_to_first_status_s", None, "s"),
    ("start -> all RunAtLoad active", "start_to_all_active_s", None, "s"),
    ("first RunAtLoad -> last active", "launch_span_s", None, "s"),
    ("status: time / bytes", "status_s", "status_bytes", ""),
    ("status --summary: time / bytes", "status_summary_s", "status_summary_bytes", ""),
    ("status --all: time / bytes", "status_all_s", "status_all_bytes", ""),
    ("status --json: time / bytes", "status_json_s", "status_json_bytes", ""),
    ("deadline lateness, no client: p99 / max ms", "deadlines_quiet_p99_ms", "deadlines_quiet_max_ms", ""),
    ("deadline lateness, status --json 10/s: p99 / max ms", "deadlines_polled_p99_ms", "deadlines_polled_max_ms", ""),
    ("status --json walks while polled: count / median s", "polled_walks", "polled_walk_median_s", ""),
    ("/metrics first: time / bytes", "metrics_first_s", "metrics_first_bytes", ""),
    ("/metrics later: time / bytes", "metrics_later_s", "metrics_later_bytes", ""),
    ("idle CPU % / wake-ups per s", "idle_cpu_percent", "idle_wakeups_per_s", ""),
    ("stop with every app running", "stop_s", None, "s"),
]


def print_table(results):
    header = "| measure | " + " | ".join(f"{r['apps']:,} apps" for r in results) + " |"
    print(header)
    print("|---" * (len(results) + 1) + "|")
    for label, first, second, unit in ROWS:
        cells = []
        for result in results:
            cell = f"{result.get(first, '-')}{unit}"
            if second is not None:
                cell += f" / {result.get(second, '-')}"
            cells.append(cell)
        print(f"| {label} | " + " | ".join(cells) + " |")
    for result in results:
        busy = ", ".join(f"{name} {percent}%" for name, percent in result["busy_threads_after_ready"]) or "none"
        print(f"{result['apps']:,} apps: threads busy after ready: {busy}; load {result['load_before']} -> "
              f"{result['load_after']}")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--apps", default="1000", help="comma-separated app counts (default 1000)")
    parser.add_argument("--runway", default=os.path.join(REPO, ".build", "release", "runway"))
    parser.add_argument("--idle-seconds", type=float, default=10.0)
    parser.add_argument("--json", help="also write the JSON here")
    parser.add_argument("--keep", action="store_true", help="keep the generated directory and the daemon's log")
    parser.add_argument("--no-metrics", action="store_true", help="skip the /metrics scrapes")
    parser.add_argument("--deadlines", type=int, default=200, help="budget deadlines per polling phase (default 200)")
    parser.add_argument(
        "--running",
        type=int,
        help="apps started at load (RunAtLoad); the rest are registered only (default: all). Each running app holds "
        "about three descriptors in the daemon, so the descriptor limit bounds it",
    )
    parser.add_argument("--poll-seconds", type=float, default=10.0, help="seconds the deadlines are spread over")
    arguments = parser.parse_args()
    if not os.access(arguments.runway, os.X_OK):
        raise SystemExit(f"{arguments.runway} is missing: build it with swift build -c release --product runway")
    counts = [int(count) for count in arguments.apps.split(",")]
    # A running app holds about three descriptors in the daemon (its stdout and stderr pipes, its pidfd), and the
    # control socket's clients need more: at a hard limit below that the daemon refuses connections (accept fails
    # with EMFILE), which the status walks would count as failures. Root may raise the hard limit up to nr_open.
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = hard
    if hard != resource.RLIM_INFINITY and hard < 4 * max(counts) + 4096:
        with open("/proc/sys/fs/nr_open") as file:
            wanted = max(hard, min(4 * max(counts) + 4096, int(file.read())))
    try:
        resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, wanted))
    except (ValueError, OSError):
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
        print(f"the descriptor limit stays {hard} (not root?); at this many apps the daemon may refuse clients",
              file=sys.stderr)
    results = [
        measure(
            arguments.runway,
            count,
            arguments.idle_seconds,
            arguments.keep,
            not arguments.no_metrics,
            arguments.deadlines,
            arguments.poll_seconds,
            arguments.running,
        )
        for count in counts
    ]
    print_table(results)
    text = json.dumps({"runs": results}, indent=2)
    print(text)
    if arguments.json:
        with open(arguments.json, "w") as file:
            file.write(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
