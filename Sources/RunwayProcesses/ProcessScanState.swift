import CLibUV
@_spi(Processes) import RunwayCore

/// What the scans of the apps' processes (`ProcessSupervisor+Tracking.swift`) keep between them: the settling looks'
/// timer, the children of this process that no app claims, what their environments named, when this process's own
/// children are read again, and which apps were already reported over `trackedProcessLimit`. The supervisor walks
/// the trees and decides what each scan finds; this type holds the result and the timer.
///
/// Threading: loop thread only; not thread-safe. The timer's callback runs on the loop of `init`.
///
/// Time: the looks follow each `activity` as `SettlingLooks` decides (the supervisor passes
/// `ScanCadence.periodicIntervalMilliseconds(descendantScanInterval)` as the first step) until the series ends or
/// `stop`; nothing here reads the clock (`ownChildrenScan` is asked with the loop turn's `now`).
final class ProcessScanState {
    /// The settling looks' timer; closed by `close`.
    private let timer = UnsafeMutablePointer<uv_timer_t>.allocate(capacity: 1)
    /// When the next look is made (`SettlingLooks`).
    private(set) var looks = SettlingLooks(baseMilliseconds: 1)
    /// True while a look is armed.
    var isRunning: Bool { self.looks.isArmed }
    /// Called by the timer when a look is due: the owner looks, then calls `lookMade` or `stop`.
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

    /// Something that can make a process leave its app's tree happened: arms a look `intervalMilliseconds` from
    /// now when none is armed, else the series restarts at the next look (`SettlingLooks`).
    func activity(intervalMilliseconds: UInt64) {
        if self.looks.baseMilliseconds != max(1, intervalMilliseconds) {
            self.looks = SettlingLooks(baseMilliseconds: intervalMilliseconds)
        }
        self.perform(self.looks.activity())
    }

    /// The armed look was made: arms the next of the series, or leaves the timer stopped after the last.
    func lookMade() {
        self.perform(self.looks.looked())
    }

    /// Disarms the looks; does nothing when none is armed.
    func stop() {
        if self.looks.stopped() { uv_timer_stop(self.timer) }
    }

    private func perform(_ arming: SettlingLooks.Arming) {
        guard case .arm(let milliseconds) = arming else { return }
        uv_timer_start(
            self.timer,
            { timer in
                guard let timer, let data = timer.pointee.data else { return }
                Unmanaged<ProcessScanState>.fromOpaque(data).takeUnretainedValue().onScanDue?()
            },
            milliseconds,
            0
        )
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
