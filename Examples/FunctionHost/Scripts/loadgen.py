#!/usr/bin/env python3
"""The function host's load generator: requests from a seeded schedule, the latency of each situation, side by side.

It starts the host (`--host`, on a free loopback port) with `--functions` functions made from the entries of
`--config` (py-1, swift-1, py-2, ...: each entry's program, budget and exitsOnSuspend), sends `--requests`
requests over `--rounds` runs of the host (each run starts every function from nothing), and stops it. Or, with
`--url`, it drives a host already running and uses its functions as they are (one round).

Each request is planned to find its function in one of four situations, the `Runway-Start` header of the answer:
- cold: not running, nothing to restore (a function's first request of a round);
- warm: active (a request soon after the last one, before the host's idleSeconds sent it to the background);
- thawed: suspended (the function was left idle: the host sent it to the background and Runway froze it);
- restored: not running after `POST /admin/pressure` purged it while suspended, its count preserved.
The schedule is a seeded random walk (`--seed`): after each request, the function's next situation is drawn, and
the generator sends, at each step, a request to a function whose status (`/status.json`) is the situation planned
for it, or `POST /admin/pressure` when a function planned to be restored is suspended and none waits to be thawed.
Requests are `GET /` (most), `POST /work?ms=M` (the waitUntil pattern) and `GET /echo?x=S`, one at a time.

Every answer is checked: `GET /` counts one more than the function's last answer (1 on a cold start), restored
counts go on from where they were, the pid changes exactly on a launch, `restored` is true exactly after a
restoring launch, echo and work answers are the expected ones. Any failed check makes the exit status 1.

The CPU the idle functions used while frozen is read from each function's cgroup (`cpu.stat` usage_usec, cgroup
from /proc/PID/cgroup) over every interval in which `cgroup.events` said `frozen 1`, until its next request.

Usage: loadgen.py [--host BINARY --config functions.json | --url URL] [--seed N] [--requests N] [--functions N]
                  [--rounds N] [--json FILE]        (Python 3, standard library only)
"""
import argparse
import http.client
import json
import os
import random
import re
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse

SITUATIONS = ("warm", "thawed", "restored", "cold")
# How each next situation is drawn after a request (the first request of a function in a round is cold).
PLAN_WEIGHTS = {"warm": 4, "thawed": 3, "restored": 2}
# A warm request is sent only this long before the host's idle timer would fire, so it finds the function active.
WARM_MARGIN_SECONDS = 0.6
# How long a function left idle stays frozen before it is thawed or purged: drawn from this range, in seconds.
REST_SECONDS = (0.5, 3.0)
# How long the generator waits, at most, for any function to reach its planned situation.
STALL_SECONDS = 60
POLL_SECONDS = 0.05


