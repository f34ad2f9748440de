"""The documentation half of `make refs-check` (Scripts/check-rule-references.py imports it).

- Decisions: every Docs/Decisions/NNNN-slug.md starts `# Decision N: title` with N its file's number, has a
  `Status:` line, and is linked from Docs/Decisions/README.md; every citation of a decision in a tracked file
  (`Decision 166`, `Decisions 53 and 55`, `Decisions 160, 161`, `Decisions 199-202`) names numbers that have a
  record (for a range, its two ends: numbers inside a range may never have been assigned).
- Links: every relative link `[text](path)` or `[text](path#anchor)` of a tracked Markdown file, outside code,
  leads to a file or folder that exists, and an anchor into a Markdown file names one of its headings (GitHub's
  anchors: lower case, punctuation dropped, spaces to hyphens, `-1`, `-2` for repeats).
- Performance: Docs/Performance.md's tables are Benchmarks/Results/figures.json, and every figure is in the run it
  cites (Scripts/check_performance.py).

Python 3, standard library only.
"""

import re

import check_performance

DECISIONS = "Docs/Decisions"
CITATION = re.compile(r"\bDecisions? (\d+(?:(?:, | and |, and |-|–)\d+)*)")
LINK = re.compile(r"(?<!!)\[(?:[^\[\]]|\[[^\]]*\])*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)|!\[[^\]]*\]\(([^)\s]+)\)")
FENCE = re.compile(r"^\s*(```|~~~)")


def decision_records(root):
    """{number: path relative to root} for every record file."""
    records = {}
    for path in sorted((root / DECISIONS).glob("[0-9][0-9][0-9][0-9]-*.md")):
        records[int(path.name[:4])] = path
    return records


def check_records(root, records):
    problems = []
    index_path = root / DECISIONS / "README.md"
    index = index_path.read_text(encoding="utf-8") if index_path.is_file() else ""
    if not index:
        problems.append(f"{DECISIONS}/README.md: missing (the index of the decisions by topic)")
    for number, path in records.items():
        name = f"{DECISIONS}/{path.name}"
        lines = path.read_text(encoding="utf-8").split("\n")
        if not re.match(rf"# Decision {number}: \S", lines[0]):
            problems.append(f"{name}:1: expected the title `# Decision {number}: ...`")
        statuses = [line for line in lines[1:6] if line.startswith("Status: ")]
        if not statuses:
            problems.append(f"{name}: no `Status:` line under the title")
        elif not re.match(r"Status: (Accepted|Superseded by|Proposed|Deprecated)\b", statuses[0]):
            problems.append(f"{name}: `{statuses[0]}`: a status is Accepted, Superseded by N, Proposed or Deprecated")
        if f"]({path.name})" not in index:
            problems.append(f"{name}: not linked from {DECISIONS}/README.md")
    return problems


def cited_numbers(text):
    """(line number, decision number) for every decision a text cites."""
    for number, line in enumerate(text.split("\n"), start=1):
        for match in CITATION.finditer(line):
            for part in re.split(r", and |, | and ", match.group(1)):
                for end in re.split(r"[-–]", part):
                    yield number, int(end)


def heading_anchors(text):
    anchors = set()
    seen = {}
    in_code = False
    for line in text.split("\n"):
        if FENCE.match(line):
            in_code = not in_code
            continue
        match = None if in_code else re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
        if not match:
            continue
        anchor = re.sub(r"[^\w\- ]", "", match.group(1).strip().lower()).replace(" ", "-")
        count = seen.get(anchor, 0)
        seen[anchor] = count + 1
        anchors.add(anchor if count == 0 else f"{anchor}-{count}")
    anchors |= set(re.findall(r'<a (?:name|id)="([^"]+)"', text))
    return anchors


def links(text):
    """(line number, target) for every link outside fenced and inline code."""
    in_code = False
    for number, line in enumerate(text.split("\n"), start=1):
        if FENCE.match(line):
            in_code = not in_code
            continue
        if in_code:
            continue
        for match in LINK.finditer(re.sub(r"`[^`]*`", "``", line)):
            yield number, match.group(1) or match.group(2)


def check_links(root, name, text, anchors_of):
    problems = []
    here = (root / name).parent
    for number, target in links(text):
        if re.match(r"^[a-z][a-z0-9+.-]*:", target) or target.startswith("<"):
            continue  # a URL (https:, mailto:): not checked here, it needs the network
        path_part, _, anchor = target.partition("#")
        path = (here / path_part).resolve() if path_part else root / name
        if not path.exists():
            problems.append(f"{name}:{number}: the link leads nowhere: {target}")
            continue
        if anchor and path.suffix == ".md":
            if anchor not in anchors_of(path):
                problems.append(f"{name}:{number}: {path.relative_to(root)} has no heading for #{anchor}")
    return problems


def problems(root, names):
    """Every problem with the decisions and the Markdown links, one line each, given the tracked file names."""
    records = decision_records(root)
    found = check_records(root, records)
    anchors = {}

    def anchors_of(path):
        if path not in anchors:
            anchors[path] = heading_anchors(path.read_text(encoding="utf-8"))
        return anchors[path]

    for name in names:
        path = root / name
        try:
            text = path.read_text(encoding="utf-8")
        except (UnicodeDecodeError, FileNotFoundError, IsADirectoryError):
            continue
        for number, decision in cited_numbers(text):
            if decision not in records:
                found.append(f"{name}:{number}: Decision {decision} has no record {DECISIONS}/{decision:04d}-*.md")
        if name.endswith(".md"):
            found += check_links(root, name, text, anchors_of)
    return found + check_performance.problems(root)
