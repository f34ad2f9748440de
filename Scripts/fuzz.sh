#!/usr/bin/env bash
# `make fuzz`: builds the libFuzzer targets of Fuzz/ and runs each for FUZZ_SECONDS (Docs/Testing.md, "Fuzzing").
#
# Targets (FUZZ_TARGETS, space-separated, all by default):
#   control-request  ControlService.decode on framed control-socket lines (Fuzz/Targets/FuzzControlRequest)
#   app-protocol     LineFramer and AppProtocolCodec on an app's channel bytes (Fuzz/Targets/FuzzAppProtocol)
#   config-plist     PlistFile.read, AppInfoPlist.load and RunwaySettingsPlist.load (Fuzz/Targets/FuzzConfigPlist)
#   cgroup-events    AppCgroupFiles.parseEvents (Fuzz/Targets/FuzzCgroupEvents)
#   proc-files       procstat.c's /proc/PID/stat and children parsers, in C (Fuzz/C/fuzz_proc_files.c)
#
# The Swift targets build in debug (for `@testable`) in .build/fuzz with RUNWAY_FUZZ=1, which declares them in
# Package.swift, under ASan and libFuzzer's coverage; the C target with clang -fsanitize=fuzzer,address,undefined.
# `--sanitize fuzzer` makes SwiftPM link libFuzzer's main; the ASan flag goes through -Xswiftc as one
# `-sanitize=fuzzer,address`, because the Swift driver keeps only the last of two `-sanitize=` options (and so
# SwiftPM's `--sanitize fuzzer --sanitize address` builds Swift without coverage).
#
# Each target starts from its seeds (Fuzz/Corpus/NAME, read only) and the inputs it found before
# (.build/fuzz/corpus/NAME, kept between runs), with its dictionary (Fuzz/Dictionaries/NAME.dict). A crash, a
# sanitizer report, a leak or a broken property stops it: the input is written to .build/fuzz/artifacts/NAME/ and
# the script exits 1 after the other targets ran. The last lines of each run give executions, coverage (cov, ft)
# and corpus size.
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd -P)
cd "$repo"
swift=${SWIFT:-swift}
clang=${FUZZ_CC:-clang}
seconds=${FUZZ_SECONDS:-20}
targets=${FUZZ_TARGETS:-control-request app-protocol config-plist cgroup-events proc-files}
build=$repo/.build/fuzz
# A failed precondition in a Swift target traps; the Swift runtime's backtracer would then read the stack from a
# thread of its own, which ASan reports as an error of its own, hiding the precondition's message.
export SWIFT_BACKTRACE=enable=no

product() {
    case $1 in
        control-request) echo FuzzControlRequest ;;
        app-protocol) echo FuzzAppProtocol ;;
        config-plist) echo FuzzConfigPlist ;;
        cgroup-events) echo FuzzCgroupEvents ;;
        proc-files) echo "" ;;
        *) echo "make fuzz: unknown target '$1' (known: control-request app-protocol config-plist" \
            "cgroup-events proc-files)" >&2; exit 2 ;;
    esac
}

# Build everything first, so that a run is not slowed by a build of the next target. The build's output is in
# .build/fuzz/build.log, shown when it fails (ld.gold warns about ASan's local symbols at every link).
mkdir -p "$build/c"
for name in $targets; do
    swift_product=$(product "$name")
    echo "make fuzz: building ${swift_product:-fuzz-proc-files}"
    if [ -n "$swift_product" ]; then
        RUNWAY_FUZZ=1 "$swift" build --build-path "$build" --sanitize fuzzer -Xswiftc -sanitize=fuzzer,address \
            -Xcc -fsanitize=address --product "$swift_product" >"$build/build.log" 2>&1 \
            || { grep -v "Cannot export local symbol" "$build/build.log" | tail -40; exit 1; }
    else
        "$clang" -g -O1 -fuse-ld=lld -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
            -ISources/CRunwayProcess/include -o "$build/c/fuzz-proc-files" Fuzz/C/fuzz_proc_files.c
    fi
done

failed=()
for name in $targets; do
    swift_product=$(product "$name")
    binary=$build/debug/$swift_product
    if [ -z "$swift_product" ]; then binary=$build/c/fuzz-proc-files; fi
    corpus=$build/corpus/$name
    artifacts=$build/artifacts/$name
    mkdir -p "$corpus" "$artifacts"
    options=(-max_total_time="$seconds" -print_final_stats=1 -artifact_prefix="$artifacts/"
        -dict="Fuzz/Dictionaries/$name.dict")
    # PropertyListSerialization leaks in Foundation on every malformed plist (Fuzz/lsan.supp): a leak check after
    # each such input would make the run a hundred times slower. The check at exit still runs, with suppressions.
    if [ "$name" = config-plist ]; then options+=(-detect_leaks=0); fi
    echo "make fuzz: $name for $seconds s"
    if LSAN_OPTIONS="suppressions=$repo/Fuzz/lsan.supp:print_suppressions=0" \
        "$binary" "${options[@]}" "$corpus" "Fuzz/Corpus/$name" >"$build/$name.log" 2>&1; then
        grep -E "^#[0-9]+[[:space:]]+DONE|stat::number_of_executed_units" "$build/$name.log" || true
    else
        tail -40 "$build/$name.log"
        echo "make fuzz: $name failed; the input is in $artifacts/. Reproduce: $binary <input>." \
            "Then make it a test in Tests/ (Docs/Testing.md, \"Fuzzing\")."
        failed+=("$name")
    fi
done
if [ ${#failed[@]} -gt 0 ]; then
    echo "make fuzz: failed: ${failed[*]}"
    exit 1
fi
echo "make fuzz: $targets ran $seconds s each without a finding"
