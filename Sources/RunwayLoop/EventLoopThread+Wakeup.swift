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
    ///   inside `onWakeup` works). Costs one `timerfd_settime`, skipped when `deadline` is already armed, and
    ///   when nil is asked of a timerfd that is neither armed nor holding an expiry.
    package func setWakeup(at deadline: Instant?) {
        self.preconditionInEventLoop("setWakeup(at: \(deadline.map(String.init(describing:)) ?? "nil"))")
        guard !self.loopState.isTornDown, deadline != self.loopState.wakeupDeadline else {
            // The fired wake-up's expiry is still in the timerfd (it is not read); nothing re-arms it, so clear it.
            if deadline == nil, self.loopState.expiryUnread { self.settime(nil) }
            return
        }
        self.settime(deadline)
    }

    /// The one `timerfd_settime` of the loop: arms `origin + deadline - wakeupSpin`, or disarms. Either way the
    /// kernel drops an expiry not yet read, so the timerfd is no longer readable until the new time.
    private func settime(_ deadline: Instant?) {
        let status: Int32
        if let deadline {
            status = runway_timerfd_arm_absolute(self.handles.timerFD, self.timerInstant(for: deadline))
        } else {
            status = runway_timerfd_disarm(self.handles.timerFD)
        }
        precondition(
            status == 0,
            "timerfd_settime failed for loop '\(self.name)': status=\(status), deadline=\(String(describing: deadline))"
        )
        self.loopState.timerCalls += 1
        self.loopState.expiryUnread = false
        self.loopState.wakeupDeadline = deadline
    }

    /// The CLOCK_MONOTONIC reading, in nanoseconds, at which the timerfd is armed for `deadline`: `wakeupSpin`
    /// before it, saturating.
    private func timerInstant(for deadline: Instant) -> UInt64 {
        let (absolute, overflow) = self.originNanoseconds.addingReportingOverflow(deadline.nanosecondsSinceOrigin)
        return overflow ? .max : absolute - min(absolute, self.wakeupSpinNanoseconds)
    }

    /// The armed wake-up deadline, nil when disarmed (also right after it fired). Loop thread only.
    package var wakeupDeadline: Instant? {
        self.preconditionInEventLoop("wakeupDeadline")
        return self.loopState.wakeupDeadline
    }

    /// How many `timerfd_settime` calls this loop has made (arming, re-arming and disarming its wake-up): the
    /// timerfd's only system calls, as its expiries are never read. Loop thread only.
    package var timerCallsMade: Int {
        self.preconditionInEventLoop("timerCallsMade")
        return self.loopState.timerCalls
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
    ///
    /// The expiry is not read (a `read` per wake-up): the clock says whether the armed time has passed, and the
    /// `timerfd_settime` that re-arms or disarms the wake-up after it fired clears the expiry. Readiness reported
    /// for a timerfd re-armed since (by an earlier callback of the same poll) is recognised by the clock being
    /// before the new armed time; the kernel cleared that expiry when it was re-armed.
    func timerReadable(status: Int32) {
        precondition(
            status == 0,
            "uv_poll on the timerfd of loop '\(self.name)' failed: status=\(status) "
                + String(cString: uv_strerror(status))
        )
        guard let deadline = self.loopState.wakeupDeadline else {
            // Disarmed after the poll reported the expiry (the disarm cleared it), or a fired expiry no callback
            // re-armed: clear it, or the poll would report it again at once.
            if self.loopState.expiryUnread { self.settime(nil) }
            return
        }
        var now = self.now()
        // The instant the timerfd was armed for: `wakeupSpin` before the deadline.
        let sinceOrigin = deadline.nanosecondsSinceOrigin
        let armedFor = Instant(nanosecondsSinceOrigin: sinceOrigin - min(self.wakeupSpinNanoseconds, sinceOrigin))
        // Re-armed for later after the poll reported the old expiry: not due; the kernel dropped that expiry.
        guard now >= armedFor else { return }
        // Armed `wakeupSpin` early: spin on the clock to the deadline, at most that long (nothing else runs on
        // the loop meanwhile; inbox work waits at most `wakeupSpin`).
        while now < deadline, (deadline - now).nanoseconds <= Int64(clamping: self.wakeupSpinNanoseconds) {
            runway_cpu_relax()
            now = self.now()
        }
        guard now >= deadline else {
            // The clock passed the armed time, so this cannot happen; if it ever did, firing early would break
            // the contract, so wait for the deadline again.
            self.settime(deadline)
            return
        }
        self.loopState.wakeupDeadline = nil
        self.loopState.expiryUnread = true
        self.loopState.turnNow = now
        self.loopState.turnIsCurrent = true
        self.loopState.onWakeup(now)
        // Nothing re-armed the wake-up from inside `onWakeup`: clear the expiry, which is still readable.
        if self.loopState.expiryUnread { self.settime(nil) }
    }
}
