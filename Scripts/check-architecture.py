#!/usr/bin/env python3
"""`make arch-check`: the tree against the module table of Docs/Architecture.md and the size rules of the house.

Fails, naming file and line, on
- an `import X` in a folder of the table (`Sources/...`, `Examples/...`) that its row's "may import" cell does not
  list (the backticked names of that cell are the allowed modules, up to a "not `X`", which bans X);
- a target of Package.swift whose declared dependencies its row does not allow, or a file that imports a module of
  this package its target does not declare (it would build only through another target's dependencies);
- a Swift, C or header file under Sources/, Tests/, Examples/ or Benchmarks/ longer than 300 lines;
- a test file, type or suite named after how a bug was found (a review, pass, issue, regression or "floor") instead
  of the behaviour it checks;
- more than 40 public types, nested ones included, in the modules an embedder sees with `import Runway` and
  `import RunwayCore` (the rows whose "who uses it" cell says "the embedder": those two and the modules Runway
  re-exports). `@_spi` types are not counted: only a client that names the SPI sees them.

`--self-test` builds a small tree in a temporary folder that breaks each rule once and checks that every break is
reported, then a clean one that passes. Python 3, standard library only; well under a second.
"""

import pathlib
import re
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parent.parent
LINE_LIMIT = 300
PUBLIC_TYPE_LIMIT = 40
SIZE_FOLDERS = ("Sources", "Tests", "Examples", "Benchmarks")
SOURCE_SUFFIXES = (".swift", ".c", ".h")

IMPORT = re.compile(
    r"^\s*(?:@[\w]+(?:\([^)]*\))?\s+)*(?:(?:public|package|internal|fileprivate|private)\s+)?import\s+"
    r"(?:(?:typealias|struct|class|enum|protocol|let|var|func)\s+)?([A-Za-z_]\w*)"
)
# How a bug was found is not what a test checks: "ReviewR16Tests", "RegressionTests", "ProcessFloorTests",
# "Issue13Tests", "Pass4Tests".
HISTORY_NAME = re.compile(r"(?i)review|regression|floor|issue[ _-]?\d|pass[ _-]?\d|(?<![a-z])r\d{1,3}(?![a-z\d])")
TEST_TYPE = re.compile(r"^\s*(?:@\w+\s+)*(?:final\s+)?(?:struct|class|enum)\s+(\w+)")
SUITE_TITLE = re.compile(r"@Suite\(\s*\"([^\"]*)\"")
PUBLIC_TYPE = re.compile(
    r"^\s*(?:@\w+(?:\([^)]*\))?\s+)*(?:public|open)\s+(?:(?:final|indirect)\s+)*"
    r"(?:struct|class|enum|protocol|actor|typealias)\s+(\w+)"
)
PLAIN_MUTEX = re.compile(r"\bMutex\s*[<(]")
SPI = re.compile(r"^\s*@_spi\((?!.*\bimport\s)")  # an attribute of a declaration; `@_spi(X) import` is not one


def module_table(architecture):
    """Rows of the table whose header has "folder" and "may import": {folder: (module, who, allowed, line)}."""
    rows = {}
    columns = None
    for number, line in enumerate(architecture.read_text(encoding="utf-8").split("\n"), start=1):
        if not line.startswith("|"):
            columns = None
            continue
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if columns is None:
            names = [cell.lower() for cell in cells]
            if "folder" in names and "may import" in names:
                columns = {name: index for index, name in enumerate(names)}
            continue
        if set(line) <= set("|-: "):
            continue
        folder = cells[columns["folder"]].strip("`").rstrip("/")
        module = cells[columns["module"]].strip("`") if "module" in columns else folder.split("/")[-1]
        who = cells[columns["who uses it"]] if "who uses it" in columns else ""
        cell = cells[columns["may import"]]
        # "...; not `RunwayTestKit`" names a module the row must not import: only what comes before counts.
        allowed = set(re.findall(r"`([^`]+)`", re.split(r"\bnot\s+`", cell)[0]))
        rows[folder] = (module, who, allowed, number)
    return rows


