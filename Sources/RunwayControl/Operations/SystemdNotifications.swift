import Runway
import RunwayLoop

/// The daemon's notifications to systemd on its event loop: `READY=1` and `STOPPING=1` (retried while the
/// receiver's queue is full), and `WATCHDOG=1` every half `WatchdogSec` (Docs/Deployment.md).
///
/// Nothing here blocks: each send is non-blocking (`SystemdNotifier`). A state that finds the queue full is kept
/// (at most one of each; a newer READY or STOPPING replaces an older one) and tried again every
/// `retryIntervalMilliseconds`, at most `retryLimit` times (5 s), then dropped with one warning naming the socket
/// (`report`). Once the loop stops (the daemon's end), nothing more is tried. `WATCHDOG=1` is sent by a timer on
/// the daemon's loop, so it stops when the loop stops turning and systemd's watchdog then restarts the daemon;
/// a ping that finds the queue full is not retried (the next one follows), and the first failure is reported.
///
/// Threading: `start`, `ready`, `stopping` and `stop` from any task, off the loop thread (each hops to the loop
/// and waits for it). Sendability: `@unchecked Sendable` is safe because the mutable state (`pending`,
/// `attempts`, `watchdogFailed`) is read and written only on the loop thread (every access is inside `onLoop`
/// or a `LoopTimer` callback, which runs there), and the other stored properties are immutable.
final class SystemdNotifications: @unchecked Sendable {
    /// Milliseconds between two tries of a state that found the queue full.
    static let retryIntervalMilliseconds: UInt64 = 100
    /// Most tries of one state after the first.
    static let retryLimit = 50

    let notifier: SystemdNotifier
    /// Milliseconds between two `WATCHDOG=1`; nil sends none.
    let watchdogIntervalMilliseconds: UInt64?
    private let scheduler: RunwayScheduler
    private let report: @Sendable (String) -> Void
    private var pending: [String] = []
    private var attempts = 0
    private var watchdogFailed = false
    private var retryTimer: LoopTimer?
    private var watchdogTimer: LoopTimer?

    init(
        notifier: SystemdNotifier,
        watchdogIntervalMilliseconds: UInt64?,
        scheduler: RunwayScheduler,
        report: @escaping @Sendable (String) -> Void
    ) {
        self.notifier = notifier
        self.watchdogIntervalMilliseconds = watchdogIntervalMilliseconds
        self.scheduler = scheduler
        self.report = report
    }

    /// Starts the watchdog pings (when `WATCHDOG_USEC` asked for them).
    func start() {
        guard let interval = self.watchdogIntervalMilliseconds, self.notifier.path != nil else { return }
        self.onLoop {
            let timer = LoopTimer(loop: self.scheduler.loopThread) { [self] in self.pingWatchdog() }
            self.watchdogTimer = timer
            self.pingWatchdog()
            let status = timer.start(delayMilliseconds: interval, intervalMilliseconds: interval)
            if status != 0 { self.report("the watchdog timer could not be started (libuv status \(status))") }
        }
    }

    /// `READY=1`: the control socket listens and the configuration is applied.
    func ready() { self.onLoop { self.post("READY=1") } }

    /// `STOPPING=1`: the daemon begins to stop.
    func stopping() { self.onLoop { self.post("STOPPING=1") } }

    /// Stops the timers; what is still pending is dropped (the daemon is ending).
    func stop() {
        self.onLoop {
            self.watchdogTimer?.stop()
            self.retryTimer?.stop()
            self.watchdogTimer = nil
            self.retryTimer = nil
            self.pending = []
        }
    }

    private func onLoop(_ body: @escaping @Sendable () -> Void) {
        _ = self.scheduler.runOnLoop(body)
    }

    /// Loop thread: sends `state` now, or keeps it for the retry timer when the queue is full.
    private func post(_ state: String) {
        let kind = state.prefix { $0 != "=" }
        self.pending.removeAll { $0.prefix { $0 != "=" } == kind }
        if self.pending.isEmpty {
            switch self.notifier.send(state) {
            case .sent: return
            case .failed(let problem):
                self.report(problem)
                return
            case .queueFull: break
            }
        }
        precondition(self.pending.count < 2, "at most READY and STOPPING wait: \(self.pending)")
        self.pending.append(state)
        self.attempts = 0
        guard self.retryTimer == nil else { return }
        let timer = LoopTimer(loop: self.scheduler.loopThread) { [self] in self.retry() }
        self.retryTimer = timer
        let interval = Self.retryIntervalMilliseconds
        let status = timer.start(delayMilliseconds: interval, intervalMilliseconds: interval)
        if status != 0 { self.report("the notification retry timer could not be started (libuv status \(status))") }
    }

    /// Loop thread: one more try of each pending state, in order; the last try drops what still waits.
    private func retry() {
        self.attempts += 1
        while let state = self.pending.first {
            switch self.notifier.send(state) {
            case .sent:
                self.pending.removeFirst()
                continue
            case .failed(let problem):
                self.pending.removeFirst()
                self.report(problem)
                continue
            case .queueFull:
                break
            }
            break
        }
        if !self.pending.isEmpty, self.attempts >= Self.retryLimit {
            let path = self.notifier.path ?? ""
            let seconds = Double(Self.retryLimit) * Double(Self.retryIntervalMilliseconds) / 1_000
            for state in self.pending {
                self.report(
                    "\(state) not sent to NOTIFY_SOCKET \(path): its queue stayed full for \(seconds) s "
                        + "(\(Self.retryLimit + 1) tries); dropped"
                )
            }
            self.pending = []
        }
        if self.pending.isEmpty {
            self.retryTimer?.stop()
            self.retryTimer = nil
        }
    }

    /// Loop thread: one `WATCHDOG=1`.
    private func pingWatchdog() {
        switch self.notifier.send("WATCHDOG=1") {
        case .sent, .queueFull: return
        case .failed(let problem):
            guard !self.watchdogFailed else { return }
            self.watchdogFailed = true
            self.report(problem)
        }
    }
}
