@_spi(Driver) import RunwayCore

// Helpers for the KeepAlive action-list tests (RestartActionTests, RestartPacingTests).

/// A plain process app (no message is awaited) with `KeepAlive`.
func keptAlive(
    _ conditions: [RestartPolicy.Condition] = [.always],
    throttle: TimeSpan = .seconds(Int64(10)),
    backgroundModes: [String] = [],
    exitsOnSuspend: Bool = false,
    speaksProtocol: Bool = false
) -> AppDescriptor {
    var descriptor = process(mail, speaksProtocol: speaksProtocol)
    descriptor.backgroundModes = backgroundModes
    descriptor.exitsOnSuspend = exitsOnSuspend
    descriptor.keepAlive = RestartPolicy(conditions: conditions, throttleInterval: throttle)
    return descriptor
}

func pending(_ at: Instant, attempt: Int, failures: Int, crashLooping: Bool = false) -> PendingRestart {
    PendingRestart(at: at, attempt: attempt, consecutiveFailures: failures, crashLooping: crashLooping)
}

/// The `.publish` of a transition to notRunning that armed `restart`.
func exited(_ status: Int32, at instant: Instant, from: AppState = .active, restart: PendingRestart?) -> Action {
    var event = TransitionEvent(
        app: mail,
        from: from,
        to: .notRunning,
        cause: .terminated(.exited(status)),
        at: instant,
        messages: [],
        exit: .exited(status)
    )
    event.restart = restart
    return .publish(event)
}