TARGET = re.compile(r"\.(target|executableTarget|testTarget|systemLibrary)\(\s*name:\s*\"(\w+)\"")


def manifest_targets(root):
    """The targets of Package.swift: {folder: (name, declared dependency modules, line)}. A target's folder is its
    `path:`, else Sources/NAME (Tests/NAME for a test target); its dependencies are the target names and the
    products' names (a product's module has its name in every package this one uses)."""
    manifest = root / "Package.swift"
    if not manifest.is_file():
        return {}
    text = manifest.read_text(encoding="utf-8")
    starts = [(match.start(), match) for match in TARGET.finditer(text)]
    targets = {}
    for index, (start, match) in enumerate(starts):
        end = starts[index + 1][0] if index + 1 < len(starts) else len(text)
        block = text[start:end]
        kind, name = match.group(1), match.group(2)
        path = re.search(r"path:\s*\"([^\"]+)\"", block)
        folder = path.group(1) if path else ("Tests/" if kind == "testTarget" else "Sources/") + name
        declared = set()
        listed = re.search(r"dependencies:\s*\[(.*?)\]\s*[,)]", block, re.S)
        if listed:
            body = re.sub(r"//[^\n]*", "", listed.group(1))
            declared |= set(re.findall(r"\.product\(\s*name:\s*\"(\w+)\"", body))
            declared |= set(re.findall(r"(?<![\w:]\s)(?<!name: )\"(\w+)\"", re.sub(r"\.product\([^)]*\)", "", body)))
        targets[folder.rstrip("/")] = (name, declared, text.count("\n", 0, start) + 1)
    return targets


def folder_imports(root, folder):
    """(file, line number, module) of every `import` in the Swift files of a folder, outside multi-line string
    literals (a test's Python script may say `import json`)."""
    found = []
    for path in source_files(root, [folder]):
        if path.suffix != ".swift":
            continue
        inside = False
        for number, line in enumerate(path.read_text(encoding="utf-8").split("\n"), start=1):
            match = None if inside else IMPORT.match(line)
            if match:
                found.append((path.relative_to(root), number, match.group(1)))
            if line.count('"""') % 2:
                inside = not inside
    return found


def source_files(root, folders):
    for folder in folders:
        base = root / folder
        if not base.is_dir():
            continue
        for path in sorted(base.rglob("*")):
            relative = path.relative_to(root)
            if any(part.startswith(".") for part in relative.parts):
                continue
            if path.is_file() and path.suffix in SOURCE_SUFFIXES:
                yield path


