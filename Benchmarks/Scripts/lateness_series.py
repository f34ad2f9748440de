"""Runs LatenessComparison N times at each scheduling policy, alternating, and summarises the series.

Each round runs `LatenessComparison` (both loops at the normal policy), `LatenessComparison --realtime-priority 10`
(both at SCHED_FIFO 10; needs root or CAP_SYS_NICE), and the same with `--wakeup-spin 50` (Runway's loop arms its
timer 50 us early and spins to the deadline; swift-nio has no equivalent). For each mode it prints the medians
across runs of Runway's and swift-nio's p50, p90, p99 and max, and in how many runs Runway's was the lower one.
One run's maximum is a single sample, so compare series, not runs.

--contended is the documented run under a fixed background load: `stress-ng --cpu 2` (Debian's stress-ng: two
workers spinning at the normal policy, one per core of the reference machine) runs for the whole series, and each
round also runs the bare-timerfd floor (Probes/timerfd_wakeup.c, built with gcc) right after LatenessComparison.
It prints each run's p50 and p99 of Runway, swift-nio and the timerfd, and checks the targets run by run: Runway's
p99 at or below swift-nio's, and within 3x the timerfd's, and both; with each run the 1-minute load average after it
and each loop thread's CPU time per deadline. The load average before and after is printed; other work on the machine
adds to the fixed load and is not controlled.

Rounds alternate which half of LatenessComparison runs first (odd rounds Runway's, even rounds swift-nio's), so that
neither loop always gets the first seconds of the process.

--same SIDE (with --contended) is the same series with one side against itself: each round runs SIDE (runway, nio
or timerfd) twice, one after the other, under the same load, and counts the runs whose first p99 is at or below the
second's. Two runs of the same code differ only by the machine's scheduling, so this count shows how often "at or
below in every run" can hold by chance at that load.

Usage (from Benchmarks/, after `swift build -c release --product LatenessComparison`):
    python3 Scripts/lateness_series.py [rounds] [modes]   # default 12 rounds of normal,fifo,fifo-spin: 6 minutes
    python3 Scripts/lateness_series.py --contended 5 normal   # the contended series (about 1.5 minutes)
    python3 Scripts/lateness_series.py --contended --same nio 5 normal   # one side against itself
modes is a comma-separated list of normal, fifo, spin (50 us, normal policy) and fifo-spin. --stress-workers N
changes the background load (default 2).
"""
import argparse
import os
import re
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
BENCHMARKS = os.path.dirname(HERE)
BINARY = os.path.join(BENCHMARKS, '.build', 'release', 'LatenessComparison')
TIMERFD_SOURCE = os.path.join(BENCHMARKS, 'Probes', 'timerfd_wakeup.c')
TIMERFD = os.path.join(os.path.dirname(BENCHMARKS), '.build', 'probes', 'timerfd_wakeup')
MODES = {
    'normal': ('normal', []),
    'fifo': ('SCHED_FIFO 10', ['--realtime-priority', '10']),
    'spin': ('spin 50 us', ['--wakeup-spin', '50']),
    'fifo-spin': ('SCHED_FIFO 10, spin 50 us', ['--realtime-priority', '10', '--wakeup-spin', '50']),
}
DEFAULT_MODES = 'normal,fifo,fifo-spin'
SIDES = (('runway', 'Runway (RunwayScheduler'), ('nio', 'swift-nio (scheduleTask'))
QUANTILES = ('p50', 'p90', 'p99', 'max')
FIGURE = re.compile(r'(p50|p90|p99|max)=([\d.]+)')
COUNTERS = re.compile(r'cpu=([\d.]+) us run-delay=([\d.]+) us')


def run(extra, nio_first):
    """One LatenessComparison run; `nio_first` runs swift-nio's half first (the series alternates the order)."""
    text = subprocess.run([BINARY] + extra + (['--nio-first'] if nio_first else []), capture_output=True, text=True,
                          check=True).stdout
    figures = {}
    for side, prefix in SIDES:
        line = next(line for line in text.splitlines() if line.startswith(prefix))
        figures[side] = {name: float(value) for name, value in FIGURE.findall(line)}
        if 'early=0' not in line:
            raise SystemExit(f'an early deadline: {line}')
    # Each half's loop-thread CPU and run delay per deadline, in the order the halves ran.
    counters = COUNTERS.findall(text)
    if len(counters) == 2:
        for side, (cpu, delay) in zip(('nio', 'runway') if nio_first else ('runway', 'nio'), counters):
            figures[side]['cpu'], figures[side]['delay'] = float(cpu), float(delay)
    return figures


def run_alone(extra, side):
    """One run of `side` alone: its p50, p90, p99 and max in microseconds."""
    if side == 'timerfd':
        return run_timerfd(extra)
    text = subprocess.run([BINARY] + extra + ['--only', side], capture_output=True, text=True, check=True).stdout
    prefix = dict(SIDES)[side]
    line = next(line for line in text.splitlines() if line.startswith(prefix))
    if 'early=0' not in line:
        raise SystemExit(f'an early deadline: {line}')
    return {name: float(value) for name, value in FIGURE.findall(line)}


def same_twice(rounds, extra, side):
    """`side` against itself, `rounds` times: how often the first run's p99 is at or below the second's."""
    met = 0
    print(f'  run   load   {side} first p50/p99   {side} second p50/p99   first p99 <= second p99')
    for number in range(1, rounds + 1):
        first, second = run_alone(extra, side), run_alone(extra, side)
        below = first['p99'] <= second['p99']
        met += below
        print(f'  {number:3}  {float(load_average().split()[0]):5.2f}   {first["p50"]:8.1f}/{first["p99"]:9.1f}'
              f'   {second["p50"]:8.1f}/{second["p99"]:9.1f}   {"yes" if below else "no"}', flush=True)
    print(f'  {side} p99 <= the same {side} p99 in {met} of {rounds} runs')


