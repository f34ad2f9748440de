#!/usr/bin/env python3
"""Two builds of ProcessLifecycle side by side: the same lifecycle of N `/bin/sleep` apps, interleaved round by round
(the order alternates each round, so a load change hits both alike), in `signal` and `freezer` mode; prints each
phase's median and the ratio after / before.

    python3 Scripts/before_after.py BEFORE/ProcessLifecycle AFTER/ProcessLifecycle [--apps 200] [--rounds 7]

Build each with `swift build -c release --product ProcessLifecycle` in the Benchmarks/ folder of its own clone.
The freezer rows need a writable cgroup v2 hierarchy (root, or a delegated subtree). Running a build, reading its
row and taking medians are process_floor.py's. Standard library only.
"""

import argparse

from process_floor import PHASES, load_average, medians, run

TIMEOUT_SECONDS = 600


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("before")
    parser.add_argument("after")
    parser.add_argument("--apps", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=7)
    arguments = parser.parse_args()
    binaries = {"before": arguments.before, "after": arguments.after}
    results = {}
    print("load at start:", load_average())
    for number in range(arguments.rounds):
        for mode in ("signal", "freezer"):
            for build in ("before", "after") if number % 2 == 0 else ("after", "before"):
                tool = f"{build}-{mode}"
                row = run(tool, [binaries[build], str(arguments.apps), mode, "1"], TIMEOUT_SECONDS)
                if row is None:
                    raise SystemExit(f"{tool} failed: no figures to compare")
                results.setdefault(tool, []).append(row)
    print("load at end:", load_average())
    table = medians(results)
    for mode in ("signal", "freezer"):
        before, after = table[f"before-{mode}"], table[f"after-{mode}"]
        for phase in PHASES:
            print(
                f"{mode:8s} {phase:10s} before {before[phase]:8.2f} ms  after {after[phase]:8.2f} ms  "
                f"after/before {after[phase] / before[phase]:5.2f}"
            )


if __name__ == "__main__":
    main()
