@_spi(Processes) import Runway
@_spi(Processes) @_spi(Driver) import RunwayCore

extension ControlService {
    /// Follows the scheduler's transitions for the summary's counts and the `events` subscribers. The counts start
    /// from a snapshot of every app taken in the same loop turn as the observer is added, so no transition is
    /// counted twice or missed. Call once.
    func followTransitions() {
        _ = self.scheduler.runOnLoop {
            self.scheduler.observeTransitions { [weak self] event in self?.transitioned(event) }
            // Per state, a page of one app with `matched`: compares only, no snapshot of every app.
            let scheduler = self.scheduler
            self.summaryCounts = StatusSummaryCounts(apps: scheduler.tally()?.apps ?? 0) { state in
                scheduler.statusPage(StatusQuery(state: state, limit: 1, taskLimit: 0)).matched
            }
        }
    }

    /// One transition: counted, then sent to the subscribers. Loop thread.
    private func transitioned(_ event: TransitionEvent) {
        self.summaryCounts?.record(event)
        self.broadcast(event)
    }

    /// `status` with `summary`: the daemon and counts over every app, O(1) on the loop whatever the fleet.
    func summaryReply(_ request: ControlRequest, app: AppID?, id: Int?) -> ControlReply {
        guard app == nil, request.state == nil, request.appPattern == nil, request.limit == nil, request.after == nil
        else {
            return .failure(
                "invalidRequest",
                "field 'summary': a summary counts every app; not with 'app', 'state', 'appPattern', 'limit' or "
                    + "'after'",
                id: id
            )
        }
        guard let counts = self.summaryCounts, let tally = self.scheduler.tally() else {
            return .failure("stopping", "stopping: the daemon is not serving", id: id)
        }
        var reply = ControlReply(id: id, ok: true)
        reply.daemon = self.info()
        reply.summary = counts.payload(tally)
        return reply
    }
}
