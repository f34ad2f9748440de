import CLibUV

/// The libuv objects and the timerfd behind one `EventLoopThread`, allocated by `make` and freed by `destroy`.
///
/// Safety (`@unchecked Sendable`): the stored pointers never change. Their pointees are touched only on the
/// loop thread (or on the creating thread before the loop thread starts and after it is joined, both ordered
/// by pthread_create/pthread_join), with one exception: `uv_async_send(async)`, which libuv documents as
/// callable from any thread. `EventLoopThread.execute` makes that call only while holding the inbox lock and
/// only while the inbox is open; the loop thread closes `async` only after it has seen the inbox closed
/// under that same lock, so no send can reach a closed or freed handle.
package struct LoopHandles: @unchecked Sendable {
    package let loop: UnsafeMutablePointer<uv_loop_t>
    /// Wakes the loop to drain the inbox.
    let async: UnsafeMutablePointer<uv_async_t>
    /// Watches `timerFD` for readability (= the wake-up deadline has passed).
    let poll: UnsafeMutablePointer<uv_poll_t>
    /// CLOCK_MONOTONIC timerfd, armed with absolute deadlines.
    let timerFD: Int32
    /// Runs just before the loop blocks for I/O: the turn's clock reading goes stale there.
    let prepare: UnsafeMutablePointer<uv_prepare_t>
    /// Runs just after the I/O callbacks: the next turn's timer callbacks must not reuse this turn's reading.
    let check: UnsafeMutablePointer<uv_check_t>

    /// Initialises the loop, the inbox's async handle and the timerfd with its poll handle, all inactive
    /// until `uv_run`. On failure, everything made so far is released before throwing.
    ///
    /// - Parameters:
    ///   - loopName: For error messages.
    ///   - inboxSignalled: Runs on the loop thread when `async` was sent.
    ///   - timerReadable: Runs on the loop thread when the timerfd is readable (or the poll failed).
    ///   - turnEndedBeforePoll, turnEndedAfterIO: Run on the loop thread before each blocking poll and after each
    ///     round of I/O callbacks (`uv_prepare`, `uv_check`).
    static func make(
        loopName: String,
        inboxSignalled: @escaping uv_async_cb,
        timerReadable: @escaping uv_poll_cb,
        turnEndedBeforePoll: @escaping uv_prepare_cb,
        turnEndedAfterIO: @escaping uv_check_cb
    ) throws(EventLoopError) -> LoopHandles {
        let loop = UnsafeMutablePointer<uv_loop_t>.allocate(capacity: 1)
        let async = UnsafeMutablePointer<uv_async_t>.allocate(capacity: 1)
        let poll = UnsafeMutablePointer<uv_poll_t>.allocate(capacity: 1)
        let prepare = UnsafeMutablePointer<uv_prepare_t>.allocate(capacity: 1)
        let check = UnsafeMutablePointer<uv_check_t>.allocate(capacity: 1)
        func deallocate() {
            loop.deallocate()
            async.deallocate()
            poll.deallocate()
            prepare.deallocate()
            check.deallocate()
        }

        var status = uv_loop_init(loop)
        guard status == 0 else {
            deallocate()
            throw EventLoopError(.loopInitFailed, loopName: loopName, status: status)
        }
        // No idle-time accounting here: `EventLoopThread.idleTime()` turns it on when first asked.
        status = uv_async_init(loop, async, inboxSignalled)
        guard status == 0 else {
            _ = uv_loop_close(loop)
            deallocate()
            throw EventLoopError(.asyncInitFailed, loopName: loopName, status: status)
        }
        let timerFD = runway_timerfd_create()
        guard timerFD >= 0 else {
            let handles = LoopHandles(loop: loop, async: async, poll: poll, timerFD: -1, prepare: prepare, check: check)
            handles.closeAllAndDestroy()
            throw EventLoopError(.timerCreateFailed, loopName: loopName, status: timerFD)
        }
        let handles = LoopHandles(
            loop: loop,
            async: async,
            poll: poll,
            timerFD: timerFD,
            prepare: prepare,
            check: check
        )
        status = uv_poll_init(loop, poll, timerFD)
        guard status == 0 else {
            handles.closeAllAndDestroy()
            throw EventLoopError(.pollInitFailed, loopName: loopName, status: status)
        }
        status = uv_poll_start(poll, Int32(UV_READABLE.rawValue), timerReadable)
        guard status == 0 else {
            handles.closeAllAndDestroy()
            throw EventLoopError(.pollInitFailed, loopName: loopName, status: status)
        }
        // Neither can fail on an initialised loop (libuv returns 0 unconditionally).
        precondition(
            uv_prepare_init(loop, prepare) == 0 && uv_check_init(loop, check) == 0,
            "uv_prepare/check_init failed"
        )
        _ = uv_prepare_start(prepare, turnEndedBeforePoll)
        _ = uv_check_start(check, turnEndedAfterIO)
        return handles
    }

    /// Sets the `data` pointer of our handles, which the C callbacks turn back into the owner.
    func setOwner(_ owner: UnsafeMutableRawPointer) {
        self.async.pointee.data = owner
        self.poll.pointee.data = owner
        self.prepare.pointee.data = owner
        self.check.pointee.data = owner
    }

    /// Disarms the timerfd and starts closing every handle on the loop (ours and any another component
    /// forgot), so that `uv_run` returns once their close callbacks have run. Loop thread only.
    func closeAll() {
        if self.timerFD >= 0 { _ = runway_timerfd_disarm(self.timerFD) }
        uv_walk(
            self.loop,
            { handle, _ in
                guard let handle, uv_is_closing(handle) == 0 else { return }
                uv_close(handle, nil)
            },
            nil
        )
    }

    /// Closes the loop (every handle must be closed and `uv_run` returned), the timerfd, and frees memory.
    func destroy() {
        let status = uv_loop_close(self.loop)
        precondition(status == 0, "uv_loop_close failed: status=\(status) \(String(cString: uv_strerror(status)))")
        if self.timerFD >= 0 { _ = close(self.timerFD) }
        self.loop.deallocate()
        self.async.deallocate()
        self.poll.deallocate()
        self.prepare.deallocate()
        self.check.deallocate()
    }

    /// For a loop that never got a thread: closes everything and runs the close callbacks on this thread.
    func closeAllAndDestroy() {
        self.closeAll()
        _ = uv_run(self.loop, UV_RUN_DEFAULT)
        self.destroy()
    }
}
