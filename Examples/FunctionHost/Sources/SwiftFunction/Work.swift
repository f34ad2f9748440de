// `POST /work?ms=N`: the `waitUntil` pattern. The background task is begun before the response is sent; the work
// (N ms of CPU) runs after it on a thread of its own, not on the cooperative pool, and ends the task when it is done
// or when the task's expiration handler stopped it.

import Foundation
import RunwayClient
import RunwayCore

#if canImport(Glibc)
import Glibc
#endif

/// The most work one request may ask for: a bound on what a client can make the function hold.
let workMillisecondsLimit = 600_000

extension FunctionState {
    /// Begins the work's background task and returns what starts the work; call that once the response is sent.
    ///
    /// - Parameters:
    ///   - milliseconds: CPU time to burn.
    ///   - ignoringExpiration: when true the work goes on past the expiration warning, so the function is killed at
    ///     its budget's deadline (Behaviour.md B6); otherwise the warning stops it and the task ends (B4, B5).
    func beginWork(milliseconds: Int, ignoringExpiration: Bool) async -> @Sendable () -> Void {
        let task = (try? await self.client.beginBackgroundTask(name: "work")) ?? .invalid
        if task == .invalid { say("no background task for the work") }
        let flag = StopFlag()
        if task != .invalid && !ignoringExpiration { self.track(task, flag) }
        return { [self] in
            let thread = Thread {
                let finished = spin(milliseconds: milliseconds, until: flag)
                guard task != .invalid else { return }
                self.untrack(task)
                Task {
                    let ended = (try? await self.client.endBackgroundTask(task)) != nil
                    let how = finished ? "done" : "stopped"
                    say("work of task \(task.rawValue) \(how) after \(milliseconds) ms: ended \(ended)")
                }
            }
            thread.name = "work"
            thread.start()
        }
    }
}

/// Burns `milliseconds` of the calling thread's CPU time; returns false when `flag` was set first.
func spin(milliseconds: Int, until flag: StopFlag) -> Bool {
    let end = threadCPUNanoseconds() + UInt64(milliseconds) * 1_000_000
    var sink = 0
    while threadCPUNanoseconds() < end {
        if flag.isStopped { return false }
        for index in 0..<20_000 { sink &+= index }
    }
    withExtendedLifetime(sink) {}
    return true
}

private func threadCPUNanoseconds() -> UInt64 {
    var time = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
    return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
}
