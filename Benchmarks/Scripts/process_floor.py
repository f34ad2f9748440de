#!/usr/bin/env python3
"""The process lifecycle at the floor (the least any supervisor can do per child), side by side in one run.

Runs, interleaved round by round (one lifecycle per tool per round, in a fixed order), the whole lifecycle of N
`/bin/sleep 1000` children (spawn, suspend + confirm, resume + confirm, terminate + reap) on:
  floor-signal, floor-freezer   Probes/lifecycle.c spawning with Runway's own runway_spawn (clone with CLONE_VM |
                                CLONE_VFORK; clone3 into the cgroup for the freezer) and reaping through pidfds: the
                                same-mechanism floor, the one the target is measured against
  posix-signal, posix-freezer   the probe spawning with glibc's posix_spawn (a reference)
  probe-signal, probe-freezer   the probe on libuv's uv_spawn (a fork: the first floor, kept for comparison)
  floor-rules-signal            the same-mechanism floor plus the per-app work Runway's rules add (pipes for stdout
                                and stderr, a /proc read and an oom_score_adj write per signal, signals to the
                                process group), each read and write by path before each signal (analysis)
  floor-least-signal            the same rules at the least they cost: the system calls Runway makes for a
                                one-process app and nothing around them (confirmations by the kernel's wait on the
                                pidfd, the tree read from the task link count and the children file, oom_score_adj
                                kept open): the rules' own price against floor-signal (analysis, no target)
  runway-signal, runway-freezer Sources/ProcessLifecycle (release build), RunwayScheduler
  supervisord                   Supervisord/supervisord_lifecycle.py as in the repository (loglevel=error)
  supervisord-default           the same with supervisord's default log level (info)
and prints the median of each phase in milliseconds, the ratios Runway / same-mechanism floor (the target is
<= 1.1), Runway / the other probes, supervisord / Runway (the target is >= 8) and supervisord / probe. A ratio is
shown two ways: of the medians, and paired (the median over rounds of that round's ratio, which a change of load
between rounds moves less). With --large M it then runs M children (probes and Runway, both modes; supervisord only
with --supervisord-large) and prints the cost per child at N and at M. --tools picks a subset.

Usage, from Benchmarks/:
  swift build -c release --product ProcessLifecycle
  pip install supervisor==4.2.5
  python3 Scripts/process_floor.py [--children 200] [--rounds 5] [--large 2000] [--large-rounds 3]
                                   [--supervisord-large] [--no-supervisord] [--tools floor,runway] [--json FILE]
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
PROBE_SOURCES = [os.path.join(BENCHMARKS, "Probes", name) for name in ("lifecycle.c", "lifecycle_spawn.c",
                                                                             "lifecycle_clock.c", "lifecycle_rules.c")]
# Runway's spawn, compiled into the probe for its same-mechanism floor.
RUNWAY_C = os.path.join(ROOT, "Sources", "CRunwayProcess")
RUNWAY_C_SOURCES = [os.path.join(RUNWAY_C, name + ".c") for name in
                    ("spawn", "spawn_child", "spawn_limits", "spawn_slots", "spawn_vm", "process", "procstat")]
PROBE = os.path.join(ROOT, ".build", "probes", "lifecycle")
SUPERVISORD = os.path.join(BENCHMARKS, "Supervisord", "supervisord_lifecycle.py")
PHASES = ["spawn", "suspend", "resume", "terminate", "total"]


def build_probe():
    os.makedirs(os.path.dirname(PROBE), exist_ok=True)
    flags = subprocess.run(
        ["pkg-config", "--cflags", "--libs", "libuv"], check=True, capture_output=True, text=True
    ).stdout.split()
    includes = ["-I" + os.path.join(BENCHMARKS, "Probes"), "-I" + os.path.join(RUNWAY_C, "include")]
    subprocess.run(["gcc", "-std=gnu17", "-O2", "-Wall", "-Wextra", "-o", PROBE] + includes + PROBE_SOURCES
                   + RUNWAY_C_SOURCES + flags, check=True)


def commands(children, supervisord, tools):
    """(tool, command) in the order of a round; `tools`, when given, keeps only those families."""
    count = str(children)
    result = []
    for mode in ("signal", "freezer"):
        result += [
            ("floor", "floor-" + mode, [PROBE, count, mode, "1", "runway"]),
            ("runway", "runway-" + mode, [RUNWAY, count, mode, "1"]),
            ("posix", "posix-" + mode, [PROBE, count, mode, "1", "posix_spawn"]),
            ("probe", "probe-" + mode, [PROBE, count, mode, "1", "libuv"]),
        ]
    result.append(("floor-rules", "floor-rules-signal", [PROBE, count, "signal-rules", "1", "runway"]))
    result.append(("floor-least", "floor-least-signal", [PROBE, count, "signal-least", "1", "runway"]))
    if supervisord:
        result += [
            ("supervisord", "supervisord", [sys.executable, SUPERVISORD, count, "1"]),
            ("supervisord-default", "supervisord-default",
             [sys.executable, SUPERVISORD, count, "1", "--loglevel", "default"]),
        ]
    return [(tool, command) for family, tool, command in result if not tools or family in tools]


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


def measure(children, rounds, supervisord, timeout, tools):
    """One lifecycle per tool per round, interleaved; returns {tool: [row, ...]}."""
    results = {}
    for number in range(rounds):
        for tool, command in commands(children, supervisord, tools):
            row = run(tool, command, timeout)
            if row is not None:
                row["round_index"] = number
                results.setdefault(tool, []).append(row)
        print("  %d children, round %d of %d done (load %s)" % (children, number + 1, rounds, load_average()),
              file=sys.stderr)
    return results


CPU_PHASES = [phase + "_cpu" for phase in PHASES[:4]]


def medians(results):
    """{tool: {phase: median}}: wall milliseconds per phase, and the supervising process's CPU milliseconds per
    phase (`spawn_cpu` ...) for the tools that report them (ProcessLifecycle and the C probe)."""
    return {tool: {phase: statistics.median(row[phase] for row in rows)
                   for phase in PHASES + CPU_PHASES if all(phase in row for row in rows)}
            for tool, rows in results.items()}


def print_table(children, rounds, table, results):
    print("\n%d children, %d rounds interleaved; median milliseconds per phase (min-max of total)" % (children, rounds))
    print("%-20s" % "tool" + "".join("%11s" % phase for phase in PHASES) + "   total range   rounds")
    for tool, row in table.items():
        totals = [r["total"] for r in results[tool]]
        print("%-20s" % tool + "".join("%11.1f" % row[phase] for phase in PHASES)
              + "   %5.0f-%-6.0f %5d" % (min(totals), max(totals), len(totals)))
    measured = [tool for tool, row in table.items() if all(phase in row for phase in CPU_PHASES)]
    if measured:
        print("supervising process's CPU (user and system, not the children's), median microseconds per child")
        print("%-20s" % "tool" + "".join("%11s" % phase for phase in PHASES))
        for tool in measured:
            cells = [table[tool][phase] * 1000 / children for phase in CPU_PHASES]
            print("%-20s" % tool + "".join("%11.1f" % cell for cell in cells + [sum(cells)]))


def ratio(table, numerator, denominator, phase="total"):
    if numerator not in table or denominator not in table or table[denominator][phase] == 0:
        return None
    return table[numerator][phase] / table[denominator][phase]


def paired(results, numerator, denominator):
    """The median over rounds of numerator / denominator in the same round (rounds where both ran)."""
    if numerator not in results or denominator not in results:
        return None
    theirs = {row["round_index"]: row["total"] for row in results[denominator]}
    ratios = [row["total"] / theirs[row["round_index"]] for row in results[numerator]
              if theirs.get(row["round_index"])]
    return statistics.median(ratios) if ratios else None


RATIO_PAIRS = [("runway-signal", "floor-signal", "<= 1.1"), ("runway-freezer", "floor-freezer", "<= 1.1"),
               ("runway-signal", "posix-signal", "reference"), ("runway-freezer", "posix-freezer", "reference"),
               ("runway-signal", "probe-signal", "<= 1.2"), ("runway-freezer", "probe-freezer", "<= 1.2"),
               ("floor-signal", "posix-signal", "mechanisms"), ("floor-freezer", "posix-freezer", "mechanisms"),
               ("runway-signal", "floor-rules-signal", "analysis"),
               ("runway-signal", "floor-least-signal", "analysis"),
               ("floor-least-signal", "floor-signal", "the rules' price")]


def ratios(table, results):
    """Every pair of RATIO_PAIRS and supervisord's that ran: {"a / b": {"total", "paired", "phases", "target"}}."""
    pairs = list(RATIO_PAIRS)
    for supervisor in ("supervisord", "supervisord-default"):
        for mode in ("signal", "freezer"):
            pairs.append((supervisor, "runway-" + mode, ">= 8"))
            pairs.append((supervisor, "probe-" + mode, "bound"))
    found = {}
    for numerator, denominator, target in pairs:
        total = ratio(table, numerator, denominator)
        if total is None:
            continue
        found["%s / %s" % (numerator, denominator)] = {
            "total": total, "paired": paired(results, numerator, denominator), "target": target,
            "phases": [ratio(table, numerator, denominator, phase) for phase in PHASES[:4]]}
    return found


