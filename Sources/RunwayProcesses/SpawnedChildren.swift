import CLibUV
import RunwayLocking

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The pids of the apps' main processes that were spawned and not reaped yet, across every supervisor of this
/// process. Each is reaped through its pidfd (`ChildProcess+Exit.swift`); the zombie sweep (`sweepZombies`) reaps
/// the other exited children and must never take one of these, even one of another supervisor's on another loop.
///
/// Threading: any thread; one lock. `spawn` holds it around `runway_spawn` and the insertion, and the sweep holds
/// it while it reaps, so a child that exits before its pid is recorded cannot be reaped by a sweep.
enum SpawnedChildren {
    private static let pids = RunwayLock<Set<Int32>>([])
    /// The supervisor (its `ObjectIdentifier`) that spawned each pid of `pids`.
    private static let owners = RunwayLock<[Int32: ObjectIdentifier]>([:])

    /// Runs `body` (which spawns) under the lock and records the pid it returns (when positive), spawned by
    /// `owner` when given.
    static func spawning<E: Error>(owner: ObjectIdentifier? = nil, _ body: () throws(E) -> Int32) throws(E) {
        try Self.pids.withLock { (pids: inout Set<Int32>) throws(E) in
            let pid = try body()
            if pid > 0 {
                pids.insert(pid)
                if let owner { Self.owners.withLock { $0[pid] = owner } }
            }
        }
    }

    /// Forgets `pid` once its pidfd has reaped it.
    static func reaped(_ pid: Int32) {
        _ = Self.pids.withLock { pids in
            Self.owners.withLock { _ = $0.removeValue(forKey: pid) }
            return pids.remove(pid)
        }
    }

    /// Runs `body` under the lock with the pids the pidfds own.
    static func withOwned<T>(_ body: (Set<Int32>) -> T) -> T {
        Self.pids.withLock { body($0) }
    }

    /// The supervisor that spawned `pid` and has not reaped it yet, or nil.
    static func owner(of pid: Int32) -> ObjectIdentifier? {
        Self.pids.withLock { _ in Self.owners.withLock { $0[pid] } }
    }
}
