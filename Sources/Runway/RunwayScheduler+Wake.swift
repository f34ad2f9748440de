@_spi(Driver) import RunwayCore

// Background wake-ups of the embedding API (Behaviour.md W1-W6): the host wakes an app for a background fetch or a
// remote notification. Like every public method, callable from any thread; it hops to the loop thread and waits.

extension RunwayScheduler {
    /// Wakes an app in the background (W1): a suspended app is resumed and a not-running one launched into the
    /// background; either receives `didReceiveBackgroundWake` with a token and a fresh budget of
    /// `backgroundWakeBudget` (30 s by default; the app's `backgroundWakeBudget` first), and is suspended again
    /// when it completes the wake-up (`RunwayApplication.completeBackgroundWake`) or when the budget runs out
    /// (W4). An app already in the background keeps running with a deadline at least that far away (W2); a
    /// foreground app receives a remote notification with no budget change and is never sent a fetch (W3).
    ///
    /// - Parameters:
    ///   - app: The app to wake.
    ///   - reason: `fetch` or `remoteNotification` (`refresh` is what a scheduled refresh sends, W7; it is
    ///     accepted here too).
    ///   - payload: Opaque text for the app, at most `backgroundWakePayloadByteLimit` UTF-8 bytes.
    /// - Returns: The wake-up's token, as the app receives it.
    /// - Throws: `unknownApp`; `payloadTooLarge`, `tooManyWakes` (naming the limit); `notWakeable` (W3);
    ///   `stopping`. Nothing changes when it throws.
    @discardableResult
    public func wake(_ app: AppID, for reason: WakeReason, payload: String = "") throws(SchedulerError) -> WakeToken {
        try self.bridge.syncThrowing(app: app) { driver throws(SchedulerError) in
            try driver.wake(app, reason: reason, payload: payload)
        }
    }
}
