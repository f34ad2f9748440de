#!/usr/bin/env python3
"""`make docs-check`: every public symbol of the Runway and RunwayCore modules is documented, and DocC builds their
documentation without a warning.

Builds the documentation as `make docs` does, with DocC's experimental coverage report, then reads the symbol graphs
that the build extracted (`.build/<triple>/extracted-symbols/<package>/<Module>/*.symbols.json`). It fails, naming
file and line, for every public symbol declared under `Sources/<Module>/` whose doc comment is missing, has no
summary line, or is only inherited from another module (a `description` or `<` that satisfies a standard library
protocol: DocC lists those without an abstract). It also fails on any `warning:` or `error:` DocC prints (a link
that does not resolve, an ambiguous link, an undocumented parameter).

The coverage table DocC prints also lists members that the standard library supplies (`!=`, `>`, `hashValue`, the
"Equatable Implementations" groups, a raw-value enum's `init(rawValue:)`): they have no source here and cannot be
documented, so the check counts them separately and does not fail on them.

Environment: SWIFT (default `swift`), BUILD_PATH (default `.build`). Python 3, standard library only. About 20 s
after a `swift build`; a minute more the first time (the plugin builds its own tools).
"""

import glob
import json
import os
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
MODULES = ["Runway", "RunwayCore"]


def build_documentation(swift):
    command = [swift, "package", "--disable-sandbox", "generate-documentation"]
    for module in MODULES:
        command += ["--target", module]
    command += ["--experimental-documentation-coverage", "--coverage-summary-level", "brief"]
    print("docs-check: " + " ".join(command), flush=True)
    run = subprocess.run(command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    output = run.stdout
    if run.returncode != 0:
        print(output)
        sys.exit(f"docs-check: generate-documentation failed with exit status {run.returncode}")
    return output


def docc_problems(output):
    """DocC's own diagnostics: each starts a line with `warning:` or `error:` and is followed by its context."""
    lines = output.split("\n")
    problems = []
    for index, line in enumerate(lines):
        if line.startswith("warning:") or line.startswith("error:"):
            context = []
            for follow in lines[index + 1 :]:
                if not follow.strip() or follow.startswith(("warning:", "error:")) or "coverage output" in follow:
                    break
                context.append(follow)
            problems.append("\n".join([line] + context))
    return problems


def symbol_graphs(build_path, module):
    pattern = str(ROOT / build_path / "*" / "extracted-symbols" / "*" / module / "*.symbols.json")
    files = glob.glob(pattern)
    if not files:
        sys.exit(f"docs-check: no symbol graph for {module} under {pattern}; did generate-documentation run?")
    # One package directory per checkout name; the newest is the one just built.
    newest = max({os.path.dirname(path) for path in files}, key=lambda directory: os.path.getmtime(directory))
    return sorted(glob.glob(os.path.join(newest, "*.symbols.json")))


def has_summary(doc_comment, module):
    if not doc_comment or doc_comment.get("module", module) != module:
        return False
    for entry in doc_comment.get("lines", []):
        text = entry.get("text", "").strip()
        if text:
            # A comment that opens with a callout list (`- Parameters:`, `- Returns:`) has no abstract.
            return not text.startswith("- ")
    return False


def undocumented(build_path, module):
    source_root = (ROOT / "Sources" / module).as_uri()
    found = {}
    for path in symbol_graphs(build_path, module):
        graph = json.loads(pathlib.Path(path).read_text(encoding="utf-8"))
        for symbol in graph.get("symbols", []):
            location = symbol.get("location")
            if not location or not location.get("uri", "").startswith(source_root + "/"):
                continue
            if symbol.get("accessLevel") not in ("public", "open"):
                continue
            if has_summary(symbol.get("docComment"), module):
                continue
            file = location["uri"][len(ROOT.as_uri()) + 1 :]
            line = location.get("position", {}).get("line", 0) + 1
            name = ".".join(symbol.get("pathComponents", [])) or symbol.get("identifier", {}).get("precise", "?")
            kind = symbol.get("kind", {}).get("displayName", "symbol")
            found[(file, line, name)] = kind
    return [f"{file}:{line}: {kind} {name} has no documentation" for (file, line, name), kind in sorted(found.items())]


def coverage_counts(build_path, module):
    """(entries DocC's coverage report lists, of them without an abstract), from the archive's JSON report."""
    report = ROOT / build_path / "plugins" / "Swift-DocC" / "outputs" / f"{module}.doccarchive"
    report = report / "documentation-coverage.json"
    if not report.exists():
        return None
    entries = json.loads(report.read_text(encoding="utf-8"))
    return len(entries), sum(1 for entry in entries if not entry.get("hasAbstract"))


def main():
    swift = os.environ.get("SWIFT", "swift")
    build_path = os.environ.get("BUILD_PATH", ".build")
    output = build_documentation(swift)
    failures = []
    problems = docc_problems(output)
    for problem in problems:
        failures.append(problem)
    for module in MODULES:
        missing = undocumented(build_path, module)
        failures.extend(missing)
        counts = coverage_counts(build_path, module)
        listed = f"{counts[1]} of the {counts[0]} entries of DocC's coverage report lack an abstract" if counts else ""
        print(
            f"docs-check: {module}: {len(missing)} public symbols declared in Sources/{module} without documentation"
            + (f"; {listed} (the rest are supplied by the standard library)" if listed else "")
        )
    if failures:
        print("\n".join(failures))
        sys.exit(f"docs-check: {len(problems)} DocC diagnostics, {len(failures) - len(problems)} undocumented symbols")
    print("docs-check: every public symbol of " + " and ".join(MODULES) + " is documented; DocC printed no warning")


if __name__ == "__main__":
    main()
