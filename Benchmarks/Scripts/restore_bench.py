#!/usr/bin/env python3
"""Summon-to-active with and without state restoration: `make bench-restore` (Docs/Performance.md).

Runs `runway run` on a scratch configuration with one protocol app, the Python sample (Config/Programs/sample_app.py),
and measures, ROUNDS times each in one run, the time from sending the command on the control socket to the event
that shows the app active:

- suspended: `summon` of the app suspended after Home (a resume: thaw, willEnterForeground, didBecomeActive);
- restored: `launch` of the app purged after Home with a preserved state (a new process, restoredState lines, then
  didFinishLaunching with `restoration` purged);
- cold: `launch` of the app with no preserved state (`discard-state` after Home, then purge).

Prints the medians side by side (and the quartiles), the load (`uptime`) and one JSON object. Python 3, standard
library only. The launches include starting the Python interpreter, as a real app's would.
"""

import argparse
import json
import os
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
APP = "com.example.counter"

RUNWAY_PLIST = """<?xml version="1.0" encoding="UTF-8"?>
<plist version="1.0"><dict>
<key>ControlSocket</key><string>{socket}</string>
<key>StateDirectory</key><string>{state}</string>
<key>MemoryPressureSource</key><string>off</string>
</dict></plist>
"""
APP_PLIST = """<?xml version="1.0" encoding="UTF-8"?>
<plist version="1.0"><dict>
<key>CFBundleIdentifier</key><string>{app}</string>
<key>ProgramArguments</key><array><string>python3</string><string>{sample}</string></array>
<key>RunwayProtocol</key><integer>1</integer>
<key>EnvironmentVariables</key><dict><key>SAMPLE_TASK_SECONDS</key><string>0</string></dict>
</dict></plist>
"""


class Control:
    """One control-socket connection; `events` subscribes it."""

    def __init__(self, path):
        self.socket = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.socket.connect(path)
        self.reader = self.socket.makefile("r", encoding="utf-8")

    def request(self, command, **fields):
        self.socket.sendall((json.dumps({"v": 1, "command": command, **fields}) + "\n").encode())
        reply = json.loads(self.reader.readline())
        if not reply.get("ok"):
            raise SystemExit("%s failed: %s" % (command, reply))
        return reply

    def wait_event(self, predicate, seconds=30):
        self.socket.settimeout(seconds)
        while True:
            event = json.loads(self.reader.readline())["event"]
            if event["app"] == APP and predicate(event):
                return event


def measure(control, events, command, expect_restoration):
    """Seconds from sending `command` to the event of the app becoming active."""
    start = time.perf_counter()
    control.request(command, app=APP)
    restoration = None
    while True:
        event = events.wait_event(lambda e: True)
        if event["from"] == "notRunning":
            restoration = event.get("restoration")
        if event["to"] == "active":
            elapsed = time.perf_counter() - start
            break
    if expect_restoration != (restoration is not None):
        raise SystemExit("%s: restoration %r, expected %s" % (command, restoration, expect_restoration))
    return elapsed


def to_suspended(control, events):
    control.request("home", app=APP)
    events.wait_event(lambda e: e["to"] == "suspended")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runway", required=True, help="the runway binary")
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--json", help="also write the JSON object to this file")
    arguments = parser.parse_args()

    scratch = tempfile.mkdtemp(prefix="runway-restore-bench-")
    config = os.path.join(scratch, "Config")
    os.makedirs(os.path.join(config, "Apps"))
    os.makedirs(os.path.join(scratch, "state"), mode=0o700)
    socket_path = os.path.join(scratch, "control.sock")
    with open(os.path.join(config, "Runway.plist"), "w") as f:
        f.write(RUNWAY_PLIST.format(socket=socket_path, state=os.path.join(scratch, "state")))
    with open(os.path.join(config, "Apps", APP + ".plist"), "w") as f:
        f.write(APP_PLIST.format(app=APP, sample=os.path.join(REPO, "Config", "Programs", "sample_app.py")))
    daemon = subprocess.Popen(
        [arguments.runway, "run", "--config", config], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        deadline = time.monotonic() + 30
        while not os.path.exists(socket_path):
            if time.monotonic() > deadline or daemon.poll() is not None:
                raise SystemExit("the daemon did not start")
            time.sleep(0.05)
        control, events = Control(socket_path), Control(socket_path)
        events.request("events")
        samples = {"suspended": [], "restored": [], "cold": []}
        control.request("launch", app=APP)
        events.wait_event(lambda e: e["to"] == "active")
        for _ in range(arguments.rounds):
            to_suspended(control, events)
            samples["suspended"].append(measure(control, events, "summon", False))
            to_suspended(control, events)
            control.request("purge")
            events.wait_event(lambda e: e["to"] == "notRunning")
            samples["restored"].append(measure(control, events, "launch", True))
            to_suspended(control, events)
            control.request("discardState", app=APP)
            control.request("purge")
            events.wait_event(lambda e: e["to"] == "notRunning")
            samples["cold"].append(measure(control, events, "launch", False))
        load = open("/proc/loadavg").read().split()[:3]
        result = {
            "rounds": arguments.rounds,
            "load": [float(x) for x in load],
            "milliseconds": {
                name: {
                    "median": round(statistics.median(values) * 1000, 2),
                    "p25": round(statistics.quantiles(values, n=4)[0] * 1000, 2),
                    "p75": round(statistics.quantiles(values, n=4)[2] * 1000, 2),
                }
                for name, values in samples.items()
            },
        }
        print("summon -> active, %d rounds each, load %s" % (arguments.rounds, " ".join(load)))
        print("%-10s %10s %10s %10s" % ("", "median ms", "p25 ms", "p75 ms"))
        for name, figures in result["milliseconds"].items():
            print("%-10s %10.2f %10.2f %10.2f" % (name, figures["median"], figures["p25"], figures["p75"]))
        print(json.dumps(result, sort_keys=True))
        if arguments.json:
            with open(arguments.json, "w") as f:
                json.dump(result, f, sort_keys=True)
    finally:
        daemon.send_signal(signal.SIGTERM)
        try:
            daemon.wait(timeout=30)
        except subprocess.TimeoutExpired:
            daemon.kill()
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
