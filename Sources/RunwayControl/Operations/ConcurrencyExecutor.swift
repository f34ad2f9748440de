import NIOCore
import NIOPosix

/// Where the daemon's Swift tasks run: on one thread of swift-nio's singleton event loop group instead of
/// Dispatch's global queues.
///
/// The reason is the idle daemon's wake-ups. On Linux, the first job on one of Dispatch's global (non-overcommit)
/// queues, which is where Swift Concurrency runs tasks by default, starts libdispatch's worker-pool monitor: a timer
/// on its manager thread that fires every second for the rest of the process's life (`_dispatch_workq_init_once`
/// in swift-corelibs-libdispatch), though nothing is due. An event loop thread sleeps in `epoll_wait` until an event
/// or a task arrives. Serial queues (`DispatchQueue(label:)`, the run history's writer) run on overcommit threads,
/// which do not start the monitor.
package enum ConcurrencyExecutor {
    /// Makes swift-nio's singleton event loop group, with one loop, Swift Concurrency's global executor
    /// (`NIOSingletons.unsafeTryInstallSingletonPosixEventLoopGroupAsConcurrencyGlobalExecutor`).
    ///
    /// - Returns: True when installed; false when the runtime offers no hook (the tasks then run on Dispatch).
    /// - Note: Call once, on the main thread, before the process starts any task.
    @discardableResult
    package static func useEventLoop() -> Bool {
        NIOSingletons.groupLoopCountSuggestion = 1
        return NIOSingletons.unsafeTryInstallSingletonPosixEventLoopGroupAsConcurrencyGlobalExecutor()
    }
}