def build_timerfd():
    os.makedirs(os.path.dirname(TIMERFD), exist_ok=True)
    subprocess.run(['gcc', '-O2', '-Wall', '-Wextra', '-o', TIMERFD, TIMERFD_SOURCE], check=True)


def run_timerfd(extra):
    """The bare-timerfd floor at the mode's policy (SCHED_FIFO through chrt when the mode asks for it)."""
    command = [TIMERFD]
    if '--realtime-priority' in extra:
        command = ['chrt', '-f', extra[extra.index('--realtime-priority') + 1]] + command
    text = subprocess.run(command, capture_output=True, text=True, check=True).stdout
    return {name: float(value) for name, value in FIGURE.findall(text)}


def load_average():
    with open('/proc/loadavg') as handle:
        return ' '.join(handle.read().split()[:3])


def summarise(series):
    for mode, runs in series.items():
        print(f'\n{mode}, {len(runs)} runs: median Runway / swift-nio (us), runs where Runway is lower')
        for quantile in QUANTILES:
            ours = [figures['runway'][quantile] for figures in runs]
            theirs = [figures['nio'][quantile] for figures in runs]
            lower = sum(a < b for a, b in zip(ours, theirs))
            print(f'  {quantile:3}  {statistics.median(ours):8.1f} / {statistics.median(theirs):8.1f}'
                  f'   {lower} of {len(runs)}   (worst {max(ours):.1f} / {max(theirs):.1f})')
        floors = [figures['timerfd'] for figures in runs if 'timerfd' in figures]
        if not floors:
            continue
        print('  run  first   load   Runway p50/p99   swift-nio p50/p99   timerfd p50/p99   p99 <= nio'
              '   p99 <= 3x timerfd   both   loop CPU/deadline us (Runway/nio)')
        met_nio = met_floor = met_both = 0
        for number, figures in enumerate(runs, start=1):
            ours, theirs, floor = figures['runway'], figures['nio'], figures['timerfd']
            below_nio = ours['p99'] <= theirs['p99']
            below_floor = ours['p99'] <= 3 * floor['p99']
            met_nio += below_nio
            met_floor += below_floor
            met_both += below_nio and below_floor
            cpu = f'{ours["cpu"]:.1f}/{theirs["cpu"]:.1f}' if 'cpu' in ours and 'cpu' in theirs else '-'
            print(f'  {number:3}  {figures["first"]:6} {figures["load"]:5.2f}'
                  f'   {ours["p50"]:6.1f}/{ours["p99"]:7.1f}   {theirs["p50"]:7.1f}/{theirs["p99"]:8.1f}'
                  f'   {floor["p50"]:6.1f}/{floor["p99"]:7.1f}   {"yes" if below_nio else "no":10}'
                  f'   {"yes" if below_floor else "no":3} ({ours["p99"] / floor["p99"]:5.2f}x)'
                  f'   {"yes" if below_nio and below_floor else "no":4}   {cpu}')
        print(f'  Runway p99 <= swift-nio p99 in {met_nio} of {len(runs)} runs; <= 3x the timerfd p99 in '
              f'{met_floor} of {len(runs)}; both in {met_both} of {len(runs)}')


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('rounds', nargs='?', type=int, default=12)
    parser.add_argument('modes', nargs='?', default=DEFAULT_MODES)
    parser.add_argument('--contended', action='store_true', help='stress-ng --cpu 2 for the whole series, and '
                        'the timerfd floor each round')
    parser.add_argument('--stress-workers', type=int, default=2)
    parser.add_argument('--same', choices=('runway', 'nio', 'timerfd'),
                        help='with --contended: run this side against itself instead of Runway against swift-nio')
    options = parser.parse_args()
    if options.same and not options.contended:
        parser.error('--same needs --contended')
    chosen = [MODES[name] for name in options.modes.split(',')]
    series = {mode: [] for mode, _ in chosen}
    stress = None
    if options.contended:
        build_timerfd()
        print(f'load before: {load_average()}; background: stress-ng --cpu {options.stress_workers}', flush=True)
        stress = subprocess.Popen(['stress-ng', '--cpu', str(options.stress_workers), '--quiet'],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        if options.same:
            for mode, extra in chosen:
                print(f'\n{mode}, {options.rounds} runs of {options.same} twice')
                same_twice(options.rounds, extra, options.same)
            return
        for round_number in range(1, options.rounds + 1):
            for mode, extra in chosen:
                # Odd rounds run Runway's half first, even rounds swift-nio's.
                nio_first = round_number % 2 == 0
                figures = run(extra, nio_first)
                if options.contended:
                    figures['timerfd'] = run_timerfd(extra)
                figures['first'] = 'nio' if nio_first else 'runway'
                figures['load'] = float(load_average().split()[0])
                series[mode].append(figures)
                floor = f'  timerfd {figures["timerfd"]}' if 'timerfd' in figures else ''
                print(f'{round_number:2} {mode:25} Runway {figures["runway"]}  swift-nio {figures["nio"]}{floor}'
                      f'  (load {load_average()})', flush=True)
    finally:
        if stress is not None:
            stress.terminate()
            stress.wait()
        if options.same:
            print(f'\nload after: {load_average()}')
    summarise(series)
    print(f'\nload after: {load_average()}')


if __name__ == '__main__':
    sys.exit(main())
