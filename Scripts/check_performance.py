#!/usr/bin/env python3
"""Docs/Performance.md's current tables against Benchmarks/Results/figures.json, the figures of record.

Each table of Performance.md that follows a marker `<!-- figures: ID -->` is the subject ID of figures.json written
out: one row per figure, with its values, the command that produced it, when (UTC) and at what load, and a link to
the dated record of the run. The check (part of `make refs-check`, through Scripts/check_docs.py) fails when

- a table differs from what figures.json gives (so a figure changed in one place only is caught),
- a subject of figures.json has no table, or a marker names no subject,
- a figure's record (a section of a Markdown file, `path#anchor`) does not exist, or a number of the figure does
  not appear in that section (so the headline cannot drift from the run it cites).

Usage:
  check_performance.py           print the problems, exit 1 when there are some
  check_performance.py --write   rewrite every marked table of Performance.md from figures.json

Python 3, standard library only.
"""

import json
import os
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
PAGE = "Docs/Performance.md"
FIGURES = "Benchmarks/Results/figures.json"
MARKER = re.compile(r"^<!-- figures: (\S+) -->$")
NUMBER = re.compile(r"\d+(?:\.\d+)?")


def load_subjects(root):
    data = json.loads((root / FIGURES).read_text(encoding="utf-8"))
    return {subject["id"]: subject for subject in data["subjects"]}


def rows_of(subject):
    """Every row of a subject with its command, time and record filled in from the subject's defaults."""
    for row in subject["rows"]:
        yield {
            "figure": row["figure"],
            "values": row["values"],
            "command": row.get("command", subject["command"]),
            "when": row.get("when", subject["when"]),
            "source": row.get("source", subject["source"]),
        }


def cell(text):
    return text.replace("|", "\\|")


def table(subject):
    """The Markdown table of a subject, as Performance.md shows it."""
    columns = ["Figure"] + subject["columns"] + ["Command", "When (UTC), load", "Record"]
    lines = ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
    for row in rows_of(subject):
        path, _, anchor = row["source"].partition("#")
        link = os.path.relpath(path, os.path.dirname(PAGE)) + (f"#{anchor}" if anchor else "")
        cells = [row["figure"]] + row["values"] + [f"`{row['command']}`", row["when"], f"[{pathlib.Path(path).name}]({link})"]
        if len(row["values"]) != len(subject["columns"]):
            raise SystemExit(f"{FIGURES}: {subject['id']}: {row['figure']!r} has {len(row['values'])} values for "
                             f"{len(subject['columns'])} columns")
        lines.append("| " + " | ".join(cell(text) for text in cells) + " |")
    return lines


def marked_tables(lines):
    """(subject id, index of the table's first line, index after its last line) for every marker."""
    found = []
    for index, line in enumerate(lines):
        match = MARKER.match(line)
        if match:
            start = index + 1
            end = start
            while end < len(lines) and lines[end].startswith("|"):
                end += 1
            found.append((match.group(1), start, end))
    return found


def section(root, source):
    """The text of the section `path#anchor` names (its heading to the next heading of its level or above)."""
    from check_docs import heading_anchors  # one rule for anchors, shared with the link check

    path, _, anchor = source.partition("#")
    file = root / path
    if not file.is_file():
        return None
    lines = file.read_text(encoding="utf-8").split("\n")
    if not anchor:
        return "\n".join(lines)
    seen = set()
    for index, line in enumerate(lines):
        match = re.match(r"^(#{1,6})\s", line)
        if not match:
            continue
        anchors = heading_anchors("\n".join(lines[: index + 1])) - seen
        seen |= anchors
        if anchor in anchors:
            level = len(match.group(1))
            end = index + 1
            while end < len(lines) and not re.match(rf"^#{{1,{level}}}\s", lines[end]):
                end += 1
            return "\n".join(lines[index:end])
    return None


def plain(text):
    """Numbers without thousands separators, so that 1,303 and 1303 are the same figure."""
    return re.sub(r"(?<=\d),(?=\d{3}\b)", "", text)


def problems(root=ROOT):
    subjects = load_subjects(root)
    lines = (root / PAGE).read_text(encoding="utf-8").split("\n")
    found = []
    shown = set()
    for subject_id, start, end in marked_tables(lines):
        if subject_id not in subjects:
            found.append(f"{PAGE}:{start}: the marker names no subject of {FIGURES}: {subject_id}")
            continue
        shown.add(subject_id)
        if lines[start:end] != table(subjects[subject_id]):
            found.append(f"{PAGE}:{start + 1}: the table of {subject_id} differs from {FIGURES} "
                         f"(python3 Scripts/check_performance.py --write rewrites it)")
    for subject_id, subject in subjects.items():
        if subject_id not in shown:
            found.append(f"{PAGE}: no table for the subject {subject_id} of {FIGURES} (<!-- figures: {subject_id} -->)")
        for row in rows_of(subject):
            text = section(root, row["source"])
            if text is None:
                found.append(f"{FIGURES}: {subject_id}: {row['figure']!r}: the record {row['source']} does not exist")
                continue
            record = plain(text)
            for number in NUMBER.findall(plain(" ".join(row["values"]))):
                if not re.search(rf"(?<![\d.]){re.escape(number)}(?![\d]|\.\d)", record):
                    found.append(f"{FIGURES}: {subject_id}: {row['figure']!r}: {number} is not in {row['source']}")
    return found


def write(root=ROOT):
    subjects = load_subjects(root)
    path = root / PAGE
    lines = path.read_text(encoding="utf-8").split("\n")
    for subject_id, start, end in reversed(marked_tables(lines)):
        if subject_id in subjects:
            lines[start:end] = table(subjects[subject_id])
    path.write_text("\n".join(lines), encoding="utf-8")


def main(arguments):
    sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
    if arguments == ["--write"]:
        write()
    elif arguments:
        sys.exit("usage: check_performance.py [--write]")
    found = problems()
    if found:
        print("\n".join(found))
        sys.exit(f"check_performance: {len(found)} problems")
    print(f"check_performance: {PAGE} shows {FIGURES}, and every figure is in the run it cites")


if __name__ == "__main__":
    main(sys.argv[1:])
