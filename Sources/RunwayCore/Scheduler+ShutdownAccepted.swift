// P7: an accepted device shutdown ends every app, as a phone that powers off does.

extension Scheduler {
    /// The device-wide `acceptShutdown` while a shutdown offer is open (P7): every running app is terminated by
    /// the `terminate` row of its state, all in parallel, in registration order: an app the offer made inactive gets
    /// `didEnterBackground, willTerminate` (S9), an active one the whole chain, one in the background `willTerminate`,
    /// and a suspended one nothing (L5). Every open interruption is forgotten: the device that locked or showed an
    /// alert is off, so a later `unlock` or `alertIgnored` reaches none of these apps, even launched again.
    ///
    /// - Returns: the indices of the apps it reached (every app that was running and not terminating).
    mutating func endEveryAppForAcceptedShutdown() -> [Int] {
        self.interrupted = [:]
        var reached: [Int] = []
        for index in self.apps.indices {
            switch self.apps[index].lifecycle {
            case .foreground, .background, .suspended:
                do throws(SchedulerError) {
                    try self.apply(UserAction.acceptShutdown, to: index)
                    reached.append(index)
                } catch {
                    // `terminate` is legal in every running state that is not terminating.
                    preconditionFailure("acceptShutdown refused for \(self.apps[index].id): \(error)")
                }
            case .notRunning, .terminating:
                // Gone or going already.
                continue
            }
        }
        return reached
    }
}
