import RunwayCore
import RunwayLoop

extension RunwayScheduler {
    /// The scheduler's loop, for the package's measurement tools (`runway bench`, the daemon's loop metrics): its
    /// clock (`now()`, the clock of `TransitionEvent.at`), `execute` to run a probe on the loop thread, and
    /// `idleTime()`.
    ///
    /// - Note: Not public. Callers must not arm its wake-up or replace `onWakeup`: the scheduler owns them.
    package var eventLoop: EventLoopThread { self.bridge.loop }
}
