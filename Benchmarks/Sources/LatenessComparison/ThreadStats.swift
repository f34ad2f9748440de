// What the kernel counted for the threads of this process over a deadline window, read from /proc/self/task: the
// loop thread's CPU time, its time runnable but waiting for a CPU (schedstat's run delay: the part of a wake-up's
// lateness that is the scheduler's), its voluntary switches (each one sleep, so one wake-up) and involuntary ones
// (preemptions), and the voluntary switches of every other thread (hand-offs the deadline work causes elsewhere).
// These do not depend on the load the way the lateness figures do, so the two loops can be compared per deadline.

import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The kernel thread id of the calling thread (`/proc/thread-self` links to `PID/task/TID`), 0 if unreadable.
func currentThreadID() -> Int32 {
    let target = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/thread-self")) ?? ""
    return target.split(separator: "/").last.flatMap { Int32($0) } ?? 0
}

/// One reading of the counters of one thread.
struct ThreadCounters {
    var cpuNanoseconds: Int64 = 0
    var runDelayNanoseconds: Int64 = 0
    var voluntary: Int64 = 0
    var involuntary: Int64 = 0

    /// Reads `/proc/self/task/<thread>/schedstat` and `status`; zeros when the thread has gone.
    init(thread: Int32) {
        let base = "/proc/self/task/\(thread)/"
        if let text = try? String(contentsOfFile: base + "schedstat", encoding: .utf8) {
            let fields = text.split(whereSeparator: \.isWhitespace).compactMap { Int64($0) }
            if fields.count >= 2 { (self.cpuNanoseconds, self.runDelayNanoseconds) = (fields[0], fields[1]) }
        }
        if let text = try? String(contentsOfFile: base + "status", encoding: .utf8) {
            for line in text.split(separator: "\n") {
                let parts = line.split(separator: ":", maxSplits: 1)
                guard parts.count == 2, let value = Int64(parts[1].trimmingCharacters(in: .whitespaces)) else {
                    continue
                }
                if parts[0] == "voluntary_ctxt_switches" { self.voluntary = value }
                if parts[0] == "nonvoluntary_ctxt_switches" { self.involuntary = value }
            }
        }
    }

    init() {}
}

/// The counters of the loop thread and the other threads' voluntary switches, at one instant.
struct ProcessCounters {
    var loop: ThreadCounters
    var othersVoluntary: Int64

    init(loopThread: Int32) {
        self.loop = ThreadCounters(thread: loopThread)
        let threads = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
        self.othersVoluntary = threads.compactMap(Int32.init).filter { $0 != loopThread }.reduce(0) {
            $0 + ThreadCounters(thread: $1).voluntary
        }
    }

    /// One line: the window's counters per deadline (`deadlines` of them), e.g. for 10,000 deadlines.
    static func perDeadline(from start: ProcessCounters, to end: ProcessCounters, deadlines: Int) -> String {
        let count = Double(max(deadlines, 1))
        func each(_ value: Int64) -> String { String(format: "%.2f", Double(value) / count) }
        func microseconds(_ value: Int64) -> String { String(format: "%.2f", Double(value) / count / 1_000) }
        return "loop thread per deadline: cpu=\(microseconds(end.loop.cpuNanoseconds - start.loop.cpuNanoseconds)) us"
            + " run-delay=\(microseconds(end.loop.runDelayNanoseconds - start.loop.runDelayNanoseconds)) us"
            + " voluntary=\(each(end.loop.voluntary - start.loop.voluntary))"
            + " involuntary=\(each(end.loop.involuntary - start.loop.involuntary));"
            + " other threads' voluntary switches per deadline=\(each(end.othersVoluntary - start.othersVoluntary))"
    }
}
