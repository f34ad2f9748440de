#!/usr/bin/env python3
"""`make refs-check`: every rule id the repository cites resolves to Docs/Behaviour.md, every decision it cites has
its record, every link of its Markdown files resolves, and nothing points at the specification's old home outside
the repository (a `shared` folder beside the clone).

Rule ids are the bold ids of Docs/Behaviour.md (`- **B4.**`) and the scenario ids of its table (`| S2 |`). A citation
is a word of one of those letters and a number from 1 (`L3`, `B10`, `S14`); `S01` (a file name) and other letters
are not citations. Searches the files git tracks, text only. Python 3, standard library only; well under a second.

Decisions are the records Docs/Decisions/NNNN-slug.md (Scripts/check_docs.py checks them and the links: each record
has its title and `Status:` line and a place in the index, and a citation `Decision 166`, `Decisions 53 and 55` or
`Decisions 199-202` has a record for every number it names, the two ends of a range), and Docs/Performance.md's
tables show Benchmarks/Results/figures.json, every figure of which is in the run it cites (Scripts/check_performance.py).
"""

import pathlib
import re
import subprocess
import sys

import check_docs

ROOT = pathlib.Path(__file__).resolve().parent.parent
SPEC = ROOT / "Docs" / "Behaviour.md"
# Where the specification lived before it moved into Docs/ (a folder beside the clone), spelt so that this file
# does not match itself.
OLD_HOME = "../" + "shared/"


def main():
    spec = SPEC.read_text(encoding="utf-8")
    defined = set(re.findall(r"\*\*([A-Z][1-9][0-9]?)\.?\*\*", spec))
    defined |= set(re.findall(r"^\| (S[1-9][0-9]?) \|", spec, re.M))
    if not defined:
        sys.exit("refs-check: no rule ids found in Docs/Behaviour.md")
    letters = "".join(sorted({rule[0] for rule in defined}))
    citation = re.compile(rf"(?<![\w./-])([{letters}][1-9][0-9]?)(?![\w])")
    files = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout.split(b"\0")
    names = list(filter(None, (file.decode() for file in files)))
    problems = check_docs.problems(ROOT, names)
    for name in names:
        path = ROOT / name
        try:
            text = path.read_text(encoding="utf-8")
        except (UnicodeDecodeError, FileNotFoundError, IsADirectoryError):
            continue
        for number, line in enumerate(text.split("\n"), start=1):
            if OLD_HOME in line:
                problems.append(f"{name}:{number}: points outside the repository ({OLD_HOME}): {line.strip()}")
            for match in citation.finditer(line):
                if match.group(1) not in defined:
                    problems.append(f"{name}:{number}: rule {match.group(1)} is not in Docs/Behaviour.md")
    if problems:
        print("\n".join(problems))
        sys.exit(f"refs-check: {len(problems)} references do not resolve")
    print(f"refs-check: every rule id cited resolves to Docs/Behaviour.md ({len(defined)} rules)")
    print("refs-check: every decision cited has its record, every Markdown link resolves, and every current figure")
    print("refs-check: of Docs/Performance.md is Benchmarks/Results/figures.json's and in the run it cites")


if __name__ == "__main__":
    main()