def check(root):
    problems = []
    architecture = root / "Docs" / "Architecture.md"
    rows = module_table(architecture)
    if not rows:
        return [f"{architecture.relative_to(root)}: no module table (a header with `folder` and `may import`)"]

    imports = {folder: folder_imports(root, folder) for folder in rows}

    # The manifest: every target's declared dependencies are allowed by its row, and every module of this package
    # that a file imports is declared (an import that builds only through another target's dependencies is not).
    targets = manifest_targets(root)
    local = {name for name, _, _ in targets.values()}
    for folder, (name, declared, line) in sorted(targets.items()):
        if folder not in rows:
            if folder.startswith(("Sources/", "Examples/", "Tests/")):
                problems.append(f"Package.swift:{line}: target {name} ({folder}) has no row in the module table")
            continue
        module, _, allowed, row = rows[folder]
        for dependency in sorted(declared - allowed):
            problems.append(
                f"Package.swift:{line}: {name} depends on {dependency}, which Docs/Architecture.md:{row} does not "
                "allow it to import"
            )
        for path, number, imported in imports[folder]:
            if imported in local and imported not in declared | {name}:
                problems.append(
                    f"{path}:{number}: imports {imported}, which {name} does not declare in Package.swift:{line}"
                )

    # Imports: every file of a listed folder against its row.
    for folder, (module, _, allowed, row) in sorted(rows.items()):
        for path, number, imported in imports[folder]:
            if imported not in allowed and imported != module:
                problems.append(
                    f"{path}:{number}: imports {imported}, which {module} may not "
                    f"import (Docs/Architecture.md:{row} allows {', '.join(sorted(allowed)) or 'nothing'})"
                )
    for path in source_files(root, ["Sources"]):
        folder = "/".join(path.relative_to(root).parts[:2])
        if folder not in rows:
            problems.append(f"{path.relative_to(root)}: its folder {folder} has no row in the module table")
            rows[folder] = ("", "", set(), 0)

    # Sizes.
    for path in source_files(root, SIZE_FOLDERS):
        count = len(path.read_text(encoding="utf-8", errors="replace").splitlines())
        if count > LINE_LIMIT:
            problems.append(f"{path.relative_to(root)}:{count}: {count} lines, over {LINE_LIMIT}: split it")

    # Test names.
    for path in source_files(root, ["Tests"]):
        relative = path.relative_to(root)
        if HISTORY_NAME.search(path.stem):
            problems.append(f"{relative}:1: file named after how a bug was found; name it after what it checks")
        for number, line in enumerate(path.read_text(encoding="utf-8").split("\n"), start=1):
            for pattern, what in ((TEST_TYPE, "type"), (SUITE_TITLE, "suite")):
                match = pattern.search(line)
                if match and HISTORY_NAME.search(match.group(1)):
                    problems.append(
                        f"{relative}:{number}: {what} {match.group(1)!r} named after how a bug was found; "
                        "name it after what it checks"
                    )

    # One lock type: only RunwayLock names Mutex, so that the TSan build swaps every lock (Decision 241).
    for path in source_files(root, ["Sources", "Tests"]):
        if "RunwayLocking" in path.parts or path.suffix != ".swift":
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").split("\n"), start=1):
            if PLAIN_MUTEX.search(line.split("//")[0]):
                problems.append(f"{path.relative_to(root)}:{number}: a plain Mutex: use RunwayLock, which TSan sees")

    # The embedder's surface.
    embedder = [folder for folder, (_, who, _, _) in rows.items() if "the embedder" in who]
    public = []
    for path in source_files(root, embedder):
        previous = ""
        outer_is_spi = False  # a type nested in an `@_spi` type is as hidden as its parent
        for number, line in enumerate(path.read_text(encoding="utf-8").split("\n"), start=1):
            spi = bool(SPI.match(line) or SPI.match(previous))
            if line[:1].isalpha():
                outer_is_spi = spi
            match = PUBLIC_TYPE.match(line)
            if match and not spi and not (line[:1].isspace() and outer_is_spi):
                public.append(f"{path.relative_to(root)}:{number}: {match.group(1)}")
            if line.strip() and not line.lstrip().startswith("///"):
                previous = line
    if len(public) > PUBLIC_TYPE_LIMIT:
        problems.append(
            f"{len(public)} public types in {', '.join(sorted(embedder))}, over {PUBLIC_TYPE_LIMIT}:\n  "
            + "\n  ".join(public)
        )
    return problems


