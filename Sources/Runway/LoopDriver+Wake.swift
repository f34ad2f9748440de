@_spi(Driver) import RunwayCore
import RunwayProtocol

// Background wake-ups and scheduled refresh requests (Behaviour.md W1-W9) on the loop: each feeds the core one event
// with this turn's instant and runs its actions. Loop thread only, like the rest of `LoopDriver`.

extension LoopDriver {
    /// Wakes `app` for `reason` (W1); returns the wake-up's token.
    func wake(_ app: AppID, reason: WakeReason, payload: String) throws(SchedulerError) -> WakeToken {
        self.assertOnLoop()
        do {
            let token = try self.runner.attemptReturning { core, now throws(SchedulerError) in
                try core.backgroundWakeRequested(reason, payload: payload, for: app, now: now)
            }
            self.logger.debug(
                "background wake-up",
                metadata: ["app": "\(app)", "reason": "\(reason)", "token": "\(token)"]
            )
            return token
        } catch {
            self.logger.info("background wake-up refused", metadata: ["app": "\(app)", "error": "\(error)"])
            throw error
        }
    }

    /// The app completed a wake-up (W4).
    func wakeCompleted(_ token: WakeToken, app: AppID) throws(SchedulerError) {
        self.assertOnLoop()
        do {
            try self.runner.attempt { core, now throws(SchedulerError) in
                try core.backgroundWakeCompleted(token, by: app, now: now)
            }
        } catch {
            self.logger.info("background wake-up completion failed", metadata: ["app": "\(app)", "error": "\(error)"])
            throw error
        }
    }

    /// The app asks for a refresh `delay` from now (W7), or withdraws its request when `delay` is nil.
    func refreshRequested(by app: AppID, after delay: TimeSpan?) throws(SchedulerError) {
        self.assertOnLoop()
        try self.runner.attempt { core, now throws(SchedulerError) in
            guard let delay else { return try core.refreshCancelled(by: app, now: now) }
            return try core.refreshRequested(by: app, earliestBegin: now + delay, now: now)
        }
    }
}

extension LoopDriver {
    /// A protocol app's `backgroundWakeCompleted` or `scheduleRefresh` (W4, W7). The reply is written before the
    /// actions run, as for `endBackgroundTask`: completing the last wake-up suspends the app at once.
    func processRequestedWake(_ request: AppToRunway, app: AppID, reply: (RunwayToApp) -> Void) {
        guard let number = request.request else { return }
        do throws(SchedulerError) {
            switch request {
            case .backgroundWakeCompleted(_, let wake):
                try self.wakeCompletedReplyingFirst(WakeToken(rawValue: wake), app: app) {
                    reply(.taskEnded(request: number))
                }
                return
            case .scheduleRefresh(_, let seconds):
                let delay = seconds < 0 ? nil : TimeSpan.seconds(seconds) ?? .max
                try self.refreshRequested(by: app, after: delay)
            default:
                preconditionFailure("not a wake-up request: \(request)")
            }
            reply(.taskEnded(request: number))
        } catch {
            reply(.error(request: number, code: error.code.description, message: error.description))
        }
    }

    /// `wakeCompleted` whose `beforeActions` runs once the core accepted it and before its actions run.
    private func wakeCompletedReplyingFirst(
        _ token: WakeToken,
        app: AppID,
        beforeActions: () -> Void
    ) throws(SchedulerError) {
        self.assertOnLoop()
        try self.runner.attemptBefore(
            { core, now throws(SchedulerError) in try core.backgroundWakeCompleted(token, by: app, now: now) },
            beforeActions: beforeActions
        )
    }
}
