#!/usr/bin/env python3
"""System calls per child of the process lifecycle: Runway against the same-mechanism floor, counted, not timed.

Runs the whole lifecycle of N `/bin/sleep 1000` children (spawn, suspend + confirm, resume + confirm, terminate +
reap) once per tool under `perf trace -s` (kernel tracepoints: unlike strace it does not ptrace the children, so a
SIGSTOP still leaves them in state T and the confirmations work) and prints the system calls per child of the
supervising process (every thread of it), by call, for:
  floor-signal, floor-freezer   Probes/lifecycle.c spawning with Runway's own runway_spawn (Decision 236)
  floor-rules-signal            the same plus the per-app work of Runway's rules (pipes, /proc reads, oom_score_adj
                                writes, process-group signals): what the rules cost on the same mechanism
  floor-least-signal            the same rules with the system calls Runway makes for a one-process app
  runway-signal, runway-freezer Sources/ProcessLifecycle (release build), RunwayScheduler
The children's own calls (their pre-exec setup in runway_spawn, their exec and the sleep) are the same code for the
probe and for Runway and are printed as one total. Counts do not depend on the machine's load, except the
confirmation polls of the probe (reads of /proc/PID/stat or cgroup.events until the state shows), which repeat
while the kernel has not acted yet: `openat`, `read` and `close` of the probe can grow on a busy machine.

With --phases it runs the signal-mode tools under `perf trace` without -s and splits the supervising process's
calls by phase, at its first SIGSTOP, first SIGCONT and first SIGTERM: "spawn" is everything before the first SIGSTOP
(for Runway its apps' registration too, which ProcessLifecycle does before it starts the spawn's clock). The freezer
sends no signal until the termination, so its phases cannot be told apart this way.

Usage, from Benchmarks/ (root: perf trace needs the tracepoints; the freezer a writable cgroup v2 hierarchy):
  swift build -c release --product ProcessLifecycle
  python3 Scripts/syscalls_per_child.py [--children 200] [--top 30] [--phases]
"""
import argparse
import collections
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import process_floor  # noqa: E402  (the probe's build and the binaries' paths)

ENTRY = re.compile(r'^ (.+?) \((\d+)\), (\d+) events')
CALL = re.compile(r'^\s+(\w+)\s+(\d+)\s+\d+\s')
TOOLS = [
    ('floor-signal', [process_floor.PROBE, '{n}', 'signal', '1', 'runway']),
    ('floor-rules-signal', [process_floor.PROBE, '{n}', 'signal-rules', '1', 'runway']),
    ('floor-least-signal', [process_floor.PROBE, '{n}', 'signal-least', '1', 'runway']),
    ('runway-signal', [process_floor.RUNWAY, '{n}', 'signal', '1']),
    ('floor-freezer', [process_floor.PROBE, '{n}', 'freezer', '1', 'runway']),
    ('runway-freezer', [process_floor.RUNWAY, '{n}', 'freezer', '1']),
]


def count(command):
    """Runs `command` under `perf trace -s`; returns (supervisor calls, children's calls) as Counters."""
    with tempfile.NamedTemporaryFile(suffix='.txt') as output:
        subprocess.run(['perf', 'trace', '-s', '-o', output.name, '--'] + command, check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        text = open(output.name).read()
    supervisor, children = collections.Counter(), collections.Counter()
    current = None
    for line in text.splitlines():
        entry = ENTRY.match(line)
        if entry:
            # A child is summarised under the name it ends with (`sleep`, after its exec); every other entry is
            # a thread of the supervising process.
            current = children if entry.group(1) == 'sleep' else supervisor
            continue
        call = CALL.match(line)
        if call and current is not None:
            current[call.group(1)] += int(call.group(2))
    return supervisor, children


TRACE = re.compile(r'^\s*([\d.]+) \(\s*[\d.]*\s*(?:ms)?\s*\): (\S+?)/(\d+) (\w+)\((.*)')
PHASES = ['spawn', 'suspend', 'resume', 'terminate']
PHASE_SIGNALS = [('STOP', 'suspend'), ('CONT', 'resume'), ('TERM', 'terminate')]


def count_phases(command):
    """Runs `command` under `perf trace`; returns {phase: Counter} of the supervising process's calls."""
    with tempfile.NamedTemporaryFile(suffix='.txt') as output:
        subprocess.run(['perf', 'trace', '-o', output.name, '--'] + command, check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        lines = open(output.name).read().splitlines()
    calls, children = [], set()
    for line in lines:
        match = TRACE.match(line)
        if not match:
            continue
        moment, name, tid, call, rest = float(match.group(1)), match.group(2), int(match.group(3)), \
            match.group(4), match.group(5)
        if name == 'sleep':
            children.add(tid)  # a child, once it has exec'd; its calls before the exec carry the same tid
        calls.append((moment, tid, call, rest))
    calls.sort()
    starts = {}
    for moment, tid, call, rest in calls:
        if call != 'kill' or tid in children:
            continue
        for signal, phase in PHASE_SIGNALS:
            if 'sig: ' + signal in rest:
                starts.setdefault(phase, moment)
    counts = {phase: collections.Counter() for phase in PHASES}
    for moment, tid, call, rest in calls:
        if tid in children:
            continue
        phase = 'spawn'
        for later in PHASES[1:]:
            if moment >= starts.get(later, float('inf')):
                phase = later
        counts[phase][call] += 1
    return counts


def main_phases(options):
    n = options.children
    tools = [(name, template) for name, template in TOOLS if name.endswith('-signal')]
    results = {name: count_phases([part.format(n=n) for part in template]) for name, template in tools}
    names = [name for name, _ in tools]
    print(f'System calls per child by phase, {n} children, supervising process (all threads)')
    for phase in PHASES:
        print(f'\n{phase:24}' + ''.join(f'{name:>20}' for name in names))
        totals = collections.Counter()
        for name in names:
            totals.update(results[name][phase])
        for call, _ in totals.most_common(options.top):
            print(f'  {call:22}' + ''.join(f'{results[name][phase][call] / n:20.2f}' for name in names))
        print(f'  {"total":22}' + ''.join(f'{sum(results[name][phase].values()) / n:20.2f}' for name in names))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--children', type=int, default=200)
    parser.add_argument('--top', type=int, default=30, help='how many calls to list (the most frequent)')
    parser.add_argument('--phases', action='store_true', help='split the calls by phase (perf trace without -s)')
    options = parser.parse_args()
    process_floor.build_probe()
    if options.phases:
        return main_phases(options)
    n = options.children
    results = {}
    for name, template in TOOLS:
        results[name] = count([part.format(n=n) for part in template])
    names = [name for name, _ in TOOLS]
    print(f'System calls per child, {n} children, supervising process (all threads)')
    print(f'{"call":24}' + ''.join(f'{name:>20}' for name in names))
    totals = collections.Counter()
    for name in names:
        totals.update(results[name][0])
    for call, _ in totals.most_common(options.top):
        print(f'{call:24}' + ''.join(f'{results[name][0][call] / n:20.2f}' for name in names))
    print(f'{"total":24}' + ''.join(f'{sum(results[name][0].values()) / n:20.2f}' for name in names))
    print(f'{"children (total)":24}' + ''.join(f'{sum(results[name][1].values()) / n:20.2f}' for name in names))
    for mode in ('signal', 'freezer'):
        ours = sum(results[f'runway-{mode}'][0].values())
        floor = sum(results[f'floor-{mode}'][0].values())
        print(f'{mode}: Runway {ours / n:.1f} calls per child, the floor {floor / n:.1f}: {ours / floor:.2f}x')


if __name__ == '__main__':
    sys.exit(main())
