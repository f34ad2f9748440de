#!/usr/bin/env python3
"""The process lifecycle at the floor (the least any supervisor can do per child), side by side in one run.

Runs, interleaved round by round (one lifecycle per tool per round, in a fixed order), the whole lifecycle of N
`/bin/sleep 1000` children (spawn, suspend + confirm, resume + confirm, terminate + reap) on:
  probe-signal, probe-freezer   Probes/lifecycle.c, raw libuv (`make probe`): the floor, same mechanism
  runway-signal, runway-freezer Sources/ProcessLifecycle (release build), RunwayScheduler
  supervisord                   Supervisord/supervisord_lifecycle.py as in the repository (loglevel=error)
  supervisord-default           the same with supervisord's default log level (info)
and prints the median of each phase in milliseconds, the ratios Runway / probe (the target is <= 1.2) and
supervisord / Runway (the target is >= 8), and supervisord / probe (the best any program on the same
mechanism could reach). With --large M it then runs M children (probe and Runway, both modes; supervisord only
with --supervisord-large) and prints the cost per child at N and at M.

Usage, from Benchmarks/:
  swift build -c release --product ProcessLifecycle
  pip install supervisor==4.2.5
  python3 Scripts/process_floor.py [--children 200] [--rounds 5] [--large 2000] [--large-rounds 3]
                                   [--supervisord-large] [--no-supervisord] [--json FILE]
The freezer needs a writable cgroup v2 hierarchy (root, or a delegated subtree).
"""
import argparse
import datetime
import json
import os
import platform
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
BENCHMARKS = os.path.dirname(HERE)
ROOT = os.path.dirname(BENCHMARKS)
RUNWAY = os.path.join(BENCHMARKS, ".build", "release", "ProcessLifecycle")
PROBE_SOURCE = os.path.join(BENCHMARKS, "Probes", "lifecycle.c")
PROBE = os.path.join(ROOT, ".build", "probes", "lifecycle")
SUPERVISORD = os.path.join(BENCHMARKS, "Supervisord", "supervisord_lifecycle.py")
PHASES = ["spawn", "suspend", "resume", "terminate", "total"]


def build_probe():
    os.makedirs(os.path.dirname(PROBE), exist_ok=True)
    flags = subprocess.run(
        ["pkg-config", "--cflags", "--libs", "libuv"], check=True, capture_output=True, text=True
    ).stdout.split()
    subprocess.run(["gcc", "-O2", "-Wall", "-Wextra", "-o", PROBE, PROBE_SOURCE] + flags, check=True)


def commands(children, supervisord):
    count = str(children)
    result = [
        ("probe-signal", [PROBE, count, "signal", "1"]),
        ("runway-signal", [RUNWAY, count, "signal", "1"]),
        ("probe-freezer", [PROBE, count, "freezer", "1"]),
        ("runway-freezer", [RUNWAY, count, "freezer", "1"]),
    ]
    if supervisord:
        result += [
            ("supervisord", [sys.executable, SUPERVISORD, count, "1"]),
            ("supervisord-default", [sys.executable, SUPERVISORD, count, "1", "--loglevel", "default"]),
        ]
    return result


