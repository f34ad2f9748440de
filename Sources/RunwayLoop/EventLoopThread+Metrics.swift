import CLibUV
import RunwayCore

extension EventLoopThread {
    /// How long the loop thread has waited in the kernel's event provider (`epoll_wait`) since the first call of
    /// this method on the loop thread: libuv's `uv_metrics_idle_time`. The rest of the loop thread's wall time was
    /// spent running callbacks (or descheduled by the kernel), so over a window `1 - Δidle / Δwall` is the loop's
    /// utilisation.
    ///
    /// Cost: libuv's accounting adds a non-blocking `epoll_wait` and two clock reads to every loop iteration, so it
    /// is off until this method is first called on the loop thread (the daemon's loop metrics and `runway bench`
    /// call it there when they start); a loop whose idle time nobody reads does not pay for it. There is no way to
    /// turn it off again.
    ///
    /// Threading: any thread (libuv guards the counter with a mutex). Off the loop thread it reads what has been
    /// counted, zero before accounting started. A wait still in progress may be counted only when it returns, so
    /// to open or close a measurement window read it on the loop thread (inside `execute`), where the wait that
    /// woke the loop has been counted.
    ///
    /// Time: nanoseconds of libuv's monotonic clock (`uv_hrtime`, CLOCK_MONOTONIC), comparable with spans of
    /// `now()`; it only grows.
    ///
    /// - Returns: The idle time (zero at the call that starts the accounting), or nil after `shutdown()` has
    ///   stopped the loop (a call made meanwhile waits for it).
    package func idleTime() -> TimeSpan? {
        // On the loop thread the loop is alive (it is running this callback); taking the lifecycle lock there
        // would deadlock with a `shutdown` that holds it while joining this thread.
        if self.inEventLoop {
            if !self.loopState.idleTimeCounted {
                let status = runway_loop_enable_idle_time(self.handles.loop)
                precondition(status == 0, "uv_loop_configure(UV_METRICS_IDLE_TIME) failed: status=\(status)")
                self.loopState.idleTimeCounted = true
            }
            return self.readIdleTime()
        }
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
