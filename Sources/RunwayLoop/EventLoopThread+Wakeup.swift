import CLibUV
import RunwayCore

extension EventLoopThread {
    /// Arms the loop's single wake-up for `deadline`, replacing any armed one; nil disarms. Loop thread only.
    ///
    /// The wake-up is a timerfd on CLOCK_MONOTONIC armed with the absolute time `origin + deadline - wakeupSpin`,
    /// so its resolution is 1 ns; with a `wakeupSpin` the loop spins on the clock for the rest. It never fires
    /// early: `onWakeup` receives a reading >= `deadline`. A deadline at or before now fires on the loop's next
    /// poll. Re-arming or disarming also discards an expiry that the loop has not delivered yet.
    /// `Instant.distantFuture` saturates to ~292 years (never).
    ///
    /// - Parameter deadline: When to call `onWakeup`, or nil for never.
    /// - Note: One wake-up per loop: the caller keeps its own deadline queue and arms its earliest entry,
    ///   again after each firing (a fired wake-up is disarmed before `onWakeup` runs, so arming from
    ///   inside `onWakeup` works). Costs one `timerfd_settime`, skipped when `deadline` is already armed.
    package func setWakeup(at deadline: Instant?) {
        self.preconditionInEventLoop("setWakeup(at: \(deadline.map(String.init(describing:)) ?? "nil"))")
        guard !self.loopState.isTornDown, deadline != self.loopState.wakeupDeadline else { return }
        let status: Int32
        if let deadline {
            let (absolute, overflow) = self.originNanoseconds.addingReportingOverflow(deadline.nanosecondsSinceOrigin)
            let early = overflow ? .max : absolute - min(absolute, self.wakeupSpinNanoseconds)
            status = runway_timerfd_arm_absolute(self.handles.timerFD, early)
        } else {
            status = runway_timerfd_disarm(self.handles.timerFD)
        }
        precondition(
            status == 0,
            "timerfd_settime failed for loop '\(self.name)': status=\(status), deadline=\(String(describing: deadline))"
        )
        self.loopState.wakeupDeadline = deadline
    }

    /// The armed wake-up deadline, nil when disarmed (also right after it fired). Loop thread only.
    package var wakeupDeadline: Instant? {
        self.preconditionInEventLoop("wakeupDeadline")
        return self.loopState.wakeupDeadline
    }

    /// Called on the loop thread when the wake-up fires, with that batch's single clock reading (also
    /// `turnNow`), which is >= the armed deadline. Get and set on the loop thread only.
    package var onWakeup: (Instant) -> Void {
        get {
            self.preconditionInEventLoop("onWakeup")
            return self.loopState.onWakeup
        }
        set {
            self.preconditionInEventLoop("onWakeup")
            self.loopState.onWakeup = newValue
        }
    }

    /// The poll handle's callback (loop thread): the timerfd became readable.
    func timerReadable(status: Int32) {
        precondition(
            status == 0,
            "uv_poll on the timerfd of loop '\(self.name)' failed: status=\(status) "
                + String(cString: uv_strerror(status))
        )
        let expirations = runway_timerfd_read_expirations(self.handles.timerFD)
        precondition(expirations >= 0, "read(timerfd) failed for loop '\(self.name)': status=\(expirations)")
        // 0: re-armed or disarmed after epoll reported the expiry; nothing is due.
        guard expirations > 0, let deadline = self.loopState.wakeupDeadline else { return }
        var now = self.now()
        // Armed `wakeupSpin` early: spin on the clock to the deadline, at most that long (nothing else runs on
        // the loop meanwhile; inbox work waits at most `wakeupSpin`).
        while now < deadline, (deadline - now).nanoseconds <= Int64(clamping: self.wakeupSpinNanoseconds) {
            runway_cpu_relax()
            now = self.now()
        }
        guard now >= deadline else {
            // The kernel expired the timer on the clock we read, so this cannot happen; if it ever did,
            // firing early would break the contract, so wait for the deadline again.
            self.loopState.wakeupDeadline = nil
            self.setWakeup(at: deadline)
            return
        }
        self.loopState.wakeupDeadline = nil
        self.loopState.turnNow = now
        self.loopState.turnIsCurrent = true
        self.loopState.onWakeup(now)
    }
}