def run(tool, command, timeout):
    try:
        completed = subprocess.run(command, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        print("  %s: did not finish within %d s" % (tool, timeout), file=sys.stderr)
        return None
    rows = [json.loads(line) for line in completed.stdout.splitlines() if line.startswith("{")]
    if completed.returncode != 0 or not rows:
        lines = [line for line in completed.stderr.splitlines() if "Error" in line or "assert" in line.lower()]
        print("  %s failed (exit %d): %s" % (tool, completed.returncode, " | ".join(lines) or completed.stderr[-400:]),
              file=sys.stderr)
        return None
    return rows[0]


def load_average():
    with open("/proc/loadavg") as handle:
        return " ".join(handle.read().split()[:3])


def measure(children, rounds, supervisord, timeout):
    """One lifecycle per tool per round, interleaved; returns {tool: [row, ...]}."""
    results = {}
    for number in range(rounds):
        for tool, command in commands(children, supervisord):
            row = run(tool, command, timeout)
            if row is not None:
                results.setdefault(tool, []).append(row)
        print("  %d children, round %d of %d done (load %s)" % (children, number + 1, rounds, load_average()),
              file=sys.stderr)
    return results


def medians(results):
    return {tool: {phase: statistics.median(row[phase] for row in rows) for phase in PHASES}
            for tool, rows in results.items()}


def print_table(children, rounds, table, results):
    print("\n%d children, %d rounds interleaved; median milliseconds per phase (min-max of total)" % (children, rounds))
    print("%-20s" % "tool" + "".join("%11s" % phase for phase in PHASES) + "   total range   rounds")
    for tool, row in table.items():
        totals = [r["total"] for r in results[tool]]
        print("%-20s" % tool + "".join("%11.1f" % row[phase] for phase in PHASES)
              + "   %5.0f-%-6.0f %5d" % (min(totals), max(totals), len(totals)))


def ratio(table, numerator, denominator, phase="total"):
    if numerator not in table or denominator not in table or table[denominator][phase] == 0:
        return None
    return table[numerator][phase] / table[denominator][phase]


def print_ratios(table):
    print("\nratios of medians (total; per phase in parentheses: spawn suspend resume terminate)")
    pairs = [("runway-signal", "probe-signal", "<= 1.2"), ("runway-freezer", "probe-freezer", "<= 1.2")]
    for supervisor in ("supervisord", "supervisord-default"):
        for mode in ("signal", "freezer"):
            pairs.append((supervisor, "runway-" + mode, ">= 8"))
            pairs.append((supervisor, "probe-" + mode, "bound"))
    for numerator, denominator, target in pairs:
        total = ratio(table, numerator, denominator)
        if total is None:
            continue
        phases = " ".join("%.2f" % (ratio(table, numerator, denominator, phase) or 0) for phase in PHASES[:4])
        print("  %-20s / %-15s %7.2fx   (%s)   target %s" % (numerator, denominator, total, phases, target))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--children", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--large", type=int, default=0, help="also run this many children (e.g. 2000)")
    parser.add_argument("--large-rounds", type=int, default=3)
    parser.add_argument("--supervisord-large", action="store_true", help="run supervisord at --large too")
    parser.add_argument("--no-supervisord", action="store_true")
    parser.add_argument("--timeout", type=int, default=600, help="seconds for one lifecycle of one tool")
    parser.add_argument("--json", help="write every row and median to this file")
    options = parser.parse_args()
    if not os.path.exists(RUNWAY):
        sys.exit("no %s: run `swift build -c release --product ProcessLifecycle` in Benchmarks/" % RUNWAY)
    build_probe()
    started = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    print("process_floor.py %s; %s %s, %d cores; load before: %s" % (
        started, platform.system(), platform.release(), os.cpu_count(), load_average()))
    report = {"date": started, "kernel": platform.release(), "cores": os.cpu_count(), "load_before": load_average()}

    results = measure(options.children, options.rounds, not options.no_supervisord, options.timeout)
    table = medians(results)
    print_table(options.children, options.rounds, table, results)
    print_ratios(table)
    report["small"] = {"children": options.children, "rounds": options.rounds, "rows": results, "medians": table}

    if options.large:
        large = measure(options.large, options.large_rounds, options.supervisord_large, options.timeout)
        large_table = medians(large)
        print_table(options.large, options.large_rounds, large_table, large)
        print_ratios(large_table)
        print("\ncost per child (median total / children, microseconds) and its growth from %d to %d" % (
            options.children, options.large))
        for tool in large_table:
            if tool not in table:
                continue
            small_cost = table[tool]["total"] * 1000 / options.children
            large_cost = large_table[tool]["total"] * 1000 / options.large
            print("  %-20s %8.0f us %8.0f us   x%.2f" % (tool, small_cost, large_cost, large_cost / small_cost))
        report["large"] = {"children": options.large, "rounds": options.large_rounds, "rows": large,
                           "medians": large_table}

    report["load_after"] = load_average()
    print("\nload after: %s" % report["load_after"])
    if options.json:
        with open(options.json, "w") as handle:
            json.dump(report, handle, indent=1)


if __name__ == "__main__":
    main()