def self_test():
    table = (
        "| folder | module | access | who uses it | may import |\n|---|---|---|---|---|\n"
        "| `Sources/Core` | `Core` | public | the embedder | the standard library only |\n"
        "| `Sources/Edge` | `Edge` | package | the daemon | `Core`, `Glibc`; not `Kit` |\n"
        "| `Sources/Kit` | `Kit` | package | tests | `Core` |\n"
    )
    manifest = (
        'let package = Package(targets: [\n    .target(name: "Core"),\n'
        '    .target(name: "Kit", dependencies: ["Core"]),\n'
        '    .target(name: "Edge", dependencies: ["Core", .product(name: "Glibc", package: "g")]),\n])\n'
    )
    clean = {
        "Docs/Architecture.md": table,
        "Package.swift": manifest,
        "Sources/Core/A.swift": "public struct A {}\n",
        "Sources/Edge/B.swift": 'import Core\n@_spi(X) import Glibc\nlet script = """\nimport json\n"""\n',
        "Tests/CoreTests/ATests.swift": '@Suite("A holds")\nstruct ATests {}\n',
    }
    broken = dict(clean)
    broken["Sources/Core/Up.swift"] = "import Edge\n"
    broken["Sources/Edge/Banned.swift"] = "import Kit\n"
    broken["Sources/Kit/Undeclared.swift"] = "import Edge\n"
    broken["Package.swift"] = manifest.replace('dependencies: ["Core"]', 'dependencies: ["Core", "Edge"]')
    broken["Sources/Core/Long.swift"] = "\n".join(["// line"] * (LINE_LIMIT + 1)) + "\n"
    broken["Sources/Core/Many.swift"] = "".join(f"public enum E{index} {{}}\n" for index in range(PUBLIC_TYPE_LIMIT - 3))
    broken["Sources/Core/Forms.swift"] = (
        "open class O {}\npublic indirect enum N {}\n@available(*, deprecated) public struct D {}\n"
    )
    broken["Sources/Core/Hidden.swift"] = "@_spi(X)\n/// Doc.\npublic struct H {\n    public struct Inner {}\n}\n"
    broken["Sources/Core/AfterImport.swift"] = "@_spi(X) import Glibc\n\n/// Doc.\npublic struct I {}\n"
    broken["Sources/Stray/C.swift"] = "\n"
    broken["Tests/CoreTests/ReviewR16Tests.swift"] = "struct FloorTests {}\n"
    broken["Tests/CoreTests/Names.swift"] = '@Suite("issue 13")\nstruct Pass4Tests {}\n'
    broken["Sources/Edge/Lock.swift"] = "let lock = Mutex<Int>(0)  // not RunwayLock\n"
    expected = [
        "Sources/Core/Up.swift:1: imports Edge, which Core may not",
        "Sources/Core/Up.swift:1: imports Edge, which Core does not declare",
        "Sources/Edge/Banned.swift:1: imports Kit, which Edge may not",
        "Sources/Edge/Banned.swift:1: imports Kit, which Edge does not declare",
        "Sources/Kit/Undeclared.swift:1: imports Edge, which Kit may not",
        "Package.swift:3: Kit depends on Edge",
        "Sources/Core/AfterImport.swift:1: imports Glibc",
        "Sources/Core/Long.swift:301:",
        "42 public types",
        "Sources/Stray/C.swift: its folder",
        "Tests/CoreTests/ReviewR16Tests.swift:1: file",
        "ReviewR16Tests.swift:1: type 'FloorTests'",
        "Names.swift:1: suite 'issue 13'",
        "Names.swift:2: type 'Pass4Tests'",
        "Sources/Edge/Lock.swift:1: a plain Mutex",
    ]
    failures = []
    for files, wanted in ((clean, []), (broken, expected)):
        with tempfile.TemporaryDirectory() as directory:
            root = pathlib.Path(directory)
            for name, text in files.items():
                (root / name).parent.mkdir(parents=True, exist_ok=True)
                (root / name).write_text(text, encoding="utf-8")
            problems = check(root)
            for fragment in wanted:
                if not any(fragment in problem for problem in problems):
                    failures.append(f"not reported: {fragment}")
            if len(problems) != len(wanted):
                failures.append(f"{len(wanted)} problems expected, got {len(problems)}:\n" + "\n".join(problems))
    if failures:
        sys.exit("arch-check --self-test failed:\n" + "\n".join(failures))
    print("arch-check --self-test: every rule fails its broken tree and the clean tree passes")


def main():
    if sys.argv[1:] == ["--self-test"]:
        self_test()
        return
    problems = check(ROOT)
    if problems:
        print("\n".join(problems))
        sys.exit(f"arch-check: {len(problems)} problems (Docs/Architecture.md, section 1, has the module table)")
    print("arch-check: imports follow the module table; files, test names and the public surface are in bounds")


if __name__ == "__main__":
    main()
