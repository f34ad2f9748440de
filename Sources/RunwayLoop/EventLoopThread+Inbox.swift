import CLibUV
import RunwayCore
import Synchronization

/// Work sent to the loop from any thread, waiting for the next drain. Guarded by `EventLoopThread.inbox`.
struct Inbox: ~Copyable {
    /// Accepted work in acceptance order.
    var items: [@Sendable () -> Void] = []
    /// The most items `items` may hold; `execute` refuses beyond it.
    let capacity: Int
    /// Set by `shutdown`; from then on `execute` refuses everything.
    var isClosed = false

    init(capacity: Int) {
        self.capacity = capacity
    }
}

extension EventLoopThread {
    /// Runs `work` on the loop thread, after everything accepted before it. Any thread.
    ///
    /// The item runs in a later batch even when called on the loop thread (never inline), with `turnNow`
    /// read at the start of that batch. Items from one producer run in the order that producer called
    /// `execute`; items from different producers run in the order their calls took the inbox lock.
    ///
    /// - Parameter work: Runs exactly once if accepted; released without running if refused.
    /// - Returns: True if accepted. False, and `work` is dropped, when the loop is shutting down or shut
    ///   down, or when `inboxCapacity` items (65,536 by default) are waiting: the loop drains the whole
    ///   inbox every time it wakes, so a full inbox means the loop thread is stalled and the caller should
    ///   fail the request (or retry later) rather than pile up more.
    /// - Note: Costs one lock and, only when the inbox was empty, one `uv_async_send` (an eventfd write).
    package func execute(_ work: @escaping @Sendable () -> Void) -> Bool {
        self.inbox.withLock { inbox in
            guard !inbox.isClosed, inbox.items.count < inbox.capacity else { return false }
            inbox.items.append(work)
            // A non-empty inbox already has a send pending: the drain that empties it runs after that send.
            // The send happens under the lock so that it cannot race with the loop closing `async`.
            if inbox.items.count == 1 {
                let status = uv_async_send(self.handles.async)
                precondition(status == 0, "uv_async_send failed for loop '\(self.name)': status=\(status)")
            }
            return true
        }
    }

    /// How many inbox batches the loop has run since it started: each is one loop turn taking what other threads
    /// sent (`execute`), so a caller that waits for each answer makes one batch per call. Loop thread only.
    package var inboxBatchesRun: Int {
        precondition(self.inEventLoop, "inboxBatchesRun read off loop '\(self.name)'")
        return self.loopState.inboxBatches
    }

    /// The async handle's callback (loop thread): takes the whole inbox, reads the clock once, runs the
    /// batch in order, then tears the loop down if the inbox was closed.
    func inboxSignalled() {
        var batch = self.loopState.spareBatch
        self.loopState.spareBatch = []
        let isClosing = self.inbox.withLock { inbox in
            swap(&inbox.items, &batch)
            return inbox.isClosed
        }
        self.loopState.turnNow = max(self.now(), self.loopState.turnNow)
        self.loopState.turnIsCurrent = true
        self.loopState.inboxBatches += 1
        for work in batch {
            work()
        }
        // Keep the storage for the next swap unless a burst made it large.
        if batch.capacity <= 4_096 {
            batch.removeAll(keepingCapacity: true)
            self.loopState.spareBatch = batch
        }
        if isClosing {
            self.tearDown()
        }
    }
}
