import Dispatch
@_spi(Processes) @_spi(Driver) import RunwayCore
import RunwayLocking
import RunwayLoop

/// Calls into the loop-thread driver from any thread and waits for the answer.
///
/// On the loop thread (for example inside an expiration handler) the call runs inline. Elsewhere it is sent
/// through the loop's inbox and the caller blocks until the loop has run it: a few microseconds when the
/// loop is idle. The loop thread never waits on other threads, so this cannot deadlock.
package struct LoopBridge: Sendable {
    package let loop: EventLoopThread
    package let driver: LoopDriver

    /// Runs `body` on the loop thread and returns its result, or nil if the loop has stopped.
    package func sync<T: Sendable>(_ body: @escaping @Sendable (LoopDriver) -> T) -> T? {
        if self.loop.inEventLoop { return body(self.driver) }
        let result = RunwayLock<T?>(nil)
        let done = DispatchSemaphore(value: 0)
        let driver = self.driver
        let accepted = self.loop.execute {
            let value = body(driver)
            result.withLock { $0 = value }
            done.signal()
        }
        guard accepted else { return nil }
        done.wait()
        return result.withLock { $0 }
    }

    /// `sync` for calls that throw `SchedulerError`; a stopped loop throws `stopping`.
    package func syncThrowing<T: Sendable>(
        app: AppID?,
        _ body: @escaping @Sendable (LoopDriver) throws(SchedulerError) -> T
    ) throws(SchedulerError) -> T {
        let outcome: Result<T, SchedulerError>? = self.sync { driver in
            do throws(SchedulerError) {
                return .success(try body(driver))
            } catch {
                return .failure(error)
            }
        }
        guard let outcome else { throw SchedulerError(.stopping, app: app) }
        return try outcome.get()
    }
}
