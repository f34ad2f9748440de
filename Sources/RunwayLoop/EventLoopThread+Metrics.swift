import CLibUV
import RunwayCore

extension EventLoopThread {
    /// How long the loop thread has waited in the kernel's event provider (`epoll_wait`) since the loop was
    /// created: libuv's `uv_metrics_idle_time`, enabled for every loop in `LoopHandles.make`. The rest of the
    /// loop thread's wall time was spent running callbacks (or descheduled by the kernel), so over a window
    /// `1 - Δidle / Δwall` is the loop's utilisation.
    ///
    /// Threading: any thread (libuv guards the counter with a mutex). A wait still in progress may be counted
    /// only when it returns, so to close a measurement window read it on the loop thread (inside `execute`),
    /// where the wait that woke the loop has been counted.
    ///
    /// Time: nanoseconds of libuv's monotonic clock (`uv_hrtime`, CLOCK_MONOTONIC), comparable with spans of
    /// `now()`; it only grows.
    ///
    /// - Returns: The idle time, or nil after `shutdown()` has stopped the loop (a call made meanwhile waits
    ///   for it).
    package func idleTime() -> TimeSpan? {
        // On the loop thread the loop is alive (it is running this callback); taking the lifecycle lock there
        // would deadlock with a `shutdown` that holds it while joining this thread.
        if self.inEventLoop { return self.readIdleTime() }
        // Elsewhere under the lifecycle lock: `shutdown` holds it until the loop is freed and joined.
        return self.lifecycle.withLock { lifecycle -> TimeSpan? in
            guard case .running = lifecycle else { return nil }
            return self.readIdleTime()
        }
    }

    private func readIdleTime() -> TimeSpan {
        TimeSpan(nanoseconds: Int64(clamping: uv_metrics_idle_time(self.handles.loop)))
    }
}
