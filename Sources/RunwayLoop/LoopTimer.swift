import CLibUV

/// A repeating libuv timer on an `EventLoopThread`, for the daemon's own housekeeping (systemd's watchdog and
/// notification retries): it fires only while that loop turns, so a loop that stops turning stops it too.
///
/// Threading: `start` and `stop` on the loop thread only; `onFire` runs on the loop thread and must not block.
/// Time: libuv's millisecond clock (`uv_now`), not the scheduler's deadlines; a tick is not a lifecycle deadline.
///
/// Sendability: `@unchecked Sendable` is safe because `timer` is written only on the loop thread (`start`,
/// `stop`, each asserting it), and the other stored properties are immutable.
package final class LoopTimer: @unchecked Sendable {
    let loop: EventLoopThread
    private let onFire: @Sendable () -> Void
    private var timer: UnsafeMutablePointer<uv_timer_t>?

    package init(loop: EventLoopThread, onFire: @escaping @Sendable () -> Void) {
        self.loop = loop
        self.onFire = onFire
    }

    /// Fires after `delayMilliseconds`, then every `intervalMilliseconds` (0: once). Restarts a running timer.
    /// Returns libuv's error status, or 0.
    @discardableResult
    package func start(delayMilliseconds: UInt64, intervalMilliseconds: UInt64) -> Int32 {
        precondition(self.loop.inEventLoop, "LoopTimer.start called off the loop thread")
        let timer: UnsafeMutablePointer<uv_timer_t>
        if let existing = self.timer {
            timer = existing
        } else {
            timer = UnsafeMutablePointer<uv_timer_t>.allocate(capacity: 1)
            let status = uv_timer_init(self.loop.handles.loop, timer)
            guard status == 0 else {
                timer.deallocate()
                return status
            }
            // Retained until `stop()`: a callback never reaches a freed timer, whoever drops it first.
            timer.pointee.data = Unmanaged.passRetained(self).toOpaque()
            self.timer = timer
        }
        return uv_timer_start(
            timer,
            { timer in
                guard let data = timer?.pointee.data else { return }
                // Kept alive across the call: `onFire` may stop (and release) its own timer.
                let owner = Unmanaged<LoopTimer>.fromOpaque(data).takeUnretainedValue()
                withExtendedLifetime(owner) { owner.onFire() }
            },
            delayMilliseconds,
            intervalMilliseconds
        )
    }

    /// Stops the timer and frees its handle (a timer never stopped is closed with the loop and keeps this object).
    /// Idempotent.
    package func stop() {
        precondition(self.loop.inEventLoop, "LoopTimer.stop called off the loop thread")
        guard let timer = self.timer else { return }
        self.timer = nil
        if let data = timer.pointee.data { Unmanaged<LoopTimer>.fromOpaque(data).release() }
        timer.pointee.data = nil
        uv_timer_stop(timer)
        uv_close(runway_timer_as_handle(timer)) { handle in UnsafeMutableRawPointer(handle)?.deallocate() }
    }
}
