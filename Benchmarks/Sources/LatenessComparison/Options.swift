// LatenessComparison's command line, and the two marker functions around each half's deadline window.
//
// Options (all optional; the defaults are the documented run):
//   --count N              deadlines (and Runway apps), default 10,000
//   --spread-seconds S     the deadlines fall within 1 s + [0, S) of the setup, default 2
//   --even                 evenly spaced instead of seeded random offsets: with a wide spread each deadline gets
//                          its own wake-up, which is what a count per deadline under callgrind or strace needs
//   --only runway|nio      run one half only
//   --realtime-priority P, --wakeup-spin MICROSECONDS, --nio-first: see main.swift.

import Foundation
@_spi(Benchmarks) import Runway
@_spi(Benchmarks) import RunwayCore
@_spi(Driver) @_spi(Benchmarks) import RunwayTestKit

/// Exits with a usage line when an option's value is missing or out of range.
func usage(_ text: String) -> Never {
    print("usage: LatenessComparison \(text)")
    exit(64)
}

/// The value after `name`, parsed by `parse`, or nil when `name` is absent; exits with `usage` when it is bad.
func option<T>(_ name: String, usage text: String, _ parse: (String) -> T?) -> T? {
    let arguments = CommandLine.arguments
    guard let index = arguments.firstIndex(of: name) else { return nil }
    guard index + 1 < arguments.count, let value = parse(arguments[index + 1]) else { usage(text) }
    return value
}

let count =
    option("--count", usage: "[--count N], N from 1 to 100000") {
        Int($0).flatMap { (1...100_000).contains($0) ? $0 : nil }
    } ?? 10_000

let spreadNanoseconds: Int64 =
    option("--spread-seconds", usage: "[--spread-seconds S], S from 1 to 600") {
        Int64($0).flatMap { (1...600).contains($0) ? $0 * 1_000_000_000 : nil }
    } ?? 2_000_000_000

/// Which halves run: both by default.
let runsRunway = option("--only", usage: "[--only runway|nio]") { ["runway", "nio"].contains($0) ? $0 : nil } != "nio"
let runsNIO = option("--only", usage: "[--only runway|nio]") { ["runway", "nio"].contains($0) ? $0 : nil } != "runway"

/// `--realtime-priority P`, for both loops; `.inherited` without it.
let loopPriority: LoopThreadPriority =
    option("--realtime-priority", usage: "[--realtime-priority P], P a SCHED_FIFO priority from 1 to 99") {
        Int32($0).flatMap {
            LoopLimits.realtimePriorities.contains($0) ? LoopThreadPriority.realtime(priority: $0) : nil
        }
    } ?? .inherited

/// `--wakeup-spin MICROSECONDS` for Runway's loop (`RunwayScheduler(wakeupSpin:)`; NIO has no equivalent); zero
/// without it.
let wakeupSpin: TimeSpan = {
    let maximum = LoopLimits.maximumWakeupSpin.nanoseconds / 1_000
    return option("--wakeup-spin", usage: "[--wakeup-spin MICROSECONDS], 0 to \(maximum)") {
        Int64($0).flatMap { (0...maximum).contains($0) ? TimeSpan.microseconds($0) : nil }
    } ?? .zero
}()

/// Each deadline's offset from the instant its half scheduled them: at least 1 s, so that the deadlines come after
/// the loop has finished the setup's work.
let offsetsNanoseconds: [Int64] = {
    if CommandLine.arguments.contains("--even") {
        return (0..<count).map { 1_000_000_000 + spreadNanoseconds * Int64($0) / Int64(count) }
    }
    var random = SeededRandom(seed: 2_026)
    return (0..<count).map { _ in 1_000_000_000 + Int64(random.next() % UInt64(spreadNanoseconds)) }
}()

// Called on each half's loop thread when it has served its first deadline and its last, so that a tool can count
// the work of the other count - 1 deadlines alone: `valgrind --tool=callgrind --separate-threads=yes
// --zero-before=lateness_window_begin --dump-before=lateness_window_end` (callgrind zeroes and dumps the calling
// thread), or strace, which sees the line each writes to stderr (Scripts/per_deadline.py). Never inlined, and named
// with `@_silgen_name`, so that the symbols exist under these names.
@_silgen_name("lateness_window_begin") @inline(never)
func latenessWindowBegin() {
    let line: StaticString = "lateness window begin\n"
    _ = write(2, line.utf8Start, line.utf8CodeUnitCount)
}

@_silgen_name("lateness_window_end") @inline(never)
func latenessWindowEnd() {
    let line: StaticString = "lateness window end\n"
    _ = write(2, line.utf8Start, line.utf8CodeUnitCount)
}
