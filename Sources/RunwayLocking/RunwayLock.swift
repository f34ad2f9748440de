// The project's one lock type.
//
// Design
// - In every normal build `RunwayLock` is `Synchronization.Mutex`: a type alias, so production code runs exactly
//   Mutex, with its `init(_:)` and `withLock(_:)`.
// - ThreadSanitizer cannot see `Mutex`: on Linux it waits on a futex through a raw system call, which TSan does not
//   intercept, so every access a Mutex orders is reported as a race and a TSan run proves nothing. Built with
//   `-Xswiftc -DRUNWAY_TSAN_LOCK` (`make sanitize` does), `RunwayLock` is instead a class over a `pthread_mutex_t`,
//   whose lock and unlock TSan intercepts, with the same `init(_:)` and `withLock(_:)` signatures, so the same
//   source compiles either way.
//
// Invariants
// - Callers use only `RunwayLock(value)` and `withLock`, so the two variants cannot diverge in behaviour: both are
//   non-recursive mutual exclusion around one value. Locking it again from inside `withLock` deadlocks (Mutex) or
//   fails the pthread call (the sanitizer variant, an error-checking mutex, which traps).

#if RUNWAY_TSAN_LOCK
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A value protected by a pthread mutex: the sanitizer builds' `RunwayLock`, which ThreadSanitizer understands.
///
/// Threading: `withLock` may be called from any thread; calls are serialized. Not recursive.
/// - Note: `@unchecked Sendable`: `value` is read and written only inside `withLock`, between
///   `pthread_mutex_lock` and `pthread_mutex_unlock` of `mutex`, which this object owns from `init` to `deinit`;
///   `init` and `deinit` run while no other thread holds a reference.
package final class RunwayLock<Value: ~Copyable>: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private var value: Value

    /// Creates the lock holding `initialValue`.
    package init(_ initialValue: consuming sending Value) {
        self.mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
        var attributes = pthread_mutexattr_t()
        pthread_mutexattr_init(&attributes)
        pthread_mutexattr_settype(&attributes, Int32(PTHREAD_MUTEX_ERRORCHECK))
        let result = pthread_mutex_init(self.mutex, &attributes)
        pthread_mutexattr_destroy(&attributes)
        precondition(result == 0, "pthread_mutex_init failed: \(result)")
        self.value = initialValue
    }

    deinit {
        pthread_mutex_destroy(self.mutex)
        self.mutex.deallocate()
    }

    /// Runs `body` with the value while holding the lock, and returns what it returns.
    ///
    /// - Parameter body: Reads or changes the value; must not call `withLock` on this lock again.
    /// - Returns: What `body` returns.
    package func withLock<Result: ~Copyable, E: Error>(
        _ body: (inout sending Value) throws(E) -> sending Result
    ) throws(E) -> sending Result {
        let locked = pthread_mutex_lock(self.mutex)
        precondition(locked == 0, "pthread_mutex_lock failed: \(locked)")
        defer {
            let unlocked = pthread_mutex_unlock(self.mutex)
            precondition(unlocked == 0, "pthread_mutex_unlock failed: \(unlocked)")
        }
        return try body(&self.value)
    }
}
#else
import Synchronization

/// A value protected by a lock: `Synchronization.Mutex` (see this file's header for the sanitizer builds' variant).
package typealias RunwayLock<Value: ~Copyable> = Mutex<Value>
#endif
