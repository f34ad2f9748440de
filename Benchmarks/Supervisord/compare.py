#!/usr/bin/env python3
"""Runs the process lifecycle benchmark on Runway (signal and freezer) and on supervisord, interleaved in one run,
and prints the median of each phase and the ratios (supervisord / Runway).

Usage, from Benchmarks/:
  swift build -c release --product ProcessLifecycle
  pip install supervisor==4.2.5
  python3 Supervisord/compare.py [apps=200] [rounds=5]
"""
import json
import os
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
BINARY = os.path.join(HERE, "..", ".build", "release", "ProcessLifecycle")
COUNT = sys.argv[1] if len(sys.argv) > 1 else "200"
ROUNDS = int(sys.argv[2]) if len(sys.argv) > 2 else 5
PHASES = ["spawn", "suspend", "resume", "terminate", "total"]


def run(command):
    output = subprocess.run(command, check=True, capture_output=True, text=True).stdout
    return [json.loads(line) for line in output.splitlines() if line.startswith("{")]


results = {}
for _ in range(ROUNDS):
    for tool, command in [
        ("runway-signal", [BINARY, COUNT, "signal", "1"]),
        ("runway-freezer", [BINARY, COUNT, "freezer", "1"]),
        ("supervisord", [sys.executable, os.path.join(HERE, "supervisord_lifecycle.py"), COUNT, "1"]),
    ]:
        for line in run(command):
            results.setdefault(tool, []).append(line)

medians = {tool: {phase: statistics.median(r[phase] for r in rows) for phase in PHASES} for tool, rows in results.items()}
print("%d apps, %d rounds interleaved; median milliseconds per phase" % (int(COUNT), ROUNDS))
print("%-16s" % "tool" + "".join("%12s" % phase for phase in PHASES))
for tool, row in medians.items():
    print("%-16s" % tool + "".join("%12.1f" % row[phase] for phase in PHASES))
for tool in ("runway-signal", "runway-freezer"):
    print("supervisord / %-15s" % tool + "".join("%11.1fx" % (medians["supervisord"][p] / medians[tool][p]) for p in PHASES))
print(json.dumps({"medians": medians}))