def print_ratios(found):
    print("\nratios of medians (total; paired: the median of each round's ratio; per phase in parentheses: spawn "
          "suspend resume terminate)")
    for name, entry in found.items():
        numerator, denominator = name.split(" / ")
        phases = " ".join("%.2f" % (value or 0) for value in entry["phases"])
        pair = "%.2fx" % entry["paired"] if entry["paired"] is not None else "-"
        print("  %-20s / %-15s %6.2fx  paired %6s   (%s)   target %s" % (
            numerator, denominator, entry["total"], pair, phases, entry["target"]))


def print_side_by_side(small, small_ratios, small_table, large, large_ratios, large_table):
    """Runway against the same-mechanism floor at both sizes, the figures the target is about."""
    print("\nRunway / same-mechanism floor, median total ms (ratio of medians; paired), target <= 1.1")
    print("%-8s %-40s %-40s" % ("mode", "%d children" % small, "%d children" % large))
    for mode in ("signal", "freezer"):
        cells = []
        for table, found in ((small_table, small_ratios), (large_table, large_ratios)):
            entry = found.get("runway-%s / floor-%s" % (mode, mode))
            if entry is None:
                cells.append("-")
                continue
            cells.append("%.1f / %.1f: %.2fx; %.2fx" % (table["runway-" + mode]["total"],
                                                        table["floor-" + mode]["total"], entry["total"],
                                                        entry["paired"] or 0))
        print("%-8s %-40s %-40s" % (mode, cells[0], cells[1]))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--children", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--large", type=int, default=0, help="also run this many children (e.g. 2000)")
    parser.add_argument("--large-rounds", type=int, default=3)
    parser.add_argument("--supervisord-large", action="store_true", help="run supervisord at --large too")
    parser.add_argument("--no-supervisord", action="store_true")
    parser.add_argument("--timeout", type=int, default=600, help="seconds for one lifecycle of one tool")
    parser.add_argument("--tools", help="comma-separated subset of floor, runway, posix, probe, floor-rules, "
                        "floor-least, supervisord, supervisord-default (default: all)")
    parser.add_argument("--json", help="write every row and median to this file")
    options = parser.parse_args()
    tools = set(options.tools.split(",")) if options.tools else None
    if not os.path.exists(RUNWAY):
        sys.exit("no %s: run `swift build -c release --product ProcessLifecycle` in Benchmarks/" % RUNWAY)
    build_probe()
    started = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    print("process_floor.py %s; %s %s, %d cores; load before: %s" % (
        started, platform.system(), platform.release(), os.cpu_count(), load_average()))
    report = {"date": started, "kernel": platform.release(), "cores": os.cpu_count(), "load_before": load_average()}

    results = measure(options.children, options.rounds, not options.no_supervisord, options.timeout, tools)
    table = medians(results)
    print_table(options.children, options.rounds, table, results)
    small_ratios = ratios(table, results)
    print_ratios(small_ratios)
    report["small"] = {"children": options.children, "rounds": options.rounds, "rows": results, "medians": table,
                       "ratios": small_ratios}

    if options.large:
        large = measure(options.large, options.large_rounds, options.supervisord_large, options.timeout, tools)
        large_table = medians(large)
        print_table(options.large, options.large_rounds, large_table, large)
        large_ratios = ratios(large_table, large)
        print_ratios(large_ratios)
        print("\ncost per child (median total / children, microseconds) and its growth from %d to %d" % (
            options.children, options.large))
        for tool in large_table:
            if tool not in table:
                continue
            small_cost = table[tool]["total"] * 1000 / options.children
            large_cost = large_table[tool]["total"] * 1000 / options.large
            print("  %-20s %8.0f us %8.0f us   x%.2f" % (tool, small_cost, large_cost, large_cost / small_cost))
        report["large"] = {"children": options.large, "rounds": options.large_rounds, "rows": large,
                           "medians": large_table, "ratios": large_ratios}
        print_side_by_side(options.children, small_ratios, table, options.large, large_ratios, large_table)

    report["load_after"] = load_average()
    print("\nload after: %s" % report["load_after"])
    if options.json:
        with open(options.json, "w") as handle:
            json.dump(report, handle, indent=1)


if __name__ == "__main__":
    main()
