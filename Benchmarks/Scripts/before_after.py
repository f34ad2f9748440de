#!/usr/bin/env python3
"""Two builds of ProcessLifecycle side by side: the same lifecycle of N `/bin/sleep` apps, interleaved round by round
(the order alternates each round, so a load change hits both alike), in `signal` and `freezer` mode; prints each
phase's median and the ratio after / before.

    python3 Scripts/before_after.py BEFORE/ProcessLifecycle AFTER/ProcessLifecycle [--apps 200] [--rounds 7]

Build each with `swift build -c release --product ProcessLifecycle` in the Benchmarks/ folder of its own clone.
The freezer rows need a writable cgroup v2 hierarchy (root, or a delegated subtree). Standard library only.
"""

import argparse
import json
import statistics
import subprocess

PHASES = ("spawn", "suspend", "resume", "terminate", "total")


def run(binary, apps, mode):
    out = subprocess.run([binary, str(apps), mode, "1"], capture_output=True, text=True, check=True).stdout
    return json.loads([line for line in out.splitlines() if line.startswith("{")][-1])


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("before")
    parser.add_argument("after")
    parser.add_argument("--apps", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=7)
    arguments = parser.parse_args()
    tools = {"before": arguments.before, "after": arguments.after}
    results = {}
    print("load at start:", open("/proc/loadavg").read().strip())
    for round_number in range(arguments.rounds):
        for mode in ("signal", "freezer"):
            order = ("before", "after") if round_number % 2 == 0 else ("after", "before")
            for tool in order:
                results.setdefault((mode, tool), []).append(run(tools[tool], arguments.apps, mode))
    print("load at end:", open("/proc/loadavg").read().strip())
    for mode in ("signal", "freezer"):
        for phase in PHASES:
            before = statistics.median(run_[phase] for run_ in results[(mode, "before")])
            after = statistics.median(run_[phase] for run_ in results[(mode, "after")])
            print(f"{mode:8s} {phase:10s} before {before:8.2f} ms  after {after:8.2f} ms  after/before {after / before:5.2f}")


if __name__ == "__main__":
    main()
