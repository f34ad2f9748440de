import Dispatch
@_spi(Processes) import Runway
@_spi(Processes) import RunwayCore
import RunwayLocking

/// How busy an event loop was over a window: `busyFraction = 1 - idle / wall`, where idle is the time the loop
/// thread waited in epoll (libuv's `uv_metrics_idle_time`). Busy time includes the time the kernel kept the
/// loop thread off the CPU while it had work.
package struct LoopUtilisation: Codable, Sendable {
    package var wallSeconds: Double
    package var idleSeconds: Double
    package var busyFraction: Double
}

/// The loop's clock and idle time, read together on the loop thread.
package struct LoopSample: Sendable {
    package var at: Instant
    package var idle: TimeSpan

    /// Reads a sample on `loop`'s thread, where the wait that woke the loop has been counted as idle, and
    /// waits for it; nil if the loop has stopped.
    package static func read(_ loop: EventLoopThread) -> LoopSample? {
        let sample = RunwayLock<LoopSample?>(nil)
        let done = DispatchSemaphore(value: 0)
        let accepted = loop.execute {
            let reading = loop.idleTime().map { LoopSample(at: loop.now(), idle: $0) }
            sample.withLock { $0 = reading }
            done.signal()
        }
        guard accepted else { return nil }
        done.wait()
        return sample.withLock { $0 }
    }

    /// The utilisation from this sample to `end`.
    package func utilisation(until end: LoopSample) -> LoopUtilisation {
        let wall = (end.at - self.at).seconds
        let idle = TimeSpan(nanoseconds: end.idle.nanoseconds - self.idle.nanoseconds).seconds
        return LoopUtilisation(
            wallSeconds: wall,
            idleSeconds: idle,
            busyFraction: wall > 0 ? min(1, max(0, 1 - idle / wall)) : 0
        )
    }
}
