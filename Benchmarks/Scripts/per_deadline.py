#!/usr/bin/env python3
"""Work per deadline of Runway's loop, swift-nio's and the bare timerfd: counts that do not depend on the load.

Each subject serves N evenly spaced deadlines (`--even`, one wake-up each) and marks, on its loop thread, the window
from its first deadline served to its last with two functions (`lateness_window_begin`/`_end` in LatenessComparison,
`window_begin`/`_end` in Probes/timerfd_wakeup.c). For that window alone it counts, divided by the N - 1 deadlines
in it:

- instructions (user space, the loop thread): `valgrind --tool=callgrind --separate-threads=yes
  --zero-before=BEGIN --dump-before=END` (callgrind zeroes and dumps the thread that calls them), the dump's Ir;
- allocations: the loop thread's calls to malloc, calloc, realloc, posix_memalign, aligned_alloc and memalign in
  that dump;
- syscalls, by name (every thread): `strace -f -ttt`, the calls made between the two lines the markers write to
  stderr.

Usage (from Benchmarks/, after `swift build -c release --product LatenessComparison`):
    python3 Scripts/per_deadline.py [--count 300] [--spread-seconds 30] [--binary PATH] [--json]
        [--only runway,nio,timerfd] [-- EXTRA LatenessComparison ARGUMENTS]

The deadlines must be far enough apart that each gets its own wake-up under valgrind (about 50x slower than native):
300 over 30 s is 100 ms apart. The script checks Runway's wake-up count. Needs valgrind, strace and gcc.
"""
import argparse
import collections
import json
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
BENCHMARKS = os.path.dirname(HERE)
BINARY = os.path.join(BENCHMARKS, '.build', 'release', 'LatenessComparison')
TIMERFD_SOURCE = os.path.join(BENCHMARKS, 'Probes', 'timerfd_wakeup.c')
ALLOCATORS = {'malloc', 'calloc', 'realloc', 'posix_memalign', 'aligned_alloc', 'memalign'}
STRACE_LINE = re.compile(r'^(\d+)\s+(\d+\.\d+)\s+(?:<\.\.\. )?([a-z_0-9]+)')


def callgrind(command, begin, end):
    """(Ir, allocations) of the calling thread's window between `begin` and `end` of one run of `command`."""
    with tempfile.TemporaryDirectory() as directory:
        out = os.path.join(directory, 'callgrind.out')
        run = subprocess.run(['valgrind', '--tool=callgrind', '--separate-threads=yes', f'--callgrind-out-file={out}',
                              f'--zero-before={begin}', f'--dump-before={end}'] + command,
                             capture_output=True, text=True)
        if run.returncode != 0:
            sys.exit(f'{" ".join(command)} failed under callgrind:\n{run.stderr[-3000:]}')
        # The dump at `end` of the thread that called it: callgrind.out.1 (one thread) or callgrind.out.1-NN.
        dumps = [name for name in os.listdir(directory) if re.fullmatch(r'callgrind\.out\.1(-\d+)?', name)]
        if len(dumps) != 1:
            sys.exit(f'expected one dump at {end}, found {dumps}: was the window reached?\n{run.stderr[-3000:]}')
        window = os.path.join(directory, dumps[0])
        total, allocations, names, callee = None, 0, {}, None
        with open(window) as handle:
            for line in handle:
                if line.startswith('summary:'):
                    total = int(line.split()[1])
                elif line.startswith(('fn=', 'cfn=')):
                    # Names are compressed: the first `fn=(id) name` or `cfn=(id) name` defines the id.
                    match = re.match(r'c?fn=\((\d+)\)(?: (.*))?', line.strip())
                    name = line.strip().split('=', 1)[1]
                    if match:
                        if match.group(2):
                            names[match.group(1)] = match.group(2)
                        name = names.get(match.group(1))
                    if line.startswith('cfn='):
                        callee = name
                elif line.startswith('calls=') and callee is not None:
                    if callee.split("'")[0] in ALLOCATORS:
                        allocations += int(line.split('=')[1].split()[0])
                    callee = None
        return total, allocations, run.stdout


