import CLibUV

/// Why an `EventLoopThread` could not start. Thrown only by `EventLoopThread.init`; once running, the loop
/// has no operating errors (broken invariants trap instead).
package struct EventLoopError: Error, CustomStringConvertible {
    /// What failed. Opaque so that new cases do not break callers that switch over it.
    package struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Base: String, Hashable, Sendable {
            case loopInitFailed
            case asyncInitFailed
            case timerCreateFailed
            case pollInitFailed
            case threadStartFailed
            case invalidPriority
            case invalidWakeupSpin
        }

        private var base: Base

        /// `uv_loop_init` failed.
        package static let loopInitFailed = Code(base: .loopInitFailed)
        /// `uv_async_init` (the inbox's wake-up) failed.
        package static let asyncInitFailed = Code(base: .asyncInitFailed)
        /// `timerfd_create` failed.
        package static let timerCreateFailed = Code(base: .timerCreateFailed)
        /// `uv_poll_init` or `uv_poll_start` on the timerfd failed.
        package static let pollInitFailed = Code(base: .pollInitFailed)
        /// `pthread_create` failed.
        package static let threadStartFailed = Code(base: .threadStartFailed)
        /// A `LoopThreadPriority.realtime` priority outside `LoopThreadPriority.realtimePriorities`.
        package static let invalidPriority = Code(base: .invalidPriority)
        /// A wake-up spin below zero or above `LoopLimits.maximumWakeupSpin`.
        package static let invalidWakeupSpin = Code(base: .invalidWakeupSpin)

        package var description: String { self.base.rawValue }
    }

    package var code: Code
    /// The `name` given to `EventLoopThread.init`.
    package var loopName: String
    /// The failing call's status: a negative errno or libuv status (libuv uses -errno on Linux).
    package var status: Int32
    /// What was expected, when the status alone does not say it.
    package var detail: String?
    package var file: String
    package var line: Int

    init(
        _ code: Code,
        loopName: String,
        status: Int32,
        detail: String? = nil,
        file: String = #fileID,
        line: Int = #line
    ) {
        self.code = code
        self.loopName = loopName
        self.status = status
        self.detail = detail
        self.file = file
        self.line = line
    }

    package var description: String {
        let reason = String(cString: uv_strerror(self.status))
        let detail = self.detail.map { ", \($0)" } ?? ""
        return "EventLoopError(\(self.code), loop: '\(self.loopName)', status: \(self.status) \(reason)\(detail)) "
            + "at \(self.file):\(self.line)"
    }
}
