#!/usr/bin/env bash
# `make example-check`: builds README.md's embedding example, unchanged, in a package of its own outside the
# repository that depends on Runway by path, as an adopter's package would.
#
# In a new temporary directory, a package MailService: its Package.swift is the README's `example-check:
# Package.swift` block with the Runway dependency `.package(url: ".../<owner>/Runway", ...)` replaced by
# `.package(path: "<this repository>")` (and `package: "Runway"` by the name SwiftPM gives that folder); its
# main.swift is the README's `snippet: Examples/EmbeddedApps/main.swift` block, verbatim. Both are copied out of
# README.md by Scripts/check-readme-snippets.py. Then `swift build` there.
#
# The scratch package's build folder is EXAMPLE_SCRATCH_PATH, by default .build-example in this repository (ignored
# by git): the first run builds Runway's modules and their dependencies again (about a minute on 2 cores), later
# runs only what changed. EXAMPLE_SCRATCH_PATH=fresh builds in the temporary directory, from nothing, every time.
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd -P)
swift=${SWIFT:-swift}
scratch=${EXAMPLE_SCRATCH_PATH:-$repo/.build-example}
work=$(mktemp -d "${TMPDIR:-/tmp}/runway-example-check.XXXXXX")
trap 'rm -rf "$work"' EXIT
if [ "$scratch" = fresh ]; then scratch=$work/build; fi

package=$work/MailService
mkdir -p "$package"
python3 "$repo/Scripts/check-readme-snippets.py" manifest "$repo" >"$package/Package.swift"
target=$(python3 "$repo/Scripts/check-readme-snippets.py" executable-target)
mkdir -p "$package/Sources/$target"
python3 "$repo/Scripts/check-readme-snippets.py" extract Examples/EmbeddedApps/main.swift \
    >"$package/Sources/$target/main.swift"

echo "example-check: building README.md's embedding example as $target in $package (build folder $scratch)"
start=$(date +%s)
"$swift" build --package-path "$package" --scratch-path "$scratch"
echo "example-check: README.md's embedding example builds ($(($(date +%s) - start)) s)"
