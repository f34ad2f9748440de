#!/usr/bin/env python3
"""Instructions per core operation at 100,000 outstanding tasks, counted by callgrind.

Runs the CoreInstructions executable (Benchmarks/Sources/CoreInstructions) under `valgrind --tool=callgrind` and
takes differences of total instruction counts (Ir), so that the fixture (100,000 tasks begun, the app in the
background) cancels out:

- begin+end pair = (Ir(pairs 2K) - Ir(pairs K)) / K
- expiry with its handler = (Ir(expiry) - Ir(setup)) / 100,000 (the warning that queues every expiration, then each
  one delivered and returned)
- end of one task = (Ir(cancel) - Ir(setup)) / 100,000 (every task ended in a seeded random order, the last end
  suspending the app: the scheduler-level cancel of `cancel-at-scale-100k-outstanding`)

the first two each through the `[Action]`-returning calls ("array") and through the calls that write into a buffer the caller keeps
("into"; skipped for a build that predates them).

Instruction counts do not depend on machine noise: two runs of the same binary give the same figures to a few
instructions. Usage:

    python3 Scripts/instructions.py [--binary PATH] [--pairs K] [--json]

The binary defaults to the release build of this package (`swift build -c release --product CoreInstructions`,
run from Benchmarks/). Standard library only; needs valgrind (`apt-get install valgrind`).
"""

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

OUTSTANDING = 100_000


def default_binary():
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    bin_path = subprocess.run(
        ["swift", "build", "-c", "release", "--show-bin-path"], cwd=here, check=True, capture_output=True, text=True
    ).stdout.strip()
    return os.path.join(bin_path, "CoreInstructions")


def instructions(binary, arguments):
    """Total Ir of one run of `binary arguments` under callgrind."""
    with tempfile.TemporaryDirectory() as directory:
        out = os.path.join(directory, "callgrind.out")
        run = subprocess.run(
            ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", binary, *arguments],
            capture_output=True,
            text=True,
        )
        if run.returncode != 0:
            sys.exit(f"{binary} {' '.join(arguments)} failed under callgrind:\n{run.stderr}")
        match = re.search(r"Collected\s*:\s*(\d+)", run.stderr)
        if not match:
            sys.exit(f"no 'Collected' line in callgrind's output:\n{run.stderr}")
        return int(match.group(1))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--binary", help="the CoreInstructions executable (default: this package's release build)")
    parser.add_argument("--pairs", type=int, default=10_000, help="K: pairs of the shorter run (default 10000)")
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of text")
    options = parser.parse_args()
    binary = options.binary or default_binary()
    k = options.pairs

    setup = instructions(binary, ["setup"])
    result = {"binary": binary, "outstanding": OUTSTANDING, "pairs_k": k, "ir": {"setup": setup}}
    lines = [f"binary: {binary}", f"Ir of the fixture alone ({OUTSTANDING:,} tasks outstanding): {setup:,}"]
    for calls, suffix in [("array", ""), ("into", "-into")]:
        try:
            pairs_k = instructions(binary, ["pairs" + suffix, str(k)])
        except SystemExit:
            if calls == "into":  # a build from before the `into:` calls existed
                break
            raise
        pairs_2k = instructions(binary, ["pairs" + suffix, str(2 * k)])
        expiry = instructions(binary, ["expiry" + suffix])
        pair = round((pairs_2k - pairs_k) / k, 1)
        per_expiry = round((expiry - setup) / OUTSTANDING, 1)
        result["ir"].update({f"pairs{suffix}_{k}": pairs_k, f"pairs{suffix}_{2 * k}": pairs_2k, f"expiry{suffix}": expiry})
        result[f"{calls}_pair_instructions"] = pair
        result[f"{calls}_expiry_instructions"] = per_expiry
        lines.append(f"[{calls}] begin+end pair at {OUTSTANDING:,} outstanding: {pair} instructions")
        lines.append(f"[{calls}] expiry with its handler, {OUTSTANDING:,} at once: {per_expiry} instructions")
    try:
        cancel = instructions(binary, ["cancel"])
        result["ir"]["cancel"] = cancel
        result["cancel_instructions"] = round((cancel - setup) / OUTSTANDING, 1)
        lines.append(
            f"end of one of {OUTSTANDING:,} outstanding tasks, random order: {result['cancel_instructions']} instructions"
        )
    except SystemExit:  # a build without the `cancel` mode
        pass
    print(json.dumps(result) if options.json else "\n".join(lines))


if __name__ == "__main__":
    main()
