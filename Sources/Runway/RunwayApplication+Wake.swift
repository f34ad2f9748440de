@_spi(Driver) import RunwayCore

// The app's side of background wake-ups (Behaviour.md W4, W7): completing a wake-up and asking for a scheduled
// refresh. Callable from any thread or task; each hops to the scheduler's loop thread and waits (inline in an
// expiration handler, which runs there).

extension RunwayApplication {
    /// Completes a background wake-up (W4), as UIKit's fetch completion handler: once every wake-up of the current
    /// background period is completed and no task is outstanding, the app is suspended (or exits, E1). Completing a
    /// wake-up that is no longer outstanding (completed, expired, or delivered in the foreground) does nothing.
    ///
    /// - Parameter token: The token `RunwayAppDelegate.didReceiveBackgroundWake` was given.
    /// - Throws: `unknownWake` for a token that was never issued; `stopping` after shutdown.
    public func completeBackgroundWake(_ token: WakeToken) throws(SchedulerError) {
        let id = self.id
        try self.loop.syncThrowing(app: id) { driver throws(SchedulerError) in try driver.wakeCompleted(token, app: id)
        }
    }

    /// Asks to be woken with reason `refresh` no earlier than `delay` from now (W7), as BGTaskScheduler's
    /// `earliestBeginDate`. Replaces a pending request of this app. When it is due the app is woken by the rules
    /// of W1, even if it is not running then.
    ///
    /// - Parameter delay: Not negative.
    /// - Throws: `notRunning` when the app is not running (only a running app can ask); `stopping`.
    public func scheduleRefresh(after delay: TimeSpan) throws(SchedulerError) {
        precondition(delay >= .zero, "scheduleRefresh needs a delay >= 0, got \(delay)")
        let id = self.id
        try self.loop.syncThrowing(app: id) { driver throws(SchedulerError) in
            try driver.refreshRequested(by: id, after: delay)
        }
    }

    /// Withdraws this app's pending refresh request, if any (W7).
    ///
    /// - Throws: `notRunning` when the app is not running; `stopping`.
    public func cancelRefresh() throws(SchedulerError) {
        let id = self.id
        try self.loop.syncThrowing(app: id) { driver throws(SchedulerError) in
            try driver.refreshRequested(by: id, after: nil)
        }
    }
}
