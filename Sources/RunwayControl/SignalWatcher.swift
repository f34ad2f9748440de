import CLibUV
import RunwayLoop

/// Unix signals delivered as callbacks on an `EventLoopThread` (`uv_signal_t`), for the daemon: SIGINT and
/// SIGTERM stop it, SIGHUP reloads its configuration. One owner per signal (A3): a process that uses this must
/// not also let ServiceLifecycle handle the same signals.
///
/// Threading: `start` and `stop` on the loop thread only; `onSignal` runs on the loop thread and must not block.
///
/// Sendability: `@unchecked Sendable` is safe because `handles` is written only on the loop thread (`start`,
/// `stop`, each asserting it), and the other stored properties are immutable.
package final class SignalWatcher: @unchecked Sendable {
    let loop: EventLoopThread
    private let signals: [Int32]
    private let onSignal: @Sendable (Int32) -> Void
    private var handles: [UnsafeMutablePointer<uv_signal_t>] = []

    package init(loop: EventLoopThread, signals: [Int32], onSignal: @escaping @Sendable (Int32) -> Void) {
        self.loop = loop
        self.signals = signals
        self.onSignal = onSignal
    }

    /// Starts watching every signal. Returns the first libuv error status, or 0.
    package func start() -> Int32 {
        precondition(self.loop.inEventLoop, "SignalWatcher.start() called off the loop thread")
        for number in self.signals {
            let signal = UnsafeMutablePointer<uv_signal_t>.allocate(capacity: 1)
            var status = uv_signal_init(self.loop.handles.loop, signal)
            guard status == 0 else {
                signal.deallocate()
                return status
            }
            // Unretained: `stop()` closes the handles, and the watcher is kept alive by its owner until then.
            signal.pointee.data = Unmanaged.passUnretained(self).toOpaque()
            self.handles.append(signal)
            status = uv_signal_start(
                signal,
                { handle, number in
                    guard let data = handle?.pointee.data else { return }
                    Unmanaged<SignalWatcher>.fromOpaque(data).takeUnretainedValue().onSignal(number)
                },
                number
            )
            guard status == 0 else { return status }
        }
        return 0
    }

    /// Stops watching (the default dispositions come back) and frees the handles. Idempotent.
    package func stop() {
        precondition(self.loop.inEventLoop, "SignalWatcher.stop() called off the loop thread")
        for signal in self.handles {
            signal.pointee.data = nil
            uv_close(UnsafeMutableRawPointer(signal).assumingMemoryBound(to: uv_handle_t.self)) { handle in
                UnsafeMutableRawPointer(handle)?.deallocate()
            }
        }
        self.handles = []
    }
}
