#!/usr/bin/env python3
"""Keeps README.md's code snippets and the files they show identical, and hands them to `make example-check`.

Two kinds of marker, each an HTML comment alone on the line just before a fenced code block:

  <!-- snippet: Examples/EmbeddedApps/main.swift -->
      The block is that file (relative to the repository root), verbatim: `check` fails with a diff when they differ.
  <!-- example-check: Package.swift -->
      A block only `make example-check` uses (the manifest of its scratch package); not compared with a file.

Usage:
  check-readme-snippets.py                  check every `snippet:` block against its file (exit 1 on a difference,
                                            on a marker without a block, or when README.md has no marker at all)
  check-readme-snippets.py extract NAME     print the block marked NAME (a snippet's path or an example-check name)
  check-readme-snippets.py manifest PATH    print the `example-check: Package.swift` block with its Runway dependency
                                            (`.package(url: ".../<owner>/Runway", ...)`) replaced by
                                            `.package(path: PATH)`, and `package: "Runway"` by the name SwiftPM
                                            gives that path (its last component, lowercased)
  check-readme-snippets.py executable-target
                                            print the name of that block's one executable target
"""

import difflib
import json
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
MARKER = re.compile(r"^<!-- (snippet|example-check): (\S+) -->$")
FENCE = re.compile(r"^```")
RUNWAY_DEPENDENCY = re.compile(r'\.package\(url: "https://github\.com/<owner>/Runway", [^)]*\)')


def fail(message):
    print(f"check-readme-snippets: {message}", file=sys.stderr)
    sys.exit(1)


def blocks():
    """(kind, name, line number of the marker, text of the block with a final newline) for every marker."""
    lines = README.read_text(encoding="utf-8").split("\n")
    found = []
    for index, line in enumerate(lines):
        match = MARKER.match(line)
        if not match:
            continue
        number = index + 1
        if index + 1 >= len(lines) or not FENCE.match(lines[index + 1]):
            fail(f"README.md:{number}: the marker is not followed by a ``` code block on the next line")
        body = []
        for inner in lines[index + 2 :]:
            if FENCE.match(inner):
                break
            body.append(inner)
        else:
            fail(f"README.md:{number}: the code block after the marker is never closed")
        found.append((match.group(1), match.group(2), number, "\n".join(body) + "\n"))
    return found


def check():
    snippets = [block for block in blocks() if block[0] == "snippet"]
    if not snippets:
        fail("README.md has no <!-- snippet: PATH --> marker: nothing would be checked")
    different = 0
    for _, name, number, text in snippets:
        path = ROOT / name
        if not path.is_file():
            fail(f"README.md:{number}: {name} does not exist")
        actual = path.read_text(encoding="utf-8")
        if actual == text:
            print(f"README.md:{number}: identical to {name}")
            continue
        different += 1
        diff = difflib.unified_diff(
            actual.splitlines(keepends=True),
            text.splitlines(keepends=True),
            fromfile=name,
            tofile=f"README.md (the block after line {number})",
        )
        sys.stdout.writelines(diff)
        print(f"README.md:{number}: differs from {name}: copy one over the other", file=sys.stderr)
    if different:
        sys.exit(1)


def extract(name):
    matches = [block for block in blocks() if block[1] == name]
    if len(matches) != 1:
        fail(f"README.md has {len(matches)} blocks marked {name}, expected 1")
    return matches[0][3]


def manifest(path):
    text, count = RUNWAY_DEPENDENCY.subn(lambda _: f".package(path: {json.dumps(path)})", extract("Package.swift"))
    if count != 1:
        fail(f"the Package.swift block has {count} Runway dependencies of the form {RUNWAY_DEPENDENCY.pattern}")
    # SwiftPM names a path dependency after its folder (lowercased), not after its URL: `package: "Runway"` in
    # the products becomes that name.
    identity = pathlib.PurePath(path).name.lower()
    text, count = re.subn(r'package: "Runway"', lambda _: f"package: {json.dumps(identity)}", text)
    if count == 0:
        fail('the Package.swift block uses no product of package "Runway"')
    return text


def executable_target():
    names = re.findall(r'\.executableTarget\(\s*name: "([^"]+)"', extract("Package.swift"))
    if len(names) != 1:
        fail(f"the Package.swift block declares {len(names)} executable targets, expected 1")
    return names[0] + "\n"


def main(arguments):
    if not arguments:
        check()
    elif len(arguments) == 2 and arguments[0] == "extract":
        sys.stdout.write(extract(arguments[1]))
    elif len(arguments) == 2 and arguments[0] == "manifest":
        sys.stdout.write(manifest(arguments[1]))
    elif arguments == ["executable-target"]:
        sys.stdout.write(executable_target())
    else:
        fail("usage: check-readme-snippets.py [extract NAME | manifest PATH | executable-target]")


if __name__ == "__main__":
    main(sys.argv[1:])
