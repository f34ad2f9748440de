import CLibUV
@_spi(Processes) import RunwayCore

/// What the scans of the apps' processes (`ProcessSupervisor+Tracking.swift`) keep between them: the periodic scan's
/// timer, the children of this process that no app claims, what their environments named, when this process's own
/// children are read again, and which apps were already reported over `trackedProcessLimit`. The supervisor walks
/// the trees and decides what each scan finds; this type holds the result and the timer.
///
/// Threading: loop thread only; not thread-safe. The timer's callback runs on the loop of `init`.
///
/// Time: the periodic scan repeats every `intervalMilliseconds` of `start` (the supervisor passes
/// `ScanCadence.periodicIntervalMilliseconds(descendantScanInterval)`) from `start` until `stop`; nothing here reads
/// the clock (`ownChildrenScan` is asked with the loop turn's `now`).
final class ProcessScanState {
    /// The periodic scan's timer; closed by `close`.
    private let timer = UnsafeMutablePointer<uv_timer_t>.allocate(capacity: 1)
    /// True from `start` until `stop`.
    private(set) var isRunning = false
    /// Called by the periodic timer on each expiry: the owner scans, then may `stop`.
    var onScanDue: (() -> Void)?
    /// Apps already reported over `trackedProcessLimit`.
    private var truncatedApps: Set<AppID> = []
    /// Children of this process in an app's session that no app claims.
    var unattributed: Set<ProcessIdentity> = []
    /// `RUNWAY_APP` as read in the environment of each child of this process outside its session, by pid, with the
    /// start time it was read for; nil when it said none. Holds only present children.
    var environmentAttributions = EnvironmentAttributions()
    /// When this process's own children are read again for a scan of named apps.
    var ownChildrenScan = ScanCadence()

    /// Starts the timer's handle on `loop`; the timer is not armed.
    init(loop: UnsafeMutablePointer<uv_loop_t>) {
        let status = uv_timer_init(loop, self.timer)
        precondition(status == 0, "uv_timer_init cannot fail on a valid loop: \(status)")
        self.timer.pointee.data = Unmanaged.passUnretained(self).toOpaque()
    }

    /// Arms the periodic scan, first expiry `intervalMilliseconds` from now; does nothing while it runs.
    func start(intervalMilliseconds: UInt64) {
        guard !self.isRunning else { return }
        self.isRunning = true
        uv_timer_start(
            self.timer,
            { timer in
                guard let timer, let data = timer.pointee.data else { return }
                Unmanaged<ProcessScanState>.fromOpaque(data).takeUnretainedValue().onScanDue?()
            },
            intervalMilliseconds,
            intervalMilliseconds
        )
    }

    /// Disarms the periodic scan; does nothing when it is not running.
    func stop() {
        guard self.isRunning else { return }
        self.isRunning = false
        uv_timer_stop(self.timer)
    }

    /// Records that `app` has more processes than the walk's limit.
    ///
    /// - Returns: True the first time for `app` (the caller logs it once).
    func firstTruncation(of app: AppID) -> Bool {
        self.truncatedApps.insert(app).inserted
    }

    /// Replaces the unattributed processes with what a look at this process's children found.
    ///
    /// - Returns: True when they changed.
    func replaceUnattributed(with found: Set<ProcessIdentity>) -> Bool {
        guard found != self.unattributed else { return false }
        self.unattributed = found
        return true
    }

    /// Stops and closes the timer; its memory is freed by libuv's close callback. Called once, by the supervisor's
    /// `close`.
    func close() {
        uv_timer_stop(self.timer)
        uv_close(runway_timer_as_handle(self.timer)) { handle in handle?.deallocate() }
    }
}
