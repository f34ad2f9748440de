import CLibUV
import CRunwayProcess

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The zombie sweep (P2: no zombie is ever left). As a child subreaper this process inherits every orphan of
/// the apps' trees: a process that double-forked, for example, and died after its parent. Each app's main
/// process is reaped through its pidfd, and `reapOrphans` only those an app's exit left; so on each SIGCHLD (a
/// second `uv_signal_t` for it on this loop beside libuv's own, which libuv allows) every exited child of
/// this process is reaped, except:
/// - an app's main process, which its pidfd reaps (`SpawnedChildren`, across every supervisor of the process);
/// - a child in this process's own session: apps run in sessions of their own, so such a child is the
///   host's, and its owner waits for it.
///
/// Never `waitpid(-1)`: each reap is by pid. Loop thread only.
extension ProcessSupervisor {
    /// Installs the SIGCHLD watcher (unreferenced: it keeps no loop alive) and sweeps once.
    func startReapingZombies() {
        let signal = UnsafeMutablePointer<uv_signal_t>.allocate(capacity: 1)
        guard uv_signal_init(self.loop.handles.loop, signal) == 0 else {
            signal.deallocate()
            return
        }
        signal.pointee.data = Unmanaged.passUnretained(self).toOpaque()
        let status = uv_signal_start(
            signal,
            { handle, _ in
                guard let data = handle?.pointee.data else { return }
                let supervisor = Unmanaged<ProcessSupervisor>.fromOpaque(data).takeUnretainedValue()
                supervisor.scanCounts.childSignals += 1
                supervisor.zombieLookWanted()
            },
            SIGCHLD
        )
        if status != 0 {
            self.logger.info("cannot watch SIGCHLD; exited orphans are reaped at exits only", metadata: [:])
        } else {
            // The sweep wants exits only. Without SA_NOCLDSTOP every SIGSTOP and SIGCONT of an app
            // raised a SIGCHLD: libuv's handler (three system calls on the interrupted thread), a wake-up of the
            // loop and a look at every child, twice per app per suspension. The wait still reports stops and
            // continues; libuv's own child watching waits for exits only.
            _ = runway_sigchld_without_stops()
        }
        uv_unref(runway_signal_as_handle(signal))
        self.childSignal = signal
        self.sweepZombies()
    }

    /// Closes the SIGCHLD watcher.
    func stopReapingZombies() {
        guard let signal = self.childSignal else { return }
        self.childSignal = nil
        signal.pointee.data = nil
        uv_close(runway_signal_as_handle(signal)) { handle in UnsafeMutableRawPointer(handle)?.deallocate() }
    }

    /// `sweepZombies` unless the first exited child the kernel shows (`waitid(WNOWAIT)`, which reaps nothing) is
    /// none, or is a main process of this supervisor: its pidfd reaps it, and the handling of that exit sweeps
    /// again (`child(_:exited:)`), so whatever exited beside it is reaped then. A full sweep reads
    /// the list of every child of this process; at each of N exits that made terminating N apps O(N²).
    func sweepZombiesIfAny() {
        self.scanCounts.zombieLooks += 1
        let now = self.loop.turnNow
        let inTurn = self.batch.zombieLooks.map { $0.turn == now ? $0.count + 1 : 1 } ?? 1
        self.batch.zombieLooks = (now, inTurn)
        self.scanCounts.zombieLooksInOneTurnMost = max(self.scanCounts.zombieLooksInOneTurnMost, inTurn)
        let exited = runway_peek_exited_child()
        guard exited > 0, SpawnedChildren.owner(of: exited) != ObjectIdentifier(self) else { return }
        self.sweepZombies()
    }

    /// A SIGCHLD came, or an app's main process was reaped (an orphan that died before may now be the first exited
    /// child the kernel shows): `sweepZombiesIfAny` runs on the next loop turn, once for every SIGCHLD and exit of
    /// this one. Its look walks this process's children up to the first exited one, O(children), so one per SIGCHLD
    /// and one per exit made the exits of N apps cost O(N²); in the next turn every exit of this one has been reaped
    /// through its pidfd, and an orphan that dies after the look raises a SIGCHLD of its own.
    func zombieLookWanted() {
        self.batch.zombieLookPending = true
        self.startTicking(soon: true)
    }

    /// The look `zombieLookWanted` asked for, if any (the housekeeping tick).
    func zombieLookIfWanted() {
        guard self.batch.zombieLookPending else { return }
        self.batch.zombieLookPending = false
        self.sweepZombiesIfAny()
    }

    /// Reaps every exited child of this process that is neither an app's main process nor in this process's
    /// session.
    ///
    /// - Returns: The pids reaped.
    @discardableResult
    func sweepZombies() -> [Int32] {
        self.scanCounts.zombieSweeps += 1
        let tree = ProcessTree()
        let children = tree.children(of: getpid())
        guard !children.isEmpty else { return [] }
        let reaped = SpawnedChildren.withOwned { mains in
            children.filter { pid in
                guard !mains.contains(pid), let stat = ProcFS.stat(pid), stat.state == "Z",
                    stat.session != self.ownSession
                else { return false }
                return runway_reap_nonblocking(pid) == pid
            }
        }
        if !reaped.isEmpty {
            self.logger.debug(
                "reaped exited orphans",
                metadata: ["pids": .array(reaped.map { .stringConvertible($0) })]
            )
        }
        return reaped
    }
}