def syscalls(command):
    """Syscalls by name, every thread, between the two window lines on stderr."""
    with tempfile.TemporaryDirectory() as directory:
        out = os.path.join(directory, 'strace.out')
        run = subprocess.run(['strace', '-f', '-ttt', '-s', '64', '-o', out] + command, capture_output=True, text=True)
        if run.returncode != 0:
            sys.exit(f'{" ".join(command)} failed under strace:\n{run.stderr[-3000:]}')
        counts, inside = collections.Counter(), False
        with open(out) as handle:
            for line in handle:
                if 'lateness window begin' in line:
                    inside = True
                    continue
                if 'lateness window end' in line:
                    break
                match = STRACE_LINE.match(line)
                # A call interrupted by another thread's line shows twice (`unfinished`, then `resumed`): count once.
                if inside and match and '<... ' not in line:
                    counts[match.group(3)] += 1
        return counts


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--count', type=int, default=300)
    parser.add_argument('--spread-seconds', type=int, default=30)
    parser.add_argument('--binary', default=BINARY, help='the LatenessComparison executable')
    parser.add_argument('--only', default='runway,nio,timerfd')
    parser.add_argument('--json', action='store_true')
    parser.add_argument('extra', nargs='*', help='more LatenessComparison arguments (after --)')
    options = parser.parse_args()
    shape = ['--count', str(options.count), '--spread-seconds', str(options.spread_seconds), '--even']
    subjects = {
        'runway': ([options.binary, '--only', 'runway'] + shape + options.extra, 'lateness_window'),
        'nio': ([options.binary, '--only', 'nio'] + shape + options.extra, 'lateness_window'),
    }
    with tempfile.TemporaryDirectory() as directory:
        # Valgrind 3.19 cannot read the DWARF 5 debug information Swift writes; the symbol table is enough.
        stripped = os.path.join(directory, 'LatenessComparison')
        subprocess.run(['strip', '--strip-debug', '-o', stripped, options.binary], check=True)
        for command, _ in subjects.values():
            command[0] = stripped
        timerfd = os.path.join(directory, 'timerfd_wakeup')
        subprocess.run(['gcc', '-O2', '-g', '-o', timerfd, TIMERFD_SOURCE], check=True)
        subjects['timerfd'] = ([timerfd] + shape, 'window')
        results = {}
        deadlines = options.count - 1
        for name in options.only.split(','):
            command, marker = subjects[name]
            ir, allocations, stdout = callgrind(command, marker + '_begin', marker + '_end')
            wakeups = re.search(r'(\d+) wake-ups;', stdout)
            counts = syscalls(command)
            results[name] = {
                'instructions': ir / deadlines,
                'allocations': allocations / deadlines,
                'syscalls': sum(counts.values()) / deadlines,
                'by_syscall': {call: n / deadlines for call, n in counts.most_common()},
                'wakeups': int(wakeups.group(1)) if wakeups else None,
            }
    if options.json:
        print(json.dumps({'count': options.count, 'spread_seconds': options.spread_seconds, 'per_deadline': results}))
        return
    print(f'{options.count} deadlines {options.spread_seconds / options.count * 1000:.0f} ms apart; per deadline:')
    print(f'  {"subject":8} {"instructions":>12} {"allocations":>11} {"syscalls":>8}   by syscall')
    for name, figures in results.items():
        calls = ', '.join(f'{call} {n:.2f}' for call, n in figures['by_syscall'].items() if n >= 0.01)
        wakeups = f'   ({figures["wakeups"]} wake-ups)' if figures['wakeups'] is not None else ''
        print(f'  {name:8} {figures["instructions"]:12.0f} {figures["allocations"]:11.2f} {figures["syscalls"]:8.2f}'
              f'   {calls}{wakeups}')


if __name__ == '__main__':
    sys.exit(main())