def main():
    options = parse_options()
    rng = random.Random(options.seed)
    results = Results()
    rounds = 1 if options.url else options.rounds
    per_round = [options.requests // rounds + (index < options.requests % rounds) for index in range(rounds)]
    for index, count in enumerate(per_round):
        if options.url:
            run_round(options.url, count, rng, results, options)
            continue
        with Host(options.host, options.config, options.functions) as url:
            print("round %d of %d: host at %s, %d requests" % (index + 1, rounds, url, count), flush=True)
            run_round(url, count, rng, results, options)
    report = results.report(options)
    print(report["table"])
    if options.json:
        with open(options.json, "w") as f:
            json.dump(report, f, indent=2, sort_keys=True)
    return 1 if results.failures else 0


def parse_options():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--host", help="the FunctionHost binary to start (with --config)")
    parser.add_argument("--config", help="the host's functions.json, whose entries the functions are made from")
    parser.add_argument("--url", help="a host already running, e.g. http://127.0.0.1:8080 (instead of --host)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--requests", type=int, default=240)
    parser.add_argument("--functions", type=int, default=8, help="functions the host serves (1 to 64)")
    parser.add_argument("--rounds", type=int, default=3, help="runs of the host; each starts every function cold")
    parser.add_argument("--json", help="also write the figures to this file")
    options = parser.parse_args()
    if bool(options.url) == bool(options.host and options.config):
        parser.error("give either --url, or --host and --config")
    if not 1 <= options.functions <= 64:
        parser.error("--functions must be from 1 to 64 (the host's limit)")
    if options.requests < 1 or options.rounds < 1:
        parser.error("--requests and --rounds must be at least 1")
    return options


class Host:
    """The host, started on a free loopback port with a configuration of `functions` functions; stopped on exit."""

    def __init__(self, binary, config, functions):
        self.binary = os.path.abspath(binary)
        self.config = os.path.abspath(config)
        self.functions = functions

    def __enter__(self):
        self.scratch = tempfile.mkdtemp(prefix="function-loadgen-")
        path = os.path.join(self.scratch, "functions.json")
        with open(path, "w") as f:
            json.dump(derived_config(self.config, self.functions), f, indent=1)
        self.log = open(os.path.join(self.scratch, "host.log"), "w")
        self.process = subprocess.Popen(
            [self.binary, "--config", path, "--port", "0"], stdout=subprocess.PIPE, stderr=self.log, text=True
        )
        line = self.process.stdout.readline()
        match = re.match(r"function-host listening on (\S+):(\d+)", line)
        if match is None:
            self.__exit__(None, None, None)
            raise SystemExit("loadgen: the host did not start (%r); its log: %s" % (line, self.log.name))
        # Whatever else it prints is read, so that a full pipe never blocks it.
        threading.Thread(target=self.process.stdout.read, daemon=True).start()
        return "http://%s:%s" % (match.group(1), match.group(2))

    def __exit__(self, *_):
        self.process.terminate()
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self.log.close()
        for name in os.listdir(self.scratch):
            os.unlink(os.path.join(self.scratch, name))
        os.rmdir(self.scratch)


def derived_config(path, functions):
    """`functions` functions cycling over the entries of `path`, named NAME-1, NAME-2, ...; paths made absolute."""
    with open(path) as f:
        config = json.load(f)
    directory = os.path.dirname(path)
    entries = config["functions"]
    made = []
    for index in range(functions):
        entry = dict(entries[index % len(entries)])
        entry["name"] = "%s-%d" % (entry["name"], index // len(entries) + 1)
        entry["program"] = [absolute(argument, directory) for argument in entry["program"]]
        made.append(entry)
    return {**config, "functions": made}


def absolute(argument, directory):
    candidate = os.path.join(directory, argument)
    return os.path.abspath(candidate) if not os.path.isabs(argument) and os.path.exists(candidate) else argument


class Function:
    """What the generator knows of one function: its plan, its last answer, its frozen intervals."""

    def __init__(self, name):
        self.name = name
        self.plan = "cold"
        self.count = 0
        self.pid = None
        self.restored = False
        self.last_request = 0.0
        self.rest = 0.0  # seconds to stay frozen before the planned thaw or purge
        self.suspended_at = None  # monotonic seconds when it was first seen suspended
        self.frozen_since = None  # (monotonic seconds, usage_usec, cgroup cpu.stat path) of an open interval


def run_round(url, count, rng, results, options):
    client = Client(url)
    snapshot = client.status()
    functions = [Function(entry["name"]) for entry in snapshot["functions"]]
    idle = snapshot.get("idleSeconds", 2)
    for function, entry in zip(functions, snapshot["functions"]):
        if entry["state"] != "notRunning" or entry.get("hasPreservedState"):
            function.plan = None  # an external host's function already ran: its first answer sets the count
    sent = 0
    stalled_since = time.monotonic()
    last_pressure = 0.0
    while sent < count:
        states = {entry["name"]: entry for entry in client.status()["functions"]}
        now = time.monotonic()
        for function in functions:
            suspended = states[function.name]["state"] == "suspended"
            if not suspended:
                function.suspended_at = None
            elif function.suspended_at is None:
                function.suspended_at = now
            track_frozen(function, states[function.name], results)
        ready = [f for f in functions if situation(f, states[f.name], idle, now) is not None]
        if ready:
            function = rng.choice(ready)
            expected = situation(function, states[function.name], idle, now)
            close_frozen(function, results)
            request(client, function, expected, rng, results)
            function.plan = rng.choices(list(PLAN_WEIGHTS), weights=list(PLAN_WEIGHTS.values()))[0]
            function.rest = rng.uniform(*REST_SECONDS)
            sent += 1
            stalled_since = time.monotonic()
        elif (
            any(f.plan == "restored" and rested(f, now) for f in functions)
            and not any(f.plan == "thawed" and f.suspended_at is not None for f in functions)
            and now - last_pressure > 1
        ):
            # A purge takes every suspended function: the ones to be thawed go first.
            for function in functions:
                close_frozen(function, results)
            client.call("POST", "/admin/pressure")
            results.pressures += 1
            last_pressure = time.monotonic()
        elif time.monotonic() - stalled_since > STALL_SECONDS:
            results.fail("no function reached its planned situation in %d s: %s" % (STALL_SECONDS, states))
            return
        else:
            time.sleep(POLL_SECONDS)
    for function in functions:
        close_frozen(function, results)


def situation(function, entry, idle, now):
    """The situation a request to `function` would find now, when it is the one planned; else None."""
    state = entry["state"]
    if entry.get("terminating"):
        return None
    if function.plan is None:
        return "any"
    if function.plan == "warm":
        if state == "active" and now - function.last_request < idle - WARM_MARGIN_SECONDS:
            return "warm"
        if state != "active":
            # The idle timer came first: let it be frozen and thaw it instead.
            function.plan = "thawed"
        return None
    if function.plan == "thawed" and rested(function, now):
        return "thawed"
    # Without the host's hasPreservedState, a function that answered in this round has a state.
    has_state = entry.get("hasPreservedState", function.count != 0)
    if function.plan in ("thawed", "restored") and state == "notRunning" and has_state:
        # A pressure purged it (or an exitsOnSuspend function ended on suspension): its state is kept.
        return "restored"
    if function.plan == "cold" and state == "notRunning" and not has_state:
        return "cold"
    return None


def rested(function, now):
    """Whether the function was seen suspended at least its rest ago."""
    return function.suspended_at is not None and now - function.suspended_at >= function.rest


def request(client, function, expected, rng, results):
    kind = rng.choices(["count", "work", "echo"], weights=[6, 2, 1])[0]
    started = time.monotonic()
    if kind == "count":
        status, headers, body = client.call("GET", "/fn/%s/" % function.name)
    elif kind == "work":
        milliseconds = rng.choice([20, 50, 100, 200])
        status, headers, body = client.call("POST", "/fn/%s/work?ms=%d" % (function.name, milliseconds))
    else:
        text = "x%06d" % rng.randrange(1_000_000)
        status, headers, body = client.call("GET", "/fn/%s/echo?x=%s" % (function.name, text))
    elapsed = time.monotonic() - started
    function.last_request = time.monotonic()
    found = headers.get("runway-start", "(none)")
    what = "%s %s (%s, expected %s)" % (function.name, kind, found, expected)
    if status != 200:
        # The function may have served it before the answer was lost: its count is not known until the next one.
        function.count = None
        return results.fail("%s: status %d: %s" % (what, status, body[:200]))
    results.latency(found, elapsed, function.name.rpartition("-")[0] or function.name)
    if expected != "any" and found != expected:
        results.fail("%s: the host found it %s" % (what, found))
    launched = found in ("cold", "restored")
    previous = 0 if found == "cold" else function.count
    unknown = expected == "any" or previous is None
    if kind == "count":
        answer = json.loads(body)
        checks = [
            (unknown or answer["count"] == previous + 1, "count %s after %s" % (answer["count"], previous)),
            (answer["function"] == function.name, "function %r" % answer["function"]),
            (launched or function.pid is None or answer["pid"] == function.pid, "pid changed without a launch"),
            (not launched or answer["pid"] != function.pid, "pid kept across a launch"),
            (answer["restored"] == (found == "restored" or (not launched and function.restored)) or expected == "any",
             "restored %s" % answer["restored"]),
        ]
        for held, text in checks:
            if not held:
                results.fail("%s: %s" % (what, text))
        function.count = answer["count"]
        function.pid = answer["pid"]
        function.restored = answer["restored"]
    else:
        if kind == "work" and json.loads(body) != {"accepted": milliseconds}:
            results.fail("%s: answered %s" % (what, body))
        if kind == "echo" and body != text:
            results.fail("%s: echoed %r" % (what, body))
        function.count = None if previous is None else previous + 1
        if launched:
            function.pid = None
            function.restored = found == "restored"
    results.requests += 1


def summary(values):
    ordered = sorted(values)
    return {
        "count": len(ordered),
        "medianMs": round(statistics.median(ordered), 2),
        "p90Ms": round(ordered[min(len(ordered) - 1, int(0.9 * len(ordered)))], 2),
    }


def cgroup_stat(pid):
    """The cpu.stat path of the cgroup `pid` is in (cgroup v2), or None."""
    try:
        with open("/proc/%d/cgroup" % pid) as f:
            relative = next(line.strip()[3:] for line in f if line.startswith("0::"))
    except (OSError, StopIteration):
        return None
    path = os.path.join(cgroup_root(), relative.lstrip("/"))
    return path if os.path.exists(os.path.join(path, "cpu.stat")) else None


def cgroup_root():
    with open("/proc/self/mountinfo") as f:
        for line in f:
            fields = line.split()
            if fields[fields.index("-") + 1] == "cgroup2":
                return fields[4]
    return "/sys/fs/cgroup"


def read_usage(path):
    try:
        with open(os.path.join(path, "cpu.stat")) as f:
            return next(int(line.split()[1]) for line in f if line.startswith("usage_usec"))
    except (OSError, StopIteration):
        return None


def is_frozen(path):
    try:
        with open(os.path.join(path, "cgroup.events")) as f:
            return "frozen 1" in f.read()
    except OSError:
        return False


def track_frozen(function, entry, results):
    """Opens a frozen interval once the function's cgroup confirms the freeze."""
    if function.frozen_since is not None or entry["state"] != "suspended" or not entry.get("pid"):
        return
    if entry.get("terminating"):
        return
    path = cgroup_stat(entry["pid"])
    if path is None and os.path.exists("/proc/%d" % entry["pid"]):
        results.no_cgroup.add("%s (pid %s)" % (function.name, entry["pid"]))
    if path is None:
        return
    if is_frozen(path):
        usage = read_usage(path)
        if usage is not None:
            function.frozen_since = (time.monotonic(), usage, path)


def close_frozen(function, results):
    if function.frozen_since is None:
        return
    started, usage, path = function.frozen_since
    function.frozen_since = None
    now_usage = read_usage(path)
    if now_usage is None or not is_frozen(path):
        return  # purged or thawed meanwhile: the interval is not known to have stayed frozen
    results.frozen(function.name, time.monotonic() - started, now_usage - usage)


class Client:
    def __init__(self, url):
        parts = urllib.parse.urlsplit(url)
        self.host, self.port = parts.hostname, parts.port or 80

    def call(self, method, path):
        connection = http.client.HTTPConnection(self.host, self.port, timeout=60)
        try:
            connection.request(method, path)
            response = connection.getresponse()
            body = response.read().decode()
            return response.status, {k.lower(): v for k, v in response.getheaders()}, body
        finally:
            connection.close()

    def status(self):
        status, _, body = self.call("GET", "/status.json")
        if status != 200:
            raise SystemExit("loadgen: /status.json answered %d: %s" % (status, body[:200]))
        return json.loads(body)


class Results:
    def __init__(self):
        self.latencies = {situation: [] for situation in SITUATIONS}
        # (the configuration entry a function was made from, situation) -> milliseconds
        self.by_entry = {}
        self.failures = []
        self.requests = 0
        self.pressures = 0
        self.frozen_seconds = {}
        self.frozen_usec = {}
        self.no_cgroup = set()

    def latency(self, found, seconds, entry):
        self.latencies.setdefault(found, []).append(seconds * 1000)
        self.by_entry.setdefault((entry, found), []).append(seconds * 1000)

    def fail(self, text):
        self.failures.append(text)
        print("loadgen: FAILED: " + text, flush=True)

    def frozen(self, name, seconds, usec):
        self.frozen_seconds[name] = self.frozen_seconds.get(name, 0) + seconds
        self.frozen_usec[name] = self.frozen_usec.get(name, 0) + usec

    def report(self, options):
        rows = {situation: summary(values) for situation, values in self.latencies.items() if values}
        entries = sorted({entry for entry, _ in self.by_entry})
        by_entry = {
            entry: {found: summary(values) for (name, found), values in self.by_entry.items() if name == entry}
            for entry in entries
        }
        frozen_seconds = sum(self.frozen_seconds.values())
        frozen_usec = sum(self.frozen_usec.values())
        lines = ["%-10s %7s %11s %9s" % ("situation", "count", "median ms", "p90 ms")]
        for situation in list(SITUATIONS) + sorted(set(rows) - set(SITUATIONS)):
            row = rows.get(situation)
            if row is None:
                lines.append("%-10s %7d %11s %9s" % (situation, 0, "-", "-"))
            else:
                lines.append("%-10s %7d %11.1f %9.1f" % (situation, row["count"], row["medianMs"], row["p90Ms"]))
        lines.append("")
        lines.append("median ms  " + "".join("%10s" % situation for situation in SITUATIONS))
        for entry in entries:
            medians = [by_entry[entry].get(situation, {}).get("medianMs") for situation in SITUATIONS]
            lines.append("%-11s" % entry + "".join("%10s" % ("-" if m is None else "%.1f" % m) for m in medians))
        lines.append(
            "frozen: %.1f s over %d functions, %d us of CPU (cgroup cpu.stat usage_usec)"
            % (frozen_seconds, len(self.frozen_seconds), frozen_usec)
        )
        if self.no_cgroup:
            lines.append("no cgroup of their own (signal suspension?): %s" % ", ".join(sorted(self.no_cgroup)))
        lines.append(
            "%d requests, %d pressure events, seed %d, %d failed checks"
            % (self.requests, self.pressures, options.seed, len(self.failures))
        )
        return {
            "seed": options.seed,
            "requests": self.requests,
            "functions": options.functions if not options.url else None,
            "rounds": options.rounds if not options.url else 1,
            "pressureEvents": self.pressures,
            "situations": rows,
            "byEntry": by_entry,
            "frozen": {
                "seconds": round(frozen_seconds, 3),
                "cpuUsec": frozen_usec,
                "perFunction": {
                    name: {"seconds": round(self.frozen_seconds[name], 3), "cpuUsec": self.frozen_usec[name]}
                    for name in sorted(self.frozen_seconds)
                },
            },
            "failures": self.failures,
            "table": "\n".join(lines),
        }


if __name__ == "__main__":
    sys.exit(main())
