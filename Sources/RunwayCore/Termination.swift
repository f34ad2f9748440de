/// A termination in progress (L4, L5, P2): why, from which state, and how far it got.
struct Termination {
    enum Phase {
        /// The lifecycle messages (ending with `willTerminate`) are being delivered; `grace` bounds them (L4).
        case messaging(grace: DeadlineHandle)
        /// SIGTERM was sent; `killAt` is the SIGKILL deadline (L4, P2).
        case signaled(killAt: DeadlineHandle)
        /// SIGKILL was sent; waiting for the driver to report the exit.
        case killed
    }

    var reason: TerminationReason
    /// The state the termination began in; status shows it with the terminating flag.
    var from: AppState
    /// Every message of the termination, as published on its transition.
    var messages: [Message]
    var phase: Phase
    /// When SIGKILL is due for a process app: `TerminationGrace` after `willTerminate` was sent, so that the whole
    /// termination from `willTerminate` on fits in one grace (L4). Nil until `willTerminate` is sent.
    var killAt: Instant?
    /// The user action that began the termination (S9, S15, E1 after `home`), named again on the transition that
    /// ends it, which is published later, when the app is gone (L8).
    var userAction: UserAction?

    var timer: DeadlineHandle? {
        switch self.phase {
        case .messaging(let handle), .signaled(let handle): return handle
        case .killed: return nil
        }
    }
}
