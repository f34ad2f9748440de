"""Runs LatenessComparison N times at each scheduling policy, alternating, and summarises the series.

Each round runs `LatenessComparison` (both loops at the normal policy), `LatenessComparison --realtime-priority 10`
(both at SCHED_FIFO 10; needs root or CAP_SYS_NICE), and the same with `--wakeup-spin 50` (Runway's loop arms its
timer 50 us early and spins to the deadline; swift-nio has no equivalent). For each mode it prints the medians
across runs of Runway's and swift-nio's p50, p90, p99 and max, and in how many runs Runway's was the lower one.
One run's maximum is a single sample, so compare series, not runs.

Usage (from Benchmarks/, after `swift build -c release --product LatenessComparison`):
    python3 Scripts/lateness_series.py [rounds] [modes]   # default 12 rounds of normal,fifo,fifo-spin: 6 minutes
modes is a comma-separated list of normal, fifo, spin (50 us, normal policy) and fifo-spin.
"""
import re
import statistics
import subprocess
import sys

BINARY = '.build/release/LatenessComparison'
MODES = {
    'normal': ('normal', []),
    'fifo': ('SCHED_FIFO 10', ['--realtime-priority', '10']),
    'spin': ('spin 50 us', ['--wakeup-spin', '50']),
    'fifo-spin': ('SCHED_FIFO 10, spin 50 us', ['--realtime-priority', '10', '--wakeup-spin', '50']),
}
DEFAULT_MODES = 'normal,fifo,fifo-spin'
SIDES = (('runway', 'Runway (RunwayScheduler'), ('nio', 'swift-nio (scheduleTask'))
QUANTILES = ('p50', 'p90', 'p99', 'max')


def run(extra):
    text = subprocess.run([BINARY] + extra, capture_output=True, text=True, check=True).stdout
    figures = {}
    for side, prefix in SIDES:
        line = next(line for line in text.splitlines() if line.startswith(prefix))
        figures[side] = {name: float(value) for name, value in re.findall(r'(p50|p90|p99|max)=([\d.]+)', line)}
        if 'early=0' not in line:
            raise SystemExit(f'an early deadline: {line}')
    return figures


def main():
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 12
    chosen = [MODES[name] for name in (sys.argv[2] if len(sys.argv) > 2 else DEFAULT_MODES).split(',')]
    series = {mode: [] for mode, _ in chosen}
    for round_number in range(1, rounds + 1):
        for mode, extra in chosen:
            figures = run(extra)
            series[mode].append(figures)
            print(f'{round_number:2} {mode:25} Runway {figures["runway"]}  swift-nio {figures["nio"]}', flush=True)
    for mode, runs in series.items():
        print(f'\n{mode}, {len(runs)} runs: median Runway / swift-nio (us), runs where Runway is lower')
        for quantile in QUANTILES:
            ours = [figures['runway'][quantile] for figures in runs]
            theirs = [figures['nio'][quantile] for figures in runs]
            lower = sum(a < b for a, b in zip(ours, theirs))
            print(f'  {quantile:3}  {statistics.median(ours):8.1f} / {statistics.median(theirs):8.1f}'
                  f'   {lower} of {len(runs)}   (worst {max(ours):.1f} / {max(theirs):.1f})')


if __name__ == '__main__':
    main()
